// The element-wise machinery shared by every element-wise op family: the fused map node, how an
// op's functor runs on vec lanes (SIMD when it has a batch form), scalar operands, and the binary
// broadcasting front end. Op headers (unary.hpp, binary.hpp, compare.hpp, ...) only add functors.
//
// A functor F provides:
//   template<class... T> using result = ...;        result element type for operand element types
//   static constexpr double cost;                   work per element relative to an add
//   static auto scalar(C... x);                     on compute types (f16/bf16 as float)
//   static auto simd(xsimd::batch<C>... b);         optional; used when it compiles for the types
//   static vec<Out, N> on_vec<Out, N>(vec<C, N>...); optional; a whole-vec form (lane types differ)
#pragma once
#include <algorithm>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../../eval/assign.hpp"
#include "../../eval/bounded.hpp"
#include "../../eval/callable.hpp"
#include "broadcast_rules.hpp"

namespace xlet::detail {

// The element type of an xsimd batch, for the `simd` members of the functors.
template<class B>
using batch_value = typename B::value_type;

template<class V>
auto to_lanes(const V& v) {
    alignas(64) std::array<typename V::value_type, V::size> a;
    v.store_lanes(a.data());
    return a;
}

template<class F, class Out, std::size_t N, class... Cs>
concept simd_form = (vec<Out, N>::simd && ... && vec<Cs, N>::simd) && ((lanes_of<Cs>() == lanes_of<Out>()) && ...) &&
                    requires(xsimd::batch<Cs>... b) {
    { F::simd(b...) } -> std::same_as<xsimd::batch<Out>>;
};

// Comparisons: the batch form yields a mask that becomes pred lanes.
template<class F, class Out, std::size_t N, class... Cs>
concept mask_form = std::is_same_v<Out, bool> &&(vec<Cs, N>::simd&&...) && requires(xsimd::batch<Cs>... b, bool* out) {
    F::simd(b...).store_unaligned(out);
};

// Select-like ops: pred lanes become a mask of the value type, then the batch form runs.
template<class F, class Out, std::size_t N, class P, class... Cs>
consteval bool pred_first_check() {
    if constexpr (!std::is_same_v<P, bool> || is_complex<Out> || !(vec<Out, N>::simd && ... && vec<Cs, N>::simd))
        return false;
    else if constexpr (!((lanes_of<Cs>() == lanes_of<Out>()) && ...))
        return false;
    else
        return requires(xsimd::batch_bool<Out> m, xsimd::batch<Cs>... b) {
            { F::simd(m, b...) } -> std::same_as<xsimd::batch<Out>>;
        };
}
template<class F, class Out, std::size_t N, class... Cs>
consteval bool pred_first_form() {
    if constexpr (sizeof...(Cs) < 2)
        return false;
    else
        return pred_first_check<F, Out, N, Cs...>();
}

template<class F, class Out, std::size_t N, class... Cs>
vec<Out, N> apply_vec(const vec<Cs, N>&... in);

template<class F, class Out, std::size_t N, class P, class... Cs>
vec<Out, N> apply_pred_first(const vec<P, N>& p, const vec<Cs, N>&... in) {
    using V = vec<Out, N>;
    V r;
    constexpr std::size_t W = lanes_of<Out>();
    for (std::size_t k = 0; k < V::simd_regs::count; ++k)
        r.r.b[k] = F::simd(load_mask<Out>(p.r.l.data() + k * W), in.r.b[k]...);
    return r;
}

// A functor's own form on whole vecs, for a type change whose lanes do not match one register
// (quant/: float lanes to and from 8- and 16-bit stored integers).
template<class F, class Out, std::size_t N, class... Cs>
concept vec_form = requires(const vec<Cs, N>&... v) {
    { F::template on_vec<Out, N>(v...) } -> std::same_as<vec<Out, N>>;
};

template<class F, class Out, std::size_t N, class... Cs>
vec<Out, N> apply_vec(const vec<Cs, N>&... in) {
    using V = vec<Out, N>;
    V r;
    if constexpr (vec_form<F, Out, N, Cs...>) {
        return F::template on_vec<Out, N>(in...);
    } else if constexpr (simd_form<F, Out, N, Cs...>) {
        for (std::size_t k = 0; k < V::simd_regs::count; ++k)
            r.r.b[k] = F::simd(in.r.b[k]...);
    } else if constexpr (pred_first_form<F, Out, N, Cs...>()) {
        return apply_pred_first<F, Out, N>(in...);
    } else if constexpr (sizeof...(Cs) > 0 && mask_form<F, Out, N, Cs...>) {
        using First = std::tuple_element_t<0, std::tuple<Cs...>>;
        constexpr std::size_t W = lanes_of<First>();
        for (std::size_t k = 0; k < N / W; ++k)
            store_mask(F::simd(in.r.b[k]...), r.r.l.data() + k * W);
    } else {
        auto lanes = std::make_tuple(to_lanes(in)...);
        r = detail::apply(
            [](const auto&... l) {
                return V::generate([&](std::size_t i) { return static_cast<Out>(F::scalar(l[i]...)); });
            },
            lanes);
    }
    return r;
}

template<class F, class T, class... K>
struct map_cursor {
    kids<K...> k;
    template<std::size_t N>
    vec<compute_t<T>, N> load(std::size_t i) const {
        return detail::apply(
            [i](const auto&... c) {
                return round_to_storage<T>(apply_vec<F, compute_t<T>, N>(c.template load<N>(i)...));
            },
            k);
    }
    template<std::size_t N>
    [[gnu::always_inline]] vec<compute_t<T>, N> load_partial(std::size_t i, std::size_t n) const {
        return detail::apply(
            [i, n](const auto&... c) {
                return round_to_storage<T>(apply_vec<F, compute_t<T>, N>(c.template load_partial<N>(i, n)...));
            },
            k);
    }
};

// The fused element-wise node: children share its shape (broadcasts are wrapped around them).
template<class F, class T, class... C>
struct map_node : node_shape<T, std::tuple_element_t<0, std::tuple<C...>>::rank,
                             std::tuple_element_t<0, std::tuple<C...>>::extents> {
    using first = std::tuple_element_t<0, std::tuple<C...>>;
    static constexpr std::size_t R = first::rank;
    static constexpr std::size_t lanes = std::max({lanes_of<compute_t<T>>(), C::lanes...});
    static constexpr double cost = F::cost + (C::cost + ...);
    static constexpr std::size_t leaf_count = (C::leaf_count + ...);
    static constexpr bool linear = (C::linear && ...);
    static constexpr bool viewable = (C::viewable && ...);
    detail::kids<C...> kids;

    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() {
        return children_leaf_strides<Ro, M, 0, C...>();
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        return detail::apply(
            [&](const auto&... c) {
                return map_cursor<F, T, decltype(c.template cursor<Ro, M, P>(outer))...>{
                    {c.template cursor<Ro, M, P>(outer)...}};
            },
            kids);
    }
    compute_t<T> at(const std::array<std::size_t, R>& idx) const {
        return detail::apply(
            [&](const auto&... c) {
                return round_scalar_to_storage<T>(static_cast<compute_t<T>>(F::scalar(c.at(idx)...)));
            },
            kids);
    }
    int trace(trace::recorder& r) const {
        using form = trace::form<F>;
        if constexpr (form::name.empty()) {
            throw error("to_stablehlo", "an element-wise function without a StableHLO op");
        } else {
            // A form may take only the first operands (a per-axis uniform_quantize reads its
            // scales and zero points as operands: the op's type holds them).
            std::size_t arity = sizeof...(C);
            if constexpr (requires { form::arity; }) arity = form::arity;
            std::vector<int> ins;
            detail::apply(
                [&](const auto&... c) { ((ins.size() < arity ? ins.push_back(trace::value_of(r, c)) : void()), ...); },
                kids);
            return r.emit(std::string(form::name), std::move(ins), {trace::type_of<map_node>()},
                          form::template attrs<typename first::value_type>());
        }
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        return detail::apply([&](const auto&... c) { return (c.template may_alias<Ro, M, D>(b, e) || ...); }, kids);
    }
};

template<class F, class T, class... C>
auto make_map(C&&... c) {
    return map_node<F, T, std::remove_cvref_t<C>...>{{}, {std::forward<C>(c)...}};
}

// ---- Operands ---------------------------------------------------------------------------------

// A plain C++ value used as an operand (2.0f in `a * 2.0f`).
template<class X>
inline constexpr bool is_scalar_value = element<std::remove_cvref_t<X>> || std::is_arithmetic_v<std::remove_cvref_t<X>>;

template<class X>
concept operand = expression<X> || is_scalar_value<X>;

template<class X>
struct element_of_impl {
    using type = std::remove_cvref_t<X>;
};
template<expression X>
struct element_of_impl<X> {
    using type = typename std::remove_cvref_t<X>::value_type;
};
template<class X>
using element_of = typename element_of_impl<X>::type;

// May a C++ value of type V stand for an element of type T? Same type always; an integer literal
// for any numeric type; a floating literal for floating and complex types. Never silently narrows
// a float into an integer array. A quantized element only from a value of its own type (a literal
// would be ambiguous: a stored integer or a real value?).
template<class V, class T>
inline constexpr bool
    scalar_fits = std::is_same_v<V, T> ||
                  (std::is_integral_v<V> && !std::is_same_v<V, bool> && !std::is_same_v<T, bool> && !is_quantized<T>) ||
                  ((std::is_floating_point_v<V> || is_narrow_float<V>)&&(is_float<T> || is_complex<T>)) ||
                  (is_complex<V> && is_complex<T>);

template<class T, class V>
compute_t<T> scalar_as(V v) {
    if constexpr (is_quantized<T>)
        return widen(static_cast<T>(v));
    else if constexpr (is_complex<T>)
        return compute_t<T>(static_cast<compute_t<T>>(v));
    else if constexpr (is_narrow_float<V>)
        return static_cast<compute_t<T>>(static_cast<float>(v));
    else
        return static_cast<compute_t<T>>(round_scalar_to_storage<T>(static_cast<compute_t<T>>(T(v))));
}

// The node of operand x; a C++ value becomes a constant of element type T.
template<class T, class X>
auto operand_node(X&& x) {
    if constexpr (expression<X>)
        return as_node(std::forward<X>(x));
    else
        return scalar_node<T>{{}, scalar_as<T>(x)};
}

// The element type two operands agree on: the expression's one when the other is a C++ value.
template<class L, class R>
struct common_element {
    using type = std::conditional_t<expression<L>, element_of<L>, element_of<R>>;
    static constexpr bool ok = expression<L> && expression<R> ? std::is_same_v<element_of<L>, element_of<R>>
                               : expression<L>                ? scalar_fits<element_of<R>, element_of<L>>
                               : expression<R>                ? scalar_fits<element_of<L>, element_of<R>>
                                                              : std::is_same_v<element_of<L>, element_of<R>>;
};

template<class X>
struct shape_of {
    static constexpr std::size_t rank = 0;
    static constexpr extents_t<0> extents{};
};
template<expression X>
struct shape_of<X> {
    static constexpr std::size_t rank = std::remove_cvref_t<X>::rank;
    static constexpr auto extents = std::remove_cvref_t<X>::extents;
};

// How an operand shows in a diagnostic: its tensor type, or the C++ type of a value.
template<class X>
struct shown {
    using type = std::remove_cvref_t<X>;
};
template<expression X>
struct shown<X> {
    using type = tensor_type_of<X>;
};
template<class X>
using shown_t = typename shown<X>::type;

// The nodes of l and r broadcast to their common shape (a detail::kids pair, for detail::apply:
// a std::tuple would cost every binary op its constructor, get and head functions), with implicit
// broadcasting, or with explicit broadcast_dimensions BD for the lower-rank side; the caller has
// checked the rule.
template<class A, class B>
kids<A, B> node_pair(A a, B b) {
    return kids<A, B>(static_cast<A&&>(a), static_cast<B&&>(b));
}
template<class T, class L, class R>
auto broadcast_operands(L&& l, R&& r) {
    constexpr auto E = implicit_result(shape_of<L>::extents, shape_of<R>::extents);
    constexpr std::size_t Rk = E.size();
    return node_pair(broadcast_to<Rk, E>(operand_node<T>(std::forward<L>(l))),
                     broadcast_to<Rk, E>(operand_node<T>(std::forward<R>(r))));
}
template<class T, auto BD, class L, class R>
auto broadcast_operands_bdims(L&& l, R&& r) {
    constexpr bool left_high = shape_of<L>::rank >= shape_of<R>::rank;
    constexpr auto E = [] {
        if constexpr (left_high)
            return bdims_result(shape_of<L>::extents, shape_of<R>::extents, BD);
        else
            return bdims_result(shape_of<R>::extents, shape_of<L>::extents, BD);
    }();
    constexpr std::size_t Rk = E.size();
    if constexpr (left_high)
        return node_pair(broadcast_to<Rk, E>(operand_node<T>(std::forward<L>(l))),
                         broadcast_to_dims<Rk, E, BD>(operand_node<T>(std::forward<R>(r))));
    else
        return node_pair(broadcast_to_dims<Rk, E, BD>(operand_node<T>(std::forward<L>(l))),
                         broadcast_to<Rk, E>(operand_node<T>(std::forward<R>(r))));
}

// F(l, r) over the broadcast operands.
template<class F, class Out, class T, class L, class R>
auto binary_node(L&& l, R&& r) {
    return detail::apply([](auto&&... x) { return make_map<F, Out>(std::move(x)...); },
                         broadcast_operands<T>(std::forward<L>(l), std::forward<R>(r)));
}
template<class F, class Out, class T, auto BD, class L, class R>
auto binary_node_bdims(L&& l, R&& r) {
    return detail::apply([](auto&&... x) { return make_map<F, Out>(std::move(x)...); },
                         broadcast_operands_bdims<T, BD>(std::forward<L>(l), std::forward<R>(r)));
}

template<class L, class R, std::size_t NB>
constexpr bool bdims_ok(const std::array<std::int64_t, NB>& bd) {
    constexpr std::size_t a = shape_of<L>::rank, b = shape_of<R>::rank;
    if constexpr (a >= b) {
        if constexpr (NB != b)
            return false;
        else
            return bdims_valid(shape_of<L>::extents, shape_of<R>::extents, bd);
    } else {
        if constexpr (NB != a)
            return false;
        else
            return bdims_valid(shape_of<R>::extents, shape_of<L>::extents, bd);
    }
}

} // namespace xlet::detail

