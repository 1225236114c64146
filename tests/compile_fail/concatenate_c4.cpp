// expect: xlet::concatenate [C4]: dimension must be in
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; auto e = concatenate<2>(a, a);
}
