// expect: xlet::quant::uniform_per_axis [C7]: every zero point must be within
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform_per_axis<std::uint8_t, float, 0, quant::scales(0.5, 1.0), quant::zero_points(0, -1)> q{};
    (void)q;
}
