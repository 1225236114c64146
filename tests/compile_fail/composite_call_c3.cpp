// expect: xlet::composite_call [C3]: the version must be >= 0
#include <xlet/xlet.hpp>
#include <xlet/ops/control/composite.hpp>
using namespace xlet;
void f() {
    f32<> z;
    (void)composite_call<"foo.bar", -1>(
        boost::hana::make_map(), [](const f32<>& x) { return x; }, z);
}
