// expect: xlet::rng_normal [C1]: mu, sigma and the result must have the same element type
// expect: tensor<double>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f64<> mu;
    auto r = rng_normal<f32<8>>(mu, 1.0f); // f64 mu for an f32 result
}
