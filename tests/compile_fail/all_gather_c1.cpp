// expect: xlet::all_gather [C1]: all_gather_dimension must be in [0, rank)
// expect: dimensions<2>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = all_gather<2, 4>(ctx, a);
}
