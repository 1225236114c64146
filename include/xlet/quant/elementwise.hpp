// Element-wise ops on quantized operands, as the spec defines them: dequantize_op_quantize(op,
// operands..., type(result)), dequantize_compare, dequantize_select_quantize. Each is an overload
// of the float op (more constrained, so it is chosen for quantized operands; operators + - * / %
// == < ... reach it too) that builds one node of the op on the quantized operands
// (quant/op_node.hpp: one op in to_stablehlo, the unit the passes rewrite), which computes
//   uniform_quantize<Result>(op(uniform_dequantize(a), uniform_dequantize(b)))
// fused into one pass (no float array is made), or, for add, max, min, clamp, select and the
// comparisons of one per-tensor type, the same bits on the stored integers (quant/op_node.hpp,
// exact_on_stored). reduce_precision<E, M>(q) is dequantize_op_quantize too; xlet's functors
// called on quantized scalars (add_fn{}(a, b): the bodies of reduce, scatter, sort, map,
// all_reduce) are these ops on rank-0 operands (quant_scalar_call, below). The operands are broadcast as the float op
// broadcasts (as quantized arrays: broadcast_in_dim of a per-axis operand moves its dimension),
// and the float op's rules (C1-C4) are checked on the dequantized operands. The result type:
//   unary ops (abs ... tanh)           the operand's type: exp(q)
//   binary ops, select, clamp          the operands' type when they have one type: add(a, b);
//                                      otherwise, or to choose another, explicitly: add<R>(a, b),
//                                      select<R>(p, a, b), clamp<R>(lo, x, hi)
//   comparisons (eq ... ge, compare)   pred (compare_type FLOAT on the dequantized values)
//   is_finite                          pred, all true (the spec: "always true" for quantized types)
// Rules, numbered after the element-wise family's C1-C4 (elementwise.hpp), with the spec's:
//   C5  with a quantized operand, every operand and the result are quantized tensors (no float
//       tensor, no C++ value) (spec: add C2, the baseline_type rules of the others)
//   C6  add: operands and result of one storage type and one expressed type (spec add C3, C4);
//       every other op: of one baseline type, i.e. they differ in scales and zero points only
//       (storage type and range, expressed type, quantization dimension equal; spec C1 of sub,
//       mul, div, rem, max, min, pow, atan2; compare C1; select C2; clamp C3, C4)
//   C7  per-axis quantized operands and results: add only, and then the result is per-axis
//       exactly when an operand is, on the same quantization dimension (spec add C5-C7); every
//       other op takes per-tensor quantized tensors only (the spec's operand types)
//   C8  operands of different quantized types need the result type given: op<R>(...)
// Ops without quantized forms in the spec (not_, popcnt, clz, real, imag, cosh, erf, and, or,
// xor, shifts, complex, *_total comparisons) keep rule C3: the element type is not allowed.
#pragma once
#include "../ops/elementwise/binary.hpp"
#include "../ops/elementwise/compare.hpp"
#include "../ops/elementwise/convert.hpp"
#include "../ops/elementwise/select.hpp"
#include "../ops/elementwise/unary.hpp"
#include "uniform_quantize.hpp"

