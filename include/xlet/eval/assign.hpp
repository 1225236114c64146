// Evaluation of an expression into row-major storage: one fused pass, SIMD along the innermost
// merged dimension, TBB over blocks of rows above a work threshold, nothing allocated below it.
//
// Determinism: an element is computed by the full-width SIMD path or by the padded tail path
// depending only on its position in its row, never on how rows are split between threads, so the
// result is the same for any thread count.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <tbb/blocked_range.h>
#include "parallel.hpp"

#include "../core/block_cache.hpp"
#include "../kernels/transpose.hpp"
#include "node.hpp"

namespace xlet::detail {

// Work (cost units × elements) above which a pass is split over TBB tasks, and the work of one task.
// An element of `a + b` costs 1 unit; exp costs ~8. Measured on the bench machine: below ~64K units
// the dispatch costs more than the second core saves (docs/performance.md).
inline constexpr double parallel_threshold = 65536;
inline constexpr double task_work = 32768;
// stream_threshold_bytes (core/simd.hpp): outputs at least that large are written with non-temporal stores.

// Merge adjacent output dimensions wherever every view steps through them as one (stride[k] ==
// stride[k+1] * extent[k+1]); size-1 dimensions drop out. `a + b` on f32[64,64,64] becomes one
// loop of 262144; a [4096,4096] + broadcast [4096] stays a 4096 × 4096 nest.
template<std::size_t Ro, std::size_t K>
consteval loop_plan<Ro> make_plan(const extents_t<Ro>& e, const std::array<leaf_view<Ro>, K>& views) {
    loop_plan<Ro> p;
    p.groups = 0;
    for (std::size_t d = 0; d < Ro; ++d) {
        if (e[d] == 1) continue;
        bool merge = p.groups > 0;
        if (merge) {
            auto prev = static_cast<std::size_t>(p.rep[p.groups - 1]);
            for (const auto& v : views)
                if (v.stride[prev] != v.stride[d] * static_cast<std::ptrdiff_t>(e[d])) merge = false;
        }
        if (merge) {
            p.size[p.groups - 1] *= e[d];
            p.rep[p.groups - 1] = static_cast<int>(d);
        } else {
            p.size[p.groups] = e[d];
            p.rep[p.groups] = static_cast<int>(d);
            ++p.groups;
        }
    }
    if (p.groups == 0) { // rank 0 or all extents 1: one element
        p.groups = 1;
        p.size[0] = 1;
        p.rep[0] = -1;
    }
    return p;
}

template<class S, class E>
struct evaluator {
    static constexpr std::size_t R = E::rank;
    static constexpr auto M = identity_map<R>();
    static constexpr leaf_view<R> dst_view{row_major_strides(E::extents), 0};
    static constexpr auto P =
        make_plan(E::extents, concat(E::template leaf_strides<R, M>(), std::array<leaf_view<R>, 1>{dst_view}));
    static constexpr std::size_t N = E::lanes < 4 ? 4 : E::lanes;
    static constexpr std::size_t inner = P.size[P.groups - 1];
    static constexpr std::size_t rows = E::size() == 0 ? 0 : E::size() / inner;

    using cursor_type =
        decltype(std::declval<const E&>().template cursor<R, M, P>(std::declval<const outer_index<R>&>()));

