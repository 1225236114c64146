// expect: xlet::sub [C3]: element type must be an integer, floating or complex type
// expect: xlet::tensor<bool, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    pred<2> a; auto e = a - a;
}