namespace xlet::detail {

template<class L, class R>
inline constexpr bool any_quantized = is_quantized<element_of<L>> || is_quantized<element_of<R>>;

// Quantized types equal but for scales and zero points (the spec's baseline_type), and the
// looser agreement add asks for (storage and expressed types).
template<class A, class B>
consteval bool same_storage_expressed() {
    if constexpr (!is_quantized<A> || !is_quantized<B>)
        return false;
    else
        return std::is_same_v<typename A::storage_tag, typename B::storage_tag> &&
               std::is_same_v<expressed_t<A>, expressed_t<B>>;
}
template<class A, class B>
consteval bool same_baseline() {
    if constexpr (!same_storage_expressed<A, B>())
        return false;
    else
        return A::storage_min == B::storage_min && A::storage_max == B::storage_max &&
               quant_axis<A>() == quant_axis<B>();
}

// The rules of an n-ary op on quantized operands Ts... (all of them operands; C++ values and
// float tensors fail C5) with result Out (void: the operands' common type).
template<bool IsAdd, class Out, class... X>
struct quant_rules {
    static constexpr bool c5 =
        (expression<X> && ...) && (is_quantized<element_of<X>> && ...) && (std::is_void_v<Out> || is_quantized<Out>);
    using first = element_of<std::tuple_element_t<0, std::tuple<X...>>>;
    static constexpr bool c8 = !std::is_void_v<Out> || (std::is_same_v<first, element_of<X>> && ...);
    using result = std::conditional_t<std::is_void_v<Out>, first, Out>;
    static constexpr bool c6 = [] {
        if constexpr (!c5)
            return true; // C5's message
        else if constexpr (IsAdd)
            return (same_storage_expressed<element_of<X>, result>() && ...);
        else
            return (same_baseline<element_of<X>, result>() && ...);
    }();
    static constexpr bool c7 = [] {
        if constexpr (!c5)
            return true;
        else if constexpr (IsAdd)
            return (is_per_axis_quantized<element_of<X>> || ...) == is_per_axis_quantized<result> &&
                   ((!is_per_axis_quantized<element_of<X>> || quant_axis<element_of<X>>() == quant_axis<result>()) &&
                    ...);
        else
            return !(is_per_axis_quantized<element_of<X>> || ...) && !is_per_axis_quantized<result>;
    }();
    static constexpr bool ok = c5 && c6 && c7 && c8;
};

// The node of a binary op F with result R on the quantized operands broadcast to one shape
// (implicitly, or along broadcast_dimensions).
template<class F, class R, class L, class Rt, class... B>
auto quant_binary(L&& l, Rt&& r, B...) {
    auto node = [](auto&&... x) { return make_quant_op<F, R>(std::move(x)...); };
    if constexpr (sizeof...(B) == 0)
        return detail::apply(node, broadcast_operands<void>(std::forward<L>(l), std::forward<Rt>(r)));
    else
        return detail::apply(node,
                             broadcast_operands_bdims<void, B::value...>(std::forward<L>(l), std::forward<Rt>(r)));
}

} // namespace xlet::detail

// The four rules' static_asserts, in the op's name.
#define XLET_QUANT_RULES(name, Rules, ...)                                                                             \
    static_assert(::xlet::diag::got<Rules::c5, __VA_ARGS__>::value,                                                    \
                  "xlet::" #name " [C5]: with a quantized operand, every operand and the result must be quantized "    \
                  "tensors");                                                                                          \
    static_assert(::xlet::diag::got<Rules::c8, __VA_ARGS__>::value,                                                    \
                  "xlet::" #name " [C8]: operands of different quantized types need the result type: " #name           \
                  "<R>(...)");                                                                                         \
    static_assert(::xlet::diag::got<Rules::c6, __VA_ARGS__>::value,                                                    \
                  "xlet::" #name " [C6]: quantized operands and result must differ in scales and zero points "         \
                  "only (add: must have one storage type and one expressed type)");                                    \
    static_assert(::xlet::diag::got<Rules::c7, __VA_ARGS__>::value,                                                    \
                  "xlet::" #name " [C7]: per-axis quantized operands are for add only, the result per-axis "           \
                  "exactly when an operand is, on the same quantization dimension");

// op(a, b) and op(a, b, dims<...>) with a quantized operand: detail::quant_<op><void>(...), the
// overloads more constrained than the float op's (elementwise.hpp), so they win for quantized operands.
#define XLET_QUANT_OVERLOADS(name)                                                                                     \
    template<class L, class R>                                                                                         \
    requires((::xlet::expression<L> || ::xlet::expression<R>)&&::xlet::detail::operand<L> &&                           \
             ::xlet::detail::operand<R> && ::xlet::detail::any_quantized<L, R>) auto                                   \
    name(L&& l, R&& r) {                                                                                               \
        return detail::quant_##name<void>(std::forward<L>(l), std::forward<R>(r));                                     \
    }                                                                                                                  \
    template<class L, class R, std::int64_t... B>                                                                      \
    requires((::xlet::expression<L> || ::xlet::expression<R>)&&::xlet::detail::operand<L> &&                           \
             ::xlet::detail::operand<R> && ::xlet::detail::any_quantized<L, R>) auto                                   \
    name(L&& l, R&& r, ::xlet::dims_t<B...> bd) {                                                                      \
        return detail::quant_##name<void>(std::forward<L>(l), std::forward<R>(r), bd);                                 \
    }

