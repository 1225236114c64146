// expect: xlet::custom_call [C2]: every operand must be an array expression
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    (void)custom_call<"myfunc", f32<3>>(1.0f); // a C++ float is not an array
}
