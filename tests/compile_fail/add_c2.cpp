// expect: xlet::add [C2]: operands must have the same element type
// expect: xlet::tensor<double, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a; f64<2> b; auto e = a + b;
}
