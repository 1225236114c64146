// expect: xlet::batch_norm_grad [C2]: operand, scale, mean, variance and grad_output must have the same element type
// expect: xlet::tensor<double, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f64<2, 3> gy;
    f32<3> s, m, v;
    auto r = batch_norm_grad<1>(x, s, m, v, gy, 1e-3f);
}
