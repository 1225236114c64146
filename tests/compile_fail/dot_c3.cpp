// expect: xlet::dot [C3]: the contracted dimensions (last of lhs, first of rhs) must have the same size
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    f32<2, 3> b;
    auto r = dot(a, b);
}
