// expect: xlet::min [C3]: element type must be pred, an integer or floating type
// expect: std::complex<double>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c128<2> a; auto e = min(a, a);
}
