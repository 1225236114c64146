// expect: xlet::quant::uniform [C7]: the zero point must be within [storage_min, storage_max]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform<quant::i4, float, quant::scale(0.5), 8> q{};
    (void)q;
}
