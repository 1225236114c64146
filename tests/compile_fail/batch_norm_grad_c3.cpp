// expect: xlet::batch_norm_grad [C3]: grad_output must have the shape of operand
// expect: xlet::tensor<float, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3, 2> gy;
    f32<3> s, m, v;
    auto r = batch_norm_grad<1>(x, s, m, v, gy, 1e-3f);
}
