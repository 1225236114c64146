// Reduce (spec: Reduce, including variadic reduce):
//   reduce(x, 0.0f, add_fn{}, dims<1>)                            f32[2,3] -> f32[2]
//   auto [m, i] = reduce(std::forward_as_tuple(x, iota<s32<2, 3>, 1>()), std::tuple{-inf, 0}, argmax, dims<1>)
// The result is materialised (a tensor, or a std::tuple of tensors when the operands are a
// tuple); the operands are read through the node protocol, so element-wise trees and layout views
// in them fuse into the reduction loops (reduce_loops.hpp).
//
// The computation is called as f(accumulators..., values...) and returns one value (one operand)
// or a tuple-like of one value per operand, each convertible to the operand's element type; it
// receives storage types (xlet::half for f16). The tags add_fn, mul_fn, max_fn, min_fn, and_fn,
// or_fn (the element-wise ops' semantics: max/min propagate NaN and order -0 < +0, pred add is or)
// select a vectorised, parallel path with a fixed association order. Any other callable folds each
// output sequentially in row-major order of the reduced dimensions, exactly the spec's recursion.
//
// Implementation-defined choices (docs/semantics.md): the init value is applied exactly once per
// output, f(init, fold of the elements), even when it is not an identity; f16/bf16 monoid folds
// accumulate in f32 and round once per output.
// Rules:
//   C1 dimensions in [0, rank) and not repeated
//   C2 variadic: every operand has the shape of the first
//   C3 variadic: one init value per operand
//   C4 each init value is a scalar of the operand's element type (or a C++ value that fits it)
//   C5 the computation accepts (element types..., element types...) and returns them
//   C6 a monoid tag is defined on the element type (max/min: ordered types; and/or: pred, integers)
#pragma once
#include <tuple>

#include "reduce_loops.hpp"

