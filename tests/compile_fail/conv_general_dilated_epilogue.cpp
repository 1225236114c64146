// expect: xlet::conv_general_dilated [epilogue]: the epilogue must be callable with the result
// expect: xlet::tensor_map<float, 1, 3, 4>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<1, 2, 5> x;
    f32<3, 2, 2> w;
    auto r = conv_general_dilated<conv_config{}>(x, w, [](int y) { return y; });
}
