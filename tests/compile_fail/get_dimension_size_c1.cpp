// expect: xlet::get_dimension_size [C1]: dimension must be in [0, rank)
// expect: xlet::tensor<float, 3, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3, 4> m;
    auto s = get_dimension_size<2>(m);
}
