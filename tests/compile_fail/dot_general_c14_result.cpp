// expect: xlet::dot_general [C14]: quantized operands of different types need the result type (the preferred element
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    using W = uniform<std::int8_t, float, scale(0.25), 0>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, b); // no result type
}
