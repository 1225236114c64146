// expect: xlet::dot [C2]: lhs and rhs must have rank 1 or 2
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3, 4> a;
    f32<4> b;
    auto r = dot(a, b);
}
