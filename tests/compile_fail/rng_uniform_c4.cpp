// expect: xlet::rng_uniform [C4]: a and b must be scalars (rank 0)
// expect: tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a;
    auto r = rng_uniform<f32<8>>(a, 1.0f); // a is not a scalar
}
