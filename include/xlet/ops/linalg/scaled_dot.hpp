// ScaledDot (spec: ScaledDot, "like DotGeneral" with a scale per operand), block-scaled (MX-style):
//   scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(lhs, lhs_scale, rhs, rhs_scale)
//   scaled_dot<dims, Out>(...)                      preferred_element_type: the result type
//
// Each scale has its operand's rank. Along every dimension d the operand's size is the scale's
// size times a block size b_d = size(operand, d) / size(scale, d), fixed at compile time:
//   - on a contracting dimension the scale's size must divide the operand's (b_d = 32 for MX
//     blocks of 32; a scale size of 1 is one scale for the whole dimension);
//   - on a batch or free dimension the scale's size is the operand's (b_d = 1, one scale per
//     index) or 1 (b_d = size: broadcast, e.g. a per-tensor scale has all sizes 1).
// The effective operand is x[i] * scale[i_0 / b_0, ..., i_{R-1} / b_{R-1}], and the result is
// dot_general(effective lhs, effective rhs) with the same dimension numbers, result shape and
// preferred element type as dot_general.
// Arithmetic: operand and scale are converted to the accumulation type Acc of dot_general
// (f32 for f16 / bf16 / f32 operands, f64 for f64, or the wider preferred type) and multiplied
// there, rounded once to Acc (XLA may round the product to the operand type; this is at least as
// exact). The two dequantised operands are materialised once as Acc arrays (O(size) work and
// memory, against the product's O(m n k)) and then multiplied by dot_general's GEMM, accumulated
// and rounded to the result type as dot_general does.
// Types: lhs and rhs share one floating type (f16, bf16, f32, f64); each scale may be any
// floating type (xlet has no e8m0 / f8 types: an MX e8m0 scale is a power of two, exact in bf16
// and f32). Integer and complex operands are refused.
//
// Rules (xlet numbering; C2-C11 are dot_general's rules on the dimension numbers):
//   C1  lhs and rhs have the same element type, a floating type
//   C2  lhs_batch and rhs_batch have the same size   C3 lhs/rhs_contracting have the same size
//   C4  lhs_batch ++ lhs_contracting has no repeated dimension   C5 same for rhs
//   C6-C9 batch / contracting dimensions are in range   C10 / C11 paired sizes are equal
//   C12 lhs_scale and rhs_scale have a floating element type
//   C13 each scale has its operand's rank
//   C14 on a contracting dimension the scale's size divides the operand's (both 0 allowed)
//   C15 on any other dimension the scale's size equals the operand's or is 1
//   C16 the preferred element type is a floating type
#pragma once
#include "../../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <tbb/blocked_range.h>

#include "dot.hpp"

namespace xlet {

namespace detail {

template<dot_dims D, class L, class LS, class R, class RS, class Out>
struct scaled_dot_rules {
    using T = element_of<L>;
    static constexpr std::size_t RL = shape_of<L>::rank, RR = shape_of<R>::rank;
    static constexpr bool c1 = std::is_same_v<element_of<L>, element_of<R>> && is_float<T>;
    using dims = dot_dims_rules<D, L, R>;
    static constexpr bool dims_ok = dims::dims_ok;
    static constexpr bool c12 = is_float<element_of<LS>> && is_float<element_of<RS>>;
    static constexpr bool c13 = shape_of<LS>::rank == RL && shape_of<RS>::rank == RR;
    // Block sizes: c14 on the contracting dimensions, c15 on the others.
    template<class X, class S>
    static constexpr bool blocks_ok(const dim_list& contracting, bool want_contracting) {
        if constexpr (shape_of<X>::rank != shape_of<S>::rank) {
            return true; // reported by c13
        } else {
            constexpr auto xe = shape_of<X>::extents;
            constexpr auto se = shape_of<S>::extents;
            for (std::size_t d = 0; d < xe.size(); ++d) {
                const bool c = contracting.contains(static_cast<std::int64_t>(d));
                if (c != want_contracting) continue;
                const bool ok =
                    c ? (se[d] > 0 && xe[d] % se[d] == 0) || (xe[d] == 0 && se[d] == 0) : se[d] == xe[d] || se[d] == 1;
                if (!ok) return false;
            }
            return true;
        }
    }
    static constexpr bool c14 =
        !dims_ok || (blocks_ok<L, LS>(D.lhs_contracting, true) && blocks_ok<R, RS>(D.rhs_contracting, true));
    static constexpr bool c15 =
        !dims_ok || (blocks_ok<L, LS>(D.lhs_contracting, false) && blocks_ok<R, RS>(D.rhs_contracting, false));
    static constexpr bool c16 = std::is_void_v<Out> || is_float<Out>;
    static constexpr bool ok = c1 && dims::ok && c12 && c13 && c14 && c15 && c16;

