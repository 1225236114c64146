// expect: xlet::batch_norm_grad [C4]: scale, mean and variance must have rank 1 and the same size
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x, gy;
    f32<3> s, m;
    f32<4> v;
    auto r = batch_norm_grad<1>(x, s, m, v, gy, 1e-3f);
}
