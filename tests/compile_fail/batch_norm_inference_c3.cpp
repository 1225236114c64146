// expect: xlet::batch_norm_inference [C3]: scale must have rank 1 and size dim(operand, feature_index)
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> s, o, m, v;
    auto r = batch_norm_inference<0>(x, s, o, m, v, 1e-3f); // features are dimension 0, of size 2
}
