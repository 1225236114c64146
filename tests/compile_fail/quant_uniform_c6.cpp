// expect: xlet::quant::uniform [C6]: the scale, rounded to the expressed type, must be finite
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    // 1e39 is inf in f32 (a valid f64 scale)
    quant::uniform<std::int8_t, float, quant::scale(1e39), 0> q{};
    (void)q;
}
