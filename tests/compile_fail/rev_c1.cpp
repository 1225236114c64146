// expect: xlet::rev [C1]: dimensions must be in range
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = rev(a, dims<2>);
}
