// expect: xlet::conv [C1]: conv takes pad_mode::same or valid
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv<conv_config{.padding_low = {1}, .padding_high = {1}}>(x, w);
}
