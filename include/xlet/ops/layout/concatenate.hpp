// ConcatInDim: concatenate<dimension>(x0, x1, ...), a lazy node that fuses into the enclosing
// expression. Rules: C1 at least one operand; C2 one element type; C3 one rank; C4 dimension in
// range; C5 all other dimensions equal. Under a view (broadcast, transpose, ...) it is evaluated
// first.
#pragma once
#include "piecewise.hpp"

namespace xlet::detail {

template<bool Inner, class T, std::size_t Nops, std::array<std::size_t, Nops> Off, std::array<std::size_t, Nops> Len,
         class... K>
struct concat_cursor {
    using C = compute_t<T>;
    kids<K...> cs{};
    std::size_t active = 0;

    template<std::size_t N>
    vec<C, N> range(std::size_t i, std::size_t cnt) const {
        std::size_t j = 0;
        while (j + 1 < Nops && i >= Off[j] + Len[j])
            ++j;
        if (i + cnt <= Off[j] + Len[j])
            return visit_at<vec<C, N>>(j, cs, [&](const auto& c) {
                return cnt == N ? c.template load<N>(i - Off[j]) : c.template load_partial<N>(i - Off[j], cnt);
            });
        std::array<C, N> out{};
        for (std::size_t p = i; p < i + cnt; ++j) {
            if (p >= Off[j] + Len[j]) continue;
            std::size_t m = std::min(i + cnt, Off[j] + Len[j]) - p;
            auto v =
                visit_at<vec<C, N>>(j, cs, [&](const auto& c) { return c.template load_partial<N>(p - Off[j], m); });
            place_lanes(out, v, p - i, m);
            p += m;
        }
        for (std::size_t k = cnt; k < N; ++k)
            out[k] = out[0];
        return vec<C, N>::from_lanes(out.data());
    }
    template<std::size_t N>
    vec<C, N> load(std::size_t i) const {
        if constexpr (Inner)
            return range<N>(i, N);
        else
            return visit_at<vec<C, N>>(active, cs, [&](const auto& c) { return c.template load<N>(i); });
    }
    template<std::size_t N>
    vec<C, N> load_partial(std::size_t i, std::size_t n) const {
        if constexpr (Inner)
            return range<N>(i, n);
        else
            return visit_at<vec<C, N>>(active, cs, [&](const auto& c) { return c.template load_partial<N>(i, n); });
    }
};

template<std::size_t Kd, class T, std::size_t R, extents_t<R> E, class... C>
struct concat_node : node_shape<T, R, E> {
    static constexpr std::size_t nops = sizeof...(C);
    static constexpr std::size_t lanes = std::max({C::lanes...});
    static constexpr double cost = std::max({C::cost...}) + 1;
    static constexpr std::size_t leaf_count = (C::leaf_count + ...) + 1;
    static constexpr bool linear = false;
    static constexpr bool viewable = false;
    static constexpr std::array<std::size_t, nops> len{C::extents[Kd]...};
    static constexpr std::array<std::size_t, nops> off = [] {
        std::array<std::size_t, nops> o{};
        o[0] = 0; // assigned explicitly: GCC 12 mixes up NTTP arrays whose leading zero was only value-initialised
        for (std::size_t j = 1; j < nops; ++j)
            o[j] = o[j - 1] + len[j - 1];
        return o;
    }();
    detail::kids<C...> kids;

