// Layout ops as lazy views (spec: Broadcast, BroadcastInDim, Transpose, Rev, Slice, Reshape,
// Collapse). Each returns a node that fuses into the enclosing expression: no copy is made until
// the whole expression is assigned. Rules, numbered as in each op's messages:
//   broadcast(x, sizes<...>)                 C1 sizes >= 0. New dimensions go on the left.
//   broadcast_in_dim(x, sizes<out...>, dims<...>)
//                                            C1 one dimension per operand dimension; C2 in range of
//                                            the output; C3 unique; C4 operand size 1 or equal.
//   transpose(x, dims<perm...>)              C1 perm is a permutation of 0..rank-1.
//   rev(x, dims<...>)                        C1 in range; C2 unique.
//   slice(x, dims<start...>, dims<limit...>[, dims<stride...>])
//                                            C1 one entry per dimension; C2 0 <= start <= limit <=
//                                            size; C3 stride >= 1.
//   reshape(x, sizes<...>)                   C1 same element count. Lazy over element-wise trees
//                                            of arrays; other operands are evaluated at the call.
//   reshape(x, dims<order...>, sizes<...>)   = reshape(transpose(x, order), sizes); C2 permutation.
//   reshape<f32<3, 2>>(x)                    the target as a type; C3 same element type.
//   collapse(x, dims<...>)                   C1 consecutive, increasing, in range.
// Quantized operands (quant/): the stored integers move untouched. A per-axis quantized operand's
// quantization dimension follows its data through broadcast, broadcast_in_dim, transpose and
// reshape (the result's element type names the new dimension; broadcast_in_dim of a size-1
// quantization dimension repeats its one scale, spec C6); reshape C4: the quantization dimension
// must survive as a dimension of the same size with the same number of elements before it (spec
// C3). rev, slice I1 (pad, concatenate, dynamic_slice, dynamic_update_slice, gather too): per-tensor
// quantized operands only, as the spec's operand types (its label I1) say.
#pragma once
#include "../elementwise/elementwise.hpp"

namespace xlet {

// A list of sizes as a static attribute (the same type as dims<...>).
template<std::int64_t... I> inline constexpr dims_t<I...> sizes{};

namespace detail {

template<std::size_t N>
constexpr bool all_nonnegative(const std::array<std::int64_t, N>& a) {
    for (auto x : a)
        if (x < 0) return false;
    return true;
}
template<std::size_t N>
constexpr bool is_permutation(const std::array<std::int64_t, N>& p) {
    return dims_in_range(p, N) && dims_unique(p);
}
template<std::size_t N>
constexpr extents_t<N> to_extents(const std::array<std::int64_t, N>& a) {
    extents_t<N> e{};
    for (std::size_t i = 0; i < N; ++i) e[i] = a[i] < 0 ? 0 : static_cast<std::size_t>(a[i]);
    return e;
}

// Reshape of a linear node: leaves are addressed through the flat row-major index of the new shape.
template<class C, std::size_t R, extents_t<R> E, class T = typename C::value_type>
struct reshape_node : node_shape<T, R, E> {
    static constexpr std::size_t lanes = C::lanes;
    static constexpr double cost = C::cost;
    static constexpr std::size_t leaf_count = C::leaf_count;
    static constexpr bool linear = true;
    static constexpr bool viewable = true;
    C child;

