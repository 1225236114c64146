// expect: xlet::batch_norm_training [C8]: the element type must be floating point (f16, bf16, f32, f64)
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2, 3> x;
    s32<3> s, o;
    auto r = batch_norm_training<1>(x, s, o, 1e-3f);
}
