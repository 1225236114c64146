// expect: xlet::ragged_all_to_all [C1]: input_offsets, send_sizes, output_offsets and recv_sizes must have one shape
// expect: xlet::tensor<int, 3>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<6, 2> in, out;
    s32<2> off, sz;
    s32<3> bad;
    auto r = ragged_all_to_all(ctx, in, off, sz, out, off, bad);
}
