// Map (spec: Map):
//   map(f, x, y)                                         out[i] = f(x[i], y[i]), lazy like any element-wise op
//   map(std::forward_as_tuple(x, y), f, dims<0, 1>, p)   the spec's form: dimensions (all of them, in
//                                                        order) and static operands passed after the elements
// f is any callable over scalars of the operands' element types (storage types: xlet::half for
// f16), generic lambdas included; its result type is the output element type. The loops call f on
// whole SIMD registers only when f declares it can take them (eval/callable.hpp: xlet's functors
// such as max_fn, or xlet::vectorized(f)); f16/bf16 always run on scalars, rounding every call.
// f may run concurrently on several threads and in any order: it must not have side effects.
// Rules:
//   C1 every operand has the shape of the first
//   C2 dimensions are 0, 1, ..., rank-1 (StableHLO map)
//   C3 f accepts (element types..., static operands...) and returns an element type
#pragma once
#include <tuple>

#include "elementwise.hpp"

namespace xlet::detail {

template<class F, class S, class Ts, class... K>
struct user_map_cursor;
template<class F, class S, class... T, class... K>
struct user_map_cursor<F, S, std::tuple<T...>, K...> {
    const F* f;
    kids<K...> k;

    template<std::size_t N, class... V>
    vec<compute_t<S>, N> run(const V&... in) const {
        using Out = vec<compute_t<S>, N>;
        if constexpr (batch_computation<F, S, T...> && Out::simd && (V::simd && ...)) {
            Out r;
            for (std::size_t j = 0; j < Out::simd_regs::count; ++j)
                r.r.b[j] = (*f)(in.r.b[j]...);
            return r;
        } else {
            auto lanes = std::make_tuple(to_lanes(in)...);
            return Out::generate([&](std::size_t i) {
                return detail::apply([&](const auto&... l) { return widen(static_cast<S>((*f)(narrow<T>(l[i])...))); },
                                     lanes);
            });
        }
    }
    template<std::size_t N>
    vec<compute_t<S>, N> load(std::size_t i) const {
        return detail::apply([&](const auto&... c) { return run<N>(c.template load<N>(i)...); }, k);
    }
    template<std::size_t N>
    vec<compute_t<S>, N> load_partial(std::size_t i, std::size_t n) const {
        return detail::apply([&](const auto&... c) { return run<N>(c.template load_partial<N>(i, n)...); }, k);
    }
};

// The element-wise node of a user callable: like map_node, but it holds the callable.
template<class F, class S, class Ts, class... C>
struct user_map_node;
template<class F, class S, class... T, class... C>
struct user_map_node<F, S, std::tuple<T...>, C...> : node_shape<S, std::tuple_element_t<0, std::tuple<C...>>::rank,
                                                                std::tuple_element_t<0, std::tuple<C...>>::extents> {
    using first = std::tuple_element_t<0, std::tuple<C...>>;
    static constexpr std::size_t R = first::rank;
    static constexpr std::size_t lanes = std::max({lanes_of<compute_t<S>>(), C::lanes...});
    // An unknown callable: priced like a transcendental so large maps go parallel early.
    static constexpr double cost = 8 + (C::cost + ...);
    static constexpr std::size_t leaf_count = (C::leaf_count + ...);
    static constexpr bool linear = (C::linear && ...);
    static constexpr bool viewable = (C::viewable && ...);
    F f;
    detail::kids<C...> kids;

    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() {
        return children_leaf_strides<Ro, M, 0, C...>();
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        return detail::apply(
            [&](const auto&... c) {
                return user_map_cursor<F, S, std::tuple<T...>, decltype(c.template cursor<Ro, M, P>(outer))...>{
                    &f, {c.template cursor<Ro, M, P>(outer)...}};
            },
            kids);
    }
    compute_t<S> at(const std::array<std::size_t, R>& idx) const {
        return detail::apply([&](const auto&... c) { return widen(static_cast<S>(f(narrow<T>(c.at(idx))...))); }, kids);
    }
    int trace(trace::recorder& r) const {
        std::vector<int> ins;
        detail::apply([&](const auto&... c) { (ins.push_back(trace::value_of(r, c)), ...); }, kids);
        const int g = trace::computation<T...>(r, f, "map");
        std::array<std::int64_t, R> d{};
        for (std::size_t i = 0; i < R; ++i)
            d[i] = static_cast<std::int64_t>(i);
        return r.emit("stablehlo.map", std::move(ins), {trace::type_of<user_map_node>()},
                      "dimensions = " + trace::i64_list(d), {g});
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        return detail::apply([&](const auto&... c) { return (c.template may_alias<Ro, M, D>(b, e) || ...); }, kids);
    }
};

template<class F, class... X>
struct map_rules {
    using X0 = std::tuple_element_t<0, std::tuple<X...>>;
    static constexpr bool c1 = (same_extents(shape_of<X>::extents, shape_of<X0>::extents) && ...);
    static constexpr bool c3 = [] {
        if constexpr (!std::is_invocable_v<const F&, element_of<X>...>)
            return false;
        else
            return element<std::remove_cvref_t<std::invoke_result_t<const F&, element_of<X>...>>>;
    }();
    static consteval bool check() {
        static_assert(diag::got<c1, shown_t<X>...>::value, "xlet::map [C1]: all operands must have the same shape");
        static_assert(
            diag::got<c3, shown_t<X>..., F>::value,
            "xlet::map [C3]: the computation must accept the operands' element types (then the static operands) "
            "and return an element type");
        return c1 && c3;
    }
};

// f with the static operands appended to every call; it may take batches when f declares it can.
template<class F, class Ps>
struct bind_statics;
template<class F, class... P>
struct bind_statics<F, std::tuple<P...>> {
    F f;
    std::tuple<P...> p;
    template<class... E>
    auto operator()(const E&... e) const -> decltype(f(e..., std::declval<const P&>()...)) {
        return detail::apply([&](const auto&... q) { return f(e..., q...); }, p);
    }
};

template<class F, class Ps>
struct declares_vectorized<bind_statics<F, Ps>> : std::bool_constant<simd_declared<F>> {};

template<class F, class... X>
auto make_user_map(F f, X&&... xs) {
    // xlet's own functor: the element-wise op itself (on quantized operands, its calls on the
    // quantized scalars: the quantized op, never its scalar form on the stored integers)
    if constexpr (element_functor<F> && !(is_quantized<element_of<X>> || ...))
        return make_map<F, typename F::template result<element_of<std::tuple_element_t<0, std::tuple<X...>>>>>(
            as_node(std::forward<X>(xs))...);
    else {
        using S = std::remove_cvref_t<std::invoke_result_t<const F&, element_of<X>...>>;
        return user_map_node<F, S, std::tuple<element_of<X>...>, node_t<X>...>{
            {}, std::move(f), {as_node(std::forward<X>(xs))...}};
    }
}

} // namespace xlet::detail