// op(a, b), op<R>(a, b), op(a, b, dims<...>), op<R>(a, b, dims<...>) on quantized operands.
#define XLET_QUANT_BINARY_OP(name, IsAdd)                                                                              \
    namespace detail {                                                                                                 \
    template<class Out, class L, class R, class... B>                                                                  \
    auto quant_##name(L&& l, R&& r, B... bd) {                                                                         \
        using Rules_ = ::xlet::detail::quant_rules<IsAdd, Out, L, R>;                                                  \
        XLET_QUANT_RULES(name, Rules_, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>, Out)                    \
        if constexpr (Rules_::ok) {                                                                                    \
            using float_op_ = decltype(::xlet::name(::xlet::uniform_dequantize(std::declval<L>()),                     \
                                                    ::xlet::uniform_dequantize(std::declval<R>()), bd...));            \
            if constexpr (!std::is_void_v<float_op_>)                                                                  \
                return ::xlet::detail::quant_binary<::xlet::detail::name##_fn, typename Rules_::result>(               \
                    std::forward<L>(l), std::forward<R>(r), bd...);                                                    \
        }                                                                                                              \
    }                                                                                                                  \
    }                                                                                                                  \
    XLET_QUANT_OVERLOADS(name)                                                                                         \
    template<class Out, class L, class R>                                                                              \
    requires(::xlet::element<Out> && ::xlet::detail::any_quantized<L, R>) auto name(L&& l, R&& r) {                    \
        return detail::quant_##name<Out>(std::forward<L>(l), std::forward<R>(r));                                      \
    }                                                                                                                  \
    template<class Out, class L, class R, std::int64_t... B>                                                           \
    requires(::xlet::element<Out> && ::xlet::detail::any_quantized<L, R>) auto name(L&& l, R&& r,                      \
                                                                                    ::xlet::dims_t<B...> bd) {         \
        return detail::quant_##name<Out>(std::forward<L>(l), std::forward<R>(r), bd);                                  \
    }

