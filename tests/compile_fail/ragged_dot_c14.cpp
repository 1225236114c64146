// expect: xlet::ragged_dot [C14]: group_sizes must be a rank-1 array of an integer type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<6, 4> x;
    f32<3, 4, 2> w;
    f32<3> g;
    auto r = ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}, .lhs_ragged = {0}, .rhs_group = {0}}>(x, w, g);
}
