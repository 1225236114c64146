// expect: xlet::scan [C4]: the computation must take (inputs..., carries...) and return a tuple of outputs then one value per carry
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    auto r = scan<scan_config{}>(x, 0.0f, [](float e, float c) { return e + c; });
}
