// expect: xlet::rng_normal [C4]: mu and sigma must be scalars (rank 0)
// expect: tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> sigma;
    auto r = rng_normal<f32<8>>(0.0f, sigma); // sigma is not a scalar
}
