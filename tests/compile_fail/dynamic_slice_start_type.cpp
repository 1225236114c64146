// A start index must be an integer (or a rank-0 integer array): a constraint, not a numbered rule.
// expect: start_index
// expect: dynamic_slice
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    f32<4> a; auto e = dynamic_slice(a, sizes<2>, 1.5f);
}
