// Evaluation of an expression into row-major storage: one fused pass, SIMD along the innermost
// merged dimension, TBB over blocks of rows above a work threshold, nothing allocated below it.
//
// Determinism: an element is computed by the full-width SIMD path or by the padded tail path
// depending only on its position in its row, never on how rows are split between threads, so the
// result is the same for any thread count.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <tbb/blocked_range.h>
#include "parallel.hpp"

#include "../kernels/transpose.hpp"
#include "node.hpp"

namespace xlet::detail {

// Work (cost units × elements) above which a pass is split over TBB tasks, and the work of one task.
// An element of `a + b` costs 1 unit; exp costs ~8. Measured on the bench machine: below ~64K units
// the dispatch costs more than the second core saves (docs/performance.md).
inline constexpr double parallel_threshold = 65536;
inline constexpr double task_work = 32768;
// Outputs at least this large (bytes; half the L3 of the bench machine) are written with
// non-temporal stores: they would not stay in cache anyway, and streaming saves the
// read-for-ownership (measured: `y = a + b` on 2^24 f32 goes from 40 to 56 GB/s).
inline constexpr std::size_t stream_threshold_bytes = std::size_t{1} << 24;

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
    static constexpr auto P = make_plan(E::extents, concat(E::template leaf_strides<R, M>(), std::array<leaf_view<R>, 1>{dst_view}));
    static constexpr std::size_t N = E::lanes < 4 ? 4 : E::lanes;
    static constexpr std::size_t inner = P.size[P.groups - 1];
    static constexpr std::size_t rows = E::size == 0 ? 0 : E::size / inner;
    // Inner blocks are whole multiples of N so block edges never move the tail.
    static constexpr std::size_t block = [] {
        std::size_t want = static_cast<std::size_t>(task_work / (E::cost > 1 ? E::cost : 1));
        want = (want + N - 1) / N * N;
        return inner < want ? inner : want;
    }();
    static constexpr std::size_t blocks_per_row = block == 0 ? 0 : (inner + block - 1) / block;

    static outer_index<R> outer_of(std::size_t row) {
        outer_index<R> o{};
        for (std::size_t g = P.groups - 1; g-- > 0;) {
            o[g] = row % P.size[g];
            row /= P.size[g];
        }
        return o;
    }

    static constexpr bool stream = can_stream<S, N> && E::size * sizeof(S) >= stream_threshold_bytes;

    // Chunks [c0, c1) of (row, block) pairs.
    static void run(S* dst, const E& e, std::size_t c0, std::size_t c1) {
        using C = compute_t<S>;
        std::size_t c = c0;
        while (c < c1) {
            std::size_t row = c / blocks_per_row;
            auto outer = outer_of(row);
            auto cur = e.template cursor<R, M, P>(outer);
            S* d = dst + row_offset<R, P>(dst_view, outer);
            [[maybe_unused]] const bool streamed = stream && reinterpret_cast<std::uintptr_t>(d) % 32 == 0;
            for (; c < c1 && c / blocks_per_row == row; ++c) {
                std::size_t i = (c % blocks_per_row) * block;
                std::size_t end = std::min(inner, i + block);
                if constexpr (stream)
                    if (streamed)
                        for (; i + N <= end; i += N) stream_vec<S, N>(d + i, cur.template load<N>(i));
                for (; i + N <= end; i += N) store_vec<S, N>(d + i, cur.template load<N>(i));
                if (i < end) store_vec_partial<S, N>(d + i, cur.template load_partial<N>(i, end - i), end - i);
                static_assert(std::is_same_v<decltype(cur.template load<N>(0)), vec<C, N>>);
            }
        }
        if constexpr (stream) stream_fence(); // order the streamed stores before the task ends
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
            transpose_2d<S>(cur.p, ss, dst + row_offset<R, P>(dst_view, o), ds, nt, inner);
        }
    }

    static void apply(S* dst, const E& e) {
        if constexpr (transposed_group >= 0 && E::size != 0) {
            apply_transpose(dst, e);
        } else if constexpr (E::size != 0) {
            constexpr std::size_t chunks = rows * blocks_per_row;
            if constexpr (E::cost * static_cast<double>(E::size) >= parallel_threshold && chunks > 1) {
                run_parallel(tbb::blocked_range<std::size_t>(0, chunks),
                                  [&](const tbb::blocked_range<std::size_t>& r) { run(dst, e, r.begin(), r.end()); });
            } else {
                run(dst, e, 0, chunks);
            }
        }
    }
};

template<class S, class E>
void evaluate_into(S* dst, const E& e) {
    auto n = as_node(e);
    evaluator<S, decltype(n)>::apply(dst, n);
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

} // namespace xlet
