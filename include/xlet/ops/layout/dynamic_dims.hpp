// Bounded dynamic dimensions (spec: SetDimensionSize, GetDimensionSize, DynamicReshape; the value
// type is xlet::bounded in eval/bounded.hpp):
//   auto v5 = set_dimension_size<0>(v, 5);           f32[<=10] with run-time size 5
//   reduce(v5, 0.0f, add_fn{}, dims<0>)              sums the first 5 elements only
//   get_dimension_size<0>(v5)                        s32[] holding 5
//   dynamic_reshape(x, std::array{n, 4}, sizes<10, 4>, dims<0>)   f32[<=10, 4] (bounds, dynamic dims)
// Element-wise ops, convert_element_type, select and clamp on bounded operands return bounded
// results (sizes checked to agree at run time); reduce honours the sizes of the dimensions it
// reduces and keeps the others dynamic.
// Rules:
//   set_dimension_size  C1 dimension in [0, rank); C2 size an integer scalar; run time: size in
//                       [0, bound] (xlet::error otherwise)
//   get_dimension_size  C1 dimension in [0, rank)
//   dynamic_reshape     C1 one size per result dimension; C2 dynamic dimensions in range and
//                       unique; C3 sizes of integer type; run time: each size in [0, bound], a static
//                       dimension's size equal to its bound, and the element counts equal;
//                       C4 bounds not negative
#pragma once
#include "../elementwise/convert.hpp"
#include "../reduce/reduce.hpp"
#include "../elementwise/select.hpp"

namespace xlet {

namespace detail {

template<class S>
std::int64_t scalar_int(const S& s) {
    if constexpr (expression<S>)
        return static_cast<std::int64_t>(as_node(s).at({}));
    else
        return static_cast<std::int64_t>(s);
}
template<class S>
inline constexpr bool int_scalar = [] {
    if constexpr (expression<S>)
        return shape_of<S>::rank == 0 && is_integer<element_of<S>>;
    else
        return std::is_integral_v<S> && !std::is_same_v<S, bool>;
}();

template<class X>
using unbound_t = std::remove_cvref_t<decltype(unbound(std::declval<X>()))>;

template<std::size_t R>
constexpr std::array<bool, R> mask_bits(unsigned m) {
    std::array<bool, R> a{};
    for (std::size_t d = 0; d < R; ++d)
        a[d] = ((m >> d) & 1u) != 0;
    return a;
}

// Export: the operand (static or bounded) and the size as tensor<i32>.
template<class E, std::int64_t Dim, unsigned M, class X, class S>
XLET_TRACE_COLD int trace_set_size(trace::recorder& r, const X& x, const S& size) {
    int s;
    if constexpr (expression<S>) {
        s = trace::value_of(r, size);
        if constexpr (!std::is_same_v<element_of<S>, std::int32_t>)
            s = r.emit("stablehlo.convert", {s}, {"tensor<i32>"});
    } else {
        s = trace::scalar_value<std::int32_t>(r, static_cast<std::int32_t>(size));
    }
    return r.emit("stablehlo.set_dimension_size", {trace::value_of(r, x), s},
                  {trace::recorder::bounded_type(trace::type_of<E>(), M)},
                  "dimension = " + std::to_string(Dim) + " : i64");
}

} // namespace detail

template<std::int64_t Dim, class X, class S>
requires(expression<X> || detail::bounded_operand<X>) auto set_dimension_size(X&& x, const S& size) {
    using E = detail::unbound_t<X>;
    constexpr bool c1 = Dim >= 0 && static_cast<std::size_t>(Dim) < E::rank;
    static_assert(diag::got<c1, detail::shown_t<E>, diag::dimensions<Dim>>::value,
                  "xlet::set_dimension_size [C1]: dimension must be in [0, rank)");
    static_assert(diag::got<detail::int_scalar<S>, detail::shown_t<S>>::value,
                  "xlet::set_dimension_size [C2]: the size must be an integer scalar");
    if constexpr (c1 && detail::int_scalar<S>) {
        constexpr auto d = static_cast<std::size_t>(Dim);
        const std::int64_t s = detail::scalar_int(size);
        if (s < 0 || static_cast<std::uint64_t>(s) > E::extents[d])
            throw error("set_dimension_size", "size ", s, " outside [0, ", E::extents[d], "]");
        std::array<std::size_t, E::rank> sizes = E::extents;
        unsigned mask = 0;
        if constexpr (detail::bounded_operand<X>) {
            sizes = x.sizes();
            mask = std::remove_cvref_t<X>::dynamic_mask;
        }
        (void)mask;
        sizes[d] = static_cast<std::size_t>(s);
        constexpr unsigned M = [] {
            if constexpr (detail::bounded_operand<X>)
                return std::remove_cvref_t<X>::dynamic_mask | (1u << Dim);
            else
                return 1u << Dim;
        }();
        trace::recorder* const r = trace::current();
        int id = -1;
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]]
                id = detail::trace_set_size<E, Dim, M>(*r, x, size);
        auto out = [&] {
            if constexpr (detail::bounded_operand<X>)
                return bounded<E, M>(std::forward<X>(x).padded(), sizes, "set_dimension_size");
            else
                return bounded<detail::node_t<X>, M>(detail::as_node(std::forward<X>(x)), sizes, "set_dimension_size");
        }();
        if (id >= 0) [[unlikely]]
            out.traced(r->carry(id)); // (its padded expression is the operand's, traced as that)
        return out;
    }
}

