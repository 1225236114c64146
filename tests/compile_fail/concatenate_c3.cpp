// expect: xlet::concatenate [C3]: operands must have the same rank
// expect: xlet::tensor<float, 2, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a; f32<2, 1> b; auto e = concatenate<0>(a, b);
}
