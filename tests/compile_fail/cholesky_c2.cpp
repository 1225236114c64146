// expect: xlet::cholesky [C2]: a must have rank >= 2
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a;
    auto r = cholesky<true>(a);
}
