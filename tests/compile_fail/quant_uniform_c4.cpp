// expect: xlet::quant::uniform [C4]: the expressed type must be f16, bf16, f32 or f64
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform<std::int8_t, std::int32_t, quant::scale(0.5), 0> q{};
    (void)q;
}
