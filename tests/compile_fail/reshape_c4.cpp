// expect: xlet::reshape [C4]: a per-axis quantized operand's quantization dimension must remain a dimension
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P =
        quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.5, 0.25, 2.0), quant::zero_points(1, -3, 0)>;
    tensor<P, 2, 3> a;
    auto e = reshape(a, sizes<6>); // dimension 1 (3 scales) merged away
    (void)e;
}
