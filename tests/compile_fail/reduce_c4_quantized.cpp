// expect: xlet::reduce [C4]: the init value of a quantized operand must be a value of its type or a rank-0 array of it
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    tensor<Q, 3, 2> a;
    auto r = reduce(a, 0.0f, add_fn{}, dims<0>); // the spec's C2: the init has the inputs' type
}
