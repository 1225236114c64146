// expect: xlet::scan [C2]: all inputs must have the same shape
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    f32<4> y;
    auto r = scan<scan_config{}>(std::tie(x, y), std::tuple{0.0f}, [](float e, float, float c) { return std::tuple{e, c}; });
}
