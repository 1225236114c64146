// expect: xlet::reduce_window [C1]: window_dimensions needs one entry > 0 per operand dimension
// expect: xlet::tensor<float, 4, 6>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    auto r = reduce_window<window_config{.window_dimensions = {2}}>(a, 0.0f, add_fn{});
}
