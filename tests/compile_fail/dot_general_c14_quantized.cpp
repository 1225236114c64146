// expect: xlet::dot_general [C14]: with a quantized operand, rhs must be quantized and the result quantized exactly
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 0>;
    tensor<A, 2, 3> a;
    f32<3, 2> b; // a float rhs with a quantized lhs
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, A>(a, b);
}
