// expect: xlet::dot_general [C4]: lhs_batch and lhs_contracting must not repeat a dimension
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 3> a;
    f32<3, 3> b;
    auto r = dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {0}, .rhs_contracting = {1}}>(a, b);
}
