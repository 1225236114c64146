// expect: xlet::dynamic_update_slice [C2]: update must have the operand's rank and element type and fit inside it
// expect: xlet::tensor<float, 2, 1, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 4> a; f32<2, 1, 1> u; auto e = dynamic_update_slice(a, u, 0, 0);
}
