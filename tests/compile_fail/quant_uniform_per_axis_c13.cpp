// expect: xlet::quant::uniform_per_axis [C13]: the tensor's size along the quantization dimension must equal
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using P = quant::uniform_per_axis<std::int8_t, float, 0, quant::scales(0.5, 0.25), quant::zero_points(1, 2)>;
    tensor<P, 3, 2> t;
    (void)t;
}
