// expect: xlet::dot_general [C17]: quantized lhs and rhs must have the same storage type
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::uint8_t, float, scale(0.5), 128>;
    using W = uniform<std::int8_t, float, scale(0.25), 0>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b; // u8 x i8
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, W>(a, b);
}
