// expect: xlet::add [C2]: operands must have the same element type
// expect: xlet::tensor<int, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2> a; auto e = a + 2.5; // a float value never narrows into s32
}
