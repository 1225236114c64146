// expect: xlet::scaled_dot [C14]: on a contracting dimension the scale's size must divide the operand's
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 96> a;
    f32<2, 5> as; // 96 is not a multiple of 5
    f32<96, 3> b;
    f32<3, 3> bs;
    auto r = scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, as, b, bs);
}
