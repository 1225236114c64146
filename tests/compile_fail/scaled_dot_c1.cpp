// expect: xlet::scaled_dot [C1]: lhs and rhs must have the same element type, a floating type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2, 4> a;
    f32<2, 1> as;
    s32<4, 3> b;
    f32<1, 3> bs;
    auto r = scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, as, b, bs);
}
