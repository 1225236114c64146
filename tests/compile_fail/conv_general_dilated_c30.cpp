// expect: xlet::conv_general_dilated [C30]: a per-axis quantized result must be quantized along
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using X = uniform<std::int8_t, float, scale(0.5), 1>;
    using K = uniform_per_axis<std::int8_t, float, 3, scales(0.5, 0.25), zero_points(0, 0)>;
    using R = uniform_per_axis<std::int8_t, float, 2, scales(0.5, 0.25), zero_points(0, 0)>; // along W
    tensor<X, 1, 2, 2, 2> x;
    tensor<K, 1, 1, 2, 2> k;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")}, R>(x, k);
}
