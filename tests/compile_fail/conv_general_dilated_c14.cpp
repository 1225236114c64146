// expect: xlet::conv_general_dilated [C14]: kernel input features * feature_group_count must equal the lhs features
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 4, 5> x;
    f32<4, 4, 2> w;
    auto r = conv_general_dilated<conv_config{.feature_group_count = 2}>(x, w);
}
