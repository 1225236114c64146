// expect: xlet::broadcast_in_dim [C3]: broadcast_dimensions must be unique
// expect: xlet::diag::dimensions<1, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 1> a; auto e = broadcast_in_dim(a, sizes<2, 3>, dims<1, 1>);
}