    template<std::size_t Ro, auto M>
    static consteval leaf_view<Ro> flat() { return view_of(M, row_major_strides(E)); }
    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() { return C::template leaf_strides<Ro, flat<Ro, M>()>(); }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const { return child.template cursor<Ro, flat<Ro, M>(), P>(outer); }
    auto at(const std::array<std::size_t, R>& idx) const {
        std::size_t f = 0;
        for (std::size_t i = 0; i < R; ++i) f = f * E[i] + idx[i];
        return child.at(unflatten(f, C::extents));
    }
    int trace(trace::recorder& r) const {
        const int v = trace::value_of(r, child);
        return r.emit("stablehlo.reshape", {v}, {trace::type_of<reshape_node>()});
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const { return child.template may_alias<Ro, flat<Ro, M>(), D>(b, e); }
};

// Where a per-axis quantization dimension a of an operand of extents In lands in a reshape to
// extents Out: the first result dimension of In's size along a with as many elements before it
// (-1: none, reshape's C4).
template<std::size_t Ri, std::size_t Ro>
constexpr std::int64_t reshaped_axis(const extents_t<Ri>& in, std::int64_t a, const extents_t<Ro>& out) {
    if (a < 0 || a >= static_cast<std::int64_t>(Ri)) return -1;
    std::size_t before = 1;
    for (std::size_t i = 0; i < static_cast<std::size_t>(a); ++i)
        before *= in[i];
    std::size_t acc = 1;
    for (std::size_t k = 0; k < Ro; ++k) {
        if (acc == before && out[k] == in[static_cast<std::size_t>(a)]) return static_cast<std::int64_t>(k);
        acc *= out[k];
    }
    return -1;
}

} // namespace detail

template<expression X, std::int64_t... S>
auto broadcast(X&& x, dims_t<S...>) {
    using N = detail::node_t<X>;
    constexpr std::size_t Rn = sizeof...(S), Rc = N::rank, R = Rn + Rc;
    constexpr bool c1 = detail::all_nonnegative(dims_t<S...>::value);
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<S...>>::value, "xlet::broadcast [C1]: broadcast_sizes must be >= 0");
    if constexpr (c1) {
        constexpr auto E = [] {
            extents_t<R> e{};
            for (std::size_t i = 0; i < Rn; ++i) e[i] = static_cast<std::size_t>(dims_t<S...>::value[i]);
            for (std::size_t i = 0; i < Rc; ++i) e[Rn + i] = N::extents[i];
            return e;
        }();
        constexpr auto Map = [] {
            detail::index_map<Rc, R> m;
            for (std::size_t i = 0; i < Rc; ++i) {
                m.src[i] = static_cast<int>(Rn + i);
                m.scale[i] = 1;
            }
            return m;
        }();
        using T = detail::with_quant_axis_t<typename N::value_type, detail::quant_axis<typename N::value_type>() +
                                                                        static_cast<std::int64_t>(Rn)>;
        return detail::make_view<R, E, Map, T>(detail::as_node(std::forward<X>(x)));
    }
}

template<expression X, std::int64_t... S, std::int64_t... B>
auto broadcast_in_dim(X&& x, dims_t<S...>, dims_t<B...>) {
    using N = detail::node_t<X>;
    constexpr std::size_t R = sizeof...(S);
    static constexpr auto out = dims_t<S...>::value;
    static constexpr auto bd = dims_t<B...>::value;
    using XT = detail::shown_t<X>;
    using SD = diag::dimensions<S...>;
    using BD = diag::dimensions<B...>;
    constexpr bool c1 = sizeof...(B) == N::rank && detail::all_nonnegative(out);
    constexpr bool c2 = dims_in_range(bd, R);
    constexpr bool c3 = dims_unique(bd);
    constexpr bool c4 = [] {
        if constexpr (!(c1 && c2)) return false;
        else {
            for (std::size_t i = 0; i < N::rank; ++i)
                if (N::extents[i] != 1 && static_cast<std::int64_t>(N::extents[i]) != out[static_cast<std::size_t>(bd[i])]) return false;
            return true;
        }
    }();
    static_assert(diag::got<c1, XT, BD>::value, "xlet::broadcast_in_dim [C1]: broadcast_dimensions must have one entry per operand dimension (and sizes >= 0)");
    static_assert(diag::got<c2, XT, SD, BD>::value, "xlet::broadcast_in_dim [C2]: broadcast_dimensions must be dimensions of the output shape");
    static_assert(diag::got<c3, XT, BD>::value, "xlet::broadcast_in_dim [C3]: broadcast_dimensions must be unique");
    static_assert(diag::got<c4, XT, SD, BD>::value, "xlet::broadcast_in_dim [C4]: each operand dimension must have size 1 or the size of the output dimension it maps to");
    if constexpr (c1 && c2 && c3 && c4) {
        constexpr auto E = detail::to_extents(out);
        // (A per-axis quantization dimension a goes to bd[a]: broadcast_element.)
        using T = typename detail::broadcast_element<typename N::value_type, N::rank, N::extents, R, E, bd>::type;
        return detail::make_view<R, E, detail::broadcast_map<N::rank, N::extents, R, E, bd>(), T>(
            detail::as_node(std::forward<X>(x)));
    }
}

template<expression X, std::int64_t... P>
auto transpose(X&& x, dims_t<P...>) {
    using N = detail::node_t<X>;
    constexpr std::size_t R = N::rank;
    static constexpr auto perm = dims_t<P...>::value;
    constexpr bool c1 = sizeof...(P) == R && [] {
        if constexpr (sizeof...(P) != R) return false;
        else return detail::is_permutation(perm);
    }();
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<P...>>::value,
                  "xlet::transpose [C1]: permutation must be a permutation of 0..rank-1");
    if constexpr (c1) {
        constexpr auto E = [] {
            extents_t<R> e{};
            for (std::size_t j = 0; j < R; ++j) e[j] = N::extents[static_cast<std::size_t>(perm[j])];
            return e;
        }();
        constexpr auto Map = [] {
            detail::index_map<R, R> m;
            for (std::size_t j = 0; j < R; ++j) {
                auto i = static_cast<std::size_t>(perm[j]); // output dim j reads operand dim perm[j]
                m.src[i] = static_cast<int>(j);
                m.scale[i] = 1;
            }
            return m;
        }();
        // A per-axis quantization dimension a becomes the output dimension j with perm[j] = a (spec C4).
        using V = typename N::value_type;
        constexpr std::int64_t a = detail::quant_axis<V>();
        constexpr std::int64_t na = [] {
            for (std::size_t j = 0; j < R; ++j)
                if (perm[j] == a) return static_cast<std::int64_t>(j);
            return std::int64_t{-1};
        }();
        return detail::make_view<R, E, Map, detail::with_quant_axis_t<V, na>>(detail::as_node(std::forward<X>(x)));
    }
}

