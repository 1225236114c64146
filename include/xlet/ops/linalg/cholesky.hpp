// Cholesky and TriangularSolve (spec: Cholesky, TriangularSolve):
//   cholesky<lower>(a)                                          a [..., n, n] -> [..., n, n]
//   triangular_solve<left_side, lower, unit_diagonal, transpose_a>(a, b)
//       a [..., m, m]; b [..., m, k] (left_side) or [..., k, m] (right side) -> type of b
//
// Semantics (every dimension but the two minor ones is a batch dimension; each matrix of the
// batch is independent; rank 2 is one matrix):
//   cholesky<true>(a)  = l with a = l . l^H, l lower triangular; reads only a's lower triangle
//                        (diagonal included), its strict upper triangle is never read.
//   cholesky<false>(a) = u with a = u^H . u, u upper triangular; reads only the upper triangle.
//   The other triangle of the result is zero (XLA: implementation-defined). For complex types
//   ^H is the conjugate transpose and only the real part of the diagonal is read. The diagonal
//   of a successful result is real and > 0.
//   Not positive definite: the factorisation of a matrix stops at the first pivot that is not
//   > 0 (zero, negative or NaN, e.g. from a NaN input) and that whole [n, n] matrix of the
//   result (both triangles) is NaN; the other matrices of the batch are unaffected. Infinite
//   inputs may give inf/NaN entries without a failed pivot. Never UB, never an exception.
//   triangular_solve: x with op(a) . x = b (left_side) or x . op(a) = b (right side), op(a) = a,
//   a^T (transpose_type::transpose) or a^H (transpose_type::adjoint; = a^T for real types). Only
//   the triangle of a that `lower` names is read (lower: i >= j, else i <= j; without the
//   diagonal when unit_diagonal, which is taken as 1). A zero diagonal element gives inf / NaN
//   per IEEE division (x / 0), never UB.
// Types: f32, f64, c64, c128 (f16/bf16: convert to f32 first; integers are rejected); per-tensor
// quantized operands: quant/float_ops.hpp (the result type a template argument after the flags).
// Algorithm (kernels/linalg.hpp): recursive blocked, with the trailing updates (SYRK, and the
// off-diagonal blocks of the solve) in gemm() of kernels/gemm.hpp (f32, f64; complex: plain
// loops), small unblocked kernels for the diagonal blocks. Results do not depend on the number
// of threads (bitwise). Batches of small matrices are spread one matrix per task.
//
// Rules (StableHLO numbering):
//   cholesky         C1 result type = type of a (by construction)
//                    C2 rank(a) >= 2
//                    C3 a's two minor dimensions are equal
//                    C4 (xlet) the element type is f32, f64, c64 or c128
//   triangular_solve C1 a and b have the same element type
//                    C2 rank(a) = rank(b) >= 2
//                    C3 a's two minor dimensions are equal; a and b have the same batch
//                       dimensions; b's dimension -2 (left_side) or -1 (right side) = a's M
//                    C4 result type = type of b (by construction)
//                    C5 (xlet) the element type is f32, f64, c64 or c128
#pragma once
#include <complex>
#include <limits>
#include <string>
#include <type_traits>

#include "../../kernels/linalg.hpp"
#include "../elementwise/elementwise.hpp"

