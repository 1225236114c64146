// expect: xlet::add [C4]: broadcast_dimensions must give
// expect: xlet::diag::dimensions<2
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; f32<3> v; auto e = add(a, v, dims<2>);
}
