// expect: xlet::composite_call [C1]: the attributes must be a boost::hana::map
#include <xlet/xlet.hpp>
#include <xlet/ops/control/composite.hpp>
using namespace xlet;
void f() {
    f32<> z;
    (void)composite_call<"foo.bar">(
        1, [](const f32<>& x) { return x; }, z); // attributes: an int
}
