// expect: xlet::triangular_solve [C5]: the element type must be f32, f64, c64 or c128
// expect: xlet::tensor<xlet::half, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f16<3, 3> a;
    f16<3, 2> b;
    auto r = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
}
