// expect: xlet::scaled_dot [C10]: paired batch dimensions must have the same size
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3, 4> a;
    f32<2, 3, 1> as;
    f32<5, 4, 3> b;
    f32<5, 1, 3> bs;
    auto r = scaled_dot<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}}>(a, as, b, bs);
}
