// Iota and Constant.
//   iota<f32<4, 8>, 1>()   values along iota_dimension 1: out[i, j] = j, converted to the element
//                          type as convert_element_type would (s64 → T). Lazy: it fuses, no memory.
//                          C1 iota_dimension < rank.
//   constant(v)            a rank-0 constant of v's element type; constant<f32<2, 3>>(v) the same
//                          broadcast to a shape (lazy; a tensor is the materialised form).
#pragma once
#include "convert.hpp"

namespace xlet::detail {

template<class T, std::size_t R, extents_t<R> E, std::size_t Dim>
struct iota_node : node_shape<T, R, E> {
    static constexpr std::size_t lanes = lanes_of<compute_t<T>>();
    static constexpr double cost = 1;
    static constexpr std::size_t leaf_count = 1;
    static constexpr bool linear = false;
    static constexpr bool viewable = true;
    static constexpr std::array<std::ptrdiff_t, R> unit = [] {
        std::array<std::ptrdiff_t, R> u{};
        u[Dim] = 1;
        return u;
    }();
    static compute_t<T> value(std::ptrdiff_t i) { return convert_fn<T>::scalar(static_cast<std::int64_t>(i)); }

    template<std::ptrdiff_t Step>
    struct cursor_t {
        std::ptrdiff_t base;
        template<std::size_t N> vec<compute_t<T>, N> load(std::size_t i) const {
            auto b = base + static_cast<std::ptrdiff_t>(i) * Step;
            return vec<compute_t<T>, N>::generate([b](std::size_t l) { return value(b + static_cast<std::ptrdiff_t>(l) * Step); });
        }
        template<std::size_t N> vec<compute_t<T>, N> load_partial(std::size_t i, std::size_t) const { return load<N>(i); }
    };

    template<std::size_t Ro, auto M>
    static consteval std::array<leaf_view<Ro>, 1> leaf_strides() { return {view_of(M, unit)}; }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        constexpr auto v = leaf_strides<Ro, M>()[0];
        return cursor_t<inner_stride<Ro, P>(v)>{row_offset<Ro, P>(v, outer)};
    }
    compute_t<T> at(const std::array<std::size_t, R>& idx) const { return value(static_cast<std::ptrdiff_t>(idx[Dim])); }
    int trace(trace::recorder& r) const {
        return r.emit("stablehlo.iota", {}, {trace::type_of<iota_node>()},
                      "iota_dimension = " + std::to_string(Dim) + " : i64");
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void*, const void*) const { return false; }
};

} // namespace xlet::detail

namespace xlet {

namespace detail {
// A quantized element type: quant/uniform_quantize.hpp (<xlet/quant.hpp>) defines it, the
// spec's quantize(index, element_type(output)).
template<class Shape, std::int64_t IotaDimension>
auto quant_iota();
} // namespace detail

template<class Shape, std::int64_t IotaDimension>
    requires is_array_leaf<Shape>
auto iota() {
    static_assert(diag::got<(IotaDimension >= 0 && static_cast<std::size_t>(IotaDimension) < Shape::rank), Shape,
                            diag::dimensions<IotaDimension>>::value,
                  "xlet::iota [C1]: iota_dimension must be a dimension of the shape");
    if constexpr (IotaDimension >= 0 && static_cast<std::size_t>(IotaDimension) < Shape::rank &&
                  is_quantized<typename Shape::value_type>)
        return detail::quant_iota<Shape, IotaDimension>();
    else if constexpr (IotaDimension >= 0 && static_cast<std::size_t>(IotaDimension) < Shape::rank)
        return detail::iota_node<typename Shape::value_type, Shape::rank, Shape::extents, static_cast<std::size_t>(IotaDimension)>{};
}

template<element T>
auto constant(T value) {
    return detail::scalar_node<T>{{}, detail::widen(value)};
}
template<class Shape>
    requires is_array_leaf<Shape>
auto constant(typename Shape::value_type value) {
    return detail::broadcast_to<Shape::rank, Shape::extents>(constant(value));
}

} // namespace xlet
