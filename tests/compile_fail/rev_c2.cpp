// expect: xlet::rev [C2]: dimensions must be unique
// expect: xlet::diag::dimensions<1, 1>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = rev(a, dims<1, 1>);
}
