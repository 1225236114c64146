// The seed's three quantization passes on C++ expressions (issue #26), the counterparts of
// xlet-translate's module passes (tools/xlet-translate/src/pass_quant.cpp, docs/passes.md):
//
//   passes::apply<passes::legalize_quantized_op_to_qdq>(e)
//       every quantized op (quant/op_node.hpp) becomes the spec's form: uniform_dequantize of each
//       quantized operand, the op on the expressed type, uniform_quantize to the result type
//       (not for a comparison); uniform_quantize of a quantized operand stays (as upstream).
//   passes::apply<passes::legalize_qdq_to_quantized_op>(e)
//       uniform_quantize<R>(op(uniform_dequantize(a), ...)), with every operand of op a
//       uniform_dequantize and op one with a quantized form whose rules hold for these types
//       (quant/elementwise.hpp C5-C7), becomes the quantized op on a, ...
//   passes::apply<passes::legalize_quant_to_math>(e)
//       quantized ops become ordinary ops on the stored integers (bitcast_convert_type to and from
//       the storage type: a view that costs nothing) and on f32, formula for formula as the
//       module pass writes them, with its f32 constants:
//         uniform_dequantize  f32(convert<i32>(q) - zp) * scale
//         uniform_quantize    convert<storage>(round_nearest_even(clamp(lo, x / scale + zp, hi)))
//         requantization      convert<storage>(round_nearest_even(clamp(lo, f32(q) * (s_in / s_out)
//                             + (zp_out - zp_in * s_in / s_out), hi))), the clamp below 32 bits;
//                             a convert when the types are equal
//         add (per tensor)    each operand requantized to the result's parameters as i32, summed,
//                             - zp, clamped to the storage range (below 32 bits), converted;
//                             per axis, one type with i32 storage: the i32 sum - zero points
//         max, min, select    of one per-tensor type: the op on the stored integers
//         any other op        dequantize, the op, quantize, as above
//       A per-axis type's parameters are constant vectors broadcast along its dimension. Bf16 and
//       f16 expressed types are computed in f32 and converted (as the module pass does).
// Where the bits differ from the direct op (add of operands requantized twice, requantization,
// bf16 / f16): docs/semantics.md, "Quantization passes".
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../ops/elementwise/convert.hpp"
#include "../quant/elementwise.hpp"
#include "rewrite.hpp"

