// expect: xlet::conv_general_dilated [C28]: the preferred element type must be of the operands' kind
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s8<1, 2, 5> x;
    s8<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{}, float>(x, w);
}
