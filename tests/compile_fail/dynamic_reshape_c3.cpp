// expect: xlet::dynamic_reshape [C3]: sizes must have an integer type
// expect: std::array<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 4> m;
    auto r = dynamic_reshape(m, std::array<float, 2>{2, 6}, sizes<4, 6>, dims<0>);
}
