// expect: xlet::triangular_solve [C3]: a and b must have the same batch dimensions
// expect: xlet::tensor<float, 5, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 3, 3> a;
    f32<5, 3, 2> b;
    auto r = triangular_solve<true, false, true, transpose_type::transpose>(a, b);
}
