// expect: xlet::add [C1]: operand shapes must be equal
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; f32<3> b; auto e = a + b; // needs dims<1>
}
