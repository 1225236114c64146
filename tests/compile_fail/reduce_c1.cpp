// expect: xlet::reduce [C1]: dimensions must be in [0, rank) and not repeated
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto r = reduce(a, 0.0f, add_fn{}, dims<2>);
}
