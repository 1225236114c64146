// expect: xlet::uniform_quantize [C2]: the result type must be quantized, with the operand's element type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    f64<4> x;
    auto e = uniform_quantize<Q>(x); // Q expresses f32 values
    (void)e;
}
