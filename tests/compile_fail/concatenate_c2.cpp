// expect: xlet::concatenate [C2]: operands must have the same element type
// expect: xlet::tensor<int, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a; s32<2> b; auto e = concatenate<0>(a, b);
}