namespace xlet {

namespace detail {

template<class F, class T>
inline constexpr bool monoid_allows =
    std::is_same_v<F, add_fn> || std::is_same_v<F, mul_fn>   ? arith<T>
    : std::is_same_v<F, max_fn> || std::is_same_v<F, min_fn> ? ordered<T>
                                                             : is_pred<T> || is_integer<T>;

// Output extents: the operand's without the reduced dimensions.
template<std::size_t R, std::size_t K>
consteval extents_t<R - K> reduce_extents(const extents_t<R>& e, const std::array<std::int64_t, K>& rd) {
    extents_t<R - K> out{};
    std::size_t at = 0;
    for (std::size_t d = 0; d < R; ++d) {
        bool red = false;
        for (auto x : rd)
            red = red || static_cast<std::size_t>(x) == d;
        if (!red) out[at++] = e[d];
    }
    return out;
}
template<class T, std::size_t R, extents_t<R> E>
using tensor_of_extents = typename tensor_of_impl<T, E, std::make_index_sequence<R>>::type;

// A scalar init value: a C++ value or a rank-0 expression of the element type.
template<class T, class I>
inline constexpr bool init_fits = [] {
    if constexpr (expression<I>)
        return shape_of<I>::rank == 0 && std::is_same_v<element_of<I>, T>;
    else
        return is_scalar_value<I> && scalar_fits<std::remove_cvref_t<I>, T>;
}();
template<class T, class I>
compute_t<T> init_value(const I& v) {
    if constexpr (expression<I>)
        return as_node(v).at({});
    else
        return scalar_as<T>(v);
}

// C5: f(T..., T...) returns one T (one operand) or a tuple-like of N values convertible to T....
template<class F, class... T>
consteval bool computation_fits() {
    if constexpr (!std::is_invocable_v<const F&, T..., T...>) {
        return false;
    } else {
        using Rt = std::invoke_result_t<const F&, T..., T...>;
        if constexpr (sizeof...(T) == 1) {
            return std::is_convertible_v<Rt, T...>;
        } else {
            using Rd = std::remove_cvref_t<Rt>;
            if constexpr (!requires { std::tuple_size<Rd>::value; })
                return false;
            else if constexpr (std::tuple_size_v<Rd> != sizeof...(T))
                return false;
            else
                return []<std::size_t... I>(std::index_sequence<I...>) {
                    return (std::is_convertible_v<std::tuple_element_t<I, Rd>, T> && ...);
                }
            (std::index_sequence_for<T...>{});
        }
    }
}

template<std::size_t R>
inline constexpr std::array<bool, R> no_dyn = [] {
    std::array<bool, R> a{};
    for (auto& x : a)
        x = false;
    return a;
}();

// The checked entry shared by the single and variadic forms (and by bounded.hpp, which passes
// run-time sizes). Returns the output tensors as a std::tuple.
template<auto RD, auto Dyn, class F, class Nodes, class Inits, std::size_t... I>
auto reduce_nodes_run(const Nodes& nodes, const Inits& inits, const F& f,
                      const std::array<std::size_t, Dyn.size()>* dyn_size, std::index_sequence<I...>) {
    using N0 = std::remove_cvref_t<std::tuple_element_t<0, Nodes>>;
    constexpr std::size_t R = N0::rank;
    constexpr auto OE = reduce_extents(N0::extents, RD);
    constexpr auto S = make_reduce_space(N0::extents, RD, Dyn);
    std::tuple<tensor_of_extents<typename std::remove_cvref_t<std::tuple_element_t<I, Nodes>>::value_type,
                                 R - RD.size(), OE>...>
        outs;
    if constexpr (sizeof...(I) == 1 && is_monoid<F>) {
        using T = typename N0::value_type;
        monoid_reduce<F, T, R, S, N0>::run(std::get<0>(outs).data(), std::get<0>(nodes),
                                           init_value<T>(std::get<0>(inits)), dyn_size);
    } else {
        using Ts = acc_tuple<typename std::remove_cvref_t<std::tuple_element_t<I, Nodes>>::value_type...>;
        Ts init{narrow<std::tuple_element_t<I, Ts>>(init_value<std::tuple_element_t<I, Ts>>(std::get<I>(inits)))...};
        generic_reduce<F, R, S, Ts, std::remove_cvref_t<std::tuple_element_t<I, Nodes>>...>::run(
            std::make_tuple(std::get<I>(outs).data()...), std::tie(std::get<I>(nodes)...), f, init, dyn_size);
    }
    return outs;
}

// Traced (to_stablehlo): one stablehlo.reduce with its computation as the region.
template<auto RD, auto Dyn, class F, class Nodes, class Inits, std::size_t... I>
auto reduce_nodes(const Nodes& nodes, const Inits& inits, const F& f,
                  const std::array<std::size_t, Dyn.size()>* dyn_size, std::index_sequence<I...>) {
    trace::recorder* const r = trace::current();
    std::vector<int> ins, regions;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]] {
            ins = trace::operand_ids(*r, nodes);
            (ins.push_back(trace::init_id<typename std::remove_cvref_t<std::tuple_element_t<I, Nodes>>::value_type>(
                 *r, std::get<I>(inits))),
             ...);
            regions = {trace::computation<typename std::remove_cvref_t<std::tuple_element_t<I, Nodes>>::value_type...,
                                          typename std::remove_cvref_t<std::tuple_element_t<I, Nodes>>::value_type...>(
                *r, f, "reduce")};
        }
    return trace::run_op(
        r, "stablehlo.reduce", [] { return "dimensions = " + trace::i64_list(RD); }, std::move(ins), std::move(regions),
        [&] { return reduce_nodes_run<RD, Dyn>(nodes, inits, f, dyn_size, std::index_sequence<I...>{}); });
}

