// expect: xlet::conv_general_dilated [I1]: lhs must be a tensor or a per-tensor quantized tensor, not per-axis
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using X = uniform_per_axis<std::int8_t, float, 3, scales(0.5, 0.25), zero_points(0, 0)>;
    using K = uniform<std::int8_t, float, scale(0.25), 0>;
    using R = uniform<std::int8_t, float, scale(0.5), 0>;
    tensor<X, 1, 4, 4, 2> x;
    tensor<K, 3, 3, 2, 2> k;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")}, R>(x, k);
}
