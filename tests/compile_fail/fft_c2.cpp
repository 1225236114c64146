// expect: xlet::fft [C2]: FFT and IFFT take c64 / c128, RFFT f32 / f64, IRFFT c64 / c128
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<8> x;
    auto r = fft<fft_type::fft, 8>(x);
}
