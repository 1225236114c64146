// DotGeneral and Dot on quantized operands (StableHLO dot_general "for quantized types" and "for
// hybrid quantized types"); ops/linalg/dot.hpp sends them here:
//   dot_general<D, R>(qa, qw)   qa per-tensor quantized, qw quantized per tensor or per axis along a
//                               non-contracting dimension, R the quantized result type (per axis
//                               when qw is, along the result dimension that holds qw's); R may be
//                               left out when qa and qw have one type
//   dot<R>(qa, qw)              the same, contracting qa's last dimension with qw's first
//   dot_general<D>(x, qw)       hybrid: x floating (qw's expressed type), the result x's type
// Semantics (docs/semantics.md "Quantization"): the sum is exact, acc = sum_k (a - za) (b - zb) in
// int32 (mod 2^32) on the stored integers (kernels/gemm_q.hpp: gemm_i8 for 8-bit storage, a plain
// loop for 16/32-bit, zero points as corrections), then requantized with the f32 combined scale
// M = float(double(sa) * double(sb_j) / double(sr_j)): f = float(acc) * M + float(zr), clamped to
// the storage range, rounded half to even, converted; 32-bit result storage with M == 1 is acc +
// zr exactly. The spec's dequantize -> float dot -> quantize differs only in rounding each partial
// sum. Hybrid: rhs dequantized once (uniform_dequantize) into a scratch array, then the float dot.
// Rules (StableHLO dot_general numbering; dot: the same, its C4 for dot_general's C14), after the
// dimension rules C2-C11 (ops/linalg/dot.hpp):
//   I1  lhs is a tensor or a per-tensor quantized tensor
//   C14 with a quantized operand, rhs is quantized and the result quantized exactly when lhs is;
//       quantized operands of different types need the result type
//   C15 the zero points of rhs are 0
//   C16 a per-axis rhs's quantization dimension is not a contracting dimension
//   C17 quantized lhs and rhs: the same storage type
//   C18 quantized lhs, rhs and result: the same expressed type
//   C19 a per-tensor rhs gives a per-tensor result
//   C20 hybrid (float lhs): element_type(lhs) = expressed_type(rhs) = element_type(result)
//   C25 (xlet) a per-axis result is quantized along the result dimension of rhs's quantization
//       dimension (the spec leaves it unsaid; its convolution has it as C30)
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../kernels/gemm_q.hpp"
#include "../ops/linalg/dot.hpp"
#include "uniform_quantize.hpp"

namespace xlet::detail {

// ---- the rules on element types, shared with convolution ---------------------------------------

// The element types of lhs, rhs and the result (Out, or lhs's type for a float lhs, or the
// operands' one type) and the rules on them (dot_general C14, C17-C20; convolution C28, C31-C34).
template<class TL, class TR, class Out>
struct quant_dot_types {
    static constexpr bool lhs_q = is_quantized<TL>, rhs_q = is_quantized<TR>;
    using result =
        std::conditional_t<!std::is_void_v<Out>, Out, std::conditional_t<!lhs_q || std::is_same_v<TL, TR>, TL, void>>;
    static constexpr bool i1 = !is_per_axis_quantized<TL>;
    static constexpr bool given = !std::is_void_v<result>;
    static constexpr bool kind = rhs_q && (!given || is_quantized<result> == lhs_q);
    static constexpr bool quantized = lhs_q && rhs_q && given && is_quantized<result>;
    static constexpr bool hybrid_form = !lhs_q && rhs_q && given && !is_quantized<result>;
    static constexpr bool storage = [] {
        if constexpr (lhs_q && rhs_q)
            return std::is_same_v<typename TL::storage_tag, typename TR::storage_tag>;
        else
            return true;
    }();
    static constexpr bool expressed = [] {
        if constexpr (quantized)
            return std::is_same_v<expressed_t<TL>, expressed_t<TR>> &&
                   std::is_same_v<expressed_t<TL>, expressed_t<result>>;
        else
            return true;
    }();
    static constexpr bool granularity = !quantized || is_per_axis_quantized<TR> || !is_per_axis_quantized<result>;
    static constexpr bool hybrid = [] {
        if constexpr (hybrid_form)
            return std::is_same_v<TL, expressed_t<TR>> && std::is_same_v<result, TL>;
        else
            return true;
    }();
    static constexpr bool ok = i1 && kind && given && storage && expressed && granularity && hybrid;
};

// Every zero point of a quantized type is 0.
template<class Q>
consteval bool zero_points_zero() {
    if constexpr (is_per_axis_quantized<Q>) {
        for (std::size_t i = 0; i < element_traits<Q>::axis_size; ++i)
            if (Q::zero_points[i] != 0) return false;
        return true;
    } else if constexpr (is_quantized<Q>) {
        return Q::zero_point == 0;
    } else {
        return true;
    }
}

} // namespace xlet::detail

