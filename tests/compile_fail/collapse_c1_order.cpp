// expect: xlet::collapse [C1]: dimensions must be consecutive, increasing and in range
// expect: xlet::tensor<float, 2, 3, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3, 4> a; auto e = collapse(a, dims<1, 0>);
}
