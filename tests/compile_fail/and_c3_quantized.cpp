// expect: xlet::and_ [C3]: element type must be pred or an integer type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> a;
    auto e = and_(a, a); // no quantized form in the spec
    (void)e;
}