    static consteval bool check() {
        using SL = shown_t<L>;
        using SR = shown_t<R>;
        using SLS = shown_t<LS>;
        using SRS = shown_t<RS>;
        static_assert(diag::got<c1, SL, SR>::value,
                      "xlet::scaled_dot [C1]: lhs and rhs must have the same element type, a floating type");
        XLET_DOT_DIMS_ASSERTS("xlet::scaled_dot", dims, SL, SR);
        static_assert(diag::got<c12, SLS, SRS>::value,
                      "xlet::scaled_dot [C12]: lhs_scale and rhs_scale must have a floating element type");
        static_assert(diag::got<c13, SL, SLS, SR, SRS>::value,
                      "xlet::scaled_dot [C13]: each scale must have its operand's rank");
        static_assert(diag::got<c14, SL, SLS, SR, SRS>::value,
                      "xlet::scaled_dot [C14]: on a contracting dimension the scale's size must divide the "
                      "operand's (operand size = scale size x block size)");
        static_assert(diag::got<c15, SL, SLS, SR, SRS>::value,
                      "xlet::scaled_dot [C15]: on a batch or free dimension the scale's size must be the "
                      "operand's or 1");
        static_assert(diag::got<c16, SL, SR, Out>::value,
                      "xlet::scaled_dot [C16]: the preferred element type must be a floating type");
        return ok;
    }
};

// Elements from which dequantisation runs on TBB (it is memory-bound: a few cycles per element).
inline constexpr std::size_t scaled_dot_parallel_elems = std::size_t{1} << 16;

// out[i] = Acc(x[i]) * Acc(s[i / b]) over the row-major index, one innermost row at a time:
// within a row the scale changes every b_last elements, so each run is a loop by one constant.
template<class Acc, class X, class S>
auto dequantise(const X& xin, const S& sin) {
    const auto& x = as_array(xin);
    const auto& s = as_array(sin);
    using XA = std::remove_cvref_t<decltype(x)>;
    static constexpr auto xe = XA::extents;
    static constexpr auto se = std::remove_cvref_t<decltype(s)>::extents;
    constexpr std::size_t R = xe.size();
    typename tensor_of_impl<Acc, xe, std::make_index_sequence<R>>::type out(no_init);
    using XT = typename XA::value_type;
    using ST = typename std::remove_cvref_t<decltype(s)>::value_type;
    auto cx = [](XT v) { return static_cast<Acc>(static_cast<compute_t<XT>>(v)); };
    auto cs = [](ST v) { return static_cast<Acc>(static_cast<compute_t<ST>>(v)); };
    if constexpr (XA::size() == 0) {
        return out;
    } else if constexpr (R == 0) {
        out.data()[0] = cx(x.data()[0]) * cs(s.data()[0]);
        return out;
    } else {
        static constexpr auto blk = [] {
            std::array<std::size_t, R> b{};
            for (std::size_t d = 0; d < R; ++d)
                b[d] = xe[d] / se[d]; // no size is 0 here (XA::size() > 0, scale sizes divide)
            return b;
        }();
        static constexpr auto ss = row_major_strides(se);
        constexpr std::size_t W = xe[R - 1], rows = XA::size() / W, bl = blk[R - 1];
        const XT* xp = x.data();
        const ST* sp = s.data();
        Acc* op = out.data();
        auto run = [&](std::size_t r0, std::size_t r1) {
            for (std::size_t row = r0; row < r1; ++row) {
                std::ptrdiff_t base = 0;
                std::size_t rest = row;
                for (std::size_t d = R - 1; d-- > 0;) {
                    base += static_cast<std::ptrdiff_t>((rest % xe[d]) / blk[d]) * ss[d];
                    rest /= xe[d];
                }
                const XT* xr = xp + row * W;
                Acc* orow = op + row * W;
                for (std::size_t j0 = 0; j0 < W; j0 += bl) {
                    const Acc sv = cs(sp[base + static_cast<std::ptrdiff_t>(j0 / bl) * ss[R - 1]]);
                    for (std::size_t j = j0; j < j0 + bl; ++j)
                        orow[j] = cx(xr[j]) * sv;
                }
            }
        };
        if constexpr (XA::size() >= scaled_dot_parallel_elems) {
            run_parallel(tbb::blocked_range<std::size_t>(0, rows, std::max<std::size_t>(1, 16384 / W)),
                         [&](const tbb::blocked_range<std::size_t>& rg) { run(rg.begin(), rg.end()); });
        } else {
            run(0, rows);
        }
        return out;
    }
}

// Exported (to_stablehlo; StableHLO has no scaled dot): the same dequantisation spelled with
// xlet's ops, so it traces as convert, broadcast_in_dim (each scale repeated over its block: a
// dimension of size s with blocks of b becomes s x b, then reshaped), multiply, and dot_general's
// own op after it. Same arithmetic as `dequantise` (an exact widening, one rounded product), so
// the same bits.
template<class Acc, class X, class S>
auto dequantise_ops(const X& x, const S& s) {
    static constexpr auto xe = shape_of<X>::extents;
    static constexpr auto se = shape_of<S>::extents;
    constexpr std::size_t R = xe.size();
    static constexpr auto split = [](std::size_t d) { return se[d] > 1 && se[d] != xe[d]; };
    static constexpr std::size_t R2 = [] {
        std::size_t n = 0;
        for (std::size_t d = 0; d < R; ++d)
            n += split(d) ? 2 : 1;
        return n;
    }();
    // The broadcast shape (a split dimension as scale size, block size) and where the scale's
    // dimensions land in it.
    static constexpr auto wide = [] {
        std::pair<std::array<std::int64_t, R2>, std::array<std::int64_t, R>> w{};
        for (std::size_t d = 0, at = 0; d < R; ++d) {
            w.second[d] = static_cast<std::int64_t>(at);
            if (split(d)) {
                w.first[at++] = static_cast<std::int64_t>(se[d]);
                w.first[at++] = static_cast<std::int64_t>(xe[d] / se[d]);
            } else {
                w.first[at++] = static_cast<std::int64_t>(xe[d]);
            }
        }
        return w;
    }();
    // (No convert of what is already Acc, no reshape where no dimension is split.)
    auto acc = []<class V>(const V& v) {
        if constexpr (std::is_same_v<element_of<V>, Acc>)
            return as_node(v);
        else
            return convert_element_type<Acc>(v);
    };
    return [&]<std::size_t... W, std::size_t... D>(std::index_sequence<W...>, std::index_sequence<D...>) {
        auto blocks = broadcast_in_dim(acc(s), dims_t<wide.first[W]...>{}, dims_t<wide.second[D]...>{});
        if constexpr (R2 == R)
            return eval(acc(x) * blocks);
        else
            return eval(acc(x) * reshape(blocks, dims_t<static_cast<std::int64_t>(xe[D])...>{}));
    }
    (std::make_index_sequence<R2>{}, std::make_index_sequence<R>{});
}

} // namespace detail

// ScaledDot(lhs, lhs_scale, rhs, rhs_scale, dimension_numbers, precision_config,
// preferred_element_type): dot_general of the block-dequantised operands (see above).
template<dot_dims D, class Out = void, precision_config Precision = precision_config{}, expression L, expression LS,
         expression R, expression RS>
auto scaled_dot(L&& lhs, LS&& lhs_scale, R&& rhs, RS&& rhs_scale) {
    using Rules = detail::scaled_dot_rules<D, L, LS, R, RS, Out>;
    if constexpr (Rules::check()) {
        using Acc = typename detail::dot_types<detail::element_of<L>, Out>::acc;
        using O = typename detail::dot_types<detail::element_of<L>, Out>::out;
        if constexpr (trace::compiled_in)
            if (trace::current()) [[unlikely]]
                return detail::dot_general_traced<D, O, Precision>(detail::dequantise_ops<Acc>(lhs, lhs_scale),
                                                                   detail::dequantise_ops<Acc>(rhs, rhs_scale));
        const auto dl = detail::dequantise<Acc>(lhs, lhs_scale);
        const auto dr = detail::dequantise<Acc>(rhs, rhs_scale);
        return detail::dot_general_impl<D, O>(dl, dr);
    }
}

} // namespace xlet
