// expect: xlet::bitcast_convert_type [C3]: complex and non-complex types do not bitcast into each other
// expect: std::complex<float>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<2> a; auto e = bitcast_convert_type<double>(a);
}
