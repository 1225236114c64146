// expect: xlet::slice [C1]: start_indices, limit_indices and strides need one entry per dimension
// expect: xlet::tensor<float, 4, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4, 4> a; auto e = slice(a, dims<0>, dims<2>);
}
