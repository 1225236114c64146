// expect: xlet::conv_with_general_dimensions [C1]
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_with_general_dimensions<conv_config{.padding_low = {1}, .padding_high = {1}}>(x, w);
}
