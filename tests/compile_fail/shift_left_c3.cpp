// expect: xlet::shift_left [C3]: element type must be an integer type
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a; auto e = shift_left(a, a);
}
