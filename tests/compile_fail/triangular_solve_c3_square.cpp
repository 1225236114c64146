// expect: xlet::triangular_solve [C3]: a's two minor dimensions must be equal
// expect: xlet::tensor<float, 3, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 4> a;
    f32<3, 2> b;
    auto r = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
}
