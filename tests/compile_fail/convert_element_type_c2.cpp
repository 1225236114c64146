// expect: xlet::convert_element_type [C2]: quantized types convert with uniform_quantize and uniform_dequantize
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 4> a;
    auto e = convert_element_type<float>(a);
    (void)e;
}
