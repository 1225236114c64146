// expect: xlet::clamp [C1]: min and max must be scalars or have the operand's shape
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> lo; f32<2> x; auto e = clamp(lo, x, 1.0f);
}
