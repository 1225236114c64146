// The node protocol every expression follows, and the leaves (arrays, scalars).
//
// A node describes, at compile time, how its index space maps onto the memory of its leaves; the
// evaluator (assign.hpp) uses that to merge dimensions and pick contiguous, broadcast or strided
// loads, then walks the tree through per-row cursors. A node type provides:
//   value_type, rank, extents, size()       element type and static shape (num_elements = size())
//   lanes, cost                             SIMD width wanted; work per element (for threading)
//   leaf_count, leaf_strides<Ro, M>()       strides of its leaves in the output index space
//   cursor<Ro, M, P>(outer)                 a cursor over one row of the merged loop nest
//   at(idx)                                 one element, in compute type (generic path)
//   linear                                  element at flat index f depends only on f (its
//                                           leaves are read in row-major order): reshape is free
//   viewable                                it may sit under a view (any index map M); pad
//                                           and concatenate only take the identity and are
//                                           evaluated first when a view wraps them
//   may_alias<Ro, M, D>(begin, end)         whether a leaf reads [begin, end) other than where
//                                           destination view D writes the same element
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../core/tensor.hpp"
#include "tile_buffer.hpp"
#include "trace.hpp"
#include "vec.hpp"

namespace xlet::detail {

// How a node's index space (rank Rn) is addressed from the output's (rank Ro):
// node_index[j] = scale[j] * out_index[src[j]] + offset[j], or offset[j] when src[j] < 0.
template<std::size_t Rn, std::size_t Ro>
struct index_map {
    std::array<int, Rn> src{};
    std::array<std::ptrdiff_t, Rn> scale{};
    std::array<std::ptrdiff_t, Rn> offset{};
};

template<std::size_t R>
consteval index_map<R, R> identity_map() {
    index_map<R, R> m;
    for (std::size_t i = 0; i < R; ++i) {
        m.src[i] = static_cast<int>(i);
        m.scale[i] = 1;
    }
    return m;
}

// child <- node, then node <- out, gives child <- out.
template<std::size_t Rc, std::size_t Rn, std::size_t Ro>
consteval index_map<Rc, Ro> compose(const index_map<Rc, Rn>& inner, const index_map<Rn, Ro>& outer) {
    index_map<Rc, Ro> m;
    for (std::size_t i = 0; i < Rc; ++i) {
        if (inner.src[i] < 0) {
            m.src[i] = -1;
            m.offset[i] = inner.offset[i];
            continue;
        }
        auto k = static_cast<std::size_t>(inner.src[i]);
        m.src[i] = outer.src[k];
        m.scale[i] = inner.scale[i] * outer.scale[k];
        m.offset[i] = inner.scale[i] * outer.offset[k] + inner.offset[i];
    }
    return m;
}

// A leaf seen from the output: memory offset = base + sum(stride[k] * out_index[k]).
template<std::size_t Ro>
struct leaf_view {
    std::array<std::ptrdiff_t, Ro> stride{};
    std::ptrdiff_t base = 0;
    friend constexpr bool operator==(const leaf_view&, const leaf_view&) = default;
};

template<std::size_t Rn, std::size_t Ro>
consteval leaf_view<Ro> view_of(const index_map<Rn, Ro>& m, const std::array<std::ptrdiff_t, Rn>& node_strides) {
    leaf_view<Ro> v;
    for (std::size_t j = 0; j < Rn; ++j) {
        v.base += node_strides[j] * m.offset[j];
        if (m.src[j] >= 0) v.stride[static_cast<std::size_t>(m.src[j])] += node_strides[j] * m.scale[j];
    }
    return v;
}

// Flat addressing (used below reshape): the node's row-major flat index is itself the affine map
// `flat` of the output index, so a leaf sees exactly that map.
template<std::size_t Ro, std::size_t Rn>
consteval leaf_view<Ro> view_of(const leaf_view<Ro>& flat, const std::array<std::ptrdiff_t, Rn>&) {
    return flat;
}

// A pseudo-view that keeps output dimension k a loop of its own (never merged with a neighbour):
// pad and concatenate need the index along the dimension they act on.
template<std::size_t Ro>
constexpr leaf_view<Ro> barrier(std::size_t k) {
    leaf_view<Ro> v;
    v.stride[k] = 1;
    return v;
}

// The merged loop nest (assign.hpp builds it): `groups` runs of output dimensions, each walked with
// one counter; `rep[g]` is the innermost output dimension of group g (-1: an empty index space).
template<std::size_t Ro>
struct loop_plan {
    std::size_t groups = 1;
    std::array<std::size_t, Ro + 1> size{};
    std::array<int, Ro + 1> rep{};
};

// Where one row of the loop nest is: the counter of every outer group, and in the tiled evaluator
// the tile buffer its strided leaves read through (tile_buffer.hpp; nullptr: none).
template<std::size_t Ro>
struct outer_index : std::array<std::size_t, Ro + 1> {
    tile_buffer* tile = nullptr;
};

template<std::size_t Ro, loop_plan<Ro> P>
constexpr std::ptrdiff_t row_offset(const leaf_view<Ro>& v, const outer_index<Ro>& outer) {
    std::ptrdiff_t off = v.base;
    for (std::size_t g = 0; g + 1 < P.groups; ++g)
        if (P.rep[g] >= 0) off += static_cast<std::ptrdiff_t>(outer[g]) * v.stride[static_cast<std::size_t>(P.rep[g])];
    return off;
}
template<std::size_t Ro, loop_plan<Ro> P>
consteval std::ptrdiff_t inner_stride(const leaf_view<Ro>& v) {
    int r = P.rep[P.groups - 1];
    return r < 0 ? 0 : v.stride[static_cast<std::size_t>(r)];
}

template<class A, std::size_t N, class B, std::size_t M>
consteval std::array<A, N + M> concat(const std::array<A, N>& a, const std::array<B, M>& b) {
    std::array<A, N + M> r{};
    for (std::size_t i = 0; i < N; ++i)
        r[i] = a[i];
    for (std::size_t i = 0; i < M; ++i)
        r[N + i] = b[i];
    return r;
}

// The leaf views of several children in order, with `Extra` free slots at the end.
template<std::size_t Ro, auto M, std::size_t Extra, class... C>
consteval auto children_leaf_strides() {
    std::array<leaf_view<Ro>, (C::leaf_count + ... + Extra)> all{};
    std::size_t at = 0;
    auto add = [&](const auto& part) {
        for (const auto& v : part)
            all[at++] = v;
    };
    (add(C::template leaf_strides<Ro, M>()), ...);
    return all;
}

// (Addresses compared as integers: std::less<const void*> would need <functional>, a heavy header,
// and every supported target has a flat address space.)
inline bool ranges_overlap(const void* a0, const void* a1, const void* b0, const void* b1) {
    auto at = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
    return at(a0) < at(b1) && at(b0) < at(a1);
}

// Cursor over one row of a memory leaf: Stride is the element step along the innermost loop.
template<class S, std::ptrdiff_t Stride>
struct mem_cursor {
    const S* p;
    template<std::size_t N>
    vec<compute_t<S>, N> load(std::size_t i) const {
        return load_vec<N, Stride>(p + static_cast<std::ptrdiff_t>(i) * Stride);
    }
    template<std::size_t N>
    [[gnu::always_inline]] vec<compute_t<S>, N> load_partial(std::size_t i, std::size_t n) const {
        return load_vec_partial<N, Stride>(p + static_cast<std::ptrdiff_t>(i) * Stride, n);
    }
};

// A node that only moves the elements of one array (views of an array): a copy kernel may do it.
template<class N>
consteval bool pure_copy_of() {
    if constexpr (requires { N::pure_copy; })
        return N::pure_copy;
    else
        return false;
}
template<class N>
inline constexpr bool is_pure_copy = pure_copy_of<N>();

// Shared by every node: static shape from the value type and extents.
template<class T, std::size_t R, extents_t<R> E>
struct node_shape : expression_base {
    using xlet_node = void;
    using value_type = T;
    using compute_type = compute_t<T>;
    static constexpr std::size_t rank = R;
    static constexpr extents_t<R> extents = E;
    static constexpr std::size_t num_elements = product(E);
    static constexpr std::size_t size() noexcept { return num_elements; } // as std::array: n.size()
};

// A leaf over row-major memory of a tensor or tensor_map. Owning (rvalue tensor moved in) or not.
template<class A, bool Own>
struct array_node : node_shape<typename A::value_type, A::rank, A::extents> {
    using S = typename A::value_type;
    using base = node_shape<S, A::rank, A::extents>;
    static constexpr std::size_t lanes = lanes_of<compute_t<S>>();
    static constexpr double cost = 1.0;
    static constexpr std::size_t leaf_count = 1;
    static constexpr bool pure_copy = true; // reads memory and nothing else
    static constexpr bool linear = true;
    static constexpr bool viewable = true;

