// expect: xlet::select [C8]: operands of different quantized types need the result type: select<R>(...)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    using Qc = quant::uniform<std::int8_t, float, quant::scale(0.25), -3>;
    pred<4> p;
    tensor<Q, 4> a;
    tensor<Qc, 4> b;
    auto e = select(p, a, b);
    (void)e;
}
