// expect: xlet::dynamic_slice [C2]: slice sizes must be in [0, operand size]
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a; auto e = dynamic_slice(a, sizes<5>, 0);
}
