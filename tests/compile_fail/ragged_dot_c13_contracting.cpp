// expect: xlet::ragged_dot [C13]: rhs_group must hold exactly one dimension of rhs
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<6, 4> x;
    f32<4, 2> w;
    s32<3> g;
    // ragged contracting dimension (mode 2): rhs has no group dimension
    auto r = ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, .lhs_ragged = {1}, .rhs_group = {1}}>(x, w, g);
}
