// expect: xlet::triangular_solve [C2]: a and b must have the same rank, at least 2
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 3> a;
    f32<3> b;
    auto r = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
}
