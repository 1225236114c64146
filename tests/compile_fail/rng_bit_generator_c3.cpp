// expect: xlet::rng_bit_generator [C3]: initial_state must be a rank-1 u64 array
// expect: tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    u32<2> state; // u32, not u64
    auto r = rng_bit_generator<rng_algorithm::three_fry, u32<8>>(state);
}