namespace xlet::passes {

struct legalize_quantized_op_to_qdq;
struct legalize_qdq_to_quantized_op;
struct legalize_quant_to_math;

namespace quant_detail {

using xlet::detail::make_map;
using xlet::detail::map_node;

// ---- what the nodes are ----------------------------------------------------------------------

template<class N>
struct dequantize_node : std::false_type {};
template<class Q, class E, class K>
struct dequantize_node<map_node<xlet::detail::dequantize_fn<Q>, E, K>> : std::true_type {};
template<class Q, class E, class K, class S, class Z>
struct dequantize_node<map_node<xlet::detail::dequantize_axis_fn<Q>, E, K, S, Z>> : std::true_type {};

template<class F>
struct quantize_functor : std::false_type {};
template<class Q>
struct quantize_functor<xlet::detail::quantize_fn<Q>> : std::true_type {};
template<class Q>
struct quantize_functor<xlet::detail::quantize_axis_fn<Q>> : std::true_type {};

// The element-wise ops with a quantized form (quant/elementwise.hpp), by their float functor.
template<class F>
inline constexpr bool has_quantized_form = false;
#define XLET_QUANTIZED_FORM(F)                                                                                         \
    template<>                                                                                                         \
    inline constexpr bool has_quantized_form<xlet::detail::F> = true;
XLET_QUANTIZED_FORM(add_fn)
XLET_QUANTIZED_FORM(sub_fn)
XLET_QUANTIZED_FORM(mul_fn)
XLET_QUANTIZED_FORM(div_fn)
XLET_QUANTIZED_FORM(rem_fn)
XLET_QUANTIZED_FORM(max_fn)
XLET_QUANTIZED_FORM(min_fn)
XLET_QUANTIZED_FORM(pow_fn)
XLET_QUANTIZED_FORM(atan2_fn)
XLET_QUANTIZED_FORM(abs_fn)
XLET_QUANTIZED_FORM(neg_fn)
XLET_QUANTIZED_FORM(sign_fn)
XLET_QUANTIZED_FORM(exp_fn)
XLET_QUANTIZED_FORM(expm1_fn)
XLET_QUANTIZED_FORM(log_fn)
XLET_QUANTIZED_FORM(log1p_fn)
XLET_QUANTIZED_FORM(logistic_fn)
XLET_QUANTIZED_FORM(sin_fn)
XLET_QUANTIZED_FORM(cos_fn)
XLET_QUANTIZED_FORM(tan_fn)
XLET_QUANTIZED_FORM(tanh_fn)
XLET_QUANTIZED_FORM(sqrt_fn)
XLET_QUANTIZED_FORM(rsqrt_fn)
XLET_QUANTIZED_FORM(cbrt_fn)
XLET_QUANTIZED_FORM(ceil_fn)
XLET_QUANTIZED_FORM(floor_fn)
XLET_QUANTIZED_FORM(round_fn)
XLET_QUANTIZED_FORM(round_nearest_even_fn)
XLET_QUANTIZED_FORM(clamp_fn)
#undef XLET_QUANTIZED_FORM

// A map node of functor G whose operands are all uniform_dequantize nodes, fusable into the
// quantized op G with result R (its rules hold for the dequantized operands' types).
template<class R, class X>
struct fusable : std::false_type {};
template<class R, class G, class E, class... D>
requires(has_quantized_form<G> && (dequantize_node<D>::value && ...)) struct fusable<R, map_node<G, E, D...>>
    : std::bool_constant<
          xlet::detail::quant_rules<std::is_same_v<G, xlet::detail::add_fn>, R, typename D::first...>::ok> {
    using functor = G;
};

// ---- views between a quantized type and its stored integers ---------------------------------

template<class N>
struct bitcast_node : std::false_type {
    using from = void;
};
template<class T, class U, class K>
struct bitcast_node<map_node<xlet::detail::bitcast_fn<T, U>, U, K>> : std::true_type {
    using from = T;
};

// x viewed as element type U (bitcast_convert_type), or x's own operand when x is the view of a U
// array: a quantized type and its stored integers, where two views meet.
template<class U, class X>
auto viewed_as(X&& x) {
    using N = std::remove_cvref_t<X>;
    if constexpr (bitcast_node<N>::value && std::is_same_v<typename bitcast_node<N>::from, U>)
        return detail::kids_at<0>(std::forward<X>(x).kids);
    else
        return bitcast_convert_type<U>(std::forward<X>(x));
}
// The stored integers of quantized x, and integers y viewed as quantized type Q.
template<class X>
auto stored(X&& x) {
    return viewed_as<storage_t<typename std::remove_cvref_t<X>::value_type>>(std::forward<X>(x));
}
template<class Q, class Y>
auto as_quantized(Y&& y) {
    return viewed_as<Q>(std::forward<Y>(y));
}

// ---- the parameters, as the module pass writes them (f32, i32) --------------------------------

// A constant vector (a per-axis type's parameters): a leaf read in place, a constant in
// to_stablehlo (an array leaf would be an argument of the function there).
template<class T, std::size_t N>
struct constant_node : xlet::detail::array_node<tensor<T, N>, false> {
    int trace(trace::recorder& r) const {
        const std::string type = trace::tensor_type<T, 1>({N});
        return r.emit("stablehlo.constant", {}, {type}, "value = " + trace::dense_literal(this->ptr(), {N}, type));
    }
};

template<class Q>
inline constexpr std::size_t n_params = element_traits<Q>::axis_size;
template<class Q>
constexpr double scale_at(std::size_t i) {
    if constexpr (is_per_axis_quantized<Q>)
        return Q::scales[i];
    else
        return Q::scale;
}
template<class Q>
constexpr std::int64_t zero_point_at(std::size_t i) {
    if constexpr (is_per_axis_quantized<Q>)
        return Q::zero_points[i];
    else
        return Q::zero_point;
}
template<class T, std::size_t N, class F>
constexpr std::array<T, N> table(F f) {
    std::array<T, N> a{};
    for (std::size_t i = 0; i < N; ++i)
        a[i] = static_cast<T>(f(i));
    return a;
}
template<class Q>
struct params {
    static constexpr std::size_t n = n_params<Q>;
    static constexpr auto scale = table<float, n>(scale_at<Q>);
    static constexpr auto zero_point_f = table<float, n>(zero_point_at<Q>);
    static constexpr auto zero_point_i = table<std::int32_t, n>(zero_point_at<Q>);
};
// Requantization from In to Out: x * (s_in / s_out) + (zp_out - zp_in * s_in / s_out), in double
// then rounded to f32, per axis on the side that has one.
template<class In, class Out>
struct merged {
    static constexpr bool per_axis = is_per_axis_quantized<In> || is_per_axis_quantized<Out>;
    using axis_type = std::conditional_t<is_per_axis_quantized<Out>, Out, In>;
    static constexpr std::size_t n = n_params<axis_type>;
    static constexpr std::size_t at(std::size_t i, bool side_per_axis) { return side_per_axis ? i : 0; }
    static constexpr double s(std::size_t i) {
        return scale_at<In>(at(i, is_per_axis_quantized<In>)) / scale_at<Out>(at(i, is_per_axis_quantized<Out>));
    }
    static constexpr double z(std::size_t i) {
        return static_cast<double>(zero_point_at<Out>(at(i, is_per_axis_quantized<Out>))) -
               static_cast<double>(zero_point_at<In>(at(i, is_per_axis_quantized<In>))) * s(i);
    }
    static constexpr auto scale = table<float, n>(s);
    static constexpr auto zero_point = table<float, n>(z);
    // the module pass adds the zero point when it is not 0 (per axis: when one is not 0 in f32)
    static constexpr bool has_zero_point = [] {
        if constexpr (!per_axis) return z(0) != 0;
        for (float v : zero_point)
            if (v != 0) return true;
        return false;
    }();
};

// fn(x, p) with parameters p of type Q: a scalar per tensor, a constant vector broadcast along
// the quantization dimension per axis.
template<class Q, class Fn, class X, class T, std::size_t N>
auto by_param(Fn fn, X&& x, const std::array<T, N>& p) {
    if constexpr (is_per_axis_quantized<Q>)
        return fn(std::forward<X>(x), constant_node<T, N>{{{}, p.data()}}, dims_t<element_traits<Q>::axis>{});
    else
        return fn(std::forward<X>(x), p[0]);
}
#define XLET_PASS_OP(name) [](auto&& a, auto&& b, auto... bd) { return name(std::move(a), std::move(b), bd...); }

// ---- the formulas -----------------------------------------------------------------------------

template<class X>
auto to_f32(X&& x) {
    if constexpr (std::is_same_v<xlet::detail::element_of<X>, float>)
        return xlet::detail::as_node(std::forward<X>(x));
    else
        return convert_element_type<float>(std::forward<X>(x));
}

// uniform_dequantize(q)
template<class X>
auto dequantize_math(X&& x) {
    using Q = xlet::detail::element_of<X>;
    using P = params<Q>;
    auto i = convert_element_type<std::int32_t>(stored(std::forward<X>(x)));
    auto d = convert_element_type<float>(by_param<Q>(XLET_PASS_OP(sub), std::move(i), P::zero_point_i));
    auto f = by_param<Q>(XLET_PASS_OP(mul), std::move(d), P::scale);
    if constexpr (std::is_same_v<expressed_t<Q>, float>)
        return f;
    else
        return convert_element_type<expressed_t<Q>>(std::move(f));
}

// uniform_quantize<R>(x) of a float x
template<class R, class X>
auto quantize_math(X&& x) {
    using P = params<R>;
    auto y = by_param<R>(XLET_PASS_OP(add), by_param<R>(XLET_PASS_OP(div), to_f32(std::forward<X>(x)), P::scale),
                         P::zero_point_f);
    auto c = clamp(static_cast<float>(R::storage_min), std::move(y), static_cast<float>(R::storage_max));
    return as_quantized<R>(convert_element_type<storage_t<R>>(round_nearest_even(std::move(c))));
}

// x of quantized type In requantized to Out's parameters, as integers of type I (Out's storage
// type, or i32 for add); clamped to Out's storage range below 32 bits.
template<class Out, class I, class X>
auto requantize_math(X&& x) {
    using In = xlet::detail::element_of<X>;
    if constexpr (std::is_same_v<In, Out>) {
        return convert_element_type<I>(stored(std::forward<X>(x)));
    } else {
        using M = merged<In, Out>;
        using A = typename M::axis_type;
        auto f = by_param<A>(XLET_PASS_OP(mul), convert_element_type<float>(stored(std::forward<X>(x))), M::scale);
        auto g = [&] {
            if constexpr (M::has_zero_point)
                return by_param<A>(XLET_PASS_OP(add), std::move(f), M::zero_point);
            else
                return std::move(f);
        }();
        auto h = [&] {
            if constexpr (sizeof(I) < 4)
                return clamp(static_cast<float>(Out::storage_min), std::move(g), static_cast<float>(Out::storage_max));
            else
                return std::move(g);
        }();
        return convert_element_type<I>(round_nearest_even(std::move(h)));
    }
}

// x dequantized when quantized (select's pred is not).
template<class X>
auto dequantized_math(X&& x) {
    if constexpr (is_quantized<xlet::detail::element_of<X>>)
        return dequantize_math(std::forward<X>(x));
    else
        return std::forward<X>(x);
}

// The op through dequantize / op / quantize.
template<class Op, class R, class... K>
auto qdq_math(K&&... k) {
    using E = expressed_t<xlet::detail::first_quantized_t<xlet::detail::element_of<K>...>>;
    if constexpr (is_quantized<R>)
        return quantize_math<R>(make_map<Op, E>(dequantized_math(std::forward<K>(k))...));
    else
        return make_map<Op, R>(dequantized_math(std::forward<K>(k))...);
}

template<class... T>
inline constexpr bool one_per_tensor_type = false;
template<class R, class... T>
inline constexpr bool one_per_tensor_type<R, T...> = !is_per_axis_quantized<R> && (std::is_same_v<T, R> && ...);

template<class R, class L, class Rt>
auto add_math(L&& l, Rt&& r) {
    using A = xlet::detail::element_of<L>;
    using B = xlet::detail::element_of<Rt>;
    if constexpr (!is_per_axis_quantized<A> && !is_per_axis_quantized<B> && !is_per_axis_quantized<R>) {
        auto sum = sub(add(requantize_math<R, std::int32_t>(std::forward<L>(l)),
                           requantize_math<R, std::int32_t>(std::forward<Rt>(r))),
                       static_cast<std::int32_t>(R::zero_point));
        if constexpr (std::is_same_v<storage_t<R>, std::int32_t>)
            return as_quantized<R>(std::move(sum));
        else
            return as_quantized<R>(convert_element_type<storage_t<R>>(clamp(
                static_cast<std::int32_t>(R::storage_min), std::move(sum), static_cast<std::int32_t>(R::storage_max))));
    } else if constexpr (std::is_same_v<A, R> && std::is_same_v<B, R> && std::is_same_v<storage_t<R>, std::int32_t>) {
        auto sum = add(stored(std::forward<L>(l)), stored(std::forward<Rt>(r)));
        constexpr auto& z = params<R>::zero_point_i;
        if constexpr (std::any_of(z.begin(), z.end(), [](std::int32_t v) { return v != 0; }))
            return as_quantized<R>(by_param<R>(XLET_PASS_OP(sub), std::move(sum), z));
        else
            return as_quantized<R>(std::move(sum));
    } else {
        return qdq_math<xlet::detail::add_fn, R>(std::forward<L>(l), std::forward<Rt>(r));
    }
}

// select of one per-tensor type: on the stored integers, as the module pass keeps it.
template<class R, class P, class A, class B>
auto select_math(P&& p, A&& a, B&& b) {
    if constexpr (one_per_tensor_type<R, xlet::detail::element_of<A>, xlet::detail::element_of<B>>)
        return as_quantized<R>(make_map<xlet::detail::select_fn, storage_t<R>>(
            std::forward<P>(p), stored(std::forward<A>(a)), stored(std::forward<B>(b))));
    else
        return qdq_math<xlet::detail::select_fn, R>(std::forward<P>(p), std::forward<A>(a), std::forward<B>(b));
}

template<class Op, class R, class... K>
auto op_math(K&&... k) {
    using xlet::detail::element_of;
    if constexpr (std::is_same_v<Op, xlet::detail::requantize_op>) {
        return as_quantized<R>(requantize_math<R, storage_t<R>>(std::forward<K>(k)...));
    } else if constexpr (std::is_same_v<Op, xlet::detail::add_fn>) {
        return add_math<R>(std::forward<K>(k)...);
    } else if constexpr (std::is_same_v<Op, xlet::detail::select_fn>) {
        return select_math<R>(std::forward<K>(k)...);
    } else if constexpr ((std::is_same_v<Op, xlet::detail::max_fn> ||
                          std::is_same_v<Op, xlet::detail::min_fn>)&&one_per_tensor_type<R, element_of<K>...>) {
        return as_quantized<R>(make_map<Op, storage_t<R>>(stored(std::forward<K>(k))...));
    } else {
        return qdq_math<Op, R>(std::forward<K>(k)...);
    }
}

#undef XLET_PASS_OP

} // namespace quant_detail

struct legalize_quantized_op_to_qdq {
    template<class Op, class R, class... K>
    requires(!std::is_same_v<Op, detail::requantize_op>) static auto rule(detail::quant_op_node<Op, R, K...>&& n) {
        return detail::apply([](K&&... k) { return detail::qdq_form<Op, R>(std::move(k)...); }, std::move(n.kids));
    }
};

struct legalize_qdq_to_quantized_op {
    template<class F, class R, class X, class... P>
    requires(quant_detail::quantize_functor<F>::value) static auto rule(detail::map_node<F, R, X, P...>&& n) {
        if constexpr (quant_detail::fusable<R, X>::value) {
            return detail::apply(
                [](auto&&... d) {
                    using G = typename quant_detail::fusable<R, X>::functor;
                    return detail::make_quant_op<G, R>(detail::kids_at<0>(std::move(d.kids))...);
                },
                detail::kids_at<0>(std::move(n.kids)).kids);
        } else {
            return std::move(n);
        }
    }
};

struct legalize_quant_to_math {
    template<class F, class T, class... C>
    requires(quant_detail::quantize_functor<F>::value) static auto rule(detail::map_node<F, T, C...>&& n) {
        return quant_detail::quantize_math<T>(detail::kids_at<0>(std::move(n.kids)));
    }
    template<class F, class T, class... C>
    requires(quant_detail::dequantize_node<detail::map_node<F, T, C...>>::value) static auto rule(
        detail::map_node<F, T, C...>&& n) {
        return quant_detail::dequantize_math(detail::kids_at<0>(std::move(n.kids)));
    }
    template<class Op, class R, class... K>
    static auto rule(detail::quant_op_node<Op, R, K...>&& n) {
        return detail::apply([](K&&... k) { return quant_detail::op_math<Op, R>(std::move(k)...); }, std::move(n.kids));
    }
};

} // namespace xlet::passes
