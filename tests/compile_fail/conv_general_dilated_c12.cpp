// expect: xlet::conv_general_dilated [C12]: input_spatial_dimensions must have rank - 2 entries
// expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5, 5> x;
    f32<3, 2, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_dims{.input_spatial_dimensions = {2}}}>(x, w);
}
