// expect: xlet::add_dependency [C1]: the second operand must be a token
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> x;
    (void)add_dependency(x, 1);
}
