// expect: xlet::rng_bit_generator [C2]: initial_state must be u64[2] for three_fry
// expect: tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    u64<3> state;
    auto r = rng_bit_generator<rng_algorithm::three_fry, u32<8>>(state); // three_fry takes u64[2]
}
