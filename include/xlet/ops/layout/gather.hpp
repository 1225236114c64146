// Gather (spec: Gather; StableHLO gather for the batching dimensions):
//   gather<gather_dims{.offset_dims = {1}, .collapsed_slice_dims = {0}, .start_index_map = {0},
//                      .index_vector_dim = 1, .slice_sizes = {1, 64}}>(operand, start_indices)
// Output: the batch dimensions of start_indices (all but index_vector_dim; index_vector_dim equal
// to its rank means an implicit trailing 1) at the output positions not in offset_dims, and the
// slice dimensions not collapsed nor batching at offset_dims. Starts are clamped to
// [0, operand_size - slice_size] as the spec says, so every read is in bounds.
// Evaluates (a kernel, not a view): operands are evaluated once, rows are copied as contiguous runs,
// TBB splits the batch above a threshold (pure copies: identical for any thread count).
// Rules:
//   C1 rank(operand) = |offset_dims| + |collapsed_slice_dims| + |operand_batching_dims|
//   C2 index_vector_dim in [0, rank(start_indices)]
//   C3 |start_index_map| = size of the index vector
//   C4 offset_dims sorted, unique, in [0, rank(output))
//   C5 collapsed_slice_dims sorted, unique, in range, slice size 1, not batching dims
//   C6 start_index_map unique, in range, not batching dims
//   C7 |slice_sizes| = rank(operand), 0 <= slice_sizes[i] <= operand size
//   C8 operand_batching_dims sorted, unique, in range, slice size 1; start_indices_batching_dims
//      unique, in range, not index_vector_dim, same count and sizes
//   C9 start_indices has an integer element type
#pragma once
#include "../../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <type_traits>

#include <tbb/blocked_range.h>
#include "../../eval/parallel.hpp"

#include "dynamic_slice.hpp"

namespace xlet {

struct gather_dims {
    dim_list offset_dims{};
    dim_list collapsed_slice_dims{};
    dim_list start_index_map{};
    std::int64_t index_vector_dim = -1; // -1: rank(start_indices), the implicit trailing dimension
    dim_list operand_batching_dims{};
    dim_list start_indices_batching_dims{};
    dim_list slice_sizes{};
    bool indices_are_sorted = false; // a hint; results do not depend on it
};

namespace detail {

// Items [b0, b1) in order, each located `Ahead` items before it is used: locate(b, v) fills v
// (and prefetches the random memory the item will touch), returning false for an item to skip;
// use(v) then runs on the located items in order. Gather's slices and scatter's windows read
// random operand rows: this keeps `Ahead` of those misses in flight (a whole chunk of prefetches
// issued at once measured slower: they stall once the fill buffers are full).
template<std::size_t Ahead, class V, class Locate, class Use>
void walk_ahead(std::size_t b0, std::size_t b1, const Locate& locate, const Use& use) {
    std::array<V, Ahead> ring{}; // (zeroed: GCC cannot see that only located slots are used)
    std::array<bool, Ahead> live{};
    for (std::size_t b = b0; b < b1 + Ahead; ++b) {
        const std::size_t slot = (b - b0) % Ahead;
        if (b >= b0 + Ahead && live[slot]) use(ring[slot]); // item b - Ahead
        live[slot] = b < b1 && locate(b, ring[slot]);
    }
}
// The cache lines of [p, p + bytes), for reading or (Write) for writing.
template<bool Write>
inline void prefetch_lines(const void* p, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; i += 64)
        __builtin_prefetch(static_cast<const char*>(p) + i, Write ? 1 : 0);
}

// Everything about one gather that the compiler can know: output shape and strides by operand dim.
template<gather_dims G, std::size_t Ro, extents_t<Ro> Eo, std::size_t Ri, extents_t<Ri> Ei>
struct gather_plan {
    static constexpr std::size_t ivd = G.index_vector_dim < 0 ? Ri : static_cast<std::size_t>(G.index_vector_dim);
    static constexpr std::size_t index_vector = ivd < Ri ? Ei[ivd] : 1;
    static constexpr std::size_t batch_rank = ivd < Ri ? Ri - 1 : Ri;
    static constexpr std::size_t out_rank = batch_rank + G.offset_dims.size();

