// expect: xlet::conv_general_dilated [C4]: padding_low/high must be empty or have rank - 2 entries, and only with
// pad_mode::explicit_ expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.padding_low = {1}, .padding_high = {1}, .mode = pad_mode::same}>(x, w);
}
