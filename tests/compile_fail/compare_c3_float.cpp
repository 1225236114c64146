// expect: xlet::compare [C3]: comparison_type::FLOAT needs a floating or complex element type
// expect: xlet::tensor<int, 3>
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    s32<3> a, b; auto e = compare<comparison_direction::GT, comparison_type::FLOAT>(a, b);
}
