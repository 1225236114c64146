// expect: xlet::reduce [C6]: the monoids on quantized operands are add_fn, mul_fn, max_fn and min_fn
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 3, 2> a;
    auto r = reduce(a, Q(2), and_fn{}, dims<0>); // and has no quantized form
}
