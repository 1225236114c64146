// expect: xlet::reduce [C5]: the computation must take (accumulators..., values...) of the operand element types
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    s32<2, 3> i;
    // returns one value for two operands
    auto r = reduce(std::tie(a, i), std::tuple{0.0f, 0}, [](float x, int, float, int) { return x; }, dims<1>);
}
