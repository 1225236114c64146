// expect: xlet::batch_norm_training [C2]: operand, scale and offset must have the same element type
// expect: xlet::tensor<double, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f64<3> s;
    f32<3> o;
    auto r = batch_norm_training<1>(x, s, o, 1e-3f);
}
