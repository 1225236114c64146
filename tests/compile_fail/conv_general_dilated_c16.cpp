// expect: xlet::conv_general_dilated [C16]: kernel output features must be divisible by feature_group_count
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 4, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.feature_group_count = 2}>(x, w);
}
