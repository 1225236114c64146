// expect: xlet::dot_general [C9]: rhs_contracting dimensions must be in [0, rank(rhs))
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    f32<3> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}>(a, b);
}