// The element-type rules' static_asserts, in the op's name (OP) with its labels of the spec's
// C14 (KIND), C17, C18, C19 and C20 (dot_general) or C28, C31-C34 (convolution).
#define XLET_QUANT_DOT_TYPE_ASSERTS(OP, KIND, STORAGE, EXPRESSED, GRANULARITY, HYBRID, Types, ...)                     \
    static_assert(::xlet::diag::got<Types::i1, __VA_ARGS__>::value,                                                    \
                  OP " [I1]: lhs must be a tensor or a per-tensor quantized tensor, not per-axis quantized");          \
    static_assert(::xlet::diag::got<Types::kind, __VA_ARGS__>::value,                                                  \
                  OP " [" KIND "]: with a quantized operand, rhs must be quantized and the result quantized exactly "  \
                     "when lhs is");                                                                                   \
    static_assert(::xlet::diag::got<Types::given, __VA_ARGS__>::value,                                                 \
                  OP " [" KIND "]: quantized operands of different types need the result type (the preferred "         \
                     "element type)");                                                                                 \
    static_assert(::xlet::diag::got<Types::storage, __VA_ARGS__>::value,                                               \
                  OP " [" STORAGE "]: quantized lhs and rhs must have the same storage type");                         \
    static_assert(::xlet::diag::got<Types::expressed, __VA_ARGS__>::value,                                             \
                  OP " [" EXPRESSED "]: quantized lhs, rhs and result must have the same expressed type");             \
    static_assert(::xlet::diag::got<Types::granularity, __VA_ARGS__>::value,                                           \
                  OP " [" GRANULARITY "]: a per-tensor quantized rhs needs a per-tensor quantized result");            \
    static_assert(::xlet::diag::got<Types::hybrid, __VA_ARGS__>::value,                                                \
                  OP " [" HYBRID "]: with a float lhs (hybrid), lhs's type, rhs's expressed type and the result "      \
                     "type must be the same")

