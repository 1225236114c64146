// expect: xlet::top_k [C3]: the element type must be pred, an integer or floating type
// expect: xlet::tensor<std::complex<float>, 5>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<5> a;
    auto r = top_k<2>(a);
}
