// expect: xlet::quant::uniform_per_axis [C5]: every scale, rounded to the expressed type, must be > 0
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform_per_axis<std::int8_t, float, 0, quant::scales(0.5, -1.0), quant::zero_points(0, 0)> q{};
    (void)q;
}
