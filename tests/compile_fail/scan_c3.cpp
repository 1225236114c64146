// expect: xlet::scan [C3]: each init must be a scalar or an array of the carry shape
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> x;
    f32<3> init;
    auto r = scan<scan_config{.dimension = 1}>(x, init, [](float e, float c) { return std::tuple{e, c}; });
}