// The run-time size of a dynamic dimension, the extent of a static one (as s32[], like XLA).
template<std::int64_t Dim, class X>
requires(expression<X> || detail::bounded_operand<X>) s32<> get_dimension_size(const X& x) {
    using E = detail::unbound_t<X>;
    constexpr bool c1 = Dim >= 0 && static_cast<std::size_t>(Dim) < E::rank;
    static_assert(diag::got<c1, detail::shown_t<E>, diag::dimensions<Dim>>::value,
                  "xlet::get_dimension_size [C1]: dimension must be in [0, rank)");
    if constexpr (c1) {
        if constexpr (detail::bounded_operand<X>)
            return detail::traced_op(
                [&] { return s32<>{static_cast<std::int32_t>(x.size(static_cast<std::size_t>(Dim)))}; },
                [&](trace::recorder& r, const std::vector<std::string>& t) {
                    return r.emit("stablehlo.get_dimension_size", {x.trace(r)}, t,
                                  "dimension = " + std::to_string(Dim) + " : i64");
                });
        else
            return s32<>{static_cast<std::int32_t>(E::extents[static_cast<std::size_t>(Dim)])}; // (a constant)
    } else {
        return s32<>{};
    }
}

// Evaluate the static expression, keep the sizes.
template<detail::bounded_operand X>
auto eval(X&& x) {
    using B = std::remove_cvref_t<X>;
    auto sizes = x.sizes();
    return detail::traced_op( // (records no op: the result is the operand's value)
        [&] {
            return bounded<tensor_type_of<typename B::expr_type>, B::dynamic_mask>(eval(std::forward<X>(x).padded()),
                                                                                   sizes);
        },
        [&](trace::recorder& r, const std::vector<std::string>&) { return x.trace(r); });
}

template<class P, class A, class B>
requires(detail::any_bounded<P, A, B>) auto select(P&& pred, A&& on_true, B&& on_false) {
    return detail::lift(
        "select", [](auto&&... v) { return select(std::forward<decltype(v)>(v)...); }, std::forward<P>(pred),
        std::forward<A>(on_true), std::forward<B>(on_false));
}

