// expect: xlet::call [C3]: the computation's function must take its declared parameters and return its declared result
// type
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    // declared to return f32[3], returns f32[2]
    auto c = computation<"c", f32<3>(f32<2>)>([](const f32<2>& a) { return a * 2.0f; });
    (void)c;
}
