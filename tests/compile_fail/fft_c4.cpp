// expect: xlet::fft [C4]: the operand's innermost dimensions must equal fft_length
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<4, 8> x;
    auto r = fft<fft_type::fft, 4, 4>(x);
}
