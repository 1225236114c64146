// Reduce and ReduceWindow on quantized operands (StableHLO reduce, reduce_window: inputs and
// init values "per-tensor quantized tensors", the body's block arguments of types Ei with
// is_promotable(element_type(inputs[i]), Ei)):
//   reduce(qx, init, add_fn{}, dims<1>)                 the body on qx's type Q
//   reduce<Ei>(qx, init, add_fn{}, dims<1>)             the body on Ei: the spec's promotion of
//                                                       the storage type (i8 -> i32 sums)
//   reduce_window<W>(qx, init, max_fn{}), reduce_window<W, Ei>(qx, init, add_fn{})
// Semantics (the spec's, per output): the inputs and init are converted to Ei
// (to_destination_type: uniform_quantize<Ei>, nothing when Ei = Q), then folded with the body on
// scalars of Ei; the result has type Ei. xlet's tags are the spec's quantized ops on those scalars
// (dequantize_op_quantize, every step rounded and clamped to Ei's storage range):
//   add_fn, mul_fn, max_fn, min_fn   quantize(op(dequantize(a), dequantize(b)), Ei), computed on
//                                    the stored integers where that is exact (add: clamp(a + b - z);
//                                    max, min: of the stored integers; quant/op_node.hpp,
//                                    exact_on_stored), else in the expressed type.
// Any other callable is called as f(Ei, Ei) -> Ei on the quantized scalars (.stored is the stored
// integer; xlet's functors called on them are the quantized ops: add_fn{}(a, b) as above). The schedule
// (implementation-defined in the spec, and visible here: a quantized add saturates at every step) is the generic
// reduction's left fold from init, in row-major order of the reduced elements: f(...f(f(init, x0), x1)..., xn-1)
// (reduce_window: the same per window, padding cells and base-dilation holes skipped; docs/semantics.md
// "Quantization"). Rules (after the float op's, under its labels):
//   I1  the operand is per-tensor quantized (the spec's input type)
//   C4  the init value is a Q value or a rank-0 expression of Q (reduce_window: its C6)
//   C5  Ei is per-tensor quantized, of Q's expressed type and at least Q's storage width
//       (the spec's C6, is_promotable; reduce_window: its C7)
//   C6  a monoid tag on quantized operands: add_fn, mul_fn, max_fn, min_fn (and, or: no
//       quantized forms; reduce_window: its C8)
// Export: one stablehlo.reduce / reduce_window whose region is the quantized op on Ei; with
// Ei != Q, the inputs' and init's uniform_quantize to Ei come first (the spec converts inside).
#pragma once
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "../ops/reduce/reduce.hpp"
#include "../ops/reduce/reduce_window.hpp"
#include "elementwise.hpp"

