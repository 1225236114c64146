// expect: xlet::bitcast [C2]: the element widths must be equal
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    (void)bitcast<f64<3>>(x); // same bytes, wider elements
}
