// expect: xlet::select [C4]: on_true and on_false must have the same element type
// expect: xlet::tensor<double, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    pred<2> p; f32<2> a; f64<2> b; auto e = select(p, a, b);
}
