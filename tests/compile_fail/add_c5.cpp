// expect: xlet::add [C5]: with a quantized operand, every operand and the result must be quantized tensors
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> q;
    f32<4> x;
    auto e = add(q, x);
    (void)e;
}
