// expect: xlet::ragged_all_to_all [C2]: offsets and sizes must be integer arrays
// expect: xlet::tensor<float, 2>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<6, 2> in, out;
    s32<2> off, sz;
    f32<2> bad;
    auto r = ragged_all_to_all(ctx, in, off, sz, out, bad, sz);
}