    // A leaf read with a large step along the innermost loop (a transposed operand inside an
    // element-wise tree) would cost a scalar load an element and a cache line for each. Such
    // trees run in tiles of tile_rows rows × block elements: the cursors of all the tile's rows
    // are made first, each strided leaf claiming a row of a tile buffer (tile_buffer.hpp); the
    // buffer is filled by 8×8 register transposes of the source block, whose rows are read as
    // runs of tile_rows elements (1 KiB for f32, which the hardware prefetchers follow); then
    // the tile is computed row by row, the strided leaves read contiguously from the buffer as
    // the two-pass form reads a materialised transpose, the other operands and the destination
    // in runs of one block (f32 [4096,4096] exp(transpose(a)) + b: docs/performance.md). Only
    // where values are read from and the order of the work change: the buffer holds the
    // source's bits, and every element is computed as untiled, full vector or tail by its place
    // in its row.
    static constexpr bool tiled = [] {
        if constexpr (!std::is_default_constructible_v<cursor_type> || !std::is_copy_assignable_v<cursor_type>) {
            return false;
        } else {
            if (P.groups < 2 || P.rep[P.groups - 1] < 0) return false;
            for (const auto& v : E::template leaf_strides<R, M>()) {
                auto s = v.stride[static_cast<std::size_t>(P.rep[P.groups - 1])];
                if (s > far_stride || s < -far_stride) return true;
            }
            return false;
        }
    }();
    // Tile shape, measured on that case (AVX-512 build; speed of the one pass ÷ the two passes,
    // 1 / 2 threads): 256 rows × 256: 1.34-1.40 / 1.22-1.27; 128 × 256: 1.11 / 1.16;
    // 256 × 128: 0.87 / 0.90; 32 × 256: 0.90 / 0.83; 16 × 4096: 1.02 / 1.00. Short runs on
    // either side (the source's 128 bytes, the destination's 512) are misses the prefetchers do
    // not follow. Row by row beats strips one line wide down the rows (0.6).
    // Capped by the buffer's rows, the cursors' stack space (16 KiB) and by the rows there are.
    static constexpr std::size_t tile_rows =
        std::max<std::size_t>(1, std::min({tile_buffer::max_rows, 16384 / sizeof(cursor_type), rows}));
    // Elements per tile row: 1 KiB of the destination.
    static constexpr std::size_t tile_block = std::max<std::size_t>(1, 1024 / sizeof(S));
    // Strided leaves with a buffer row each (more read their source directly).
    static constexpr std::size_t strided_leaves = [] {
        std::size_t n = 0;
        if constexpr (tiled)
            for (const auto& v : E::template leaf_strides<R, M>()) {
                auto s = v.stride[static_cast<std::size_t>(P.rep[P.groups - 1])];
                if (s > far_stride || s < -far_stride) ++n;
            }
        return std::min(n, tile_buffer::max_columns);
    }();
    // Strip width: whole vectors, at least one 64-byte line of the destination.
    static constexpr std::size_t strip = N * std::max<std::size_t>(1, 64 / (N * sizeof(S)));

    // Inner blocks are whole multiples of N (tiled: of the strip) so block edges never move the tail.
    static constexpr std::size_t block = [] {
        std::size_t want = tiled ? tile_block : static_cast<std::size_t>(task_work / (E::cost > 1 ? E::cost : 1));
        std::size_t unit = tiled ? strip : N;
        want = (want + unit - 1) / unit * unit;
        return inner < want ? inner : want;
    }();
    static constexpr std::size_t blocks_per_row = block == 0 ? 0 : (inner + block - 1) / block;
    // Work items: (row, block) pairs untiled, (group of tile_rows rows, block) tiles when tiled.
    static constexpr std::size_t row_groups = tiled ? (rows + tile_rows - 1) / tile_rows : rows;
    static constexpr std::size_t chunks = row_groups * blocks_per_row;
    // The tile buffer: a row of block elements of up to 8 bytes (or S) for every strided leaf
    // and tile row, each row padded by up to two lines (tile_buffer::claim).
    static constexpr std::size_t buffer_bytes =
        strided_leaves * tile_rows * (block * std::max<std::size_t>(8, sizeof(S)) + 128);

    static outer_index<R> outer_of(std::size_t row) {
        outer_index<R> o{};
        for (std::size_t g = P.groups - 1; g-- > 0;) {
            o[g] = row % P.size[g];
            row /= P.size[g];
        }
        return o;
    }

    static constexpr bool stream = can_stream<S, N> && E::size() * sizeof(S) >= stream_threshold_bytes;

    // Elements [i, end) of one row. (Always inlined: Clang called it out of line for an f32[4,4].)
    XLET_ALWAYS_INLINE static void run_block(S* d, const cursor_type& cur, std::size_t i, std::size_t end,
                                             [[maybe_unused]] bool streamed) {
        using C = compute_t<S>;
        if constexpr (stream)
            if (streamed)
                for (; i + N <= end; i += N)
                    stream_vec<S, N>(d + i, cur.template load<N>(i));
        for (; i + N <= end; i += N)
            store_vec<S, N>(d + i, cur.template load<N>(i));
        if (i < end) store_vec_partial<S, N>(d + i, cur.template load_partial<N>(i, end - i), end - i);
        static_assert(std::is_same_v<decltype(cur.template load<N>(0)), vec<C, N>>);
    }

