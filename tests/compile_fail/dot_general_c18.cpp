// expect: xlet::dot_general [C18]: quantized lhs, rhs and result must have the same expressed type
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    using W = uniform<std::int8_t, float, scale(0.25), 0>;
    using R = uniform<std::int8_t, bfloat16, scale(0.5), 0>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, R>(a, b); // bf16 result
}
