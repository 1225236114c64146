// expect: xlet::sort [C5]: the comparator must take 2n scalars of the operand element types (x_i, x_j, y_i, y_j, ...) and return bool
// expect: xlet::tensor<int, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> keys;
    s32<4> values;
    // Two operands need four parameters: (key_i, key_j, value_i, value_j).
    auto r = sort(std::forward_as_tuple(keys, values), [](float a, float b) { return a < b; });
}
