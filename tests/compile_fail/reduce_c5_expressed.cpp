// expect: xlet::reduce [C5]: the body's type must be per-tensor quantized with the operand's expressed type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    using Other = quant::uniform<std::int32_t, bfloat16, quant::scale(0.5), 0>;
    tensor<Q, 3, 2> a;
    auto r = reduce<Other>(a, Q(2), add_fn{}, dims<0>); // another expressed type
}
