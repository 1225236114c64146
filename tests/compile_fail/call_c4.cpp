// expect: xlet::call [C4]: the computation must be callable with the operands
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    (void)call([](const f32<3>& a, const f32<3>& b) { return a + b; }, x); // wrong arity
}
