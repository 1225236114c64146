// expect: xlet::conv_general_dilated [C18]: the kernel output feature, input feature and spatial dimensions must be a
// permutation of the rhs dimensions expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_dims{.kernel_spatial_dimensions = {0}}}>(x, w);
}