namespace xlet {

// TriangularSolveOptions::Transpose: op(a) = a, a^T or a^H.
enum class transpose_type { no_transpose, transpose, adjoint };

namespace detail {

template<class T>
inline constexpr bool linalg_element =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::complex<float>> ||
    std::is_same_v<T, std::complex<double>>;

// The product of all but the two minor dimensions.
template<std::size_t R>
constexpr std::size_t linalg_batch(const extents_t<R>& e) {
    std::size_t n = 1;
    for (std::size_t d = 0; d + 2 < R; ++d)
        n *= e[d];
    return n;
}

// Per-matrix work (multiply-adds) below which a batch is spread one matrix per task.
inline constexpr std::size_t linalg_batch_task_work = std::size_t{1} << 22;

// f(q, parallel) for every matrix q < nb of the batch: whole matrices on TBB when they are small
// and many, else one after the other with the kernels' own threads. Not a template over f (one
// TBB loop for the whole library, compile time): f is passed as a context and a function.
template<class = void> // (compiled only where a batched linalg op runs)
inline void linalg_for_batch(std::size_t nb, std::size_t work, const void* ctx,
                             void (*f)(const void*, std::size_t, bool)) {
    if (nb > 1 && work < linalg_batch_task_work && nb * work >= gemm_parallel_work) {
        tbb::this_task_arena::isolate([&] {
            gemm_for(true, nb, std::max<std::size_t>(1, gemm_parallel_work / std::max<std::size_t>(1, work)),
                     [&](std::size_t q0, std::size_t q1) {
                         for (std::size_t q = q0; q < q1; ++q)
                             f(ctx, q, false);
                     });
        });
        return;
    }
    for (std::size_t q = 0; q < nb; ++q)
        f(ctx, q, true);
}

template<class T>
T linalg_nan() {
    using R = decltype(linalg_real(T{}));
    if constexpr (is_complex<T>)
        return T(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
    else
        return std::numeric_limits<T>::quiet_NaN();
}

// One strict triangle of the n x n matrix m set to the conjugate transpose of the other:
// m[i, j] = conj(m[j, i]) for j < i (into_lower) or j > i, in 32 x 32 tiles so that the column
// reads stay in cache.
template<class T>
void linalg_mirror(std::size_t n, T* m, bool into_lower) {
    constexpr std::size_t TB = 32;
    for (std::size_t i0 = 0; i0 < n; i0 += TB)
        for (std::size_t j0 = into_lower ? 0 : i0; into_lower ? j0 <= i0 : j0 < n; j0 += TB)
            for (std::size_t i = i0; i < std::min(n, i0 + TB); ++i)
                for (std::size_t j = into_lower ? j0 : std::max(j0, i + 1); j < std::min(into_lower ? i : n, j0 + TB);
                     ++j)
                    m[i * n + j] = linalg_conj(m[j * n + i], true);
}

// One n x n matrix in place: the chosen triangle of a in, the factor out (other triangle zero).
template<class T>
void cholesky_matrix(std::size_t n, T* m, bool lower, bool par) {
    // Upper: a = u^H u is l l^H with l = u^H, whose lower triangle is conj(a's upper)^T.
    if (!lower) linalg_mirror(n, m, true);
    // Scratch from the block cache: a factorisation in a loop reuses the block (2 MiB at n = 1024)
    // rather than faulting in fresh pages each call.
    scratch<T> work(linalg_potrf_work(n));
    if (!potrf_lower(n, m, static_cast<std::ptrdiff_t>(n), work.data(), par)) {
        std::fill_n(m, n * n, linalg_nan<T>());
        return;
    }
    if (!lower) linalg_mirror(n, m, false); // u = l^H; the lower triangle is cleared below
    for (std::size_t i = 0; i < n; ++i) {   // the other triangle is zero
        if (lower)
            std::fill(m + i * n + i + 1, m + (i + 1) * n, T(0));
        else
            std::fill(m + i * n, m + i * n + i, T(0));
    }
}

// Every matrix of a batch (nb matrices of n x n, contiguous) factorised in place. Run-time sizes:
// one copy per element type, whatever the shapes (compile time).
template<class T>
[[gnu::noinline]] void cholesky_batch(std::size_t nb, std::size_t n, bool lower, T* data) {
    struct ctx_t {
        std::size_t n;
        bool lower;
        T* data;
    } ctx{n, lower, data};
    linalg_for_batch(nb, n * n * n / 3, &ctx, [](const void* c, std::size_t q, bool par) {
        const auto& x = *static_cast<const ctx_t*>(c);
        cholesky_matrix(x.n, x.data + q * x.n * x.n, x.lower, par);
    });
}

// The solve of every matrix of a batch in place in b: a [nb, m, m], b [nb, rows, cols].
// t_rs, t_cs: strides of the matrix applied on the left (op(a), or op(a)^T for the right side,
// whose b is solved on a transposed copy); t_lower: that matrix is lower triangular.
struct solve_args {
    std::size_t nb, m, rows, cols;
    bool left, t_lower, conj, unit;
    std::ptrdiff_t t_rs, t_cs;
};

template<class T>
[[gnu::noinline]] void triangular_solve_batch(const solve_args& s, const T* a, T* b) {
    struct ctx_t {
        const solve_args& s;
        const T* a;
        T* b;
    } ctx{s, a, b};
    const std::size_t nr = s.left ? s.cols : s.rows; // right-hand sides
    linalg_for_batch(s.nb, s.m * s.m * nr / 2, &ctx, [](const void* c, std::size_t q, bool par) {
        const auto& x = *static_cast<const ctx_t*>(c);
        const solve_args& s = x.s;
        const std::size_t m = s.m, nr = s.left ? s.cols : s.rows;
        const auto M = static_cast<std::ptrdiff_t>(m);
        const T* aq = x.a + q * m * m;
        T* bq = x.b + q * s.rows * s.cols;
        scratch<T> tmp(s.left ? 0 : m * nr); // the right side's transposed copy of b
        T* xs = bq;
        auto ldx = static_cast<std::ptrdiff_t>(s.cols);
        if (!s.left) {
            linalg_transpose(nr, m, bq, M, tmp.data(), static_cast<std::ptrdiff_t>(nr), false);
            xs = tmp.data();
            ldx = static_cast<std::ptrdiff_t>(nr);
        }
        if (s.t_lower)
            trsm_lower(m, nr, aq, s.t_rs, s.t_cs, s.conj, s.unit, xs, ldx, par);
        else // upper: with rows and columns reversed it is lower
            trsm_lower(m, nr, aq + (M - 1) * (s.t_rs + s.t_cs), -s.t_rs, -s.t_cs, s.conj, s.unit, xs + (M - 1) * ldx,
                       -ldx, par);
        if (!s.left) linalg_transpose(m, nr, xs, ldx, bq, M, false);
    });
}

template<bool Lower, class A>
auto cholesky_impl(A&& a) {
    constexpr auto e = shape_of<A>::extents;
    constexpr std::size_t R = e.size(), n = e[R - 1], nb = linalg_batch(e);
    tensor_type_of<A> out(std::forward<A>(a));
    if constexpr (n > 0 && nb > 0) cholesky_batch(nb, n, Lower, out.data());
    return out;
}

template<bool Left, bool Lower, bool Unit, transpose_type Tr, class A, class Bx>
auto triangular_solve_impl(A&& a, Bx&& b) {
    constexpr auto ea = shape_of<A>::extents;
    constexpr auto eb = shape_of<Bx>::extents;
    constexpr std::size_t R = ea.size(), m = ea[R - 1], rows = eb[R - 2], cols = eb[R - 1], nb = linalg_batch(ea);
    tensor_type_of<Bx> out(std::forward<Bx>(b));
    if constexpr (nb * rows * cols > 0) {
        const auto& av = as_array(std::forward<A>(a));
        // op(a)[i, j] = conj?(a[i * rs_op + j * cs_op]); lower when a's triangle is and op does
        // not transpose. The matrix applied on the left is op(a), or op(a)^T for the right side
        // (x . op(a) = b  <=>  op(a)^T . x^T = b^T).
        constexpr bool tr = Tr != transpose_type::no_transpose;
        constexpr auto M = static_cast<std::ptrdiff_t>(m);
        constexpr std::ptrdiff_t rs_op = tr ? 1 : M, cs_op = tr ? M : 1;
        constexpr bool lower_op = Lower != tr;
        const solve_args s{nb,
                           m,
                           rows,
                           cols,
                           Left,
                           Left ? lower_op : !lower_op,
                           Tr == transpose_type::adjoint,
                           Unit,
                           Left ? rs_op : cs_op,
                           Left ? cs_op : rs_op};
        triangular_solve_batch(s, av.data(), out.data());
    }
    return out;
}

template<class A>
struct cholesky_rules {
    using T = element_of<A>;
    static constexpr std::size_t R = shape_of<A>::rank;
    static constexpr auto e = shape_of<A>::extents;
    static constexpr bool c2 = R >= 2;
    static constexpr bool c3 = [] {
        if constexpr (!c2)
            return true;
        else
            return e[R - 2] == e[R - 1];
    }();
    static constexpr bool c4 = linalg_element<T> || is_quantized<T>; // quantized: quant/float_ops.hpp's rules
    static constexpr bool ok = c2 && c3 && c4;
    static consteval bool check() {
        using S = shown_t<A>;
        static_assert(diag::got<c2, S>::value,
                      "xlet::cholesky [C2]: a must have rank >= 2 (leading dimensions are batch dimensions)");
        static_assert(diag::got<c3, S>::value,
                      "xlet::cholesky [C3]: a's two minor dimensions must be equal (square matrices)");
        static_assert(diag::got<c4, S>::value, "xlet::cholesky [C4]: the element type must be f32, f64, c64 or c128");
        return ok;
    }
};

template<bool Left, class A, class Bx>
struct triangular_solve_rules {
    using T = element_of<A>;
    static constexpr std::size_t RA = shape_of<A>::rank, RB = shape_of<Bx>::rank;
    static constexpr auto ea = shape_of<A>::extents;
    static constexpr auto eb = shape_of<Bx>::extents;
    // (quantized operands: their element-type rules are quant/float_ops.hpp's)
    static constexpr bool quantized = is_quantized<element_of<A>> || is_quantized<element_of<Bx>>;
    static constexpr bool c1 = std::is_same_v<element_of<A>, element_of<Bx>> || quantized;
    static constexpr bool c2 = RA >= 2 && RA == RB;
    static constexpr bool square = [] {
        if constexpr (!c2)
            return true;
        else
            return ea[RA - 2] == ea[RA - 1];
    }();
    static constexpr bool batch = [] {
        if constexpr (c2)
            for (std::size_t d = 0; d + 2 < RA; ++d)
                if (ea[d] != eb[d]) return false;
        return true;
    }();
    static constexpr bool side = [] {
        if constexpr (!c2)
            return true;
        else
            return ea[RA - 1] == (Left ? eb[RB - 2] : eb[RB - 1]);
    }();
    static constexpr bool c5 = linalg_element<T> || quantized;
    static constexpr bool ok = c1 && c2 && square && batch && side && c5;
    static consteval bool check() {
        using SA = shown_t<A>;
        using SB = shown_t<Bx>;
        static_assert(diag::got<c1, SA, SB>::value,
                      "xlet::triangular_solve [C1]: a and b must have the same element type");
        static_assert(diag::got<c2, SA, SB>::value,
                      "xlet::triangular_solve [C2]: a and b must have the same rank, at least 2");
        static_assert(diag::got<square, SA, SB>::value,
                      "xlet::triangular_solve [C3]: a's two minor dimensions must be equal (square matrices)");
        static_assert(
            diag::got<batch, SA, SB>::value,
            "xlet::triangular_solve [C3]: a and b must have the same batch dimensions (all but the two minor ones)");
        static_assert(diag::got<side, SA, SB>::value,
                      "xlet::triangular_solve [C3]: b's dimension -2 (left_side) or -1 (right side) must equal a's "
                      "size M");
        static_assert(diag::got<c5, SA, SB>::value,
                      "xlet::triangular_solve [C5]: the element type must be f32, f64, c64 or c128");
        return ok;
    }
};

template<bool Lower>
std::string cholesky_attrs() {
    return std::string("lower = ") + (Lower ? "true" : "false");
}
template<bool Left, bool Lower, bool Unit, transpose_type Tr>
std::string triangular_solve_attrs() {
    constexpr const char* names[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    return std::string("left_side = ") + (Left ? "true" : "false") + ", lower = " + (Lower ? "true" : "false") +
           ", unit_diagonal = " + (Unit ? "true" : "false") + ", transpose_a = #stablehlo<transpose " +
           names[static_cast<int>(Tr)] + ">";
}

// Quantized operands: quant/float_ops.hpp (<xlet/quant.hpp>, in <xlet/xlet.hpp>) defines these,
// with the spec's dequantize / op / quantize and its rules on the types.
template<bool Lower, class Out, class A>
auto quant_cholesky(A&& a);
template<bool Left, bool Lower, bool Unit, transpose_type Tr, class Out, class A, class B>
auto quant_triangular_solve(A&& a, B&& b);

} // namespace detail

// Cholesky(a, lower): l (lower) with a = l l^H, or u (!lower) with a = u^H u, per matrix of the
// batch; the other triangle of the result is zero; a non-positive-definite matrix gives all NaN.
// Quantized a: Out is the result's quantized type (default: a's).
template<bool Lower, class Out = void, expression A>
auto cholesky(A&& a) {
    using Rules = detail::cholesky_rules<A>;
    constexpr bool named_ok =
        is_quantized<detail::element_of<A>> || std::is_void_v<Out> || std::is_same_v<Out, detail::element_of<A>>;
    static_assert(diag::got<named_ok, detail::shown_t<A>, Out>::value,
                  "xlet::cholesky [C1]: the result of a floating operand has its type (result types are named for "
                  "quantized operands)");
    if constexpr (Rules::check() && named_ok) {
        if constexpr (is_quantized<detail::element_of<A>>)
            return detail::quant_cholesky<Lower, Out>(std::forward<A>(a));
        else
            return trace::heavy(
                "stablehlo.cholesky", [] { return detail::cholesky_attrs<Lower>(); },
                [&] { return detail::cholesky_impl<Lower>(std::forward<A>(a)); }, a);
    }
}

// TriangularSolve(a, b, left_side, lower, unit_diagonal, transpose_a): x with op(a) x = b
// (LeftSide) or x op(a) = b, reading only a's Lower (or upper) triangle. Quantized a and b: Out is
// the result's quantized type (default: b's).
template<bool LeftSide, bool Lower, bool UnitDiagonal, transpose_type TransposeA, class Out = void, expression A,
         expression B>
auto triangular_solve(A&& a, B&& b) {
    using Rules = detail::triangular_solve_rules<LeftSide, A, B>;
    constexpr bool named_ok = Rules::quantized || std::is_void_v<Out> || std::is_same_v<Out, detail::element_of<B>>;
    static_assert(diag::got<named_ok, detail::shown_t<A>, detail::shown_t<B>, Out>::value,
                  "xlet::triangular_solve [C4]: the result of floating operands has b's type (result types are named "
                  "for quantized operands)");
    if constexpr (Rules::check() && named_ok) {
        if constexpr (Rules::quantized)
            return detail::quant_triangular_solve<LeftSide, Lower, UnitDiagonal, TransposeA, Out>(std::forward<A>(a),
                                                                                                  std::forward<B>(b));
        else
            return trace::heavy(
                "stablehlo.triangular_solve",
                [] { return detail::triangular_solve_attrs<LeftSide, Lower, UnitDiagonal, TransposeA>(); },
                [&] {
                    return detail::triangular_solve_impl<LeftSide, Lower, UnitDiagonal, TransposeA>(std::forward<A>(a),
                                                                                                    std::forward<B>(b));
                },
                a, b);
    }
}

} // namespace xlet
