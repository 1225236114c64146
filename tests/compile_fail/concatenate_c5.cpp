// expect: xlet::concatenate [C5]: operands must have equal sizes in every dimension but the concatenated one
// expect: xlet::tensor<float, 2, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; f32<2, 4> b; auto e = concatenate<0>(a, b);
}
