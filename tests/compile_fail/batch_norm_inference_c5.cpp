// expect: xlet::batch_norm_inference [C5]: mean must have rank 1 and size dim(operand, feature_index)
// expect: xlet::tensor<float>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> s, o, v;
    f32<> m;
    auto r = batch_norm_inference<1>(x, s, o, m, v, 1e-3f);
}
