// expect: xlet::dot_general [C25]: a per-axis quantized result must be quantized along the result dimension that holds
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    using W = uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25), zero_points(0, 0)>;
    using R = uniform_per_axis<std::int8_t, float, 0, scales(0.5, 0.25), zero_points(0, 0)>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, R>(a, b); // R along dimension 0
}
