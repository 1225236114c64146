// expect: xlet::custom_call [C1]: the result type must be given
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    (void)custom_call<"myfunc">(x); // no result type
}