namespace xlet::detail {

// ---- the parameters of the requantization ------------------------------------------------------

// Per channel c (rhs's quantization dimension, or one channel): the f32 combined scale, the result
// zero point and rhs's zero point, from the scales rounded to the expressed type.
template<class QL, class QR, class QO>
struct quant_dot_params {
    using E = expressed_t<QL>;
    static constexpr std::size_t channels = is_per_axis_quantized<QR> ? element_traits<QR>::axis_size : 1;
    static constexpr std::int32_t za = static_cast<std::int32_t>(QL::zero_point);
    template<class Q>
    static constexpr double scale_of(std::size_t c) {
        if constexpr (is_per_axis_quantized<Q>)
            return quant::detail::rounded_scale<E>(Q::scales[c]);
        else
            return quant::detail::rounded_scale<E>(Q::scale);
    }
    template<class Q>
    static constexpr std::int32_t zero_point_of(std::size_t c) {
        if constexpr (is_per_axis_quantized<Q>)
            return static_cast<std::int32_t>(Q::zero_points[c]);
        else
            return static_cast<std::int32_t>(Q::zero_point);
    }
    static constexpr std::array<float, channels> m = [] {
        std::array<float, channels> r{};
        for (std::size_t c = 0; c < channels; ++c)
            r[c] = static_cast<float>(scale_of<QL>(0) * scale_of<QR>(c) / scale_of<QO>(c));
        return r;
    }();
    static constexpr std::array<std::int32_t, channels> zr = [] {
        std::array<std::int32_t, channels> r{};
        for (std::size_t c = 0; c < channels; ++c)
            r[c] = zero_point_of<QO>(c);
        return r;
    }();
    static constexpr std::array<std::int32_t, channels> zb = [] {
        std::array<std::int32_t, channels> r{};
        for (std::size_t c = 0; c < channels; ++c)
            r[c] = zero_point_of<QR>(c);
        return r;
    }();
    static constexpr bool zb_zero = zero_points_zero<QR>();
    static constexpr requant_range range =
        make_requant_range(element_traits<QO>::storage_min, element_traits<QO>::storage_max);
    static constexpr bool wide = sizeof(storage_t<QO>) == 4;
    // Column j of an epilogue reads channel c; k: the contraction length, col_sum: sum_k B[k, j].
    static void set(requant_table& t, std::size_t j, std::size_t c, std::size_t k, std::int32_t col_sum) {
        t.set(j, m[c], zr[c], wide);
        // off = k za zb - za sum_k b (mod 2^32)
        t.off[j] = wrap_add(wrap_mul(wrap_mul(static_cast<std::int64_t>(k), za), zb[c]), wrap_mul(-za, col_sum));
    }
};

// Rows [0, rows) of a result in tasks when the work is large.
template<class F>
void quant_rows(std::size_t rows, std::size_t cols, bool parallel, const F& f) {
    constexpr std::size_t task = std::size_t{1} << 16; // elements of one task
    const bool par = parallel && rows > 1 && rows * cols >= 2 * task;
    if (par)
        tbb::this_task_arena::isolate(
            [&] { gemm_for(true, rows, std::max<std::size_t>(1, task / std::max<std::size_t>(1, cols)), f); });
    else
        f(std::size_t{0}, rows);
}

// ---- dot_general ---------------------------------------------------------------------------------

// The result dimension that holds rhs dimension a, or -1 (a contracting dimension).
template<dot_dims D, std::size_t RL, std::size_t RR>
constexpr std::int64_t dot_result_dim_of_rhs(std::int64_t a) {
    const std::size_t nb = D.lhs_batch.size(), nc = D.lhs_contracting.size();
    for (std::size_t i = 0; i < D.rhs_batch.size(); ++i)
        if (D.rhs_batch[i] == a) return static_cast<std::int64_t>(i);
    std::int64_t p = static_cast<std::int64_t>(nb + (RL - nb - nc));
    for (std::size_t d = 0; d < RR; ++d) {
        const auto dd = static_cast<std::int64_t>(d);
        if (D.rhs_batch.contains(dd) || D.rhs_contracting.contains(dd)) continue;
        if (dd == a) return p;
        ++p;
    }
    return -1;
}

template<dot_dims D, class L, class R, class Out>
struct quant_dot_general_rules {
    using TL = element_of<L>;
    using TR = element_of<R>;
    using types = quant_dot_types<TL, TR, Out>;
    using result = typename types::result;
    using dims = dot_dims_rules<D, L, R>;
    static constexpr std::size_t RL = shape_of<L>::rank, RR = shape_of<R>::rank;
    static constexpr bool c15 = zero_points_zero<TR>();
    static constexpr bool c16 = !is_per_axis_quantized<TR> || !D.rhs_contracting.contains(quant_axis<TR>());
    // where rhs's quantization dimension lands in the result (-1: none)
    static constexpr std::int64_t result_axis = [] {
        if constexpr (is_per_axis_quantized<TR> && dims::ok)
            return dot_result_dim_of_rhs<D, RL, RR>(quant_axis<TR>());
        else
            return std::int64_t{-1};
    }();
    static constexpr bool c25 = !is_per_axis_quantized<result> || !is_per_axis_quantized<TR> || !dims::ok || !c16 ||
                                quant_axis<result>() == result_axis;
    static constexpr bool ok = types::ok && dims::ok && c15 && c16 && c25;
};

// dot_general's and dot's rules on quantized types beyond the element-type ones (C15, C16, C25).
#define XLET_QUANT_DOT_AXIS_ASSERTS(OP, Rules, ...)                                                                    \
    static_assert(::xlet::diag::got<Rules::c15, __VA_ARGS__>::value, OP " [C15]: the zero points of rhs must be 0");   \
    static_assert(::xlet::diag::got<Rules::c16, __VA_ARGS__>::value,                                                   \
                  OP " [C16]: a per-axis quantized rhs's quantization dimension must not be a contracting dimension"); \
    static_assert(::xlet::diag::got<Rules::c25, __VA_ARGS__>::value,                                                   \
                  OP " [C25]: a per-axis quantized result must be quantized along the result dimension that holds "    \
                     "rhs's quantization dimension")

// The product of stored integers, batch by batch, and its requantization into out (of type QO):
// a, b as the GEMM reads them (dot_general_impl's sides), RD the result dimension of rhs's
// quantization dimension (-1: per-tensor rhs) in a result of extents OE.
template<auto P, auto OE, std::int64_t RD, class QL, class QR, class QO, class S, class SO>
void quant_dot_run(const S* a, dot_side sa, const S* b, dot_side sb, SO* out) {
    using K = quant_dot_params<QL, QR, QO>;
    constexpr std::size_t M = P.m, N = P.n, KK = P.k, NB = P.batch;
    // The channel of column j of batch q: the result dimension RD's index, (flat / stride) % size
    // of the flat index q M N + i N + j; the row i drops out (RD is a batch dimension, whose
    // stride is a multiple of M N, or an rhs free one, whose size times stride divides N).
    constexpr std::size_t stride = [] {
        std::size_t s = 1;
        if constexpr (RD >= 0)
            for (std::size_t d = static_cast<std::size_t>(RD) + 1; d < OE.size(); ++d)
                s *= OE[d];
        return s;
    }();
    constexpr bool batch_axis = RD >= 0 && static_cast<std::size_t>(RD) < P.nb;
    auto channel = [](std::size_t q, std::size_t j) -> std::size_t {
        if constexpr (RD < 0)
            return 0;
        else
            return (q * M * N + j) / stride % OE[static_cast<std::size_t>(RD)];
    };
    // One batch: the columns' parameters (again when they depend on the batch: its channel, or za
    // times its column sums), then the product, each finished block of sums requantized into the
    // result by the GEMM's task that computed it (qgemm_epilogue).
    auto one = [&](std::size_t q, requant_table& t, bool first, bool par) {
        const S* aq = a + static_cast<std::ptrdiff_t>(q) * sa.sb;
        const S* bq = b + static_cast<std::ptrdiff_t>(q) * sb.sb;
        if (first || batch_axis || K::za != 0) {
            scratch<std::int32_t> sums(N);
            if (K::za != 0)
                qgemm_col_sums(N, KK, bq, sb.sc, sb.sf, sums.data());
            else
                std::fill_n(sums.data(), N, std::int32_t{0});
            for (std::size_t j = 0; j < N; ++j)
                K::set(t, j, channel(q, j), KK, sums[j]);
        }
        SO* oq = out + q * M * N;
        // An i32 result of the full range whose scales are lhs scale x rhs scale and whose zero
        // points are 0 (lhs's too: no correction) is the sums themselves: the GEMM stores them
        // (the per-tile epilogue's calls were a fifth of such a product, 256 x 784 x 512, on AVX2).
        if constexpr (std::is_same_v<SO, std::int32_t> && K::za == 0 && zero_points_zero<QO>() &&
                      QO::storage_min == std::numeric_limits<std::int32_t>::min() &&
                      QO::storage_max == std::numeric_limits<std::int32_t>::max()) {
            if (t.n_exact == N) {
                qgemm_raw(M, N, KK, aq, sa.sf, sa.sc, bq, sb.sc, sb.sf, oq, static_cast<std::ptrdiff_t>(N), par);
                return;
            }
        }
        qgemm_epilogue(
            M, N, KK, aq, sa.sf, sa.sc, bq, sb.sc, sb.sf,
            [&](std::size_t i, std::size_t j, const std::int32_t* s, std::ptrdiff_t lds, std::size_t mr,
                std::size_t nr) {
                requantize_block(s, lds, mr, nr, t.cols(j), K::range, oq + i * N + j, static_cast<std::ptrdiff_t>(N),
                                 1);
            },
            par);
    };
    // Many small products: whole products side by side (as dot_fast).
    if constexpr (NB > 1 && M * N * KK < dot_batch_task_work) {
        if (NB * M * N * std::max<std::size_t>(KK, 1) >= gemm_parallel_work) {
            tbb::this_task_arena::isolate([&] {
                gemm_for(true, NB, std::max<std::size_t>(1, gemm_parallel_work / std::max<std::size_t>(1, M * N * KK)),
                         [&](std::size_t q0, std::size_t q1) {
                             requant_table t(N);
                             for (std::size_t q = q0; q < q1; ++q)
                                 one(q, t, q == q0, false);
                         });
            });
            return;
        }
    }
    requant_table t(N);
    for (std::size_t q = 0; q < NB; ++q)
        one(q, t, q == 0, true);
}

template<dot_dims D, class QO, class L, class R>
auto quant_dot_general_impl(L&& lhs, R&& rhs) {
    using QL = element_of<L>;
    using QR = element_of<R>;
    constexpr auto le = shape_of<L>::extents;
    constexpr auto re = shape_of<R>::extents;
    constexpr std::size_t RL = le.size(), RR = re.size();
    static constexpr auto P = make_dot_plan<D, RL, RR>(le, re);
    static constexpr auto OE = dot_out_extents<P>(le, re);
    using out_t = typename tensor_of_impl<QO, OE, std::make_index_sequence<OE.size()>>::type;
    constexpr bool nonempty = P.batch * P.m * P.n > 0;
    out_t out = [] {
        if constexpr (nonempty)
            return out_t(no_init); // every element is written below
        else
            return out_t();
    }();
    if constexpr (nonempty) {
        static constexpr dot_side sl0 = make_dot_side<true>(le, P);
        static constexpr dot_side sr0 = make_dot_side<false>(re, P);
        static constexpr auto pl = dot_side_perm<true, RL>(P);
        static constexpr auto pr = dot_side_perm<false, RR>(P);
        const auto& a = dot_operand<QL, sl0.direct, pl>(std::forward<L>(lhs));
        const auto& b = dot_operand<QR, sr0.direct, pr>(std::forward<R>(rhs));
        constexpr std::int64_t rd = [] {
            if constexpr (is_per_axis_quantized<QR>)
                return dot_result_dim_of_rhs<D, RL, RR>(quant_axis<QR>());
            else
                return std::int64_t{-1};
        }();
        quant_dot_run<P, OE, rd, QL, QR, QO>(stored_integers(a.data()), sl0, stored_integers(b.data()), sr0,
                                             stored_integers(out.data()));
    }
    return out;
}

// The quantized or the hybrid form, recorded as one dot_general when traced.
template<dot_dims D, class Res, precision_config Prec, class L, class R>
auto quant_dot_general_traced(L&& lhs, R&& rhs) {
    return trace::heavy(
        "stablehlo.dot_general", [] { return dot_attrs<D, Prec>(); },
        [&] {
            if constexpr (is_quantized<Res>)
                return quant_dot_general_impl<D, Res>(std::forward<L>(lhs), std::forward<R>(rhs));
            else // hybrid: rhs dequantized once, then the float dot
                return dot_general_impl<D, void>(std::forward<L>(lhs), eval(uniform_dequantize(std::forward<R>(rhs))));
        },
        lhs, rhs);
}

// Declared in ops/linalg/dot.hpp.
template<dot_dims D, class Out, precision_config Prec, class L, class R>
auto quant_dot_general(L&& lhs, R&& rhs) {
    using Rules = quant_dot_general_rules<D, L, R, Out>;
    using Types = typename Rules::types;
    using Dims = typename Rules::dims;
    using SL = shown_t<L>;
    using SR = shown_t<R>;
    XLET_QUANT_DOT_TYPE_ASSERTS("xlet::dot_general", "C14", "C17", "C18", "C19", "C20", Types, SL, SR, Out);
    XLET_DOT_DIMS_ASSERTS("xlet::dot_general", Dims, SL, SR);
    XLET_QUANT_DOT_AXIS_ASSERTS("xlet::dot_general", Rules, SL, SR, Out);
    if constexpr (Rules::ok)
        return quant_dot_general_traced<D, typename Rules::result, Prec>(std::forward<L>(lhs), std::forward<R>(rhs));
}

template<class Out, precision_config Prec, class L, class R>
auto quant_dot(L&& lhs, R&& rhs) {
    using Rank = dot_rules<L, R, Out>; // C2, C3 (its C1 and C4 are the float forms')
    using SL = shown_t<L>;
    using SR = shown_t<R>;
    static_assert(diag::got<Rank::c2, SL, SR>::value, "xlet::dot [C2]: lhs and rhs must have rank 1 or 2");
    static_assert(diag::got<Rank::c3, SL, SR>::value,
                  "xlet::dot [C3]: the contracted dimensions (last of lhs, first of rhs) must have the same size");
    if constexpr (Rank::c2 && Rank::c3) {
        constexpr std::int64_t lc = static_cast<std::int64_t>(Rank::RL) - 1;
        constexpr dot_dims D{.lhs_contracting = {lc}, .rhs_contracting = {0}};
        using Rules = quant_dot_general_rules<D, L, R, Out>;
        using Types = typename Rules::types;
        XLET_QUANT_DOT_TYPE_ASSERTS("xlet::dot", "C4", "C17", "C18", "C19", "C20", Types, SL, SR, Out);
        XLET_QUANT_DOT_AXIS_ASSERTS("xlet::dot", Rules, SL, SR, Out);
        if constexpr (Rules::ok)
            return quant_dot_general_traced<D, typename Rules::result, Prec>(std::forward<L>(lhs),
                                                                             std::forward<R>(rhs));
    }
}

} // namespace xlet::detail
