// xlet in one page: static shapes, XLA broadcasting, fused lazy expressions, compile-time rules.
#include <iostream>
#include <xlet/xlet.hpp>

using namespace xlet;

int main() {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}}; // owning tensor, shape known to the compiler
    f32<3> v{10, 20, 30};

    // XLA Add(lhs, rhs, broadcast_dimensions={1}): v runs along dimension 1 of a.
    f32<2, 3> row_bias = add(a, v, dims<1>);
    std::cout << "add(a, v, dims<1>)     = " << row_bias << '\n';

    // Degenerate (size-1) broadcasting and scalars, as in XLA.
    f32<2, 1> col{{100}, {200}};
    std::cout << "a + col                = " << eval(a + col) << '\n';

    // One fused pass, no temporaries: the tree is evaluated element by element in SIMD batches.
    f32<2, 3> y = a * 2.0f + exp(a) - max(a, row_bias);
    std::cout << "a*2 + exp(a) - max(..) = " << y << '\n';

    // Comparisons give pred arrays; select and clamp follow the spec.
    auto big = a > 2.5f;
    std::cout << "select(a > 2.5, a, 0)  = " << eval(select(big, a, 0.0f)) << '\n';
    std::cout << "clamp(2, a, 5)         = " << eval(clamp(2.0f, a, 5.0f)) << '\n';

    // Exact XLA integer semantics: no undefined behaviour, documented values.
    s32<4> n{7, -7, INT32_MIN, 5};
    s32<4> d{2, 2, -1, 0};
    std::cout << "n / d                  = " << eval(n / d) << "   (x/0 = -1, INT_MIN/-1 = INT_MIN)\n";
    std::cout << "rem(n, d)              = " << eval(rem(n, d)) << "   (sign of the dividend, x%0 = x)\n";

    // f16 stores narrow and rounds after every op.
    f16<3> h{0.1f, 1000.0f, 60000.0f};
    std::cout << "h * h (f16)            = " << eval(h * h) << "   (overflows to inf past 65504)\n";

    // iota and convert_element_type (round to nearest even, saturating float → int).
    std::cout << "iota<s32<2,4>, 1>      = " << eval(iota<s32<2, 4>, 1>()) << '\n';
    f32<3> f{2.5f, -1e10f, 3.7f};
    std::cout << "convert<s32>(f)        = " << eval(convert_element_type<std::int32_t>(f)) << '\n';

    // Heavy ops run kernels: a packed, register-blocked GEMM; radix sort; top_k.
    f32<2, 2> g = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}>(a, a); // a · aᵀ
    std::cout << "a · aT (dot_general)   = " << g << '\n';
    f32<5> u{3, -1, 4, -0.0f, 0.0f};
    std::cout << "sort(u)                = " << sort(u) << "   (total order: -0 before +0)\n";
    auto [top, at] = top_k<2>(u);
    std::cout << "top_k<2>(u)            = " << top << " at " << at << '\n';
    // Linear algebra on the same GEMM: a = l·lᵀ, then l·x = b.
    f32<2, 2> spd{{4, 2}, {2, 3}};
    f32<2, 2> l = cholesky<true>(spd);
    std::cout << "cholesky<lower>(spd)   = " << l << '\n';
    f32<2, 1> rhs{{2}, {3}};
    std::cout << "solve l·x = rhs        = "
              << triangular_solve<true, true, false, transpose_type::no_transpose>(l, rhs) << '\n';

    // add(a, transpose(a)) would not compile: "xlet::add [C1]: operand shapes must be equal, ...".
}