template<class Lo, class X, class Hi>
requires(detail::any_bounded<Lo, X, Hi>) auto clamp(Lo&& lo, X&& x, Hi&& hi) {
    return detail::lift(
        "clamp", [](auto&&... v) { return clamp(std::forward<decltype(v)>(v)...); }, std::forward<Lo>(lo),
        std::forward<X>(x), std::forward<Hi>(hi));
}

template<element U, detail::bounded_operand X>
auto convert_element_type(X&& x) {
    return detail::lift(
        "convert_element_type", [](auto&& v) { return convert_element_type<U>(std::forward<decltype(v)>(v)); },
        std::forward<X>(x));
}

// Reduce over bounded operands: reduced dynamic dimensions stop at their run-time sizes; kept
// dynamic dimensions stay dynamic in the result (a bounded tensor), otherwise the result is a tensor.
namespace detail {

template<unsigned Mask, std::size_t R, std::size_t K>
consteval unsigned kept_mask(const std::array<std::int64_t, K>& rd) {
    unsigned m = 0;
    std::size_t at = 0;
    for (std::size_t d = 0; d < R; ++d) {
        bool red = false;
        for (auto x : rd)
            red = red || static_cast<std::size_t>(x) == d;
        if (red) continue;
        if ((Mask >> d) & 1u) m |= 1u << at;
        ++at;
    }
    return m;
}

// Export: operands (bounded or static), inits, the computation as the region.
template<auto RD, class... T, class Xs, class Is, class F>
XLET_TRACE_COLD int trace_reduce(trace::recorder& r, const std::vector<std::string>& types, const Xs& xs,
                                 const Is& inits, const F& f) {
    std::vector<int> ins;
    detail::apply([&](const auto&... x) { (ins.push_back(trace::value_of(r, x)), ...); }, xs);
    [&]<std::size_t... K>(std::index_sequence<K...>) { (ins.push_back(trace::init_id<T>(r, std::get<K>(inits))), ...); }
    (std::index_sequence_for<T...>{});
    const int g = trace::computation<T..., T...>(r, f, "reduce");
    return r.emit("stablehlo.reduce", std::move(ins), types, "dimensions = " + trace::i64_list(RD), {g});
}

template<unsigned Mask, auto RD, class Out, std::size_t R>
auto bounded_result(Out&& out, const std::array<std::size_t, R>& sizes) {
    constexpr unsigned KM = kept_mask<Mask, R>(RD);
    if constexpr (KM == 0) {
        return std::forward<Out>(out);
    } else {
        using T = std::remove_cvref_t<Out>;
        std::array<std::size_t, T::rank> ks{};
        std::size_t at = 0;
        for (std::size_t d = 0; d < R; ++d) {
            bool red = false;
            for (auto x : RD)
                red = red || static_cast<std::size_t>(x) == d;
            if (!red) ks[at++] = sizes[d];
        }
        return bounded<T, KM>(std::forward<Out>(out), ks, "reduce");
    }
}

} // namespace detail

template<detail::bounded_operand X, class I, class F, std::int64_t... D>
auto reduce(X&& x, const I& init, const F& f, dims_t<D...>) {
    using B = std::remove_cvref_t<X>;
    using E = typename B::expr_type;
    using Rules = detail::reduce_rules<F, std::tuple<E>, std::tuple<I>, dims_t<D...>>;
    if constexpr (Rules::check()) {
        auto sizes = x.sizes();
        return detail::traced_op(
            [&] {
                auto outs = detail::reduce_nodes<Rules::rd, detail::mask_bits<B::rank>(B::dynamic_mask)>(
                    std::make_tuple(detail::as_node(std::forward<X>(x).padded())), std::tie(init), f, &sizes,
                    std::index_sequence<0>{});
                return detail::bounded_result<B::dynamic_mask, Rules::rd>(std::move(std::get<0>(outs)), sizes);
            },
            [&](trace::recorder& r, const std::vector<std::string>& t) {
                return detail::trace_reduce<Rules::rd, typename B::value_type>(r, t, std::tie(x), std::tie(init), f);
            });
    }
}

