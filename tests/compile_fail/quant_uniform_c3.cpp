// expect: xlet::quant::uniform [C3]: need min_value(storage) <= storage_min < storage_max
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform<std::int8_t, float, quant::scale(0.5), 0, -200, 127> q{};
    (void)q;
}
