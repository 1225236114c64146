// expect: xlet::conv_general_dilated [C23]: feature_group_count or batch_group_count must be 1
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 2, 5> x;
    f32<4, 1, 2> w;
    auto r = conv_general_dilated<conv_config{.feature_group_count = 2, .batch_group_count = 2}>(x, w);
}
