// expect: xlet::quant::uniform [C5]: the scale, rounded to the expressed type, must be > 0
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    // 1e-50 is 0 in f32
    quant::uniform<std::int8_t, float, quant::scale(1e-50), 0> q{};
    (void)q;
}