namespace xlet {

template<class F, expression... X>
requires(sizeof...(X) > 0) auto map(F f, X&&... xs) {
    if constexpr (detail::map_rules<F, X...>::check())
        return detail::make_user_map(std::move(f), std::forward<X>(xs)...);
}

// The spec's form. Static operands (C++ values or rank-0 expressions, read once here) follow the
// elements in each call.
template<class... X, class F, std::int64_t... D, class... P>
requires(sizeof...(X) > 0 && (expression<X> && ...)) auto map(std::tuple<X...> xs, F f, dims_t<D...>,
                                                              const P&... statics) {
    using X0 = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<X...>>>;
    constexpr bool c2 = [] {
        constexpr std::array<std::int64_t, sizeof...(D)> d{D...};
        if (d.size() != X0::rank) return false;
        for (std::size_t i = 0; i < d.size(); ++i)
            if (d[i] != static_cast<std::int64_t>(i)) return false;
        return true;
    }();
    static_assert(diag::got<c2, detail::shown_t<X0>, diag::dimensions<D...>>::value,
                  "xlet::map [C2]: dimensions must be 0, 1, ..., rank-1 in order");
    auto values = std::make_tuple([&] {
        if constexpr (expression<P>)
            return static_cast<typename std::remove_cvref_t<P>::value_type>(
                detail::narrow<typename std::remove_cvref_t<P>::value_type>(detail::as_node(statics).at({})));
        else
            return statics;
    }()...);
    auto g = detail::bind_statics<F, decltype(values)>{std::move(f), std::move(values)};
    if constexpr (c2)
        return detail::apply([&](auto&&... x) { return map(std::move(g), std::forward<decltype(x)>(x)...); },
                             std::move(xs));
}

} // namespace xlet
