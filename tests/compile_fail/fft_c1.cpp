// expect: xlet::fft [C1]: fft_length must not have more entries than the operand's rank
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<8> x;
    auto r = fft<fft_type::fft, 8, 8>(x);
}
