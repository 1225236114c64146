// expect: xlet::ragged_dot [C10]: paired batch dimensions must have the same size
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 6, 4> x;
    f32<3, 5, 4, 2> w;
    s32<3> g;
    auto r = ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_batch = {0}, .rhs_batch = {1}, .lhs_contracting = {2}, .rhs_contracting = {2}}, .lhs_ragged = {1}, .rhs_group = {0}}>(x, w, g);
}
