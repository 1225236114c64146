// expect: xlet::batch_norm_training [C1]: feature_index must be in [0, rank(operand))
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> s, o;
    auto r = batch_norm_training<2>(x, s, o, 1e-3f);
}
