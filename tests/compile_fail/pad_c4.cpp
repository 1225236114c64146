// expect: xlet::pad [C4]: the padding value must be a scalar of the operand's element type
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; f32<2> v; auto e = pad(a, v, dims<0, 0>, dims<0, 0>, dims<0, 0>);
}
