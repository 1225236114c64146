// expect: xlet::reduce [C2]: all operands must have the same shape
// expect: xlet::tensor<int, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    s32<3, 2> i;
    auto r = reduce(std::tie(a, i), std::tuple{0.0f, 0}, [](float x, int y, float, int) { return std::tuple{x, y}; }, dims<1>);
}
