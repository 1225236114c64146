// expect: xlet::batch_norm_grad [C1]: feature_index must be in [0, rank(operand))
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x, gy;
    f32<3> s, m, v;
    auto r = batch_norm_grad<5>(x, s, m, v, gy, 1e-3f);
}
