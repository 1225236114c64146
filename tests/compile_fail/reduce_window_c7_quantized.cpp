// expect: xlet::reduce_window [C7]: the body's type must be per-tensor quantized with the operand's expressed
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 6> a;
    auto r = reduce_window<window_config{.window_dimensions = {2}}, float>(a, Q(2), add_fn{}); // not quantized
}
