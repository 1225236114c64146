// expect: xlet::ragged_all_to_all [C3]: input and output must have the same element type and the same dimensions after
// the first expect: xlet::tensor<float, 6, 3>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<6, 2> in, out;
    s32<2> off, sz;
    f32<6, 3> bad;
    auto r = ragged_all_to_all(ctx, in, off, sz, bad, off, sz);
}