template<class... X, class... I, class F, std::int64_t... D>
requires(sizeof...(X) > 0 && ((expression<X> || detail::bounded_operand<X>)&&...) &&
         detail::any_bounded<X...>) auto reduce(std::tuple<X...> xs, const std::tuple<I...>& inits, const F& f,
                                                dims_t<D...>) {
    using Rules = detail::reduce_rules<F, std::tuple<detail::unbound_t<X>...>, std::tuple<I...>, dims_t<D...>>;
    if constexpr (Rules::check()) {
        constexpr std::size_t R = Rules::R;
        constexpr auto E = detail::shape_of<detail::unbound_t<std::tuple_element_t<0, std::tuple<X...>>>>::extents;
        constexpr unsigned M = detail::lifted_mask<R, E, X...>();
        std::array<std::size_t, R> sizes = E;
        std::array<bool, R> set{};
        detail::apply([&](const auto&... x) { (detail::lift_sizes<R, E>("reduce", sizes, set, x), ...); }, xs);
        return detail::traced_op(
            [&] {
                return [&]<std::size_t... K>(std::index_sequence<K...>) {
                    auto nodes = std::make_tuple(detail::as_node(detail::unbound(std::get<K>(std::move(xs))))...);
                    auto outs = detail::reduce_nodes<Rules::rd, detail::mask_bits<R>(M)>(nodes, inits, f, &sizes,
                                                                                         std::index_sequence<K...>{});
                    return std::make_tuple(
                        detail::bounded_result<M, Rules::rd>(std::move(std::get<K>(outs)), sizes)...);
                }
                (std::index_sequence_for<X...>{});
            },
            [&](trace::recorder& r, const std::vector<std::string>& t) {
                return detail::trace_reduce<Rules::rd, typename detail::unbound_t<X>::value_type...>(r, t, xs, inits,
                                                                                                     f);
            });
    }
}

namespace detail {

// DynamicReshape's work (the rules were checked).
template<class Out, unsigned M, class X, class Sz>
auto dynamic_reshape_run(const X& x, const Sz& dim_sizes) {
    using E = detail::unbound_t<X>;
    constexpr std::size_t R = Out::rank;
    constexpr extents_t<R> bounds = Out::extents;
    std::array<std::size_t, R> out_size{};
    for (std::size_t d = 0; d < R; ++d) {
        const auto s = static_cast<std::int64_t>(dim_sizes.data()[d]);
        if (s < 0 || static_cast<std::uint64_t>(s) > bounds[d])
            throw error("dynamic_reshape", "size ", s, " of dimension ", d, " outside [0, ", bounds[d], "]");
        out_size[d] = static_cast<std::size_t>(s);
    }
    std::array<std::size_t, E::rank> in_size = E::extents;
    if constexpr (detail::bounded_operand<X>) in_size = x.sizes();
    std::size_t n_in = 1, n_out = 1;
    for (auto s : in_size)
        n_in *= s;
    for (auto s : out_size)
        n_out *= s;
    if (n_in != n_out) throw error("dynamic_reshape", n_in, " elements cannot take the shape of ", n_out);
    const auto& src = [&]() -> decltype(auto) {
        if constexpr (is_array_leaf<E>)
            return detail::unbound(x);
        else
            return eval(detail::unbound(x));
    }();
    Out out{}; // padding: zero
    constexpr auto in_stride = row_major_strides(E::extents);
    constexpr auto out_stride = row_major_strides(bounds);
    std::array<std::size_t, E::rank> i{};
    std::array<std::size_t, R> o{};
    for (std::size_t k = 0; k < n_in; ++k) {
        std::ptrdiff_t a = 0, b = 0;
        for (std::size_t d = 0; d < E::rank; ++d)
            a += static_cast<std::ptrdiff_t>(i[d]) * in_stride[d];
        for (std::size_t d = 0; d < R; ++d)
            b += static_cast<std::ptrdiff_t>(o[d]) * out_stride[d];
        out.data()[b] = src.data()[a];
        for (std::size_t d = E::rank; d-- > 0 && ++i[d] == in_size[d];)
            i[d] = 0; // row-major odometers
        for (std::size_t d = R; d-- > 0 && ++o[d] == out_size[d];)
            o[d] = 0;
    }
    return bounded<Out, M>(std::move(out), out_size, "dynamic_reshape");
}

// Export: dim_sizes (StableHLO's output_shape) as a 1-D integer tensor, a constant for a std::array.
template<class Sz>
XLET_TRACE_COLD int trace_shape(trace::recorder& r, const Sz& sz) {
    if constexpr (expression<Sz>) {
        return trace::value_of(r, sz);
    } else {
        std::vector<std::int64_t> v(sz.begin(), sz.end());
        const std::string t = "tensor<" + std::to_string(v.size()) + "xi64>";
        return r.emit("stablehlo.constant", {}, {t}, "value = " + trace::dense_literal(v.data(), {v.size()}, t));
    }
}

} // namespace detail

