// expect: xlet::reduce [C5]: the computation must take (accumulators..., values...) of the operand element types
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
#include <string>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto r = reduce(a, 0.0f, [](float, float) { return std::string("no"); }, dims<1>);
}