// Every static rule of a reduce of operands X... (as given) with inits I... over dimensions D....
template<class F, class Xs, class Is, class D>
struct reduce_rules;
template<class F, class... X, class... I, std::int64_t... D>
struct reduce_rules<F, std::tuple<X...>, std::tuple<I...>, dims_t<D...>> {
    using X0 = std::tuple_element_t<0, std::tuple<X...>>;
    static constexpr std::size_t R = shape_of<X0>::rank;
    static constexpr std::array<std::int64_t, sizeof...(D)> rd{D...};
    static constexpr bool c1 = sizeof...(D) <= R && dims_in_range(rd, R) && dims_unique(rd);
    static constexpr bool c2 = (same_extents(shape_of<X>::extents, shape_of<X0>::extents) && ...);
    static constexpr bool c3 = sizeof...(X) == sizeof...(I);
    static constexpr bool c4 = [] {
        if constexpr (!c3)
            return true; // reported by C3
        else
            return (init_fits<element_of<X>, I> && ...);
    }();
    static constexpr bool monoid = sizeof...(X) == 1 && is_monoid<F>;
    static constexpr bool c5 = monoid || computation_fits<F, element_of<X>...>();
    static constexpr bool c6 = !monoid || (monoid_allows<F, element_of<X>> && ...);
    static constexpr bool ok = c1 && c2 && c3 && c4 && c5 && c6;

    static consteval bool check() {
        static_assert(diag::got<c1, shown_t<X>..., diag::dimensions<D...>>::value,
                      "xlet::reduce [C1]: dimensions must be in [0, rank) and not repeated");
        static_assert(diag::got<c2, shown_t<X>...>::value, "xlet::reduce [C2]: all operands must have the same shape");
        static_assert(diag::got<c3, shown_t<X>..., I...>::value, "xlet::reduce [C3]: one init value per operand");
        static_assert(diag::got<c4, shown_t<X>..., shown_t<I>...>::value,
                      "xlet::reduce [C4]: each init value must be a scalar of its operand's element type");
        static_assert(
            diag::got<c5, shown_t<X>..., F>::value,
            "xlet::reduce [C5]: the computation must take (accumulators..., values...) of the operand element "
            "types and return one value per operand (a tuple when there are several)");
        static_assert(diag::got<c6, shown_t<X>..., F>::value,
                      "xlet::reduce [C6]: the monoid is not defined on this element type (max_fn/min_fn: pred, integer "
                      "or floating; and_fn/or_fn: pred or integer)");
        return ok;
    }
};

} // namespace detail

// One operand: returns a tensor of the operand's element type.
template<expression X, class I, class F, std::int64_t... D>
auto reduce(X&& x, const I& init, const F& f, dims_t<D...>) {
    using Rules = detail::reduce_rules<F, std::tuple<X>, std::tuple<I>, dims_t<D...>>;
    if constexpr (Rules::check()) {
        auto outs = detail::reduce_nodes<Rules::rd, detail::no_dyn<Rules::R>>(
            std::make_tuple(detail::as_node(std::forward<X>(x))), std::tie(init), f, nullptr, std::index_sequence<0>{});
        return std::move(std::get<0>(outs));
    }
}

// Variadic: operands and init values as tuples (std::tie / std::forward_as_tuple keep operands by
// reference); returns a std::tuple of tensors.
template<class... X, class... I, class F, std::int64_t... D>
requires(sizeof...(X) > 0 && (expression<X> && ...)) auto reduce(std::tuple<X...> xs, const std::tuple<I...>& inits,
                                                                 const F& f, dims_t<D...>) {
    using Rules = detail::reduce_rules<F, std::tuple<X...>, std::tuple<I...>, dims_t<D...>>;
    if constexpr (Rules::check()) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            auto nodes = std::make_tuple(detail::as_node(std::get<K>(std::move(xs)))...);
            return detail::reduce_nodes<Rules::rd, detail::no_dyn<Rules::R>>(nodes, inits, f, nullptr,
                                                                             std::index_sequence<K...>{});
        }
        (std::index_sequence_for<X...>{});
    }
}

} // namespace xlet
