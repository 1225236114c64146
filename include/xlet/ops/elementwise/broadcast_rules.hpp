// Broadcasting (spec: "Broadcasting", BroadcastInDim, the broadcast_dimensions variant of the
// element-wise binary ops) as compile-time shape rules, and the lazy node that applies them.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "../../eval/view.hpp"

namespace xlet::detail {

// out[d] from in[i] with d = bdims[i]; an operand dimension of size 1 against a larger output
// dimension is degenerate and always reads index 0.
template<std::size_t Rc, extents_t<Rc> In, std::size_t R, extents_t<R> E, std::array<std::int64_t, Rc> B>
consteval index_map<Rc, R> broadcast_map() {
    index_map<Rc, R> m;
    for (std::size_t i = 0; i < Rc; ++i) {
        auto d = static_cast<std::size_t>(B[i]);
        bool degenerate = In[i] == 1 && E[d] != 1;
        m.src[i] = degenerate ? -1 : static_cast<int>(d);
        m.scale[i] = degenerate ? 0 : 1;
    }
    return m;
}

template<std::size_t R>
consteval std::array<std::int64_t, R> iota_dims() {
    std::array<std::int64_t, R> d{};
    for (std::size_t i = 0; i < R; ++i) d[i] = static_cast<std::int64_t>(i);
    return d;
}

// The element type of a broadcast of elements V from extents In to E (dimension i to B[i]): V, but a
// per-axis quantized type's quantization dimension a moves to B[a], its one scale and zero point
// repeated when that dimension is stretched from size 1 (spec: broadcast_in_dim C6). A value
// whose quantization dimension is not one of its own (a splat scalar of a per-axis tensor type)
// keeps its type.
template<class V, std::size_t Rc, extents_t<Rc> In, std::size_t R, extents_t<R> E, std::array<std::int64_t, Rc> B>
struct broadcast_element {
    static constexpr std::int64_t a = quant_axis<V>();
    static constexpr bool moves = a >= 0 && static_cast<std::size_t>(a) < Rc;
    static constexpr std::int64_t na = moves ? B[static_cast<std::size_t>(a)] : a;
    static constexpr std::size_t count =
        moves && In[static_cast<std::size_t>(a)] == 1 && E[static_cast<std::size_t>(na)] != 1
            ? E[static_cast<std::size_t>(na)]
            : 0;
    using type = with_quant_axis_t<V, na, count>;
};

// Wrap node c so that it has extents E, mapping its dimension i to B[i]; a no-op when it already has.
template<std::size_t R, extents_t<R> E, auto B, class C>
auto broadcast_to_dims(C&& c) {
    using X = std::remove_cvref_t<C>;
    if constexpr (same_extents(X::extents, E) && B == iota_dims<X::rank>())
        return X(std::forward<C>(c));
    else
        return make_view<R, E, broadcast_map<X::rank, X::extents, R, E, B>(),
                         typename broadcast_element<typename X::value_type, X::rank, X::extents, R, E, B>::type>(
            std::forward<C>(c));
}
template<std::size_t R, extents_t<R> E, class C>
auto broadcast_to(C&& c) {
    return broadcast_to_dims<R, E, iota_dims<std::remove_cvref_t<C>::rank>()>(std::forward<C>(c));
}

// ---- Shape rules ------------------------------------------------------------------------------

// Implicit broadcasting of two operands: equal shapes, a scalar, or equal ranks where sizes
// differ only against 1. Other rank mixes need broadcast_dimensions (as in XLA).
template<std::size_t A, std::size_t B>
constexpr bool implicitly_compatible(const extents_t<A>& a, const extents_t<B>& b) {
    if constexpr (A == 0 || B == 0) {
        return true;
    } else if constexpr (A != B) {
        return false;
    } else {
        for (std::size_t i = 0; i < A; ++i)
            if (a[i] != b[i] && a[i] != 1 && b[i] != 1) return false;
        return true;
    }
}
template<std::size_t A, std::size_t B>
constexpr auto implicit_result(const extents_t<A>& a, const extents_t<B>& b) {
    if constexpr (A == 0) {
        return b;
    } else if constexpr (B == 0) {
        return a;
    } else {
        extents_t<A> r{};
        if constexpr (A == B)
            for (std::size_t i = 0; i < A; ++i) r[i] = a[i] == 1 ? b[i] : a[i];
        return r;
    }
}

// broadcast_dimensions variant: the lower-rank operand `lo`'s dimension i maps to dimension
// bd[i] of the higher-rank `hi`; then degenerate (size-1) broadcasting applies on either side.
template<std::size_t H, std::size_t L>
constexpr bool bdims_valid(const extents_t<H>& hi, const extents_t<L>& lo, const std::array<std::int64_t, L>& bd) {
    if (!dims_in_range(bd, H) || !dims_increasing(bd)) return false;
    for (std::size_t i = 0; i < L; ++i) {
        auto h = hi[static_cast<std::size_t>(bd[i])];
        if (lo[i] != h && lo[i] != 1 && h != 1) return false;
    }
    return true;
}
template<std::size_t H, std::size_t L>
constexpr extents_t<H> bdims_result(const extents_t<H>& hi, const extents_t<L>& lo, const std::array<std::int64_t, L>& bd) {
    extents_t<H> r = hi;
    if (!bdims_valid(hi, lo, bd)) return r;
    for (std::size_t i = 0; i < L; ++i) {
        auto d = static_cast<std::size_t>(bd[i]);
        if (r[d] == 1) r[d] = lo[i];
    }
    return r;
}

} // namespace xlet::detail
