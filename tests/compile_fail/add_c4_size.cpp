// expect: xlet::add [C4]: broadcast_dimensions must give
// expect: xlet::tensor<float, 2>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<2, 3> a; f32<2> v; auto e = add(a, v, dims<1>); // size 2 against 3
}
