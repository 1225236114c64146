// expect: xlet::scaled_dot [C9]: rhs_contracting dimensions must be in 
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 4> a;
    f32<2, 1> as;
    f32<4, 3> b;
    f32<1, 3> bs;
    auto r = scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {2}}>(a, as, b, bs);
}
