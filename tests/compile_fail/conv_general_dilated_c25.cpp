// expect: xlet::conv_general_dilated [C25]: the dilated window must fit in the padded, dilated input
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 3> w;
    auto r = conv_general_dilated<conv_config{.rhs_dilation = {3}}>(x, w);
}
