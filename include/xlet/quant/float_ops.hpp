// The ops the StableHLO spec computes on quantized operands in floating point only:
//   batch_norm_inference, cholesky, triangular_solve     dequantize_op_quantize(op, operands..., type(result))
//   batch_norm_training, batch_norm_grad                  dequantize_batch_norm_grad_or_training_quantize
// i.e. every operand dequantized to its expressed type, the float op (ops/conv/batch_norm.hpp,
// ops/linalg/cholesky.hpp: same algorithm, same bits as on those float arrays), every result
// quantized to its type (uniform_quantize: round half to even, saturate, NaN -> 0). The ops'
// own files send quantized operands here (declarations there), with the result types as
// template arguments (default: the operand's type; batch-norm outputs rarely share the input's
// range, so they are worth naming):
//   batch_norm_inference<F, R>(x, scale, offset, mean, variance, eps)       lazy, as the float op:
//       one fused pass dequantize -> normalise -> quantize, no float array
//   batch_norm_training<F, R, Rmean, Rvar>(x, scale, offset, eps)
//   batch_norm_grad<F, Rgx, Rgscale, Rgoffset>(x, scale, mean, variance, grad_output, eps)
//   cholesky<lower, R>(a), triangular_solve<left, lower, unit, transpose, R>(a, b)
// f16 / bf16 expressed types: batch_norm computes in f32 as on f16 / bf16 arrays; cholesky and
// triangular_solve (f32 / f64 / complex only) dequantize to the expressed type, compute in f32
// and round to the expressed type before quantizing (one rounding more than an f32 program, as
// the spec's op in the expressed type would have). A matrix that is not positive definite gives
// NaN in float, which quantizes to the stored integer 0 (uniform_quantize's choice for NaN).
// The ops' shape rules are the float ops' (whose element-type rules leave quantized types here).
// Rules (StableHLO numbering of each op):
//   I1  quantized operands are per-tensor (the spec's input types)
//   C2  (batch_norm_*) / C1 (triangular_solve) / C1 (cholesky): operands and results have one
//       baseline element type: all quantized, equal but for scales and zero points
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

#include "../ops/conv/batch_norm.hpp"
#include "../ops/linalg/cholesky.hpp"
#include "elementwise.hpp"
#include "uniform_quantize.hpp"

