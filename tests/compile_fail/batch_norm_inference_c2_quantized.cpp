// expect: xlet::batch_norm_inference [C2]: operands and results must have one baseline element type (all quantized,
// equal but for scales and zero points)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 0>;
    tensor<Q, 4, 2> x;
    tensor<float, 2> v; // a float scale beside a quantized operand
    auto y = batch_norm_inference<1>(x, v, v, v, v, 1e-3f);
}
