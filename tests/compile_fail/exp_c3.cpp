// expect: xlet::exp [C3]: element type must be a floating or complex type
// expect: xlet::tensor<int, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<4> a; auto e = exp(a);
}
