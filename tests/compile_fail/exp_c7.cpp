// expect: xlet::exp [C7]: per-axis quantized operands are for add only
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P =
        quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.5, 0.25, 2.0), quant::zero_points(1, -3, 0)>;
    tensor<P, 2, 3> a;
    auto e = exp(a);
    (void)e;
}
