// expect: xlet::all_gather [C2]: shard_count must be positive
// expect: dimensions<0>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = all_gather<0, 0>(ctx, a);
}
