// expect: xlet::dot_general [C5]: rhs_batch and rhs_contracting must not repeat a dimension
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 3, 3> a;
    f32<3, 3> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {0, 1}, .rhs_contracting = {1, 1}}>(a, b);
}
