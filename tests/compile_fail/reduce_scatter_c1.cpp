// expect: xlet::reduce_scatter [C1]: scatter_dimension must be in [0, rank)
// expect: dimensions<-1>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = reduce_scatter<-1, 2>(ctx, a, add_fn{});
}
