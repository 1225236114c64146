// expect: xlet::ragged_dot [C5]: rhs_batch and rhs_contracting must not repeat a dimension
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<6, 4> x;
    f32<3, 4, 2> w;
    s32<3> g;
    auto r = ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1, 0}, .rhs_contracting = {1, 1}}, .lhs_ragged = {0}, .rhs_group = {0}}>(x, w, g);
}
