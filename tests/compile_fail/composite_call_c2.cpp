// expect: xlet::composite_call [C2]: the decomposition must be callable with the operands
#include <xlet/xlet.hpp>
#include <xlet/ops/control/composite.hpp>
using namespace xlet;
void f() {
    f32<> z;
    (void)composite_call<"foo.bar">(
        boost::hana::make_map(), [](const f32<>& x, const f32<>& y) { return x + y; }, z);
}
