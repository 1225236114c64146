// expect: xlet::call [C2]: each operand must evaluate to its parameter's type
// expect: xlet::tensor<int, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto c = computation<"c", f32<3>(f32<3>)>([](const f32<3>& a) { return a * 2.0f; });
    s32<3> x;
    (void)call(c, x); // s32[3] for an f32[3] parameter
}
