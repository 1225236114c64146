// expect: xlet::sort [C3]: all operands must have the same shape (element types may differ)
// expect: xlet::tensor<int, 3, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> keys;
    s32<3, 2> values;
    auto r = sort(std::forward_as_tuple(keys, values), sort_less{});
}
