// expect: xlet::compare [C3]: comparison_type::UNSIGNED needs an unsigned integer or pred element type
// expect: xlet::tensor<int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<2, 3> a, b; auto e = compare<comparison_direction::LT, comparison_type::UNSIGNED>(a, b);
}
