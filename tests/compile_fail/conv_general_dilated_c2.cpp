// expect: xlet::conv_general_dilated [C2]: window_strides must be empty or have rank - 2 entries
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.window_strides = {1, 1}}>(x, w);
}