template<expression X, std::int64_t... D>
auto rev(X&& x, dims_t<D...>) {
    using N = detail::node_t<X>;
    constexpr std::size_t R = N::rank;
    static constexpr auto d = dims_t<D...>::value;
    using XT = detail::shown_t<X>;
    static_assert(diag::got<dims_in_range(d, R), XT, diag::dimensions<D...>>::value, "xlet::rev [C1]: dimensions must be in range");
    static_assert(diag::got<dims_unique(d), XT, diag::dimensions<D...>>::value, "xlet::rev [C2]: dimensions must be unique");
    static_assert(diag::got<!is_per_axis_quantized<typename N::value_type>, XT>::value,
                  "xlet::rev [I1]: the operand must not be per-axis quantized (the spec's reverse takes per-tensor "
                  "quantized tensors only)");
    if constexpr (dims_in_range(d, R) && dims_unique(d) && !is_per_axis_quantized<typename N::value_type>) {
        constexpr auto Map = [] {
            auto m = detail::identity_map<R>();
            for (auto k : d) {
                auto i = static_cast<std::size_t>(k);
                m.scale[i] = -1;
                m.offset[i] = static_cast<std::ptrdiff_t>(N::extents[i]) - 1;
            }
            return m;
        }();
        return detail::make_view<R, N::extents, Map>(detail::as_node(std::forward<X>(x)));
    }
}

template<expression X, std::int64_t... S, std::int64_t... L, std::int64_t... T>
auto slice(X&& x, dims_t<S...>, dims_t<L...>, dims_t<T...>) {
    using N = detail::node_t<X>;
    constexpr std::size_t R = N::rank;
    static constexpr auto st = dims_t<S...>::value;
    static constexpr auto li = dims_t<L...>::value;
    static constexpr auto sd = dims_t<T...>::value;
    using XT = detail::shown_t<X>;
    using DS = diag::dimensions<S...>;
    using DL = diag::dimensions<L...>;
    using DT = diag::dimensions<T...>;
    constexpr bool c1 = sizeof...(S) == R && sizeof...(L) == R && sizeof...(T) == R;
    constexpr bool c2 = [] {
        if constexpr (!c1) return false;
        else {
            for (std::size_t i = 0; i < R; ++i)
                if (st[i] < 0 || st[i] > li[i] || li[i] > static_cast<std::int64_t>(N::extents[i])) return false;
            return true;
        }
    }();
    constexpr bool c3 = detail::all_nonnegative(sd) && [] {
        for (auto v : sd)
            if (v < 1) return false;
        return true;
    }();
    static_assert(diag::got<c1, XT, DS, DL, DT>::value, "xlet::slice [C1]: start_indices, limit_indices and strides need one entry per dimension");
    static_assert(diag::got<c2, XT, DS, DL>::value, "xlet::slice [C2]: need 0 <= start <= limit <= dimension size");
    static_assert(diag::got<c3, XT, DT>::value, "xlet::slice [C3]: strides must be >= 1");
    constexpr bool c4 = !is_per_axis_quantized<typename N::value_type>;
    static_assert(diag::got<c4, XT>::value,
                  "xlet::slice [I1]: the operand must not be per-axis quantized (the spec's slice takes per-tensor "
                  "quantized tensors only)");
    if constexpr (c1 && c2 && c3 && c4) {
        constexpr auto E = [] {
            extents_t<R> e{};
            for (std::size_t i = 0; i < R; ++i) e[i] = static_cast<std::size_t>((li[i] - st[i] + sd[i] - 1) / sd[i]);
            return e;
        }();
        constexpr auto Map = [] {
            auto m = detail::identity_map<R>();
            for (std::size_t i = 0; i < R; ++i) {
                m.scale[i] = sd[i];
                m.offset[i] = st[i];
            }
            return m;
        }();
        return detail::make_view<R, E, Map>(detail::as_node(std::forward<X>(x)));
    }
}
template<expression X, std::int64_t... S, std::int64_t... L>
auto slice(X&& x, dims_t<S...> s, dims_t<L...> l) {
    return slice(std::forward<X>(x), s, l, dims_t<(S * 0 + 1)...>{});
}

