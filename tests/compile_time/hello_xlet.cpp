// The compile-time row of docs/performance.md: the umbrella header and one element-wise add.
#include <xlet/xlet.hpp>

int main() {
    xlet::f32<4> a{1, 2, 3, 4}, b{4, 3, 2, 1};
    auto c = xlet::eval(a + b);
    return static_cast<int>(c.data()[0]) - 5;
}
