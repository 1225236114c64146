// expect: xlet::pad [C1]: the padding config needs one entry per operand dimension
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = pad(a, 0.0f, dims<1>, dims<1>, dims<0>);
}
