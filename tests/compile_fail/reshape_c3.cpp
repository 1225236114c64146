// expect: xlet::reshape [C3]: the target shape must have the operand's element type
// expect: xlet::tensor<double, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = reshape<f64<3, 2>>(a);
}
