// expect: xlet::dot_general [C3]: lhs_contracting and rhs_contracting must have the same size
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    f32<2, 3> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {0, 1}, .rhs_contracting = {1}}>(a, b);
}
