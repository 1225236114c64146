// expect: xlet::triangular_solve [C1]: operands and results must have one baseline element type (all quantized, equal
// but for scales and zero points)
#include <xlet/xlet.hpp>
using namespace xlet;
void f() {
    using A = quant::uniform<std::int8_t, float, quant::scale(0.5), 0>;
    using B = quant::uniform<std::int16_t, float, quant::scale(0.5), 0>; // another storage type
    tensor<A, 2, 2> a;
    tensor<B, 2, 3> b;
    auto x = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
}
