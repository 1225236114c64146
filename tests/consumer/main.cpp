#include <iostream>
#include <xlet/xlet.hpp>

int main() {
    xlet::f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    xlet::f32<3> v{10, 20, 30};
    xlet::f32<2, 3> r = xlet::add(a, v, xlet::dims<1>);
    std::cout << r << '\n';
}
