// expect: xlet::pad [C2]: interior padding must be >= 0
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = pad(a, 0.0f, dims<0, 0>, dims<0, 0>, dims<0, -1>);
}
