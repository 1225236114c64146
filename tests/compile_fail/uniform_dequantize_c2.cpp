// expect: xlet::uniform_dequantize [C2]: the operand must be quantized
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> x;
    auto e = uniform_dequantize(x);
    (void)e;
}
