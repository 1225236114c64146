// expect: xlet::conv_general_dilated [C8]: rhs_dilation must be > 0
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.rhs_dilation = {-1}}>(x, w);
}
