// expect: xlet::conv_general_dilated [C1]: lhs and rhs must have the same rank, at least 2
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2, 2> w;
    auto r = conv_general_dilated<conv_config{}>(x, w);
}
