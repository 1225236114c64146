// expect: xlet::conv_general_dilated [C31]: quantized lhs and rhs must have the same storage type
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using X = uniform<std::uint8_t, float, scale(0.5), 128>;
    using K = uniform<std::int8_t, float, scale(0.25), 0>;
    tensor<X, 1, 4, 4, 2> x;
    tensor<K, 3, 3, 2, 2> k;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")}, X>(x, k);
}
