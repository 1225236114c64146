// expect: xlet::rng_bit_generator [C4]: the output element type must be an integer or floating-point type
// expect: tensor<bool, 8>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    u64<2> state;
    auto r = rng_bit_generator<rng_algorithm::three_fry, pred<8>>(state); // pred has no random bits
}
