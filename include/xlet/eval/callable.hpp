// User computations: the one protocol for every op that takes a callable (map, reduce,
// reduce_window, select_and_scatter, scan, scatter, sort comparators, and the collectives and
// control flow to come).
//
// A computation is any callable that is valid on scalars of the element types (storage types:
// xlet::half for f16), generic lambdas included: `?:`, comparisons, std::max, literals, calls to
// the user's own function templates. xlet calls it on SIMD registers only when that is *declared*,
// never by probing: asking whether `f(xsimd::batch<float>)` compiles instantiates a generic
// lambda's body, and an error there is a hard error, not a failed check. Declared means:
//   - xlet's own function objects (add_fn, max_fn, the element-wise ops' functors): they derive
//     from detail::xlet_functor and carry a tested batch form;
//   - a user callable wrapped in xlet::vectorized(f), or whose type specialises
//     xlet::enable_vectorized<F> = true. Either is a promise that f's body is valid on xsimd
//     batches of the element types too and returns a batch (xsimd's operators and functions, no
//     `?:` or `if` on values); f16/bf16 still run on scalars, because they round every step.
// Known monoids (add_fn, mul_fn, max_fn, min_fn, and_fn, or_fn) also select the vectorised,
// fixed-order reduction kernels of reduce, reduce_window and (later) all_reduce.
#pragma once
#include <concepts>
#include <type_traits>
#include <utility>

#include "vec.hpp"

namespace xlet {

// Opt in by type: `template<> inline constexpr bool xlet::enable_vectorized<my_fn> = true;`.
template<class F> inline constexpr bool enable_vectorized = false;

// Opt in by value: map(vectorized([](auto a, auto b) { return a * b + 1.0f; }), x, y).
template<class F> struct vectorized_fn {
    F f;
    template<class... A>
    constexpr auto operator()(A&&... a) const -> decltype(f(std::forward<A>(a)...)) {
        return f(std::forward<A>(a)...);
    }
};
template<class F> constexpr vectorized_fn<std::decay_t<F>> vectorized(F&& f) { return {std::forward<F>(f)}; }

} // namespace xlet

namespace xlet::detail {

// Base of xlet's own function objects. A functor D provides `static scalar(compute types...)` and
// `template<class T> using result`; this base makes it callable like a user computation, on
// storage types, rounding to the result type once (f16/bf16 compute in f32, as the op does).
// On quantized scalars it is the spec's quantized op (dequantize_op_quantize of the operands'
// type, dequantize_compare), never the op on the stored integers: quant_scalar_call, defined by
// quant/elementwise.hpp (<xlet/quant.hpp>).
struct xlet_functor {};
template<class D, class A0, class... A>
auto quant_scalar_call(A0 a0, A... a);
template<class D> struct functor_call : xlet_functor {
    template<class A0, class... A>
        requires(element<A0> && (std::is_same_v<A, A0> && ...))
    auto operator()(A0 a0, A... a) const {
            if constexpr (is_quantized<A0>) {
                return quant_scalar_call<D>(a0, a...);
            } else {
                using R = typename D::template result<A0>;
                return narrow<R>(static_cast<compute_t<R>>(D::scalar(widen(a0), widen(a)...)));
            }
    }
};

// An element-wise op's functor (static scalar/simd forms and a cost): map(max_fn{}, x, y) is max(x, y).
template<class F>
concept element_functor = std::derived_from<std::remove_cvref_t<F>, xlet_functor> && requires { F::cost; };

template<class F> struct declares_vectorized : std::bool_constant<enable_vectorized<F>> {};
template<class F> struct declares_vectorized<vectorized_fn<F>> : std::true_type {};

// True when F may be called on xsimd batches: an xlet functor or an explicit opt-in. Only then do
// the ops ask whether the batch call is well-formed, so the question never reaches a body that
// was not written for batches.
template<class F>
concept simd_declared = std::derived_from<std::remove_cvref_t<F>, xlet_functor> ||
                        declares_vectorized<std::remove_cvref_t<F>>::value;

// The batch path of a user computation: declared, and the call on batches of the (non-narrow)
// element types yields a batch of the result type S with the same lane count.
template<class F, class S, class... T>
concept batch_computation =
    simd_declared<F> && (!is_narrow_float<T> && ...) && !is_narrow_float<S> && (has_batch<T> && ...) &&
    has_batch<S> && ((lanes_of<T>() == lanes_of<S>()) && ...) && requires(const F& f, xsimd::batch<T>... b) {
        { f(b...) } -> std::same_as<xsimd::batch<S>>;
    };

} // namespace xlet::detail
