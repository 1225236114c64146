// expect: xlet::broadcast [C1]: broadcast_sizes must be >= 0
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> a; auto e = broadcast(a, sizes<3, -1>);
}
