// expect: xlet::dot_general [C6]: lhs_batch dimensions must be in [0, rank(lhs))
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    f32<2, 3> b;
    auto r = dot_general<dot_dims{.lhs_batch = {2}, .rhs_batch = {0}, .lhs_contracting = {1}, .rhs_contracting = {1}}>(a, b);
}
