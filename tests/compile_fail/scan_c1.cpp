// expect: xlet::scan [C1]: dimension must be in [0, rank)
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    auto r = scan<scan_config{.dimension = 1}>(x, 0.0f, [](float e, float c) { return std::tuple{e, c}; });
}
