// expect: xlet::slice [C2]: need 0 <= start <= limit <= dimension size
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a; auto e = slice(a, dims<3>, dims<2>);
}
