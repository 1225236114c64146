// expect: xlet::sort [C5]: the comparator must take 2n scalars of the operand element types (x_i, x_j, y_i, y_j, ...) and return bool
// expect: xlet::tensor<float, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a;
    auto r = sort(a, [](float x, float y) { return y - x; }); // returns float, not bool
}