    static constexpr bool c1 =
        Ro == G.offset_dims.size() + G.collapsed_slice_dims.size() + G.operand_batching_dims.size();
    static constexpr bool c2 =
        G.index_vector_dim >= -1 && (G.index_vector_dim < 0 || static_cast<std::size_t>(G.index_vector_dim) <= Ri);
    static constexpr bool c3 = G.start_index_map.size() == index_vector;
    static constexpr bool c4 = G.offset_dims.sorted() && G.offset_dims.unique() && G.offset_dims.in_range(out_rank);
    static constexpr bool c7 = G.slice_sizes.size() == Ro && [] {
        for (std::size_t d = 0; d < G.slice_sizes.size() && d < Ro; ++d)
            if (G.slice_sizes[d] < 0 || G.slice_sizes[d] > static_cast<std::int64_t>(Eo[d])) return false;
        return true;
    }();
    static constexpr bool c5 =
        G.collapsed_slice_dims.sorted() && G.collapsed_slice_dims.unique() && G.collapsed_slice_dims.in_range(Ro) &&
        [] {
            for (std::size_t i = 0; i < G.collapsed_slice_dims.size(); ++i) {
                auto d = G.collapsed_slice_dims[i];
                if (G.operand_batching_dims.contains(d) || (c7 && G.slice_sizes[static_cast<std::size_t>(d)] != 1))
                    return false;
            }
            return true;
        }();
    static constexpr bool c6 = G.start_index_map.unique() && G.start_index_map.in_range(Ro) && [] {
        for (std::size_t i = 0; i < G.start_index_map.size(); ++i)
            if (G.operand_batching_dims.contains(G.start_index_map[i])) return false;
        return true;
    }();
    static constexpr bool c8 = G.operand_batching_dims.sorted() && G.operand_batching_dims.unique() &&
                               G.operand_batching_dims.in_range(Ro) && G.start_indices_batching_dims.unique() &&
                               G.start_indices_batching_dims.in_range(Ri) &&
                               !G.start_indices_batching_dims.contains(static_cast<std::int64_t>(ivd)) &&
                               G.operand_batching_dims.size() == G.start_indices_batching_dims.size() && [] {
                                   for (std::size_t i = 0; i < G.operand_batching_dims.size(); ++i) {
                                       auto od = static_cast<std::size_t>(G.operand_batching_dims[i]);
                                       auto id = static_cast<std::size_t>(G.start_indices_batching_dims[i]);
                                       if (od >= Ro || id >= Ri || Eo[od] != Ei[id] || (c7 && G.slice_sizes[od] != 1))
                                           return false;
                                   }
                                   return true;
                               }();
    static constexpr bool ok = c1 && c2 && c3 && c4 && c5 && c6 && c7 && c8;

