// Dot and DotGeneral (spec: Dot, DotGeneral):
//   dot(a, b)                            [n]·[n] -> scalar, [m,k]·[k] -> [m], [k]·[k,n] -> [n],
//                                        [m,k]·[k,n] -> [m,n]
//   dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0},
//                        .lhs_contracting = {2}, .rhs_contracting = {1}}>(lhs, rhs)
//   dot_general<dims, std::int32_t>(s8 lhs, s8 rhs)       preferred_element_type: the result type
//   dot<float, precision_config{.lhs = precision::highest, .rhs = precision::highest}>(a, b)
//
// dot_general sums products over the paired contracting dimensions; the result's dimensions are
// the batch dimensions (in the order of lhs_batch), then lhs's free dimensions, then rhs's free
// dimensions (each in increasing order). Contracting dimensions pair up in list order.
// preferred_element_type (template argument Out, default: the operands' type) is the result type.
// Accumulation (docs/semantics.md): in the wider of the operand and result types, f16/bf16 as f32:
//   - f32 / f64 accumulations run the GEMM of kernels/gemm.hpp (FMA chains over k in increasing
//     order within blocks of 256, blocks added in order; matrix·vector: lane-split sums); f16/bf16
//     operands are converted to f32 (exactly) and take the same path, the result rounded once;
//   - integers wrap modulo 2^bits of the accumulator; s8 / u8 operands with an accumulator of at
//     most 32 bits run the 8-bit GEMM of kernels/gemm_i8.hpp (int32 sums mod 2^32, truncated to a
//     narrower result: the same bits); complex and every other mix use a plain loop with k in
//     increasing order.
// precision_config: accepted for XLA parity; DEFAULT, HIGH and HIGHEST all mean full precision of
// the accumulation type here (there is no reduced-precision hardware path on a CPU).
// Operands may be any expression: arrays are read in place (any dimension numbers whose batch, free
// and contracting groups each have one stride are just strides in the GEMM's packing); other
// expressions, and arrays whose groups do not merge, are evaluated once into a transposed copy.
// Small static shapes (M, N, K <= 16) use a register-only loop with no packing and no allocation.
//
// Rules (StableHLO dot_general numbering; C12, C13 hold by construction):
//   dot_general C1  lhs and rhs have the same element type, an integer, floating or complex type
//               C2  lhs_batch and rhs_batch have the same size
//               C3  lhs_contracting and rhs_contracting have the same size
//               C4  lhs_batch ++ lhs_contracting has no repeated dimension
//               C5  rhs_batch ++ rhs_contracting has no repeated dimension
//               C6  0 <= lhs_batch < rank(lhs)         C7  0 <= lhs_contracting < rank(lhs)
//               C8  0 <= rhs_batch < rank(rhs)         C9  0 <= rhs_contracting < rank(rhs)
//               C10 paired batch dimensions have equal sizes
//               C11 paired contracting dimensions have equal sizes
//               C12 precision_config has two entries (by construction: lhs, rhs)
//               C13 result shape = batch ++ lhs free ++ rhs free (by construction)
//               C14 (xlet) the preferred element type is of the operands' kind: integer for
//                   integers, floating for floats, complex for complex
//   dot         C1 same element type (integer, floating or complex); C2 ranks in {1, 2};
//               C3 the contracted dimensions (lhs last, rhs first) have equal sizes;
//               C4 as dot_general's C14
// Quantized operands (the quantized and hybrid forms, their rules I1, C14-C20, C25): quant/dot.hpp.
#pragma once
#include <algorithm>
#include <type_traits>

#include "../../kernels/gemm.hpp"
#include "../../kernels/gemm_i8.hpp"
#include "../elementwise/convert.hpp"
#include "../elementwise/elementwise.hpp"
#include "../layout/layout.hpp"

