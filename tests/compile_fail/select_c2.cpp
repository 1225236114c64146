// expect: xlet::select [C2]: pred must be a scalar or have the shape of on_true
// expect: xlet::tensor<bool, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    pred<3> p; f32<2> a, b; auto e = select(p, a, b);
}
