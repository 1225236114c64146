// expect: xlet::quant::uniform_per_axis [C12]: the quantization dimension must be a dimension of the tensor
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P = quant::uniform_per_axis<std::int8_t, float, 2, quant::scales(0.5, 0.25), quant::zero_points(1, 2)>;
    tensor<P, 3, 2> t;
    (void)t;
}
