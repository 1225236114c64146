// expect: xlet::select [C3]: on_true and on_false must have the same shape
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    pred<2> p; f32<2> a; f32<3> b; auto e = select(p, a, b);
}
