// expect: xlet::dot_general [I1]: lhs must be a tensor or a per-tensor quantized tensor, not per-axis quantized
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform_per_axis<std::int8_t, float, 0, scales(0.5, 0.25), zero_points(0, 0)>; // per-axis lhs
    using W = uniform<std::int8_t, float, scale(0.5), 0>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, W>(a, b);
}
