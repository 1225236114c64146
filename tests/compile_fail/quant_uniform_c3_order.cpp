// expect: xlet::quant::uniform [C3]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform<std::uint8_t, float, quant::scale(0.5), 5, 10, 10> q{};
    (void)q;
}
