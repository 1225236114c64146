// expect: xlet::dot_general [C1]: lhs and rhs must have the same element type, an integer, floating or complex type
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    f64<3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, b);
}
