// expect: xlet::convert_element_type [C2]: complex to non-complex is not a conversion
// expect: std::complex<float>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<2> a; auto e = convert_element_type<float>(a);
}
