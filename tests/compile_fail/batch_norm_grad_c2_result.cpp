// expect: xlet::batch_norm_grad [C2]: the results of a floating operand have its element type (result types are named
// for quantized operands)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 0>;
    tensor<float, 4, 2> x;
    tensor<float, 2> v;
    auto [gx, gs, go] = batch_norm_grad<1, Q>(x, v, v, v, x, 1e-3f);
}
