// expect: xlet::pad [C4]: the padding value must be a scalar of the operand's element type
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2, 3> a; auto e = pad(a, 0.5f, dims<0, 0>, dims<0, 0>, dims<0, 0>);
}
