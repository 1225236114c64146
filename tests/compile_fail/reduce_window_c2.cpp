// expect: xlet::reduce_window [C2]: window_strides, base_dilations and window_dilations must be empty or give one entry > 0 per dimension
// expect: xlet::tensor<float, 4, 6>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    auto r = reduce_window<window_config{.window_dimensions = {2, 2}, .window_strides = {0, 1}}>(a, 0.0f, add_fn{});
}
