// expect: xlet::conv_with_general_padding [C1]: explicit padding, default dimension numbers
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_with_general_padding<conv_config{.rhs_dilation = {2}}>(x, w);
}