namespace xlet {

// DotDimensionNumbers: batch and contracting dimensions of each side.
struct dot_dims {
    dim_list lhs_batch{};
    dim_list rhs_batch{};
    dim_list lhs_contracting{};
    dim_list rhs_contracting{};
};

namespace detail {

template<class T>
inline constexpr bool dot_numeric = is_integer<T> || is_float<T> || is_complex<T>;

template<class T, class Out>
inline constexpr bool dot_out_fits = std::is_void_v<Out> || (is_integer<T> && is_integer<Out>) ||
                                     (is_float<T> && is_float<Out>) || (is_complex<T> && is_complex<Out>);

// The result type and the accumulation type.
template<class T, class Out>
struct dot_types {
    using out = std::conditional_t<std::is_void_v<Out>, T, Out>;
    using acc = std::conditional_t<(sizeof(compute_t<T>) >= sizeof(compute_t<out>)), compute_t<T>, compute_t<out>>;
};

// The dimension numbers resolved against the operand shapes (valid only when the rules hold).
template<std::size_t RL, std::size_t RR>
struct dot_plan {
    std::size_t nb = 0, nc = 0, nlf = 0, nrf = 0;
    std::array<std::size_t, 8> lb{}, rb{}, lc{}, rc{};
    std::array<std::size_t, RL + 1> lf{};
    std::array<std::size_t, RR + 1> rf{};
    std::size_t batch = 1, m = 1, n = 1, k = 1;
};

template<dot_dims D, std::size_t RL, std::size_t RR>
constexpr dot_plan<RL, RR> make_dot_plan(const extents_t<RL>& le, const extents_t<RR>& re) {
    dot_plan<RL, RR> p;
    p.nb = D.lhs_batch.size();
    p.nc = D.lhs_contracting.size();
    for (std::size_t i = 0; i < p.nb; ++i) {
        p.lb[i] = static_cast<std::size_t>(D.lhs_batch[i]);
        p.rb[i] = static_cast<std::size_t>(D.rhs_batch[i]);
        p.batch *= le[p.lb[i]];
    }
    for (std::size_t i = 0; i < p.nc; ++i) {
        p.lc[i] = static_cast<std::size_t>(D.lhs_contracting[i]);
        p.rc[i] = static_cast<std::size_t>(D.rhs_contracting[i]);
        p.k *= le[p.lc[i]];
    }
    for (std::size_t d = 0; d < RL; ++d)
        if (!D.lhs_batch.contains(static_cast<std::int64_t>(d)) &&
            !D.lhs_contracting.contains(static_cast<std::int64_t>(d))) {
            p.lf[p.nlf++] = d;
            p.m *= le[d];
        }
    for (std::size_t d = 0; d < RR; ++d)
        if (!D.rhs_batch.contains(static_cast<std::int64_t>(d)) &&
            !D.rhs_contracting.contains(static_cast<std::int64_t>(d))) {
            p.rf[p.nrf++] = d;
            p.n *= re[d];
        }
    return p;
}

// The dimension-number rules C2-C11, shared by dot_general, scaled_dot and ragged_dot.
template<dot_dims D, class L, class R>
struct dot_dims_rules {
    static constexpr std::size_t RL = shape_of<L>::rank, RR = shape_of<R>::rank;
    static constexpr auto le = shape_of<L>::extents;
    static constexpr auto re = shape_of<R>::extents;
    static constexpr bool c2 = D.lhs_batch.size() == D.rhs_batch.size();
    static constexpr bool c3 = D.lhs_contracting.size() == D.rhs_contracting.size();
    static constexpr bool unique_in(const dim_list& a, const dim_list& b) {
        for (std::size_t i = 0; i < b.size(); ++i)
            if (a.contains(b[i])) return false;
        return a.unique() && b.unique();
    }
    static constexpr bool c4 = unique_in(D.lhs_batch, D.lhs_contracting);
    static constexpr bool c5 = unique_in(D.rhs_batch, D.rhs_contracting);
    static constexpr bool c6 = D.lhs_batch.in_range(RL);
    static constexpr bool c7 = D.lhs_contracting.in_range(RL);
    static constexpr bool c8 = D.rhs_batch.in_range(RR);
    static constexpr bool c9 = D.rhs_contracting.in_range(RR);
    static constexpr bool dims_ok = c2 && c3 && c4 && c5 && c6 && c7 && c8 && c9;
    static constexpr bool paired_sizes(const dim_list& a, const dim_list& b) {
        if (!dims_ok) return true; // reported above
        for (std::size_t i = 0; i < a.size(); ++i)
            if (le[static_cast<std::size_t>(a[i])] != re[static_cast<std::size_t>(b[i])]) return false;
        return true;
    }
    static constexpr bool c10 = paired_sizes(D.lhs_batch, D.rhs_batch);
    static constexpr bool c11 = paired_sizes(D.lhs_contracting, D.rhs_contracting);
    static constexpr bool ok = dims_ok && c10 && c11;
};

// Their static_asserts, each message naming the op (OP, a string literal): a static_assert
// message must itself be a literal, so the op's name is pasted in by the preprocessor.
#define XLET_DOT_DIMS_ASSERTS(OP, Rules, SL, SR)                                                                       \
    static_assert(diag::got<Rules::c2, SL, SR>::value, OP " [C2]: lhs_batch and rhs_batch must have the same size");   \
    static_assert(diag::got<Rules::c3, SL, SR>::value,                                                                 \
                  OP " [C3]: lhs_contracting and rhs_contracting must have the same size");                            \
    static_assert(diag::got<Rules::c4, SL, SR>::value,                                                                 \
                  OP " [C4]: lhs_batch and lhs_contracting must not repeat a dimension");                              \
    static_assert(diag::got<Rules::c5, SL, SR>::value,                                                                 \
                  OP " [C5]: rhs_batch and rhs_contracting must not repeat a dimension");                              \
    static_assert(diag::got<Rules::c6, SL, SR>::value, OP " [C6]: lhs_batch dimensions must be in [0, rank(lhs))");    \
    static_assert(diag::got<Rules::c7, SL, SR>::value,                                                                 \
                  OP " [C7]: lhs_contracting dimensions must be in [0, rank(lhs))");                                   \
    static_assert(diag::got<Rules::c8, SL, SR>::value, OP " [C8]: rhs_batch dimensions must be in [0, rank(rhs))");    \
    static_assert(diag::got<Rules::c9, SL, SR>::value,                                                                 \
                  OP " [C9]: rhs_contracting dimensions must be in [0, rank(rhs))");                                   \
    static_assert(diag::got<Rules::c10, SL, SR>::value, OP " [C10]: paired batch dimensions must have the same size"); \
    static_assert(diag::got<Rules::c11, SL, SR>::value,                                                                \
                  OP " [C11]: paired contracting dimensions must have the same size")

template<dot_dims D, class L, class R, class Out>
struct dot_general_rules {
    using T = element_of<L>;
    using dims = dot_dims_rules<D, L, R>;
    static constexpr bool c1 = std::is_same_v<element_of<L>, element_of<R>> && dot_numeric<T>;
    static constexpr bool c14 = dot_out_fits<T, Out>;
    static constexpr bool ok = c1 && dims::ok && c14;

