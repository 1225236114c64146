// expect: xlet::fft [C3]: fft_length must have 1 to 3 entries
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<2, 2, 2, 2> x;
    auto r = fft<fft_type::fft, 2, 2, 2, 2>(x);
}
