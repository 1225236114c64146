// expect: xlet::batch_norm_training [C4]: offset must have rank 1 and size dim(operand, feature_index)
// expect: xlet::tensor<float, 1, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> s;
    f32<1, 3> o;
    auto r = batch_norm_training<1>(x, s, o, 1e-3f);
}
