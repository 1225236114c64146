// expect: xlet::scan [C5]: is_associative needs one carry per input, of the input's element type
// expect: xlet::tensor<float, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<3> x;
    auto r = scan<scan_config{.is_associative = true}>(x, 0, [](float e, int c) { return std::tuple{e, c}; });
}