template<expression X, std::int64_t... S>
auto reshape(X&& x, dims_t<S...>) {
    using N = detail::node_t<X>;
    constexpr auto E = detail::to_extents(dims_t<S...>::value);
    constexpr bool c1 = detail::all_nonnegative(dims_t<S...>::value) && product(E) == N::size();
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<S...>>::value,
                  "xlet::reshape [C1]: new_sizes must hold exactly the operand's number of elements");
    using V = typename N::value_type;
    constexpr std::int64_t na = detail::reshaped_axis(N::extents, detail::quant_axis<V>(), E);
    constexpr bool c4 = !is_per_axis_quantized<V> || na >= 0;
    static_assert(diag::got<c4, detail::shown_t<X>, diag::dimensions<S...>>::value,
                  "xlet::reshape [C4]: a per-axis quantized operand's quantization dimension must remain a "
                  "dimension of the result, of the same size, with as many elements before it");
    if constexpr (c1 && c4) {
        constexpr std::size_t R = sizeof...(S);
        using T = detail::with_quant_axis_t<V, na>;
        if constexpr (N::linear) {
            return detail::reshape_node<N, R, E, T>{{}, detail::as_node(std::forward<X>(x))};
        } else {
            // A view that reorders elements: evaluate it once, then view the result's memory.
            auto t = eval(x);
            using Nt = detail::node_t<decltype(t)>;
            return detail::reshape_node<Nt, R, E, T>{{}, detail::as_node(std::move(t))};
        }
    }
}
template<expression X, std::int64_t... P, std::int64_t... S>
auto reshape(X&& x, dims_t<P...> order, dims_t<S...> new_sizes) {
    constexpr bool c2 = sizeof...(P) == detail::node_t<X>::rank && detail::is_permutation(dims_t<P...>::value);
    static_assert(diag::got<c2, detail::shown_t<X>, diag::dimensions<P...>>::value,
                  "xlet::reshape [C2]: dimensions must be a permutation of 0..rank-1");
    if constexpr (c2) return reshape(transpose(std::forward<X>(x), order), new_sizes);
}

// Reshape(shape, operand): the target given as a tensor type. C3 same element type.
template<class Shape, expression X>
    requires is_array_leaf<Shape>
auto reshape(X&& x) {
    // (A per-axis quantized target names where the quantization dimension goes.)
    using V = typename Shape::value_type;
    constexpr bool c3 = std::is_same_v<V, detail::element_of<X>> ||
                        (is_per_axis_quantized<V> &&
                         std::is_same_v<V, detail::with_quant_axis_t<detail::element_of<X>, detail::quant_axis<V>()>>);
    static_assert(diag::got<c3, detail::shown_t<X>, Shape>::value, "xlet::reshape [C3]: the target shape must have the operand's element type");
    if constexpr (c3)
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return reshape(std::forward<X>(x), dims_t<static_cast<std::int64_t>(Shape::extents[I])...>{});
        }(std::make_index_sequence<Shape::rank>{});
}

template<expression X, std::int64_t... D>
auto collapse(X&& x, dims_t<D...>) {
    using N = detail::node_t<X>;
    constexpr std::size_t R = N::rank, K = sizeof...(D);
    static constexpr auto d = dims_t<D...>::value;
    constexpr bool c1 = K > 0 && dims_in_range(d, R) && [] {
        for (std::size_t i = 1; i < K; ++i)
            if (d[i] != d[i - 1] + 1) return false;
        return true;
    }();
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<D...>>::value,
                  "xlet::collapse [C1]: dimensions must be consecutive, increasing and in range");
    if constexpr (c1) {
        constexpr std::size_t first = static_cast<std::size_t>(d[0]);
        constexpr auto E = [] {
            extents_t<R - K + 1> e{};
            std::size_t o = 0;
            for (std::size_t i = 0; i < R; ++i) {
                if (i > first && i < first + K) continue;
                e[o] = N::extents[i];
                if (i == first)
                    for (std::size_t k = 1; k < K; ++k) e[o] *= N::extents[first + k];
                ++o;
            }
            return e;
        }();
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return reshape(std::forward<X>(x), dims_t<static_cast<std::int64_t>(E[I])...>{});
        }(std::make_index_sequence<E.size()>{});
    }
}

} // namespace xlet
