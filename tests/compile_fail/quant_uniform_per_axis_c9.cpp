// expect: xlet::quant::uniform_per_axis [C9]: need as many zero points as scales
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform_per_axis<std::int8_t, float, 0, quant::scales(0.5, 0.25), quant::zero_points(1)> q{};
    (void)q;
}
