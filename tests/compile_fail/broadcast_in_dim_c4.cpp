// expect: xlet::broadcast_in_dim [C4]: each operand dimension must have size 1 or the size of the output dimension it maps to
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> a; auto e = broadcast_in_dim(a, sizes<3, 4>, dims<1>);
}
