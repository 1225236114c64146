// expect: xlet::rng_bit_generator [C2]: initial_state must be u64[2] for three_fry, u64[2] or u64[3] for philox
// expect: tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    u64<4> state;
    auto r = rng_bit_generator<rng_algorithm::philox, u32<8>>(state); // philox takes u64[2] or u64[3]
}
