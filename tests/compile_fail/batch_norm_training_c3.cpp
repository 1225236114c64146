// expect: xlet::batch_norm_training [C3]: scale must have rank 1 and size dim(operand, feature_index)
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<2> s;
    f32<3> o;
    auto r = batch_norm_training<1>(x, s, o, 1e-3f);
}