    // Batch dimensions: the start_indices dimensions other than index_vector_dim, in order.
    static constexpr std::array<std::size_t, batch_rank> batch_src = [] {
        std::array<std::size_t, batch_rank> b{};
        for (std::size_t d = 0, k = 0; d < Ri; ++d)
            if (d != ivd) b[k++] = d;
        return b;
    }();
    // Output positions of the batch dimensions (those not in offset_dims), in order.
    static constexpr std::array<std::size_t, batch_rank> batch_pos = [] {
        std::array<std::size_t, batch_rank> b{};
        for (std::size_t p = 0, k = 0; p < out_rank && k < batch_rank; ++p)
            if (!G.offset_dims.contains(static_cast<std::int64_t>(p))) b[k++] = p;
        return b;
    }();
    static constexpr extents_t<out_rank> out_extents = [] {
        extents_t<out_rank> e{};
        if constexpr (ok) {
            for (std::size_t k = 0; k < batch_rank; ++k)
                e[batch_pos[k]] = Ei[batch_src[k]];
            for (std::size_t d = 0, k = 0; d < Ro; ++d)
                if (!G.collapsed_slice_dims.contains(static_cast<std::int64_t>(d)) &&
                    !G.operand_batching_dims.contains(static_cast<std::int64_t>(d)))
                    e[static_cast<std::size_t>(G.offset_dims[k++])] = static_cast<std::size_t>(G.slice_sizes[d]);
        }
        return e;
    }();
    static constexpr auto out_strides = row_major_strides(out_extents);
    // Output stride of each operand dimension's slice index (0 where the slice size is 1 and the
    // dimension does not appear in the output).
    static constexpr std::array<std::ptrdiff_t, Ro> slice_out_stride = [] {
        std::array<std::ptrdiff_t, Ro> s{};
        if constexpr (ok) {
            for (std::size_t d = 0, k = 0; d < Ro; ++d)
                if (!G.collapsed_slice_dims.contains(static_cast<std::int64_t>(d)) &&
                    !G.operand_batching_dims.contains(static_cast<std::int64_t>(d)))
                    s[d] = out_strides[static_cast<std::size_t>(G.offset_dims[k++])];
        }
        return s;
    }();
    static constexpr extents_t<Ro> slice_extents = [] {
        extents_t<Ro> e{};
        if constexpr (ok)
            for (std::size_t d = 0; d < Ro; ++d)
                e[d] = static_cast<std::size_t>(G.slice_sizes[d]);
        return e;
    }();
    static constexpr extents_t<batch_rank> batch_extents = [] {
        extents_t<batch_rank> e{};
        for (std::size_t k = 0; k < batch_rank; ++k)
            e[k] = Ei[batch_src[k]];
        return e;
    }();
};

// Copy n elements to dst with non-temporal stores (no read-for-ownership of the destination)
// where dst is 32-byte aligned and the run whole 32-byte units; a plain copy otherwise.
template<class T>
inline void stream_copy(const T* src, T* dst, std::size_t n) {
    if constexpr (std::is_trivially_copyable_v<T>)
        if (stream_bytes(dst, src, n * sizeof(T))) return;
    std::copy(src, src + n, dst);
}

// Copy a box of `ext` elements: dst[sum i_d * ds[d]] = src[sum i_d * ss[d]], contiguous runs
// along the last dimension when both strides there are 1 (streamed with Stream; the caller
// fences).
template<class T, std::size_t R, bool Stream = false>
void strided_box_copy(const T* src, const std::array<std::ptrdiff_t, R>& ss, T* dst,
                      const std::array<std::ptrdiff_t, R>& ds, const extents_t<R>& ext) {
    if constexpr (R == 0) {
        *dst = *src;
    } else {
        std::size_t rows = 1;
        for (std::size_t d = 0; d + 1 < R; ++d)
            rows *= ext[d];
        const std::size_t run = ext[R - 1];
        if (run == 0) return;
        extents_t<R - 1> outer{};
        for (std::size_t d = 0; d + 1 < R; ++d)
            outer[d] = ext[d];
        for (std::size_t r = 0; r < rows; ++r) {
            auto idx = unflatten(r, outer);
            std::ptrdiff_t so = 0, dof = 0;
            for (std::size_t d = 0; d + 1 < R; ++d) {
                so += static_cast<std::ptrdiff_t>(idx[d]) * ss[d];
                dof += static_cast<std::ptrdiff_t>(idx[d]) * ds[d];
            }
            const T* s = src + so;
            T* t = dst + dof;
            if (ss[R - 1] == 1 && ds[R - 1] == 1) {
                if constexpr (Stream)
                    stream_copy(s, t, run);
                else
                    std::copy(s, s + run, t);
            } else {
                for (std::size_t i = 0; i < run; ++i)
                    t[static_cast<std::ptrdiff_t>(i) * ds[R - 1]] = s[static_cast<std::ptrdiff_t>(i) * ss[R - 1]];
            }
        }
    }
}

// Number of rows gathered per TBB task, and the element count above which gather runs in parallel.
inline constexpr std::size_t gather_parallel_elements = 1 << 16;

template<gather_dims G, std::size_t RI>
std::string gather_attrs() {
    const std::int64_t ivd = G.index_vector_dim < 0 ? static_cast<std::int64_t>(RI) : G.index_vector_dim;
    std::string d = "offset_dims = " + trace::int_list(G.offset_dims) +
                    ", collapsed_slice_dims = " + trace::int_list(G.collapsed_slice_dims);
    if (G.operand_batching_dims.size())
        d += ", operand_batching_dims = " + trace::int_list(G.operand_batching_dims) +
             ", start_indices_batching_dims = " + trace::int_list(G.start_indices_batching_dims);
    d += ", start_index_map = " + trace::int_list(G.start_index_map) + ", index_vector_dim = " + std::to_string(ivd);
    return "dimension_numbers = #stablehlo.gather<" + d + ">, slice_sizes = " + trace::i64_list(G.slice_sizes) +
           ", indices_are_sorted = " + (G.indices_are_sorted ? "true" : "false");
}

template<gather_dims G, expression X, expression I>
auto gather_untraced(X&& operand, I&& start_indices) {
    using NX = detail::node_t<X>;
    using NI = detail::node_t<I>;
    using T = typename NX::value_type;
    using Ix = typename NI::value_type;
    using P = detail::gather_plan<G, NX::rank, NX::extents, NI::rank, NI::extents>;
    using XT = detail::shown_t<X>;
    using IT = detail::shown_t<I>;
    static_assert(diag::got<!is_per_axis_quantized<T>, XT>::value,
                  "xlet::gather [I1]: the operand must not be per-axis quantized (the spec's gather takes "
                  "per-tensor quantized tensors only)");
    static_assert(
        diag::got<P::c1, XT, IT>::value,
        "xlet::gather [C1]: rank(operand) must equal |offset_dims| + |collapsed_slice_dims| + |operand_batching_dims|");
    static_assert(diag::got<P::c2, XT, IT>::value,
                  "xlet::gather [C2]: index_vector_dim must be in [0, rank(start_indices)]");
    static_assert(diag::got<P::c3, XT, IT>::value,
                  "xlet::gather [C3]: start_index_map needs one entry per element of the index vector");
    static_assert(diag::got<P::c4, XT, IT>::value,
                  "xlet::gather [C4]: offset_dims must be sorted, unique and output dimensions");
    static_assert(diag::got<P::c5, XT, IT>::value, "xlet::gather [C5]: collapsed_slice_dims must be sorted, unique, "
                                                   "operand dimensions with slice size 1, and not batching dimensions");
    static_assert(
        diag::got<P::c6, XT, IT>::value,
        "xlet::gather [C6]: start_index_map must be unique operand dimensions that are not batching dimensions");
    static_assert(diag::got<P::c7, XT, IT>::value,
                  "xlet::gather [C7]: slice_sizes needs one entry per operand dimension, each in [0, operand size]");
    static_assert(diag::got<P::c8, XT, IT>::value,
                  "xlet::gather [C8]: operand_batching_dims and start_indices_batching_dims must pair up dimensions of "
                  "equal size (slice size 1, not index_vector_dim)");
    static_assert(diag::got<is_integer<Ix>, IT>::value,
                  "xlet::gather [C9]: start_indices must have an integer element type");
    if constexpr (P::ok && is_integer<Ix>) {
        constexpr std::size_t Ro = NX::rank;
        const auto& op = detail::as_array(operand);
        const auto& idx = detail::as_array(start_indices);
        typename detail::tensor_of_impl<T, P::out_extents, std::make_index_sequence<P::out_rank>>::type out(
            detail::no_init); // every element written below
        constexpr auto op_strides = row_major_strides(NX::extents);
        constexpr auto idx_strides = row_major_strides(NI::extents);
        constexpr std::size_t batches = product(P::batch_extents);
        // A result too large for the caches (the element-wise threshold) is written with
        // non-temporal stores: [65536,64] f32 gathered into [2^20,64] (docs/performance.md).
        constexpr bool stream = product(P::out_extents) * sizeof(T) >= detail::stream_threshold_bytes;
        // The slice box is one contiguous run in both the operand and the result when, over its
        // dimensions of size > 1, both sets of strides are its own row-major strides.
        constexpr std::size_t slice_elems = product(P::slice_extents);
        constexpr bool contiguous_slice = [] {
            constexpr auto os = row_major_strides(NX::extents);
            std::ptrdiff_t want = 1;
            for (std::size_t d = NX::rank; d-- > 0;) {
                if (P::slice_extents[d] == 1) continue;
                if (os[d] != want || P::slice_out_stride[d] != want) return false;
                want *= static_cast<std::ptrdiff_t>(P::slice_extents[d]);
            }
            return product(P::slice_extents) > 0;
        }();
        // Where slice b starts in the operand (src) and in the result (obase).
        auto locate = [&](std::size_t b) {
            auto bi = unflatten(b, P::batch_extents);
            std::ptrdiff_t ibase = 0, obase = 0;
            for (std::size_t k = 0; k < P::batch_rank; ++k) {
                ibase += static_cast<std::ptrdiff_t>(bi[k]) * idx_strides[P::batch_src[k]];
                obase += static_cast<std::ptrdiff_t>(bi[k]) * P::out_strides[P::batch_pos[k]];
            }
            std::ptrdiff_t src = 0;
            for (std::size_t k = 0; k < G.start_index_map.size(); ++k) {
                auto d = static_cast<std::size_t>(G.start_index_map[k]);
                std::ptrdiff_t at = ibase + (P::ivd < NI::rank ? static_cast<std::ptrdiff_t>(k) *
                                                                     idx_strides[P::ivd < NI::rank ? P::ivd : 0]
                                                               : 0);
                auto s = std::clamp<std::int64_t>(detail::start_value(idx.data()[at]), 0,
                                                  static_cast<std::int64_t>(NX::extents[d]) - G.slice_sizes[d]);
                src += static_cast<std::ptrdiff_t>(s) * op_strides[d];
            }
            for (std::size_t k = 0; k < G.operand_batching_dims.size(); ++k) {
                auto od = static_cast<std::size_t>(G.operand_batching_dims[k]);
                auto id = static_cast<std::size_t>(G.start_indices_batching_dims[k]);
                std::size_t pos = 0; // position of start_indices dim id among the batch dims
                while (P::batch_src[pos] != id)
                    ++pos;
                src += static_cast<std::ptrdiff_t>(bi[pos]) * op_strides[od];
            }
            return std::pair{src, obase};
        };
        auto copy_slice = [&](std::ptrdiff_t src, std::ptrdiff_t obase) {
            if constexpr (contiguous_slice) { // one run (the tf.gather rows case): no box walk
                if constexpr (stream)
                    detail::stream_copy(op.data() + src, out.data() + obase, slice_elems);
                else
                    std::copy_n(op.data() + src, slice_elems, out.data() + obase);
            } else {
                detail::strided_box_copy<T, Ro, stream>(op.data() + src, op_strides, out.data() + obase,
                                                        P::slice_out_stride, P::slice_extents);
            }
        };
        // Slices go through walk_ahead: the operand reads are random (the result is written in
        // order), so the start of each slice (its first row, up to 256 bytes) is prefetched 16
        // slices before it is copied.
        constexpr std::size_t prefetch_bytes =
            Ro == 0 ? 0 : std::min<std::size_t>(P::slice_extents[Ro == 0 ? 0 : Ro - 1] * sizeof(T), 256);
        using located = std::pair<std::ptrdiff_t, std::ptrdiff_t>;
        auto some = [&](std::size_t b0, std::size_t b1) {
            detail::walk_ahead<16, located>(
                b0, b1,
                [&](std::size_t b, located& v) {
                    v = locate(b);
                    detail::prefetch_lines<false>(op.data() + v.first, prefetch_bytes);
                    return true;
                },
                [&](const located& v) { copy_slice(v.first, v.second); });
#if defined(__AVX__)
            if constexpr (stream) _mm_sfence(); // order the streamed stores before the task ends
#endif
        };
        if constexpr (product(P::out_extents) >= detail::gather_parallel_elements && batches > 1) {
            detail::run_parallel(tbb::blocked_range<std::size_t>(0, batches),
                                 [&](const tbb::blocked_range<std::size_t>& r) { some(r.begin(), r.end()); });
        } else {
            some(0, batches);
        }
        return out;
    }
}

} // namespace detail

template<gather_dims G, expression X, expression I>
auto gather(X&& operand, I&& start_indices) {
    return trace::heavy(
        "stablehlo.gather", [] { return detail::gather_attrs<G, detail::node_t<I>::rank>(); },
        [&] { return detail::gather_untraced<G>(std::forward<X>(operand), std::forward<I>(start_indices)); }, operand,
        start_indices);
}

} // namespace xlet
