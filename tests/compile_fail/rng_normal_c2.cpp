// expect: xlet::rng_normal [C2]: the element type must be floating-point
// expect: tensor<int, 8>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto r = rng_normal<s32<8>>(0, 1); // integers have no normal distribution
}
