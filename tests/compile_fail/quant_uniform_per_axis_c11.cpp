// expect: xlet::quant::uniform_per_axis [C11]: the quantization dimension must be >= 0
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform_per_axis<std::int8_t, float, -1, quant::scales(0.5), quant::zero_points(1)> q{};
    (void)q;
}
