// expect: xlet::compare [C3]: comparison_type::TOTALORDER needs a floating element type
// expect: xlet::tensor<std::complex<float>, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<2, 3> a, b; auto e = compare<comparison_direction::EQ, comparison_type::TOTALORDER>(a, b);
}
