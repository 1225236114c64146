// expect: xlet::eq [C5]: with a quantized operand, every operand must be a quantized tensor
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> a;
    f32<4> x;
    auto e = eq(a, x);
    (void)e;
}
