// expect: xlet::select_and_scatter [C8]: base_dilations and window_dilations must be empty or all 1 (SelectAndScatter has no dilations)
// expect: xlet::tensor<float, 4, 6>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    f32<2, 2> s;
    auto r = select_and_scatter<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}, .window_dilations = {2, 1}}>(
        a, [](float x, float y) { return x >= y; }, s, 0.0f, [](float x, float y) { return x + y; });
}
