// expect: xlet::select [C1]: pred must have element type pred
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> p, a, b; auto e = select(p, a, b);
}