    static std::size_t operand_at(std::size_t o) {
        std::size_t j = 0;
        while (j + 1 < nops && o >= off[j] + len[j])
            ++j;
        return j;
    }

    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() {
        auto all = children_leaf_strides<Ro, M, 1, C...>();
        all[leaf_count - 1] = barrier<Ro>(Kd);
        return all;
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        constexpr int g = group_of<Ro, P>(Kd);
        constexpr bool inner = g >= 0 && static_cast<std::size_t>(g) + 1 == P.groups;
        return detail::apply(
            [&](const auto&... k) {
                concat_cursor<inner, T, nops, off, len, decltype(k.template cursor<Ro, M, P>(outer))...> c;
                auto build = [&]<std::size_t... I>(std::index_sequence<I...>) {
                    if constexpr (inner) {
                        // Operands are read at shifted positions, outside the range a tile buffer
                        // row holds (eval/tile_buffer.hpp): their strided leaves read their source.
                        auto o = outer;
                        o.tile = nullptr;
                        ((kids_at<I>(c.cs) = kids_at<I>(kids).template cursor<Ro, M, P>(o)), ...);
                    } else {
                        auto o = outer;
                        std::size_t idx = 0;
                        if constexpr (g >= 0) idx = outer[static_cast<std::size_t>(g)];
                        c.active = operand_at(idx);
                        if constexpr (g >= 0) o[static_cast<std::size_t>(g)] = idx - off[c.active];
                        ((c.active == I ? (kids_at<I>(c.cs) = kids_at<I>(kids).template cursor<Ro, M, P>(o), 0) : 0),
                         ...);
                    }
                };
                build(std::make_index_sequence<nops>{});
                return c;
            },
            kids);
    }
    compute_t<T> at(const std::array<std::size_t, R>& idx) const {
        std::size_t j = operand_at(idx[Kd]);
        auto ci = idx;
        ci[Kd] -= off[j];
        return visit_at<compute_t<T>>(j, kids, [&](const auto& c) { return c.at(ci); });
    }
    int trace(trace::recorder& r) const {
        std::vector<int> ins;
        detail::apply([&](const auto&... c) { (ins.push_back(trace::value_of(r, c)), ...); }, kids);
        return r.emit("stablehlo.concatenate", std::move(ins), {trace::type_of<concat_node>()},
                      "dimension = " + std::to_string(Kd) + " : i64");
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        return detail::apply(
            [&](const auto&... c) { return (c.template may_alias<Ro, M, moved_view<Ro>>(b, e) || ...); }, kids);
    }
};

} // namespace xlet::detail

namespace xlet {

template<std::int64_t Dimension, expression... X>
auto concatenate(X&&... x) {
    constexpr bool c1 = sizeof...(X) > 0;
    static_assert(c1, "xlet::concatenate [C1]: needs at least one operand");
    if constexpr (c1) {
        using First = detail::node_t<std::tuple_element_t<0, std::tuple<X...>>>;
        using T = typename First::value_type;
        constexpr std::size_t R = First::rank;
        constexpr bool c2 = (std::is_same_v<detail::element_of<X>, T> && ...);
        constexpr bool c3 = ((detail::shape_of<X>::rank == R) && ...);
        constexpr bool c4 = Dimension >= 0 && static_cast<std::size_t>(Dimension) < R;
        constexpr bool c5 = [] {
            if constexpr (!(c3 && c4))
                return false;
            else {
                for (const auto& e : {detail::shape_of<X>::extents...})
                    for (std::size_t i = 0; i < R; ++i)
                        if (i != static_cast<std::size_t>(Dimension) && e[i] != First::extents[i]) return false;
                return true;
            }
        }();
        static_assert(diag::got<c2, detail::shown_t<X>...>::value,
                      "xlet::concatenate [C2]: operands must have the same element type");
        static_assert(diag::got<!is_per_axis_quantized<T>, detail::shown_t<X>...>::value,
                      "xlet::concatenate [I1]: the operands must not be per-axis quantized (the spec's concatenate "
                      "takes per-tensor quantized tensors only)");
        static_assert(diag::got<c3, detail::shown_t<X>...>::value,
                      "xlet::concatenate [C3]: operands must have the same rank");
        static_assert(diag::got<c4, detail::shown_t<X>..., diag::dimensions<Dimension>>::value,
                      "xlet::concatenate [C4]: dimension must be in [0, rank)");
        static_assert(
            diag::got<c5, detail::shown_t<X>..., diag::dimensions<Dimension>>::value,
            "xlet::concatenate [C5]: operands must have equal sizes in every dimension but the concatenated one");
        if constexpr (c2 && c3 && c4 && c5 && !is_per_axis_quantized<T>) {
            constexpr std::size_t K = static_cast<std::size_t>(Dimension);
            constexpr auto E = [] {
                auto e = First::extents;
                e[K] = (detail::shape_of<X>::extents[K] + ...);
                return e;
            }();
            return detail::concat_node<K, T, R, E, detail::node_t<X>...>{{}, {detail::as_node(std::forward<X>(x))...}};
        }
    }
}

} // namespace xlet
