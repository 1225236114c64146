// expect: xlet::reduce [I1]: a quantized operand must be per-tensor quantized (the spec's inputs)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using PA = quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.1, 0.2), quant::zero_points(0, 0)>;
    tensor<PA, 3, 2> a;
    auto r = reduce(a, PA(0), max_fn{}, dims<0>);
}
