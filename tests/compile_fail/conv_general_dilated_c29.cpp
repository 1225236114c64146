// expect: xlet::conv_general_dilated [C29]: a per-axis quantized rhs must be quantized along
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using X = uniform<std::int8_t, float, scale(0.5), 1>;
    using K = uniform_per_axis<std::int8_t, float, 2, scales(0.5, 0.25), zero_points(0, 0)>; // along I
    using R = uniform<std::int8_t, float, scale(0.5), 0>;
    tensor<X, 1, 4, 4, 2> x;
    tensor<K, 3, 3, 2, 2> k;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")}, R>(x, k);
}
