// expect: xlet::sub [C6]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    using N = quant::uniform<std::int8_t, float, quant::scale(0.5), 2, -127, 127>;
    tensor<Q, 4> a;
    tensor<N, 4> b;
    auto e = sub<Q>(a, b); // another storage range: add only
    (void)e;
}
