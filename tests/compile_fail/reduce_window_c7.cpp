// expect: xlet::reduce_window [C7]: the computation must take (accumulators..., values...)
// expect: xlet::tensor<float, 4, 6>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    auto r = reduce_window<window_config{.window_dimensions = {2, 2}}>(a, 0.0f, [](float x) { return x; });
}
