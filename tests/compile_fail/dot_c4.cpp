// expect: xlet::dot [C4]: the preferred element type must be of the operands' kind (integer, floating or complex)
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    c64<3> a;
    c64<3> b;
    auto r = dot<float>(a, b);
}