    // Work items [c0, c1): item c is block (c % blocks_per_row) of row (group) c / blocks_per_row.
    static void run(S* dst, const E& e, std::size_t c0, std::size_t c1) {
        if constexpr (tiled) {
            tile_storage<buffer_bytes> space;
            tile_buffer buf{space.data(), buffer_bytes};
            std::array<cursor_type, tile_rows> cur;
            std::array<S*, tile_rows> d;
            std::array<bool, tile_rows> streamed;
            for (std::size_t c = c0; c < c1; ++c) {
                const std::size_t r0 = c / blocks_per_row * tile_rows, nr = std::min(tile_rows, rows - r0);
                const std::size_t i0 = c % blocks_per_row * block, i1 = std::min(inner, i0 + block);
                buf.begin(i0, i1, nr);
                for (std::size_t r = 0; r < nr; ++r) {
                    auto outer = outer_of(r0 + r);
                    outer.tile = &buf;
                    buf.begin_row(r);
                    cur[r] = e.template cursor<R, M, P>(outer);
                    d[r] = dst + row_offset<R, P>(dst_view, outer);
                    streamed[r] = stream && reinterpret_cast<std::uintptr_t>(d[r]) % stream_alignment<S> == 0;
                }
                buf.fill();
                for (std::size_t r = 0; r < nr; ++r)
                    run_block(d[r], cur[r], i0, i1, streamed[r]);
            }
        } else {
            std::size_t c = c0;
            while (c < c1) {
                const std::size_t row = c / blocks_per_row;
                auto outer = outer_of(row);
                auto cur = e.template cursor<R, M, P>(outer);
                S* d = dst + row_offset<R, P>(dst_view, outer);
                const bool streamed = stream && reinterpret_cast<std::uintptr_t>(d) % stream_alignment<S> == 0;
                for (; c < c1 && c / blocks_per_row == row; ++c) {
                    const std::size_t i = c % blocks_per_row * block;
                    run_block(d, cur, i, std::min(inner, i + block), streamed);
                }
            }
        }
        if constexpr (stream) stream_fence(); // order the streamed stores before the task ends
    }

    // Elements [b, end) of the row-major destination, for an epilogue run on a kernel's output
    // while it is in cache (ops/conv: conv_general_dilated with an epilogue). The same vectors as
    // a whole evaluation when b and end sit on vector boundaries of their rows (range_aligned).
    static constexpr bool rangeable = !tiled && E::size() != 0;
    static constexpr bool range_aligned(std::size_t step) {
        return step % inner == 0 || (step % N == 0 && inner % N == 0);
    }
    static void run_range(S* dst, const E& e, std::size_t b, std::size_t end) {
        std::size_t row = b / inner, i = b % inner;
        while (b < end) {
            const auto outer = outer_of(row);
            const std::size_t stop = std::min(inner, i + (end - b));
            run_block(dst + row_offset<R, P>(dst_view, outer), e.template cursor<R, M, P>(outer), i, stop, false);
            b += stop - i;
            i = 0;
            ++row;
        }
    }

    // A pure copy whose source runs across the destination's rows (a transpose, possibly of a
    // slice or batched): the cache-blocked transpose kernel instead of strided loads.
    static constexpr int transposed_group = [] {
        if constexpr (!is_pure_copy<E> || E::leaf_count != 1 || !std::is_same_v<typename E::value_type, S>) {
            return -1;
        } else {
            if (P.groups < 2 || P.rep[P.groups - 1] < 0) return -1;
            auto v = E::template leaf_strides<R, M>()[0];
            auto s_in = v.stride[static_cast<std::size_t>(P.rep[P.groups - 1])];
            if (s_in == 0 || s_in == 1) return -1;
            for (std::size_t g = 0; g + 1 < P.groups; ++g)
                if (v.stride[static_cast<std::size_t>(P.rep[g])] == 1) return static_cast<int>(g);
            return -1;
        }
    }();

    static void apply_transpose(S* dst, const E& e) {
        constexpr auto g = static_cast<std::size_t>(transposed_group);
        constexpr auto v = E::template leaf_strides<R, M>()[0];
        constexpr std::ptrdiff_t ss = v.stride[static_cast<std::size_t>(P.rep[P.groups - 1])];
        constexpr std::ptrdiff_t ds = dst_view.stride[static_cast<std::size_t>(P.rep[g])];
        constexpr std::size_t nt = P.size[g];
        const std::size_t blocks = rows / nt;
        for (std::size_t b = 0; b < blocks; ++b) {
            // b enumerates the outer groups other than g, row-major
            outer_index<R> o{};
            std::size_t rest = b;
            for (std::size_t k = P.groups - 1; k-- > 0;) {
                if (k == g) continue;
                o[k] = rest % P.size[k];
                rest /= P.size[k];
            }
            auto cur = e.template cursor<R, M, P>(o);
            // (Quantized elements as their stored integers: a per-axis type's transpose has
            // another element type than its operand, the same integers.)
            using I = std::remove_pointer_t<decltype(stored_integers(dst))>;
            constexpr bool stream = E::size() * sizeof(S) >= stream_threshold_bytes;
            transpose_2d<I, stream || nt * inner >= transpose_parallel_elements>(
                stored_integers(cur.p), ss, stored_integers(dst + row_offset<R, P>(dst_view, o)), ds, nt, inner,
                stream);
        }
    }

