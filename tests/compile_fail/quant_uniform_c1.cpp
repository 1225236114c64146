// expect: xlet::quant::uniform [C1]: the storage type must be
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    quant::uniform<float, float, quant::scale(0.5), 0> q{};
    (void)q;
}
