// expect: xlet::map [C1]: all operands must have the same shape
// expect: xlet::tensor<float, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    f32<3, 2> b;
    auto m = map([](float x, float y) { return x + y; }, a, b);
}