// The public front ends of the element-wise ops, one static_assert per numbered rule so a failed
// call reads "xlet::<op> [C<n>]: <rule>" with the operand types in the note below it.
//   C1  operand shapes broadcast-compatible (binary ops)
//   C2  operand element types equal (binary ops)
//   C3  element type allowed for the op
//   C4  broadcast_dimensions: one per dimension of the lower-rank operand, increasing, in range,
//       sizes equal or 1 (binary ops with broadcast_dimensions)
#define XLET_UNARY_OP(name, Functor, allowed, allowed_text)                                                            \
    template<::xlet::expression X>                                                                                     \
    auto name(X&& x) {                                                                                                 \
        using T_ = ::xlet::detail::element_of<X>;                                                                      \
        static_assert(::xlet::diag::got<allowed<T_>, ::xlet::detail::shown_t<X>>::value,                               \
                      "xlet::" #name " [C3]: element type must be " allowed_text);                                     \
        if constexpr (allowed<T_>)                                                                                     \
            return ::xlet::detail::make_map<Functor, typename Functor::template result<T_>>(                           \
                ::xlet::detail::as_node(std::forward<X>(x)));                                                          \
    }                                                                                                                  \
    template<::xlet::detail::bounded_operand X>                                                                        \
    auto name(X&& x) {                                                                                                 \
        return ::xlet::detail::lift(                                                                                   \
            #name, [](auto&& e) { return name(std::forward<decltype(e)>(e)); }, std::forward<X>(x));                   \
    }

#define XLET_BINARY_OP(name, Functor, allowed, allowed_text)                                                           \
    template<class L, class R>                                                                                         \
    requires(::xlet::detail::any_bounded<L, R>) auto name(L&& l, R&& r) {                                              \
        return ::xlet::detail::lift(                                                                                   \
            #name,                                                                                                     \
            [](auto&& a, auto&& b) { return name(std::forward<decltype(a)>(a), std::forward<decltype(b)>(b)); },       \
            std::forward<L>(l), std::forward<R>(r));                                                                   \
    }                                                                                                                  \
    template<class L, class R>                                                                                         \
    requires((::xlet::expression<L> || ::xlet::expression<R>)&&::xlet::detail::operand<L> &&                           \
             ::xlet::detail::operand<R>) auto                                                                          \
    name(L&& l, R&& r) {                                                                                               \
        using CE_ = ::xlet::detail::common_element<L, R>;                                                              \
        using T_ = typename CE_::type;                                                                                 \
        constexpr bool shape_ok_ = ::xlet::detail::implicitly_compatible(::xlet::detail::shape_of<L>::extents,         \
                                                                         ::xlet::detail::shape_of<R>::extents);        \
        static_assert(::xlet::diag::got<shape_ok_, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,     \
                      "xlet::" #name " [C1]: operand shapes must be equal, or one a scalar, or differ only "           \
                      "where one size is 1; different ranks need broadcast_dimensions");                               \
        static_assert(::xlet::diag::got<CE_::ok, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,       \
                      "xlet::" #name " [C2]: operands must have the same element type (no implicit promotion)");       \
        static_assert(::xlet::diag::got<allowed<T_>, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,   \
                      "xlet::" #name " [C3]: element type must be " allowed_text);                                     \
        if constexpr (shape_ok_ && CE_::ok && allowed<T_>)                                                             \
            return ::xlet::detail::binary_node<Functor, typename Functor::template result<T_>, T_>(                    \
                std::forward<L>(l), std::forward<R>(r));                                                               \
    }                                                                                                                  \
    template<class L, class R, std::int64_t... B>                                                                      \
    requires((::xlet::expression<L> || ::xlet::expression<R>)&&::xlet::detail::operand<L> &&                           \
             ::xlet::detail::operand<R>) auto                                                                          \
    name(L&& l, R&& r, ::xlet::dims_t<B...>) {                                                                         \
        using CE_ = ::xlet::detail::common_element<L, R>;                                                              \
        using T_ = typename CE_::type;                                                                                 \
        constexpr bool bd_ok_ = ::xlet::detail::bdims_ok<L, R>(::xlet::dims_t<B...>::value);                           \
        static_assert(::xlet::diag::got<bd_ok_, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>,                \
                                        ::xlet::diag::dimensions<B...>>::value,                                        \
                      "xlet::" #name " [C4]: broadcast_dimensions must give, in increasing order, one dimension "      \
                      "of the higher-rank operand for each dimension of the lower-rank one, with equal sizes or 1");   \
        static_assert(::xlet::diag::got<CE_::ok, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,       \
                      "xlet::" #name " [C2]: operands must have the same element type (no implicit promotion)");       \
        static_assert(::xlet::diag::got<allowed<T_>, ::xlet::detail::shown_t<L>, ::xlet::detail::shown_t<R>>::value,   \
                      "xlet::" #name " [C3]: element type must be " allowed_text);                                     \
        if constexpr (bd_ok_ && CE_::ok && allowed<T_>)                                                                \
            return ::xlet::detail::binary_node_bdims<Functor, typename Functor::template result<T_>, T_,               \
                                                     ::xlet::dims_t<B...>::value>(std::forward<L>(l),                  \
                                                                                  std::forward<R>(r));                 \
    }
