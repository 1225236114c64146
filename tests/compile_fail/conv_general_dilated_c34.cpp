// expect: xlet::conv_general_dilated [C34]: with a float lhs (hybrid), lhs's type, rhs's expressed type and the result
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using K = uniform<std::int8_t, float, scale(0.25), 0>;
    bf16<1, 4, 4, 2> x; // bf16 activations, f32-expressed weights
    tensor<K, 3, 3, 2, 2> k;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")}>(x, k);
}
