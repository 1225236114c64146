// expect: xlet::cholesky [I1]: quantized operands and results must be per-tensor quantized
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P = quant::uniform_per_axis<std::int8_t, float, 1, quant::scales(0.5, 0.25), quant::zero_points(0, 0)>;
    tensor<P, 2, 2> a;
    auto l = cholesky<true>(a);
}