// DynamicReshape: the operand's elements inside its run-time sizes, in row-major order, laid out
// row-major in the run-time shape `dim_sizes` inside the bounds; the result is materialised and
// its padding is zero.
template<class X, class Sz, std::int64_t... Bounds, std::int64_t... Dyn>
requires(expression<X> || detail::bounded_operand<X>) auto dynamic_reshape(X&& x, const Sz& dim_sizes,
                                                                           dims_t<Bounds...>, dims_t<Dyn...>) {
    using E = detail::unbound_t<X>;
    using T = typename E::value_type;
    constexpr std::size_t R = sizeof...(Bounds);
    constexpr bool c4 = ((Bounds >= 0) && ...);
    using Out = tensor<T, static_cast<std::size_t>(c4 ? Bounds : 0)...>;
    constexpr std::array<std::int64_t, sizeof...(Dyn)> dyn{Dyn...};
    using SzT = std::remove_cvref_t<Sz>;
    constexpr std::size_t nsizes = [] {
        if constexpr (expression<SzT>)
            return SzT::rank == 1 ? SzT::extents[0] : std::size_t(-1);
        else
            return std::tuple_size_v<SzT>;
    }();
    using SzE = std::remove_cvref_t<decltype(*std::declval<const SzT&>().data())>;
    constexpr bool c1 = nsizes == R;
    constexpr bool c2 = dims_in_range(dyn, R) && dims_unique(dyn);
    constexpr bool c3 = std::is_integral_v<SzE> && !std::is_same_v<SzE, bool>;
    using XT = detail::shown_t<E>;
    static_assert(diag::got<c1, XT, SzT, diag::dimensions<Bounds...>>::value,
                  "xlet::dynamic_reshape [C1]: one size per result dimension");
    static_assert(diag::got<c2, XT, diag::dimensions<Bounds...>, diag::dimensions<Dyn...>>::value,
                  "xlet::dynamic_reshape [C2]: dynamic dimensions must be result dimensions, each listed once");
    static_assert(diag::got<c3, SzT>::value, "xlet::dynamic_reshape [C3]: sizes must have an integer type");
    static_assert(diag::got<c4, diag::dimensions<Bounds...>>::value,
                  "xlet::dynamic_reshape [C4]: bounds must not be negative");
    if constexpr (c1 && c2 && c3 && c4) {
        constexpr unsigned M = ((1u << Dyn) | ... | 0u);
        return detail::traced_op([&] { return detail::dynamic_reshape_run<Out, M>(x, dim_sizes); },
                                 [&](trace::recorder& r, const std::vector<std::string>& t) {
                                     return r.emit("stablehlo.dynamic_reshape",
                                                   {trace::value_of(r, x), detail::trace_shape(r, dim_sizes)}, t);
                                 });
    }
}

} // namespace xlet
