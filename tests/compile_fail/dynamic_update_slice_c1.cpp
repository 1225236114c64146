// expect: xlet::dynamic_update_slice [C1]: needs one start index per operand dimension
// expect: xlet::tensor<float, 4, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 4> a; f32<2, 2> u; auto e = dynamic_update_slice(a, u, 1);
}
