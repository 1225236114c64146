// expect: xlet::after_all [C1]: every operand must be a token
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> x;
    (void)after_all(token{}, x);
}
