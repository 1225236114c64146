// expect: xlet::reduce [C5]: the body's type must be per-tensor quantized with the operand's expressed type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int16_t, float, quant::scale(0.5), 2>;
    using Narrow = quant::uniform<std::int8_t, float, quant::scale(0.5), 0>;
    tensor<Q, 3, 2> a;
    auto r = reduce<Narrow>(a, Q(2), add_fn{}, dims<0>); // 8 bits < 16 bits: not promotable
}
