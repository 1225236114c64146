// expect: xlet::batch_norm_grad [C6]: the element type must be floating point (f16, bf16, f32, f64)
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2, 3> x, gy;
    s32<3> s, m, v;
    auto r = batch_norm_grad<1>(x, s, m, v, gy, 1e-3f);
}
