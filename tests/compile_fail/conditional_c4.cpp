// expect: xlet::conditional [C4]: the branches must return the same type
// expect: xlet::tensor<float, 2>
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> x;
    f32<3> y;
    auto g = [](const auto& v) { return v * 2.0f; };
    (void)conditional(0, std::tuple{g, g}, std::forward_as_tuple(x, y)); // f32[2] and f32[3] results
}
