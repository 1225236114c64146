// expect: xlet::broadcast_in_dim [C2]: broadcast_dimensions must be dimensions of the output shape
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = broadcast_in_dim(a, sizes<2, 3>, dims<0, 2>);
}
