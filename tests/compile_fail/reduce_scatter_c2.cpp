// expect: xlet::reduce_scatter [C2]: shard_count must be positive and divide dim(operand, scatter_dimension)
// expect: dimensions<1, 4>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = reduce_scatter<1, 4>(ctx, a, add_fn{});
}
