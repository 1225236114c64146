// expect: xlet::clamp [C5]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> a;
    auto e = clamp(0.0f, a, 1.0f); // bounds must be quantized tensors
    (void)e;
}