    static consteval bool check() {
        using SL = shown_t<L>;
        using SR = shown_t<R>;
        static_assert(diag::got<c1, SL, SR>::value, "xlet::dot_general [C1]: lhs and rhs must have the same element "
                                                    "type, an integer, floating or complex type");
        XLET_DOT_DIMS_ASSERTS("xlet::dot_general", dims, SL, SR);
        static_assert(diag::got<c14, SL, SR, Out>::value, "xlet::dot_general [C14]: the preferred element type must be "
                                                          "of the operands' kind (integer, floating or complex)");
        return ok;
    }
};

// One side of the product as strides over (batch, free, contracting) index groups, or "must be
// transposed first" when a group's dimensions do not collapse to a single stride.
struct dot_side {
    bool direct = true;
    std::ptrdiff_t sb = 0, sf = 0, sc = 0;
};

// Stride of a group of dimensions (in group order) of a row-major array, or -1 when they do not
// collapse into one index: each non-unit dimension's stride must be the next one's stride times its
// size. A group of unit dimensions (or none) has stride 0.
template<std::size_t R, std::size_t N>
constexpr std::ptrdiff_t group_stride(const extents_t<R>& e, const std::array<std::size_t, N>& g, std::size_t n) {
    const auto s = row_major_strides(e);
    std::ptrdiff_t prev = -1;
    std::size_t prev_d = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t d = g[i];
        if (e[d] == 1) continue;
        if (prev >= 0 && prev != s[d] * static_cast<std::ptrdiff_t>(e[d])) return -1;
        prev = s[d];
        prev_d = d;
    }
    return prev < 0 ? 0 : s[prev_d];
}

// Lhs groups are (batch, free, contracting), rhs groups (batch, contracting, free); `Lhs` picks.
template<bool Lhs, std::size_t R, class Plan>
constexpr dot_side make_dot_side(const extents_t<R>& e, const Plan& p) {
    dot_side s;
    const std::ptrdiff_t b = Lhs ? group_stride(e, p.lb, p.nb) : group_stride(e, p.rb, p.nb);
    const std::ptrdiff_t f = Lhs ? group_stride(e, p.lf, p.nlf) : group_stride(e, p.rf, p.nrf);
    const std::ptrdiff_t c = Lhs ? group_stride(e, p.lc, p.nc) : group_stride(e, p.rc, p.nc);
    s.direct = b >= 0 && f >= 0 && c >= 0;
    if (s.direct) {
        s.sb = b;
        s.sf = f;
        s.sc = c;
    } else if (Lhs) { // transposed to [batch, free, contracting]
        s.sb = static_cast<std::ptrdiff_t>(p.m * p.k);
        s.sf = static_cast<std::ptrdiff_t>(p.k);
        s.sc = 1;
    } else { // transposed to [batch, contracting, free]
        s.sb = static_cast<std::ptrdiff_t>(p.k * p.n);
        s.sf = 1;
        s.sc = static_cast<std::ptrdiff_t>(p.n);
    }
    return s;
}

// The permutation that puts a side's groups in the order above.
template<bool Lhs, std::size_t R, class Plan>
constexpr std::array<std::int64_t, R> dot_side_perm(const Plan& p) {
    std::array<std::int64_t, R> perm{};
    std::size_t j = 0;
    for (std::size_t i = 0; i < p.nb; ++i)
        perm[j++] = static_cast<std::int64_t>(Lhs ? p.lb[i] : p.rb[i]);
    if (Lhs) {
        for (std::size_t i = 0; i < p.nlf; ++i)
            perm[j++] = static_cast<std::int64_t>(p.lf[i]);
        for (std::size_t i = 0; i < p.nc; ++i)
            perm[j++] = static_cast<std::int64_t>(p.lc[i]);
    } else {
        for (std::size_t i = 0; i < p.nc; ++i)
            perm[j++] = static_cast<std::int64_t>(p.rc[i]);
        for (std::size_t i = 0; i < p.nrf; ++i)
            perm[j++] = static_cast<std::int64_t>(p.rf[i]);
    }
    return perm;
}
template<auto Perm, std::size_t... I>
constexpr auto dims_of_array(std::index_sequence<I...>) {
    return dims<Perm[I]...>;
}

// A side as an array of element type A to read: the operand itself when it is an array of type A
// whose groups collapse, else the operand evaluated once (converted to A, transposed if needed).
template<class A, bool Direct, auto Perm, class X>
decltype(auto) dot_operand(X&& x) {
    using XT = std::remove_cvref_t<X>;
    constexpr bool same = std::is_same_v<element_of<X>, A>;
    if constexpr (Direct && same && is_array_leaf<XT>)
        return static_cast<const XT&>(x);
    else if constexpr (Direct && same)
        return eval(x);
    else if constexpr (Direct)
        return eval(convert_element_type<A>(std::forward<X>(x)));
    else if constexpr (same)
        return eval(transpose(std::forward<X>(x), dims_of_array<Perm>(std::make_index_sequence<Perm.size()>{})));
    else
        return eval(convert_element_type<A>(
            transpose(std::forward<X>(x), dims_of_array<Perm>(std::make_index_sequence<Perm.size()>{}))));
}

// Batches at most this large (m * n * k) are spread over threads one whole product per task.
inline constexpr std::size_t dot_batch_task_work = std::size_t{1} << 22;
// Small static products: all of m, n, k at most this take gemm_small.
inline constexpr std::size_t dot_small = 16;

// one(q, par) for every batch q: small products one per task on TBB (each serial inside), the
// others in order, each parallel inside.
template<auto P, class One>
void dot_batches(const One& one) {
    constexpr std::size_t M = P.m, N = P.n, K = P.k, NB = P.batch;
    if constexpr (NB > 1 && M * N * K < dot_batch_task_work) {
        if (NB * M * N * K >= gemm_parallel_work) {
            tbb::this_task_arena::isolate([&] {
                gemm_for(true, NB, std::max<std::size_t>(1, gemm_parallel_work / std::max<std::size_t>(1, M * N * K)),
                         [&](std::size_t q0, std::size_t q1) {
                             for (std::size_t q = q0; q < q1; ++q)
                                 one(q, false);
                         });
            });
            return;
        }
    }
    for (std::size_t q = 0; q < NB; ++q)
        one(q, true);
}

// f32 / f64: out[b] = lhs[b] * rhs[b] for every batch b, on the GEMM kernels.
template<auto P, class T>
void dot_fast(const T* a, dot_side sa, const T* b, dot_side sb, T* c) {
    constexpr std::size_t M = P.m, N = P.n, K = P.k;
    // Products too small to split are compiled without the kernels' parallel paths.
    dot_batches<P>([&](std::size_t q, bool par) {
        const T* aq = a + static_cast<std::ptrdiff_t>(q) * sa.sb;
        const T* bq = b + static_cast<std::ptrdiff_t>(q) * sb.sb;
        T* cq = c + q * M * N;
        if constexpr (M <= dot_small && N <= dot_small && K <= dot_small) {
            gemm_small<M, N, K>(aq, sa.sf, sa.sc, bq, sb.sc, sb.sf, cq);
        } else if constexpr (N == 1) {
            if (!gemv<T, (M * K >= gemm_parallel_work)>(M, K, aq, sa.sf, sa.sc, bq, sb.sc, cq, par))
                gemm<T, (M * N * K >= gemm_parallel_work)>(M, N, K, aq, sa.sf, sa.sc, bq, sb.sc, sb.sf, cq, 1,
                                                           gemm_update::assign, par);
        } else if constexpr (M == 1) {
            if (!gemv<T, (N * K >= gemm_parallel_work)>(N, K, bq, sb.sf, sb.sc, aq, sa.sc, cq, par))
                gemm<T, (M * N * K >= gemm_parallel_work)>(M, N, K, aq, sa.sf, sa.sc, bq, sb.sc, sb.sf, cq,
                                                           static_cast<std::ptrdiff_t>(N), gemm_update::assign, par);
        } else {
            gemm<T, (M * N * K >= gemm_parallel_work)>(M, N, K, aq, sa.sf, sa.sc, bq, sb.sc, sb.sf, cq,
                                                       static_cast<std::ptrdiff_t>(N), gemm_update::assign, par);
        }
    });
}

// s8 / u8 operands, accumulation of 32 bits or fewer: the int32 sums mod 2^32 of gemm_i8, whose
// low bits are the narrower accumulator's wrapped sums.
template<class T, class Acc>
inline constexpr bool dot_i8_path = is_integer<Acc> && sizeof(Acc) <= 4 && gemm_i8_operand<T>;

template<auto P, class T>
void dot_i8(const T* a, dot_side sa, const T* b, dot_side sb, std::int32_t* c) {
    constexpr std::size_t M = P.m, N = P.n, K = P.k;
    dot_batches<P>([&](std::size_t q, bool par) {
        gemm_i8<T, T>(M, N, K, a + static_cast<std::ptrdiff_t>(q) * sa.sb, sa.sf, sa.sc,
                      b + static_cast<std::ptrdiff_t>(q) * sb.sb, sb.sc, sb.sf, c + q * M * N,
                      static_cast<std::ptrdiff_t>(N), par);
    });
}

// Any other accumulation: the plain loop, converted to Out at the end.
template<auto P, class Acc, class Out, class T>
void dot_generic(const T* a, dot_side sa, const T* b, dot_side sb, Out* c) {
    constexpr std::size_t M = P.m, N = P.n, K = P.k, NB = P.batch;
    auto to_out = [](const Acc& v) { return static_cast<Out>(convert_fn<Out>::scalar(v)); };
    for (std::size_t q = 0; q < NB; ++q)
        gemm_generic<Acc>(M, N, K, a + static_cast<std::ptrdiff_t>(q) * sa.sb, sa.sf, sa.sc,
                          b + static_cast<std::ptrdiff_t>(q) * sb.sb, sb.sc, sb.sf, c + q * M * N,
                          static_cast<std::ptrdiff_t>(N), to_out);
}

template<auto P, std::size_t RL, std::size_t RR>
constexpr auto dot_out_extents(const extents_t<RL>& le, const extents_t<RR>& re) {
    extents_t<P.nb + P.nlf + P.nrf> e{};
    std::size_t j = 0;
    for (std::size_t i = 0; i < P.nb; ++i)
        e[j++] = le[P.lb[i]];
    for (std::size_t i = 0; i < P.nlf; ++i)
        e[j++] = le[P.lf[i]];
    for (std::size_t i = 0; i < P.nrf; ++i)
        e[j++] = re[P.rf[i]];
    return e;
}

template<dot_dims D, class Out, class L, class R>
auto dot_general_impl(L&& lhs, R&& rhs) {
    using T = element_of<L>;
    using Ty = dot_types<T, Out>;
    using O = typename Ty::out;
    using Acc = typename Ty::acc;
    constexpr auto le = shape_of<L>::extents;
    constexpr auto re = shape_of<R>::extents;
    constexpr std::size_t RL = le.size(), RR = re.size();
    static constexpr auto P = make_dot_plan<D, RL, RR>(le, re);
    constexpr auto OE = dot_out_extents<P>(le, re);
    using out_t = typename tensor_of_impl<O, OE, std::make_index_sequence<OE.size()>>::type;
    // Every path below writes every element (the GEMM and GEMV assign, never accumulate into the
    // result), so the result is not zero-filled first; only k == 0 relies on the zeros.
    constexpr bool writes_all = P.batch * P.m * P.n > 0 && P.k > 0;
    out_t out = [] {
        if constexpr (writes_all)
            return out_t(no_init);
        else
            return out_t();
    }();
    if constexpr (P.batch * P.m * P.n > 0) {
        constexpr bool fast = gemm_fast<Acc>;
        using A = std::conditional_t<fast, Acc, T>; // operands as the kernel reads them
        static constexpr dot_side sl0 = make_dot_side<true>(le, P);
        static constexpr dot_side sr0 = make_dot_side<false>(re, P);
        static constexpr auto pl = dot_side_perm<true, RL>(P);
        static constexpr auto pr = dot_side_perm<false, RR>(P);
        if constexpr (P.k == 0) {
            if constexpr (!fast) {
                for (std::size_t i = 0; i < out.size(); ++i)
                    out.data()[i] = static_cast<O>(convert_fn<O>::scalar(Acc{}));
            } // else: value-initialised zeros already
        } else {
            const auto& a = dot_operand<A, sl0.direct, pl>(std::forward<L>(lhs));
            const auto& b = dot_operand<A, sr0.direct, pr>(std::forward<R>(rhs));
            if constexpr (fast && std::is_same_v<O, Acc>) {
                dot_fast<P>(a.data(), sl0, b.data(), sr0, out.data());
            } else if constexpr (fast) {
                scratch<Acc> tmp(out.size());
                dot_fast<P>(a.data(), sl0, b.data(), sr0, tmp.data());
                for (std::size_t i = 0; i < out.size(); ++i)
                    out.data()[i] = static_cast<O>(convert_fn<O>::scalar(tmp[i]));
            } else if constexpr (dot_i8_path<T, Acc> && std::is_same_v<O, std::int32_t>) {
                dot_i8<P>(a.data(), sl0, b.data(), sr0, out.data());
            } else if constexpr (dot_i8_path<T, Acc>) {
                scratch<std::int32_t> tmp(out.size());
                dot_i8<P>(a.data(), sl0, b.data(), sr0, tmp.data());
                for (std::size_t i = 0; i < out.size(); ++i)
                    out.data()[i] = static_cast<O>(convert_fn<O>::scalar(static_cast<Acc>(tmp[i])));
            } else {
                dot_generic<P, Acc, O>(a.data(), sl0, b.data(), sr0, out.data());
            }
        }
    }
    return out;
}

template<class L, class R, class Out>
struct dot_rules {
    using T = element_of<L>;
    static constexpr std::size_t RL = shape_of<L>::rank, RR = shape_of<R>::rank;
    static constexpr bool c1 = std::is_same_v<element_of<L>, element_of<R>> && dot_numeric<T>;
    static constexpr bool c2 = (RL == 1 || RL == 2) && (RR == 1 || RR == 2);
    static constexpr bool c3 = [] {
        if constexpr (!c2)
            return true;
        else
            return shape_of<L>::extents[RL - 1] == shape_of<R>::extents[0];
    }();
    static constexpr bool c4 = dot_out_fits<T, Out>;
    static constexpr bool ok = c1 && c2 && c3 && c4;
    static consteval bool check() {
        using SL = shown_t<L>;
        using SR = shown_t<R>;
        static_assert(
            diag::got<c1, SL, SR>::value,
            "xlet::dot [C1]: lhs and rhs must have the same element type, an integer, floating or complex type");
        static_assert(diag::got<c2, SL, SR>::value, "xlet::dot [C2]: lhs and rhs must have rank 1 or 2");
        static_assert(diag::got<c3, SL, SR>::value,
                      "xlet::dot [C3]: the contracted dimensions (last of lhs, first of rhs) must have the same size");
        static_assert(
            diag::got<c4, SL, SR, Out>::value,
            "xlet::dot [C4]: the preferred element type must be of the operands' kind (integer, floating or complex)");
        return ok;
    }
};

template<dot_dims D, precision_config P>
std::string dot_attrs() {
    std::string d;
    auto field = [&](const char* name, const dim_list& l) {
        if (l.size()) d += std::string(d.empty() ? "" : ", ") + name + " = " + trace::int_list(l);
    };
    field("lhs_batching_dimensions", D.lhs_batch);
    field("rhs_batching_dimensions", D.rhs_batch);
    field("lhs_contracting_dimensions", D.lhs_contracting);
    field("rhs_contracting_dimensions", D.rhs_contracting);
    return trace::join_attrs({"dot_dimension_numbers = #stablehlo.dot<" + d + ">", trace::precision_attr(P)});
}

// Traced (to_stablehlo): recorded as one dot_general, whatever the kernel does inside.
template<dot_dims D, class Out, precision_config P, class L, class R>
auto dot_general_traced(L&& lhs, R&& rhs) {
    return trace::heavy(
        "stablehlo.dot_general", [] { return dot_attrs<D, P>(); },
        [&] { return dot_general_impl<D, Out>(std::forward<L>(lhs), std::forward<R>(rhs)); }, lhs, rhs);
}

// Quantized operands (either one): quant/dot.hpp (<xlet/quant.hpp>, in <xlet/xlet.hpp>) defines
// these, with their own rules (docs/ops.md, DotGeneral).
template<class L, class R>
inline constexpr bool quantized_operands = is_quantized<element_of<L>> || is_quantized<element_of<R>>;
template<dot_dims D, class Out, precision_config P, class L, class R>
auto quant_dot_general(L&& lhs, R&& rhs);
template<class Out, precision_config P, class L, class R>
auto quant_dot(L&& lhs, R&& rhs);

} // namespace detail

