// expect: xlet::cholesky [C3]: a's two minor dimensions must be equal
// expect: xlet::tensor<float, 2, 3, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3, 4> a;
    auto r = cholesky<false>(a);
}
