// expect: xlet::clamp [C3]: element type must be pred, an integer or floating type
// expect: std::complex<float>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<2> a; auto e = clamp(a, a, a);
}