// op(q): the operand's type.
#define XLET_QUANT_UNARY_OP(name, Functor)                                                                             \
    template<::xlet::expression X>                                                                                     \
    requires(::xlet::is_quantized<::xlet::detail::element_of<X>>) auto name(X&& x) {                                   \
        using T_ = ::xlet::detail::element_of<X>;                                                                      \
        static_assert(::xlet::diag::got<!::xlet::is_per_axis_quantized<T_>, ::xlet::detail::shown_t<X>>::value,        \
                      "xlet::" #name " [C7]: per-axis quantized operands are for add only");                           \
        if constexpr (!::xlet::is_per_axis_quantized<T_>)                                                              \
            return ::xlet::detail::make_quant_op<Functor, T_>(::xlet::detail::as_node(std::forward<X>(x)));            \
    }

// Comparisons: pred from the dequantized values (Out: always void).
#define XLET_QUANT_COMPARE_OP(name)                                                                                    \
    namespace detail {                                                                                                 \
    template<class Out, class L, class R, class... B>                                                                  \
    auto quant_##name(L&& l, R&& r, B... bd) {                                                                         \
        using Rules_ = ::xlet::detail::quant_rules<false, Out, L, R>;                                                  \
        static_assert(::xlet::diag::got<Rules_::c5, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,    \
                      "xlet::" #name " [C5]: with a quantized operand, every operand must be a quantized tensor");     \
        static_assert(::xlet::diag::got<Rules_::c6, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,    \
                      "xlet::" #name " [C6]: quantized operands must differ in scales and zero points only");          \
        static_assert(::xlet::diag::got<Rules_::c7, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,    \
                      "xlet::" #name " [C7]: per-axis quantized operands are for add only");                           \
        if constexpr (Rules_::c5 && Rules_::c6 && Rules_::c7) {                                                        \
            using float_op_ = decltype(::xlet::name(::xlet::uniform_dequantize(std::declval<L>()),                     \
                                                    ::xlet::uniform_dequantize(std::declval<R>()), bd...));            \
            if constexpr (!std::is_void_v<float_op_>)                                                                  \
                return ::xlet::detail::quant_binary<::xlet::detail::name##_fn, bool>(std::forward<L>(l),               \
                                                                                     std::forward<R>(r), bd...);       \
        }                                                                                                              \
    }                                                                                                                  \
    }                                                                                                                  \
    XLET_QUANT_OVERLOADS(name)

namespace xlet {

XLET_QUANT_BINARY_OP(add, true)
XLET_QUANT_BINARY_OP(sub, false)
XLET_QUANT_BINARY_OP(mul, false)
XLET_QUANT_BINARY_OP(div, false)
XLET_QUANT_BINARY_OP(rem, false)
XLET_QUANT_BINARY_OP(max, false)
XLET_QUANT_BINARY_OP(min, false)
XLET_QUANT_BINARY_OP(pow, false)
XLET_QUANT_BINARY_OP(atan2, false)

XLET_QUANT_UNARY_OP(abs, detail::abs_fn)
XLET_QUANT_UNARY_OP(neg, detail::neg_fn)
XLET_QUANT_UNARY_OP(sign, detail::sign_fn)
XLET_QUANT_UNARY_OP(exp, detail::exp_fn)
XLET_QUANT_UNARY_OP(expm1, detail::expm1_fn)
XLET_QUANT_UNARY_OP(log, detail::log_fn)
XLET_QUANT_UNARY_OP(log1p, detail::log1p_fn)
XLET_QUANT_UNARY_OP(logistic, detail::logistic_fn)
XLET_QUANT_UNARY_OP(sin, detail::sin_fn)
XLET_QUANT_UNARY_OP(cos, detail::cos_fn)
XLET_QUANT_UNARY_OP(tan, detail::tan_fn)
XLET_QUANT_UNARY_OP(tanh, detail::tanh_fn)
XLET_QUANT_UNARY_OP(sqrt, detail::sqrt_fn)
XLET_QUANT_UNARY_OP(rsqrt, detail::rsqrt_fn)
XLET_QUANT_UNARY_OP(cbrt, detail::cbrt_fn)
XLET_QUANT_UNARY_OP(ceil, detail::ceil_fn)
XLET_QUANT_UNARY_OP(floor, detail::floor_fn)
XLET_QUANT_UNARY_OP(round, detail::round_fn)
XLET_QUANT_UNARY_OP(round_nearest_afz, detail::round_fn)
XLET_QUANT_UNARY_OP(round_nearest_even, detail::round_nearest_even_fn)

XLET_QUANT_COMPARE_OP(eq)
XLET_QUANT_COMPARE_OP(ne)
XLET_QUANT_COMPARE_OP(lt)
XLET_QUANT_COMPARE_OP(le)
XLET_QUANT_COMPARE_OP(gt)
XLET_QUANT_COMPARE_OP(ge)

// is_finite of a quantized array: all true (its values are finite by construction).
template<expression X>
requires(is_quantized<detail::element_of<X>>) auto is_finite(X&&) {
    using T = detail::element_of<X>;
    static_assert(diag::got<!is_per_axis_quantized<T>, detail::shown_t<X>>::value,
                  "xlet::is_finite [C7]: per-axis quantized operands are for add only");
    using N = detail::node_t<X>;
    return detail::broadcast_to<N::rank, N::extents>(detail::scalar_node<bool>{{}, true});
}

// reduce_precision<E, M>(q): dequantize_op_quantize(reduce_precision, q, type(q)); the operand's
// type (the spec's output type is the operand's).
template<int ExponentBits, int MantissaBits, expression X>
requires(is_quantized<detail::element_of<X>>) auto reduce_precision(X&& x) {
    using T = detail::element_of<X>;
    static_assert(diag::got<!is_per_axis_quantized<T>, detail::shown_t<X>>::value,
                  "xlet::reduce_precision [C7]: per-axis quantized operands are for add only");
    static_assert(ExponentBits >= 1 && MantissaBits >= 0,
                  "xlet::reduce_precision [C2]: exponent_bits must be at least 1 and mantissa_bits at least 0");
    if constexpr (!is_per_axis_quantized<T> && ExponentBits >= 1 && MantissaBits >= 0)
        return detail::make_quant_op<detail::reduce_precision_fn<ExponentBits, MantissaBits, expressed_t<T>>, T>(
            detail::as_node(std::forward<X>(x)));
}

// select(pred, a, b) and select<R>(pred, a, b): dequantize_select_quantize.
namespace detail {
template<class Out, class P, class A, class B>
auto quant_select(P&& pred, A&& on_true, B&& on_false) {
    using Rules = quant_rules<false, Out, A, B>;
    XLET_QUANT_RULES(select, Rules, shown_t<A>, shown_t<B>, Out)
    if constexpr (Rules::ok) {
        using float_op = decltype(select(std::declval<P>(), uniform_dequantize(std::declval<A>()),
                                         uniform_dequantize(std::declval<B>())));
        constexpr auto E = shape_of<A>::extents;
        if constexpr (!std::is_void_v<float_op>)
            return make_quant_op<select_fn, typename Rules::result>(
                broadcast_to<E.size(), E>(as_node(std::forward<P>(pred))), as_node(std::forward<A>(on_true)),
                as_node(std::forward<B>(on_false)));
    }
}
template<class Out, class Lo, class X, class Hi>
auto quant_clamp(Lo&& lo, X&& x, Hi&& hi) {
    // The result's type is the operand's (or Out); min and max only share its baseline type.
    using Rules = quant_rules<false, std::conditional_t<std::is_void_v<Out>, element_of<X>, Out>, Lo, X, Hi>;
    XLET_QUANT_RULES(clamp, Rules, shown_t<Lo>, shown_t<X>, shown_t<Hi>, Out)
    if constexpr (Rules::ok) {
        using float_op = decltype(clamp(uniform_dequantize(std::declval<Lo>()), uniform_dequantize(std::declval<X>()),
                                        uniform_dequantize(std::declval<Hi>())));
        constexpr auto E = shape_of<X>::extents;
        if constexpr (!std::is_void_v<float_op>)
            return make_quant_op<clamp_fn, typename Rules::result>(
                broadcast_to<E.size(), E>(as_node(std::forward<Lo>(lo))), as_node(std::forward<X>(x)),
                broadcast_to<E.size(), E>(as_node(std::forward<Hi>(hi))));
    }
}
} // namespace detail

template<expression P, class A, class B>
requires((expression<A> || expression<B>)&&detail::operand<A>&& detail::operand<B>&&
             detail::any_quantized<A, B>) auto select(P&& pred, A&& on_true, B&& on_false) {
    return detail::quant_select<void>(std::forward<P>(pred), std::forward<A>(on_true), std::forward<B>(on_false));
}
template<class Out, expression P, class A, class B>
requires(element<Out>&& detail::any_quantized<A, B>) auto select(P&& pred, A&& on_true, B&& on_false) {
    return detail::quant_select<Out>(std::forward<P>(pred), std::forward<A>(on_true), std::forward<B>(on_false));
}

template<class Lo, expression X, class Hi>
requires(detail::operand<Lo>&& detail::operand<Hi>&& is_quantized<detail::element_of<X>>) auto clamp(Lo&& lo, X&& x,
                                                                                                     Hi&& hi) {
    return detail::quant_clamp<void>(std::forward<Lo>(lo), std::forward<X>(x), std::forward<Hi>(hi));
}
template<class Out, class Lo, expression X, class Hi>
requires(element<Out>&& is_quantized<detail::element_of<X>>) auto clamp(Lo&& lo, X&& x, Hi&& hi) {
    return detail::quant_clamp<Out>(std::forward<Lo>(lo), std::forward<X>(x), std::forward<Hi>(hi));
}

} // namespace xlet

namespace xlet::detail {

// The functors of the ops above (the ops with a quantized form in the spec).
template<class F>
inline constexpr bool has_quant_form =
    is_ordered_compare<F> || quant_arith_form<F> || std::is_same_v<F, abs_fn> || std::is_same_v<F, neg_fn> ||
    std::is_same_v<F, sign_fn> || std::is_same_v<F, exp_fn> || std::is_same_v<F, expm1_fn> ||
    std::is_same_v<F, log_fn> || std::is_same_v<F, log1p_fn> || std::is_same_v<F, logistic_fn> ||
    std::is_same_v<F, sin_fn> || std::is_same_v<F, cos_fn> || std::is_same_v<F, tan_fn> || std::is_same_v<F, tanh_fn> ||
    std::is_same_v<F, sqrt_fn> || std::is_same_v<F, rsqrt_fn> || std::is_same_v<F, cbrt_fn> ||
    std::is_same_v<F, ceil_fn> || std::is_same_v<F, floor_fn> || std::is_same_v<F, round_fn> ||
    std::is_same_v<F, round_nearest_even_fn>;

// xlet's functor D called on quantized scalars of one type Q (a reduce, scatter, sort or
// all_reduce body, a map): the op's quantized node on rank-0 operands, read once, so a scalar
// call gives the bits of the array op (the result: Q, or pred for a comparison).
template<class D, class A0, class... A>
auto quant_scalar_call(A0 a0, A... a) {
    static_assert(diag::got<has_quant_form<D>, A0>::value,
                  "xlet: this element-wise op has no quantized form in the spec (called on quantized scalars)");
    static_assert(diag::got<!is_per_axis_quantized<A0>, A0>::value,
                  "xlet: quantized scalars are per-tensor quantized (a per-axis type needs its axis)");
    using R = std::conditional_t<is_ordered_compare<D>, bool, A0>;
    if constexpr (has_quant_form<D> && !is_per_axis_quantized<A0>) {
        const auto node = quant_impl<D, R>(scalar_node<A0>{{}, widen(a0)}, scalar_node<A>{{}, widen(a)}...);
        return narrow<R>(node.at({}));
    }
}

} // namespace xlet::detail

#undef XLET_QUANT_RULES
#undef XLET_QUANT_BINARY_OP
#undef XLET_QUANT_UNARY_OP
#undef XLET_QUANT_COMPARE_OP
#undef XLET_QUANT_OVERLOADS
