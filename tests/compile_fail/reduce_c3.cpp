// expect: xlet::reduce [C3]: one init value per operand
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    s32<2, 3> i;
    auto r = reduce(std::tie(a, i), std::tuple{0.0f}, [](float x, int y, float, int) { return std::tuple{x, y}; }, dims<1>);
}
