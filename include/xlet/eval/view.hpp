// view_node: an affine view of a child node. Every child dimension i reads index
// scale[i] * out[src[i]] + offset[i] of the view's own index space (src[i] < 0: constant offset[i]).
// Broadcast, broadcast_in_dim, transpose, slice and rev are all such views: they only change the
// strides the evaluator sees, so they fuse into the surrounding loop at no cost.
#pragma once
#include "assign.hpp"

namespace xlet::detail {

// T: the element type of the view, C's unless a layout op moves a per-axis quantized type's
// quantization dimension (the stored integers are the same; only the type says where the axis is).
template<class C, std::size_t R, extents_t<R> E, index_map<C::rank, R> Map, class T = typename C::value_type>
struct view_node : node_shape<T, R, E> {
    static constexpr std::size_t lanes = C::lanes;
    static constexpr double cost = C::cost;
    static constexpr std::size_t leaf_count = C::leaf_count;
    static constexpr bool linear = false;
    static constexpr bool viewable = true;
    static constexpr bool pure_copy = is_pure_copy<C>;
    C child;

    template<std::size_t Ro, index_map<R, Ro> M>
    static consteval auto leaf_strides() { return C::template leaf_strides<Ro, compose(Map, M)>(); }
    template<std::size_t Ro, index_map<R, Ro> M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const { return child.template cursor<Ro, compose(Map, M), P>(outer); }
    auto at(const std::array<std::size_t, R>& idx) const {
        std::array<std::size_t, C::rank> ci{};
        for (std::size_t i = 0; i < C::rank; ++i) {
            std::ptrdiff_t v = Map.offset[i];
            if (Map.src[i] >= 0) v += Map.scale[i] * static_cast<std::ptrdiff_t>(idx[static_cast<std::size_t>(Map.src[i])]);
            ci[i] = static_cast<std::size_t>(v);
        }
        return child.at(ci);
    }
    int trace(trace::recorder& r) const {
        const int v = trace::value_of(r, child);
        return trace::view(r, v, trace::mlir_element<typename C::value_type>, {C::extents.begin(), C::extents.end()},
                           {E.begin(), E.end()}, {Map.src.begin(), Map.src.end()}, {Map.scale.begin(), Map.scale.end()},
                           {Map.offset.begin(), Map.offset.end()}, trace::mlir_element<T>,
                           quant_axis<typename C::value_type>());
    }
    template<std::size_t Ro, index_map<R, Ro> M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const { return child.template may_alias<Ro, compose(Map, M), D>(b, e); }
};

template<std::size_t R, extents_t<R> E, auto Map, class T = void, class C>
auto make_view(C&& c) {
    using X = std::remove_cvref_t<C>;
    using V = std::conditional_t<std::is_void_v<T>, typename X::value_type, T>;
    if constexpr (X::viewable) {
        return view_node<X, R, E, Map, V>{{}, X(std::forward<C>(c))};
    } else { // pad, concatenate: evaluate once, then view the result
        using A = tensor_type_of<X>;
        return view_node<array_node<A, true>, R, E, Map, V>{{}, array_node<A, true>{{}, A(c)}};
    }
}

} // namespace xlet::detail
