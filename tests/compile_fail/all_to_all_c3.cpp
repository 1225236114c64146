// expect: xlet::all_to_all [C3]: split_count must be positive and divide dim(operand, split_dimension)
// expect: dimensions<1, 4>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = all_to_all<1, 0, 4>(ctx, a);
}
