// expect: xlet::scaled_dot [C15]: on a batch or free dimension the scale's size must be the operand's or 1
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<6, 64> a;
    f32<3, 2> as; // 3 scales for 6 rows: blocks only along contracting dimensions
    f32<64, 3> b;
    f32<2, 3> bs;
    auto r = scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, as, b, bs);
}
