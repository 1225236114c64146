// expect: xlet::bitcast [C1]: the result must be a tensor type of the operand's size in bytes
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    (void)bitcast<f32<5>>(x); // 24 bytes into 20
}
