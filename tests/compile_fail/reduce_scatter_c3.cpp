// expect: xlet::reduce_scatter [C3]: the computation must take two elements of the operand's type and return one
// expect: xlet::tensor<float, 4, 6>
#include <xlet/distributed.hpp>
using namespace xlet;
void f(replica_context& ctx) {
    f32<4, 6> a;
    auto r = reduce_scatter<0, 2>(ctx, a, [](float x, float y, float z) { return x + y + z; });
}
