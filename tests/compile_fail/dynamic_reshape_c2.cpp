// expect: xlet::dynamic_reshape [C2]: dynamic dimensions must be result dimensions, each listed once
// expect: dimensions<2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 4> m;
    auto r = dynamic_reshape(m, std::array<int, 2>{2, 6}, sizes<4, 6>, dims<2>);
}
