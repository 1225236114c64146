// expect: xlet::clamp [C2]: min, operand and max must have the same element type
// expect: xlet::tensor<double>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f64<> lo; f32<2> x; auto e = clamp(lo, x, 1.0f);
}