// DotGeneral(lhs, rhs, dimension_numbers, precision_config, preferred_element_type): a tensor of
// shape batch ++ lhs free ++ rhs free and element type Out (default: the operands').
template<dot_dims D, class Out = void, precision_config Precision = precision_config{}, expression L, expression R>
auto dot_general(L&& lhs, R&& rhs) {
    if constexpr (detail::quantized_operands<L, R>) {
        return detail::quant_dot_general<D, Out, Precision>(std::forward<L>(lhs), std::forward<R>(rhs));
    } else {
        using Rules = detail::dot_general_rules<D, L, R, Out>;
        if constexpr (Rules::check())
            return detail::dot_general_traced<D, Out, Precision>(std::forward<L>(lhs), std::forward<R>(rhs));
    }
}

// Dot(lhs, rhs, precision_config, preferred_element_type): contracts lhs's last dimension with
// rhs's first (vector·vector, matrix·vector, vector·matrix, matrix·matrix).
template<class Out = void, precision_config Precision = precision_config{}, expression L, expression R>
auto dot(L&& lhs, R&& rhs) {
    if constexpr (detail::quantized_operands<L, R>) {
        return detail::quant_dot<Out, Precision>(std::forward<L>(lhs), std::forward<R>(rhs));
    } else {
        using Rules = detail::dot_rules<L, R, Out>;
        if constexpr (Rules::check()) {
            constexpr std::int64_t lc = static_cast<std::int64_t>(Rules::RL) - 1;
            return detail::dot_general_traced<dot_dims{.lhs_contracting = {lc}, .rhs_contracting = {0}}, Out,
                                              Precision>(std::forward<L>(lhs), std::forward<R>(rhs));
        }
    }
}

} // namespace xlet
