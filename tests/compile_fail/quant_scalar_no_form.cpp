// expect: xlet: this element-wise op has no quantized form in the spec (called on quantized scalars)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    auto r = detail::popcnt_fn{}(Q(1)); // a body calling an op without a quantized form
}
