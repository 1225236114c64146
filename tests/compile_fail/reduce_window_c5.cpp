// expect: xlet::reduce_window [C5]: one init value per operand
// expect: xlet::tensor<int, 4, 6>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 6> a;
    s32<4, 6> b;
    auto r = reduce_window<window_config{.window_dimensions = {2, 2}}>(std::tie(a, b), std::tuple{0.0f}, [](float x, int y, float, int) { return std::tuple{x, y}; });
}
