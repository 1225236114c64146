// expect: xlet::reduce [C6]: the monoid is not defined on this element type
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto r = reduce(a, 0.0f, and_fn{}, dims<1>);
}
