// expect: xlet::add [C7]: per-axis quantized operands are for add only, the result per-axis exactly when an operand is
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using Q = quant::uniform<std::int8_t, float, quant::scale(0.5), 2>;
    using P =
        quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.5, 0.25, 2.0), quant::zero_points(1, -3, 0)>;
    tensor<P, 2, 3> a;
    auto e = add<Q>(a, a); // per-axis operands, a per-tensor result
    (void)e;
}
