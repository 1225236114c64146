// expect: xlet::select_and_scatter [C6]: select must take two elements and return bool
// expect: xlet::tensor<float, 4, 6>
#include <xlet/xlet.hpp>
#include <string>
using namespace xlet;
void f() {
    f32<4, 6> a;
    f32<2, 2> s;
    auto r = select_and_scatter<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}}>(
        a, [](float x, float) { return std::to_string(x); }, s, 0.0f, [](float x, float y) { return x + y; });
}
