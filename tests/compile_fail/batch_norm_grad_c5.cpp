// expect: xlet::batch_norm_grad [C5]: size(scale) must be dim(operand, feature_index)
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x, gy;
    f32<2> s, m, v;
    auto r = batch_norm_grad<1>(x, s, m, v, gy, 1e-3f);
}
