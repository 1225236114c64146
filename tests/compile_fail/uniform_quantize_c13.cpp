// expect: xlet::quant::uniform_per_axis [C13]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P =
        quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.5, 0.25, 2.0), quant::zero_points(1, -3, 0)>;
    f32<2, 4> x; // 4 along dimension 1, 3 scales
    auto e = uniform_quantize<P>(x);
    (void)e;
}