    std::conditional_t<Own, A, const S*> held;
    const S* ptr() const {
        if constexpr (Own)
            return held.data();
        else
            return held;
    }

    template<std::size_t Ro, auto M>
    static consteval std::array<leaf_view<Ro>, 1> leaf_strides() {
        return {view_of(M, row_major_strides(base::extents))};
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        constexpr auto v = leaf_strides<Ro, M>()[0];
        constexpr std::ptrdiff_t s = inner_stride<Ro, P>(v);
        if constexpr (s > far_stride || s < -far_stride)
            return make_strided_cursor<S, s>(ptr() + row_offset<Ro, P>(v, outer), outer.tile);
        else
            return mem_cursor<S, s>{ptr() + row_offset<Ro, P>(v, outer)};
    }
    compute_t<S> at(const std::array<std::size_t, base::rank>& idx) const { return widen(ptr()[A::offset(idx)]); }
    int trace(trace::recorder& r) const { return trace::memory_value(r, ptr(), A::extents); }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        if constexpr (Own) {
            return false;
        } else {
            // Reading each element exactly where it is written is safe: loads precede the store.
            // (The views compared at compile time: Clang compared the two arrays at run time.)
            constexpr bool in_place = leaf_strides<Ro, M>()[0] == D;
            if (in_place && ptr() == b) return false;
            return ranges_overlap(ptr(), ptr() + base::num_elements, b, e);
        }
    }
};