namespace xlet::detail {

// Out, or the operand's type when void.
template<class Out, class T>
using quant_result_or = std::conditional_t<std::is_void_v<Out>, T, Out>;

// The rules above for operand element types Ts and result types Rs of one op.
template<class Rs, class... Ts>
struct quant_float_rules;
template<class... Rs, class... Ts>
struct quant_float_rules<std::tuple<Rs...>, Ts...> {
    using first = std::tuple_element_t<0, std::tuple<Ts...>>;
    static constexpr bool all_quantized = (is_quantized<Ts> && ...) && (is_quantized<Rs> && ...);
    static constexpr bool per_tensor = !(is_per_axis_quantized<Ts> || ...) && !(is_per_axis_quantized<Rs> || ...);
    static constexpr bool baseline = [] {
        if constexpr (!all_quantized)
            return false;
        else
            return (same_baseline<first, Ts>() && ...) && (same_baseline<first, Rs>() && ...);
    }();
    static constexpr bool baseline_ok = !per_tensor || baseline; // (the per-tensor rule speaks first)
    static constexpr bool ok = per_tensor && baseline;
};

#define XLET_QUANT_FLOAT_ASSERTS(OP, CRULE, Rules, ...)                                                                \
    static_assert(diag::got<Rules::per_tensor, __VA_ARGS__>::value,                                                    \
                  OP " [I1]: quantized operands and results must be per-tensor quantized");                            \
    static_assert(diag::got<Rules::baseline_ok, __VA_ARGS__>::value,                                                   \
                  OP " [" CRULE "]: operands and results must have one baseline element type (all quantized, "         \
                     "equal but for scales and zero points)")

// A quantized operand's real values as an array of its expressed type, or of C when the float op
// computes in C (f16 / bf16 -> f32 for cholesky and triangular_solve).
template<class C, class X>
auto quant_float_operand(X&& x) {
    using E = expressed_t<element_of<X>>;
    if constexpr (std::is_same_v<C, E>)
        return eval(uniform_dequantize(std::forward<X>(x)));
    else
        return eval(convert_element_type<C>(uniform_dequantize(std::forward<X>(x))));
}
// A float result quantized to R (through R's expressed type).
template<class R, class X>
auto quant_float_result(X&& x) {
    using E = expressed_t<R>;
    if constexpr (std::is_same_v<element_of<X>, E>)
        return eval(uniform_quantize<R>(std::forward<X>(x)));
    else
        return eval(uniform_quantize<R>(convert_element_type<E>(std::forward<X>(x))));
}

template<std::int64_t F, class Out, class X, class S, class O, class M, class V>
auto quant_batch_norm_inference(X&& x, S&& scale, O&& offset, M&& mean, V&& variance, float epsilon) {
    using T = element_of<X>;
    using R = quant_result_or<Out, T>;
    using Rules = quant_float_rules<std::tuple<R>, T, element_of<S>, element_of<O>, element_of<M>, element_of<V>>;
    XLET_QUANT_FLOAT_ASSERTS("xlet::batch_norm_inference", "C2", Rules, shown_t<X>, shown_t<S>, shown_t<O>, shown_t<M>,
                             shown_t<V>, R);
    if constexpr (Rules::ok) {
        using E = expressed_t<T>;
        return uniform_quantize<R>(batch_norm_inference<F>(
            uniform_dequantize(std::forward<X>(x)), quant_float_operand<E>(std::forward<S>(scale)),
            quant_float_operand<E>(std::forward<O>(offset)), quant_float_operand<E>(std::forward<M>(mean)),
            quant_float_operand<E>(std::forward<V>(variance)), epsilon));
    }
}

template<std::int64_t F, class Out, class OutMean, class OutVar, class X, class S, class O>
auto quant_batch_norm_training(X&& x, S&& scale, O&& offset, float epsilon) {
    using T = element_of<X>;
    using R = quant_result_or<Out, T>;
    using RM = quant_result_or<OutMean, T>;
    using RV = quant_result_or<OutVar, T>;
    using Rules = quant_float_rules<std::tuple<R, RM, RV>, T, element_of<S>, element_of<O>>;
    XLET_QUANT_FLOAT_ASSERTS("xlet::batch_norm_training", "C2", Rules, shown_t<X>, shown_t<S>, shown_t<O>, R, RM, RV);
    if constexpr (Rules::ok) {
        using E = expressed_t<T>;
        return trace::heavy(
            "stablehlo.batch_norm_training", [&] { return batch_norm_attrs(epsilon, F); },
            [&] {
                auto [y, m, v] = batch_norm_training_impl<F>(quant_float_operand<E>(std::forward<X>(x)),
                                                             quant_float_operand<E>(std::forward<S>(scale)),
                                                             quant_float_operand<E>(std::forward<O>(offset)), epsilon);
                return std::tuple{quant_float_result<R>(y), quant_float_result<RM>(m), quant_float_result<RV>(v)};
            },
            x, scale, offset);
    }
}

template<std::int64_t F, class Out, class OutScale, class OutOffset, class X, class S, class M, class V, class G>
auto quant_batch_norm_grad(X&& x, S&& scale, M&& mean, V&& variance, G&& grad_output, float epsilon) {
    using T = element_of<X>;
    using RX = quant_result_or<Out, T>;
    using RS = quant_result_or<OutScale, T>;
    using RO = quant_result_or<OutOffset, T>;
    using Rules =
        quant_float_rules<std::tuple<RX, RS, RO>, T, element_of<S>, element_of<M>, element_of<V>, element_of<G>>;
    XLET_QUANT_FLOAT_ASSERTS("xlet::batch_norm_grad", "C2", Rules, shown_t<X>, shown_t<S>, shown_t<M>, shown_t<V>,
                             shown_t<G>, RX, RS, RO);
    if constexpr (Rules::ok) {
        using E = expressed_t<T>;
        return trace::heavy(
            "stablehlo.batch_norm_grad", [&] { return batch_norm_attrs(epsilon, F); },
            [&] {
                auto [gx, gs, go] = batch_norm_grad_impl<F>(
                    quant_float_operand<E>(std::forward<X>(x)), quant_float_operand<E>(std::forward<S>(scale)),
                    quant_float_operand<E>(std::forward<M>(mean)), quant_float_operand<E>(std::forward<V>(variance)),
                    quant_float_operand<E>(std::forward<G>(grad_output)), epsilon);
                return std::tuple{quant_float_result<RX>(gx), quant_float_result<RS>(gs), quant_float_result<RO>(go)};
            },
            x, scale, mean, variance, grad_output);
    }
}

// cholesky and triangular_solve compute in f32 for f16 / bf16 expressed types (their float forms
// take f32, f64, c64, c128).
template<class T>
using quant_linalg_t = std::conditional_t<std::is_same_v<expressed_t<T>, double>, double, float>;

template<bool Lower, class Out, class A>
auto quant_cholesky(A&& a) {
    using T = element_of<A>;
    using R = quant_result_or<Out, T>;
    using Rules = quant_float_rules<std::tuple<R>, T>;
    XLET_QUANT_FLOAT_ASSERTS("xlet::cholesky", "C1", Rules, shown_t<A>, R);
    if constexpr (Rules::ok)
        return trace::heavy(
            "stablehlo.cholesky", [] { return cholesky_attrs<Lower>(); },
            [&] {
                return quant_float_result<R>(
                    cholesky_impl<Lower>(quant_float_operand<quant_linalg_t<T>>(std::forward<A>(a))));
            },
            a);
}

template<bool Left, bool Lower, bool Unit, transpose_type Tr, class Out, class A, class B>
auto quant_triangular_solve(A&& a, B&& b) {
    using TB = element_of<B>;
    using R = quant_result_or<Out, TB>;
    using Rules = quant_float_rules<std::tuple<R>, TB, element_of<A>>;
    XLET_QUANT_FLOAT_ASSERTS("xlet::triangular_solve", "C1", Rules, shown_t<A>, shown_t<B>, R);
    if constexpr (Rules::ok) {
        using C = quant_linalg_t<TB>;
        return trace::heavy(
            "stablehlo.triangular_solve", [] { return triangular_solve_attrs<Left, Lower, Unit, Tr>(); },
            [&] {
                return quant_float_result<R>(triangular_solve_impl<Left, Lower, Unit, Tr>(
                    quant_float_operand<C>(std::forward<A>(a)), quant_float_operand<C>(std::forward<B>(b))));
            },
            a, b);
    }
}

#undef XLET_QUANT_FLOAT_ASSERTS

} // namespace xlet::detail
