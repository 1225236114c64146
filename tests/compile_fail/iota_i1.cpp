// expect: xlet::iota [I1]: a quantized output must be per-tensor quantized (the spec's output type)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using PA = quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.1, 0.2), quant::zero_points(0, 0)>;
    auto r = iota<tensor<PA, 3, 2>, 0>();
}
