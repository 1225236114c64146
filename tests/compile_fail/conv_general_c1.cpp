// expect: xlet::conv_general [C1]: explicit padding, any dimension numbers, no dilation
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general<conv_config{.lhs_dilation = {2}}>(x, w);
}
