// expect: xlet::reduce_window [C3]: padding_low/high must be empty or give one entry per dimension
// expect: xlet::tensor<float, 4, 6>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    auto r = reduce_window<window_config{.window_dimensions = {2, 2}, .padding_low = {1, 1}, .mode = pad_mode::same}>(a, 0.0f, add_fn{});
}
