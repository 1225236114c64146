// expect: xlet::call [C1]: the number of operands must equal the computation's number of parameters
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto c = computation<"c", f32<3>(f32<3>, f32<3>)>([](const f32<3>& a, const f32<3>& b) { return a + b; });
    f32<3> x;
    (void)call(c, x); // one operand, two parameters
}
