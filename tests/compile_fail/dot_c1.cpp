// expect: xlet::dot [C1]: lhs and rhs must have the same element type, an integer, floating or complex type
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> a;
    s32<3> b;
    auto r = dot(a, b);
}
