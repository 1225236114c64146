// expect: xlet::scaled_dot [C4]: lhs_batch and lhs_contracting must not repeat a dimension
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 4> a;
    f32<1, 1> as;
    f32<4, 4> b;
    f32<1, 1> bs;
    auto r = scaled_dot<dot_dims{.lhs_batch = {1}, .rhs_batch = {1}, .lhs_contracting = {1}, .rhs_contracting = {0}}>(a, as, b, bs);
}