    static void apply(S* dst, const E& e) {
        if constexpr (transposed_group >= 0 && E::size() != 0) {
            apply_transpose(dst, e);
        } else if constexpr (E::size() != 0 && rows == 1 && inner <= N && !tiled) {
            // At most one vector (a loop's small state, a scalar): one block, no loop to plan,
            // small enough to inline into the caller.
            const auto outer = outer_of(0);
            run_block(dst + row_offset<R, P>(dst_view, outer), e.template cursor<R, M, P>(outer), 0, inner, false);
        } else if constexpr (E::size() != 0) {
            if constexpr (E::cost * static_cast<double>(E::size()) >= parallel_threshold && chunks > 1) {
                run_parallel(tbb::blocked_range<std::size_t>(0, chunks),
                             [&](const tbb::blocked_range<std::size_t>& r) { run(dst, e, r.begin(), r.end()); });
            } else {
                run(dst, e, 0, chunks);
            }
        }
    }
};

// The evaluation itself. (evaluate_plain and evaluate_into are thin dispatchers, always inlined:
// out of line, `y = a + b` of two f32[4,4] built the expression on the stack and called them,
// 0.96 ns a call against Eigen's 0.25; the evaluator's loops stay GCC's choice.)
template<class S, class E>
XLET_ALWAYS_INLINE void evaluate_plain(S* dst, const E& e) {
    // A node that knows a faster way to write all of itself into contiguous row-major storage
    // (a pad of an array: fills and memcpy by rows) does so.
    if constexpr (requires { e.write_into(dst); }) {
        e.write_into(dst);
    } else {
        auto n = as_node(e);
        evaluator<S, decltype(n)>::apply(dst, n);
    }
}

// Exporting (core/trace.hpp): the expression's ops recorded, the evaluation run untraced, then
// dst bound to the result. Out of line and cold, and the hot path does not continue after it.
template<class S, class E>
XLET_TRACE_COLD void evaluate_traced(trace::recorder& r, S* dst, const E& e) {
    const int id = trace::value_of(r, e);
    {
        trace::pause_if p(&r);
        evaluate_plain(dst, e);
    }
    trace::bind_into<E>(r, dst, id);
}

template<class S, class E>
XLET_ALWAYS_INLINE void evaluate_into(S* dst, const E& e) {
    // (The recorder gets the expression only where tracing is compiled in: a call that takes the
    // expression's address, even on a cold path, keeps small expressions out of registers and
    // cost 7 ns an evaluation of an f32[4].)
    if constexpr (trace::compiled_in) {
        if (trace::recorder* r = trace::active) [[unlikely]]
            return evaluate_traced(*r, dst, e);
    } else {
        if (trace::active) [[unlikely]]
            trace::not_compiled_in();
    }
    evaluate_plain(dst, e);
}

template<class E>
bool may_alias(const E& e, const void* begin, const void* end) {
    // An element-wise tree reads each operand at the position it writes, so a leaf that is the
    // destination itself is safe; anything else overlapping the destination is evaluated via a
    // temporary. Views that move elements (transpose, slice, ...) report overlap as a hazard.
    auto n = as_node(e);
    using N = decltype(n);
    constexpr std::size_t R = N::rank;
    return n.template may_alias<R, identity_map<R>(), leaf_view<R>{row_major_strides(N::extents), 0}>(begin, end);
}

} // namespace xlet::detail

namespace xlet {

// Materialise any expression into an owning tensor.
template<expression E>
auto eval(const E& e) {
    return tensor_type_of<E>(e);
}
// A tensor that is already a result (an rvalue: what dot_general, conv_general_dilated, sort, fft
// ... return) is moved, not copied: `auto y = eval(conv_general_dilated<cfg>(x, w))` copied 6.4 MB
// of a depthwise convolution's result, +35% of its time.
template<expression E>
requires(!std::is_reference_v<E> && !std::is_const_v<E> && std::is_same_v<E, tensor_type_of<E>>) E eval(E&& e) {
    return std::move(e);
}

namespace detail {

// An operand a kernel reads as row-major memory: an array (tensor, tensor_map) by reference, as
// it is; any other expression evaluated once into a tensor.
template<class X>
decltype(auto) as_array(X&& x) {
    if constexpr (is_array_leaf<std::remove_cvref_t<X>>)
        return static_cast<const std::remove_cvref_t<X>&>(x);
    else
        return eval(x);
}

} // namespace detail

} // namespace xlet
