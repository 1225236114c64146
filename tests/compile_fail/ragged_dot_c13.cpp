// expect: xlet::ragged_dot [C13]: rhs_group must hold exactly one dimension of rhs, neither batch nor contracting
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<6, 4> x;
    f32<3, 4, 2> w;
    s32<3> g;
    // the ragged dimension is free (mode 1) but the group dimension is rhs's contracting one
    auto r = ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}, .lhs_ragged = {0}, .rhs_group = {1}}>(x, w, g);
}
