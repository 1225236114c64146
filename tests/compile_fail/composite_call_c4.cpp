// expect: xlet::composite_call [C4]: the name must be a namespaced op name
#include <xlet/xlet.hpp>
#include <xlet/ops/control/composite.hpp>
using namespace xlet;
void f() {
    f32<> z;
    (void)composite_call<"foobar">(
        boost::hana::make_map(), [](const f32<>& x) { return x; }, z);
}
