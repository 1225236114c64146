// expect: xlet::cholesky [C4]: the element type must be f32, f64, c64 or c128
// expect: xlet::tensor<int, 3, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<3, 3> a;
    auto r = cholesky<true>(a);
}
