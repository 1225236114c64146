// expect: xlet::dot_general [C14]: the preferred element type must be of the operands' kind (integer, floating or complex)
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s8<2, 3> a;
    s8<3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, float>(a, b);
}
