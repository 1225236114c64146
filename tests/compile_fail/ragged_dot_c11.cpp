// expect: xlet::ragged_dot [C11]: paired contracting dimensions must have the same size
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<6, 4> x;
    f32<3, 5, 2> w;
    s32<3> g;
    auto r = ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}, .lhs_ragged = {0}, .rhs_group = {0}}>(x, w, g);
}
