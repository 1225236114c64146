// expect: xlet::dot_general [C10]: paired batch dimensions must have the same size
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3, 4> a;
    f32<5, 4, 3> b;
    auto r = dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}}>(a, b);
}
