// expect: xlet::dot [C4]: with a quantized operand, rhs must be quantized and the result quantized exactly when lhs is
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    using W = uniform<std::int8_t, float, scale(0.25), 0>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b;
    auto r = dot<float>(a, b); // a float result of quantized operands
}
