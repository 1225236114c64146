// expect: xlet::batch_norm_inference [C2]: operand, scale, offset, mean and variance must have the same element type
// expect: xlet::tensor<xlet::bfloat16, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> s, o, v;
    bf16<3> m;
    auto r = batch_norm_inference<1>(x, s, o, m, v, 1e-3f);
}
