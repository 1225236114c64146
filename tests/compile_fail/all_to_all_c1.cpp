// expect: xlet::all_to_all [C1]: split_dimension must be in [0, rank)
// expect: dimensions<3>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = all_to_all<3, 0, 2>(ctx, a);
}
