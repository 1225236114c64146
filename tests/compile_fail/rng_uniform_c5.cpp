// expect: xlet::rng_uniform [C5]: the element type must be pred, an integer or a floating-point type
// expect: tensor<std::complex<float>, 8>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<> a, b;
    auto r = rng_uniform<c64<8>>(a, b); // complex has no order
}
