// expect: xlet::scaled_dot [C6]: lhs_batch dimensions must be in 
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 4> a;
    f32<2, 1> as;
    f32<2, 4, 3> b;
    f32<2, 1, 3> bs;
    auto r = scaled_dot<dot_dims{.lhs_batch = {2}, .rhs_batch = {0}, .lhs_contracting = {1}, .rhs_contracting = {1}}>(a, as, b, bs);
}
