// expect: xlet::conv_general_dilated [C20]: the output batch, feature and spatial dimensions must be a permutation of
// the result dimensions expect: xlet::tensor<
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{.dimension_numbers = conv_dims{.output_spatial_dimensions = {1}}}>(x, w);
}
