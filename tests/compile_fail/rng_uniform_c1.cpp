// expect: xlet::rng_uniform [C1]: a, b and the result must have the same element type
// expect: tensor<int>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<> a, b;
    auto r = rng_uniform<f32<8>>(a, b); // s32 bounds for an f32 result
}
