// expect: xlet::batch_norm_training [C2]: operands and results must have one baseline element type (all quantized,
// equal but for scales and zero points)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 0>;
    using U = quant::uniform<std::uint8_t, float, quant::scale(0.5), 128>; // another storage type
    tensor<Q, 4, 2> x;
    tensor<Q, 2> v;
    auto [y, m, var] = batch_norm_training<1, U>(x, v, v, 1e-3f);
}
