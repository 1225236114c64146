// expect: xlet::dot_general [C15]: the zero points of rhs must be 0
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using A = uniform<std::int8_t, float, scale(0.5), 3>;
    using W = uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25), zero_points(0, 1)>;
    tensor<A, 2, 3> a;
    tensor<W, 3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, A>(a, b);
}
