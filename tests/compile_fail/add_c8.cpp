// expect: xlet::add [C8]: operands of different quantized types need the result type: add<R>(...)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    using Qc = quant::uniform<std::int8_t, float, quant::scale(0.25), -3>;
    tensor<Q, 4> a;
    tensor<Qc, 4> b;
    auto e = a + b;
    (void)e;
}
