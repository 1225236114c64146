// expect: xlet::set_dimension_size [C2]: the size must be an integer scalar
// expect: xlet::tensor<int, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<10> v;
    s32<2> n;
    auto b = set_dimension_size<0>(v, n);
}
