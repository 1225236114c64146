// expect: xlet::slice [C3]: strides must be >= 1
// expect: xlet::diag::dimensions<0>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a; auto e = slice(a, dims<0>, dims<4>, dims<0>);
}
