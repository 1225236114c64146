// expect: xlet::dynamic_slice [C1]: needs one slice size and one start index per operand dimension
// expect: xlet::tensor<float, 4, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 4> a; auto e = dynamic_slice(a, sizes<2>, 1, 1);
}
