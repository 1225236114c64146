// expect: xlet::conditional [C3]: each branch must be callable with its operand
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2> x;
    auto g = [](const f32<2>& v) { return v * 2.0f; };
    (void)conditional(true, x, g, 1.5f, g); // the false branch takes f32[2], gets a float
}
