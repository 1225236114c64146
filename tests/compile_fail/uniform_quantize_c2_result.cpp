// expect: xlet::uniform_quantize [C2]
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> x;
    auto e = uniform_quantize<std::int8_t>(x); // not a quantized type
    (void)e;
}
