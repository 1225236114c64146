// expect: xlet::tensor: the expression's shape and element type must equal the tensor's
// expect: xlet::tensor<float, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; f32<3, 2> b = a + a;
}
