// expect: xlet::reduce [C4]: each init value must be a scalar of its operand's element type
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2, 3> a;
    auto r = reduce(a, 0.5f, add_fn{}, dims<1>); // a float init for an s32 operand
}
