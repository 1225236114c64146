// expect: xlet::while_loop [C1]: cond must be callable with the state and return a pred scalar
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    (void)while_loop([](const f32<3>& s) { return s(0); }, // returns a float, not a pred
                     [](const f32<3>& s) { return s + 1.0f; }, x);
}
