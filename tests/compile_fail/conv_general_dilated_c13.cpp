// expect: xlet::conv_general_dilated [C13]: the input batch, feature and spatial dimensions must be a permutation of
// the lhs dimensions expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5, 5> x;
    f32<3, 2, 2, 2> w;
    auto r =
        conv_general_dilated<conv_config{.dimension_numbers = conv_dims{.input_spatial_dimensions = {1, 2}}}>(x, w);
}
