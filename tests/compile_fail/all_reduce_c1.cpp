// expect: xlet::all_reduce [C1]: the computation must take two elements of the operand's type and return one
// expect: xlet::tensor<float, 4, 6>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = all_reduce(ctx, a, [](float x) { return x; });
}
