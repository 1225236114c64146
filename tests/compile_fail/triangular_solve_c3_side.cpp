// expect: xlet::triangular_solve [C3]: b's dimension -2 (left_side) or -1 (right side) must equal a's size M
// expect: xlet::tensor<float, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 3> a;
    f32<3, 2> b; // right side: b must be [k, 3]
    auto r = triangular_solve<false, true, false, transpose_type::adjoint>(a, b);
}