namespace xlet::detail {

template<class F>
inline constexpr bool quant_monoid =
    std::is_same_v<F, add_fn> || std::is_same_v<F, mul_fn> || std::is_same_v<F, max_fn> || std::is_same_v<F, min_fn>;

// The spec's quantized op F on two scalars of Ei (F's call on quantized scalars: the op's
// quantized node, quant/elementwise.hpp), as a body the generic reduction folds with.
template<class F, class Ei>
struct quant_reduce_fn {
    Ei operator()(Ei a, Ei b) const { return F{}(a, b); }
};

// The rules on quantized operands; Out: Ei given, or void (Q).
template<class Out, class X, class I, class F>
struct quant_reduce_rules {
    using Q = element_of<X>;
    using Ei = std::conditional_t<std::is_void_v<Out>, Q, Out>;
    static constexpr bool i1 = !is_per_axis_quantized<Q>;
    static constexpr bool c4 = [] {
        if constexpr (expression<I>)
            return shape_of<I>::rank == 0 && std::is_same_v<element_of<I>, Q>;
        else
            return std::is_same_v<std::remove_cvref_t<I>, Q>;
    }();
    static constexpr bool c5 = [] {
        if constexpr (!is_quantized<Ei> || is_per_axis_quantized<Ei>)
            return false;
        else
            return std::is_same_v<expressed_t<Ei>, expressed_t<Q>> &&
                   element_traits<Ei>::bits >= element_traits<Q>::bits;
    }();
    static constexpr bool c6 = !is_monoid<F> || quant_monoid<F>;
    static constexpr bool ok = i1 && c4 && c5 && c6;
    using body = std::conditional_t<quant_monoid<F>, quant_reduce_fn<F, Ei>, F>;
};

#define XLET_QUANT_REDUCE_RULES(name, L4, L5, L6)                                                                      \
    static_assert(diag::got<Rules::i1, shown_t<X>>::value,                                                             \
                  "xlet::" #name " [I1]: a quantized operand must be per-tensor quantized (the spec's inputs)");       \
    static_assert(diag::got<Rules::c4, shown_t<X>, shown_t<I>>::value,                                                 \
                  "xlet::" #name " [" #L4 "]: the init value of a quantized operand must be a value of its type or a " \
                  "rank-0 array of it");                                                                               \
    static_assert(diag::got<Rules::c5, shown_t<X>, Out>::value,                                                        \
                  "xlet::" #name " [" #L5 "]: the body's type must be per-tensor quantized with the operand's "        \
                  "expressed type and at least its storage width (is_promotable)");                                    \
    static_assert(diag::got<Rules::c6, shown_t<X>, F>::value,                                                          \
                  "xlet::" #name " [" #L6 "]: the monoids on quantized operands are add_fn, mul_fn, max_fn and "       \
                  "min_fn");

// The operand converted to Ei (to_destination_type), and the init as a rank-0 array of Ei.
template<class Ei, class X>
auto to_body_type(X&& x) {
    if constexpr (std::is_same_v<element_of<X>, Ei>)
        return as_node(std::forward<X>(x));
    else
        return as_node(uniform_quantize<Ei>(std::forward<X>(x)));
}
template<class Ei, class Q, class I>
tensor<Ei> init_of_body_type(const I& init) {
    tensor<Q> q;
    if constexpr (expression<I>)
        q = init;
    else
        q.data()[0] = init;
    if constexpr (std::is_same_v<Q, Ei>)
        return q;
    else
        return uniform_quantize<Ei>(q);
}

// What the generic loops fold: the operand as Ei, the init as a rank-0 array of Ei, the body (the
// tag's quantized op, or the user's callable).
template<class Rules, class X, class I, class F>
auto fold_parts(X&& x, const I& init, const F& f) {
    using Ei = typename Rules::Ei;
    using B = typename Rules::body;
    using In = decltype(to_body_type<Ei>(std::forward<X>(x)));
    struct parts {
        In in;
        tensor<Ei> init;
        B body;
    };
    if constexpr (std::is_same_v<B, F>)
        return parts{to_body_type<Ei>(std::forward<X>(x)), init_of_body_type<Ei, typename Rules::Q>(init), f};
    else
        return parts{to_body_type<Ei>(std::forward<X>(x)), init_of_body_type<Ei, typename Rules::Q>(init), B{}};
}

template<class Out, class X, class I, class F, std::int64_t... D>
auto quant_reduce(X&& x, const I& init, const F& f, dims_t<D...>) {
    using Rules = quant_reduce_rules<Out, X, I, F>;
    XLET_QUANT_REDUCE_RULES(reduce, C4, C5, C6)
    if constexpr (Rules::ok) {
        auto p = fold_parts<Rules>(std::forward<X>(x), init, f);
        using Base =
            reduce_rules<typename Rules::body, std::tuple<decltype(p.in)>, std::tuple<decltype(p.init)>, dims_t<D...>>;
        if constexpr (Base::check()) {
            auto outs = reduce_nodes<Base::rd, no_dyn<Base::R>>(std::make_tuple(std::move(p.in)), std::tie(p.init),
                                                                p.body, nullptr, std::index_sequence<0>{});
            return std::move(std::get<0>(outs));
        }
    }
}

template<window_config W, class Out, class X, class I, class F>
auto quant_reduce_window(X&& x, const I& init, const F& f) {
    using Rules = quant_reduce_rules<Out, X, I, F>;
    XLET_QUANT_REDUCE_RULES(reduce_window, C6, C7, C8)
    if constexpr (Rules::ok) {
        auto p = fold_parts<Rules>(std::forward<X>(x), init, f);
        using Base = window_rules<W, typename Rules::body, std::tuple<decltype(p.in)>, std::tuple<decltype(p.init)>>;
        if constexpr (Base::check())
            return std::move(std::get<0>(reduce_window_impl<W>(std::forward_as_tuple(std::move(p.in)), std::tie(p.init),
                                                               p.body, std::index_sequence<0>{})));
    }
}

#undef XLET_QUANT_REDUCE_RULES

} // namespace xlet::detail

namespace xlet {

// reduce(qx, init, f, dims<...>) and reduce<Ei>(qx, init, f, dims<...>): more constrained than the
// float op's, so they are chosen for quantized operands.
template<expression X, class I, class F, std::int64_t... D>
requires(is_quantized<detail::element_of<X>>) auto reduce(X&& x, const I& init, const F& f, dims_t<D...> d) {
    return detail::quant_reduce<void>(std::forward<X>(x), init, f, d);
}
template<class Ei, expression X, class I, class F, std::int64_t... D>
requires(element<Ei>&& is_quantized<detail::element_of<X>>) auto reduce(X&& x, const I& init, const F& f,
                                                                        dims_t<D...> d) {
    return detail::quant_reduce<Ei>(std::forward<X>(x), init, f, d);
}

template<window_config W, expression X, class I, class F>
requires(is_quantized<detail::element_of<X>>) auto reduce_window(X&& x, const I& init, const F& f) {
    return detail::quant_reduce_window<W, void>(std::forward<X>(x), init, f);
}
template<window_config W, class Ei, expression X, class I, class F>
requires(element<Ei>&& is_quantized<detail::element_of<X>>) auto reduce_window(X&& x, const I& init, const F& f) {
    return detail::quant_reduce_window<W, Ei>(std::forward<X>(x), init, f);
}

} // namespace xlet

namespace xlet::trace {
// The body's op: the tag's op on quantized scalars ("stablehlo.add" on tensor<!quant.uniform<...>>).
template<class F, class Ei>
struct form<detail::quant_reduce_fn<F, Ei>> : form<F> {};
} // namespace xlet::trace
