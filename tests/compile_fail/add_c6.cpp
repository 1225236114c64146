// expect: xlet::add [C6]: quantized operands and result must differ in scales and zero points only
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    using W = quant::uniform<std::int16_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> a;
    tensor<W, 4> b;
    auto e = add<Q>(a, b); // i8 and i16 storage
    (void)e;
}
