// expect: xlet::dot_general [C20]: with a float lhs (hybrid), lhs's type, rhs's expressed type and the result type
#include <xlet/xlet.hpp>
using namespace xlet;
using namespace xlet::quant;
void f() {
    using W = uniform<std::int8_t, float, scale(0.25), 0>;
    f64<2, 3> a; // f64 activations, f32-expressed weights
    tensor<W, 3, 2> b;
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, b);
}
