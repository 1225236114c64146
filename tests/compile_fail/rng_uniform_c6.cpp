// expect: xlet::rng_uniform [C6]: the static bounds must satisfy a < b
// expect: tensor<int, 8>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto r = rng_uniform<s32<8>, 5, 3>(); // a >= b known at compile time
}
