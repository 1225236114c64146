// expect: xlet::dot_general [C16]: a per-axis quantized rhs's quantization dimension must not be a contracting
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    using W = uniform_per_axis<std::int8_t, float, 0, scales(0.5, 0.25, 1.0), zero_points(0, 0, 0)>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b; // quantized along dimension 0, the contracting one
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, A>(a, b);
}
