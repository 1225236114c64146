// expect: xlet::dynamic_reshape [C1]: one size per result dimension
// expect: xlet::tensor<float, 3, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 4> m;
    auto r = dynamic_reshape(m, std::array<int, 3>{2, 6, 1}, sizes<4, 6>, dims<0>);
}
