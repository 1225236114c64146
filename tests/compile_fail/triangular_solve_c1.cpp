// expect: xlet::triangular_solve [C1]: a and b must have the same element type
// expect: xlet::tensor<double, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 3> a;
    f64<3, 2> b;
    auto r = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
}