// A scalar constant: rank 0, broadcast wherever it is used.
template<class T>
struct scalar_node : node_shape<T, 0, extents_t<0>{}> {
    static constexpr std::size_t lanes = 1;
    static constexpr double cost = 0.0;
    static constexpr std::size_t leaf_count = 0;
    static constexpr bool linear = true;
    static constexpr bool viewable = true;
    compute_t<T> value;

    struct cursor_t {
        compute_t<T> v;
        template<std::size_t N>
        vec<compute_t<T>, N> load(std::size_t) const {
            return vec<compute_t<T>, N>::broadcast(v);
        }
        template<std::size_t N>
        vec<compute_t<T>, N> load_partial(std::size_t, std::size_t) const {
            return load<N>(0);
        }
    };
    template<std::size_t Ro, auto M>
    static consteval std::array<leaf_view<Ro>, 0> leaf_strides() {
        return {};
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    cursor_t cursor(const outer_index<Ro>&) const {
        return {value};
    }
    compute_t<T> at(const std::array<std::size_t, 0>&) const { return value; }
    int trace(trace::recorder& r) const { return trace::scalar_value<T>(r, narrow<T>(value)); }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void*, const void*) const {
        return false;
    }
};

// An lvalue node held by reference (DESIGN §4: lvalues by reference, rvalues by value).
template<class N>
struct ref_node : node_shape<typename N::value_type, N::rank, N::extents> {
    static constexpr std::size_t lanes = N::lanes;
    static constexpr double cost = N::cost;
    static constexpr std::size_t leaf_count = N::leaf_count;
    static constexpr bool linear = N::linear;
    static constexpr bool viewable = N::viewable;
    static constexpr bool pure_copy = is_pure_copy<N>;
    const N* n;
    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() {
        return N::template leaf_strides<Ro, M>();
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        return n->template cursor<Ro, M, P>(outer);
    }
    auto at(const std::array<std::size_t, N::rank>& idx) const { return n->at(idx); }
    int trace(trace::recorder& r) const { return trace::value_of(r, *n); }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        return n->template may_alias<Ro, M, D>(b, e);
    }
};

template<class X>
struct is_scalar_node : std::false_type {};
template<class T>
struct is_scalar_node<scalar_node<T>> : std::true_type {};

// Turn an operand into a node: arrays by pointer (lvalue) or by value (rvalue), nodes likewise.
template<class X>
auto as_node(X&& x) {
    using D = std::remove_cvref_t<X>;
    if constexpr (is_array_leaf<D>) {
        if constexpr (std::is_lvalue_reference_v<X> || !std::is_same_v<D, tensor_type_of<D>>)
            return array_node<D, false>{{}, x.data()};
        else
            return array_node<D, true>{{}, std::move(x)};
    } else if constexpr (std::is_lvalue_reference_v<X>) {
        return ref_node<D>{{}, &x};
    } else {
        return D(std::move(x));
    }
}
template<class X>
using node_t = decltype(as_node(std::declval<X>()));

} // namespace xlet::detail
