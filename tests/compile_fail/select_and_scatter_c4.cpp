// expect: xlet::select_and_scatter [C4]: source must have the shape of the window outputs and the operand's element type
// expect: xlet::tensor<float, 3, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    f32<3, 3> s;
    auto r = select_and_scatter<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}}>(
        a, [](float x, float y) { return x >= y; }, s, 0.0f, [](float x, float y) { return x + y; });
}
