// expect: xlet::top_k [C1]: the operand must have rank >= 1
// expect: xlet::tensor<float>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<> a;
    auto r = top_k<1>(a);
}
