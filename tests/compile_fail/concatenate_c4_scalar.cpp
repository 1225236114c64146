// expect: xlet::concatenate [C4]: dimension must be in
// expect: xlet::tensor<float>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<> a; auto e = concatenate<0>(a, a);
}
