// expect: xlet::dynamic_update_slice [C2]: update must have the operand's rank and element type and fit inside it
// expect: xlet::tensor<int, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a; s32<2> u; auto e = dynamic_update_slice(a, u, 0);
}
