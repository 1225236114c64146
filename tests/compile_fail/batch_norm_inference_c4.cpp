// expect: xlet::batch_norm_inference [C4]: offset must have rank 1 and size dim(operand, feature_index)
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> s, m, v;
    f32<4> o;
    auto r = batch_norm_inference<1>(x, s, o, m, v, 1e-3f);
}
