// expect: xlet::iota [C1]: iota_dimension must be a dimension of the shape
// expect: xlet::tensor<float, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    auto e = iota<f32<2, 3>, 2>();
}
