// expect: xlet::reshape [C1]: new_sizes must hold exactly the operand's number of elements
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = reshape(a, sizes<4>);
}
