// expect: xlet::map [C2]: dimensions must be 0, 1, ..., rank-1 in order
// expect: dimensions<1, 0>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a;
    auto m = map(std::forward_as_tuple(a), [](float x) { return x; }, dims<1, 0>);
}
