// expect: xlet::set_dimension_size [C1]: dimension must be in [0, rank)
// expect: xlet::tensor<float, 10>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<10> v;
    auto b = set_dimension_size<1>(v, 5);
}
