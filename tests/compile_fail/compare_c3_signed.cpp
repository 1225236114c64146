// expect: xlet::compare [C3]: comparison_type::SIGNED needs a signed integer element type
// expect: xlet::tensor<unsigned int, 2, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    u32<2, 3> a, b; auto e = compare<comparison_direction::LT, comparison_type::SIGNED>(a, b);
}
