// The loops behind reduce: they walk the operand expressions through the node protocol, so
// `reduce(a * b, 0.0f, add_fn{}, dims<1>)` reads a and b once and never materialises a * b.
//
// The operand's dimensions are reordered into a "space" that the merged loop plan walks:
//  - inner-reduced (the last non-unit dimension is reduced): [kept..., reduced...]. Each output
//    folds contiguous rows. Known monoids fold N-lane vectors into 4 independent accumulators,
//    in fixed chunks of `reduce_chunk` elements whose partial results are then combined in chunk
//    order: the association order depends on the shape only, never on the thread count.
//  - inner-kept (the last non-unit dimension is kept): [kept outer..., reduced..., kept inner...].
//    A block of up to `reduce_block_bytes` of outputs is accumulated lane-wise while the reduced
//    rows stream past (column sums read memory in order). Each output lane is a sequential fold;
//    when there are too few blocks to keep the cores busy, the rows are split into a fixed number
//    of chunks (again from the shape only) combined in order.
// An arbitrary callable (and any variadic reduce) folds every output strictly sequentially in the
// row-major order of the reduced dimensions, as the spec's recursive definition reads, in both
// layouts; only the outputs are spread over threads.
//
// Bounded dynamic dimensions (eval/bounded.hpp) pass run-time sizes by operand dimension: a dynamic
// dimension is kept a loop of its own so a reduced one can stop at its run-time size (kept ones are
// computed over their whole bound: padding).
#pragma once
#include "../../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <tuple>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>

#include "../../eval/parallel.hpp"
#include "../elementwise/binary.hpp" // the monoid functors (add_fn, max_fn, ...)
#include "../elementwise/elementwise.hpp"

namespace xlet::detail {

// Elements of one monoid chunk (inner-reduced) and bytes of one accumulator block (inner-kept).
// 2^16: a chunk's lane tree and set-up cost 3% of a memory-bound sum at 2^14 (f32 [2^24] paired
// with a tuned loop, Zen 5 1 thread: 0.97 -> 0.99), and 2^16 still gives 2 threads work from 2^17.
inline constexpr std::size_t reduce_chunk = std::size_t{1} << 16;
// 16 KiB: a [4096] f32 row at a time streams past (4 KiB blocks, a page each with a stride
// between them, were ~20% slower on column sums of [4096,4096]: docs/performance.md).
inline constexpr std::size_t reduce_block_bytes = 16384;
// Inner-kept reductions with fewer output blocks than this split their rows into chunks.
inline constexpr std::size_t reduce_min_units = 32;
// Rows of an inner-kept reduction read together in one pass over an output block.
inline constexpr std::size_t pass_rows = 8;

template<std::size_t R>
struct reduce_space {
    std::array<int, R> order{};          // space position -> operand dimension
    std::array<bool, R> red{};           // by space position
    std::array<bool, R> dyn{};           // by space position: a run-time size
    std::array<std::size_t, R> ext{};    // by space position
    std::array<std::ptrdiff_t, R> out{}; // output stride by space position (0: reduced)
};

template<std::size_t R, std::size_t K>
consteval reduce_space<R> make_reduce_space(const extents_t<R>& e, const std::array<std::int64_t, K>& rd,
                                            const std::array<bool, R>& dyn) {
    std::array<bool, R> is_red{};
    for (std::size_t d = 0; d < R; ++d)
        is_red[d] = false; // explicit: GCC 12 NTTP array quirk
    for (auto d : rd)
        is_red[static_cast<std::size_t>(d)] = true;
    int last = -1;
    for (std::size_t d = 0; d < R; ++d)
        if (e[d] != 1) last = static_cast<int>(d);
    const bool inner_reduced = last >= 0 && is_red[static_cast<std::size_t>(last)];
    reduce_space<R> s;
    std::size_t p = 0;
    auto put = [&](std::size_t d) { s.order[p++] = static_cast<int>(d); };
    if (inner_reduced) {
        for (std::size_t d = 0; d < R; ++d)
            if (!is_red[d]) put(d);
        for (std::size_t d = 0; d < R; ++d)
            if (is_red[d]) put(d);
    } else {
        std::size_t tail = R; // the trailing run of kept (or unit) dimensions stays innermost
        while (tail > 0 && (!is_red[tail - 1] || e[tail - 1] == 1))
            --tail;
        for (std::size_t d = 0; d < tail; ++d)
            if (!is_red[d]) put(d);
        for (std::size_t d = 0; d < tail; ++d)
            if (is_red[d]) put(d);
        for (std::size_t d = tail; d < R; ++d)
            put(d);
    }
    std::array<std::ptrdiff_t, R> ostride{};
    std::ptrdiff_t acc = 1;
    for (std::size_t d = R; d-- > 0;) {
        ostride[d] = is_red[d] ? 0 : acc;
        if (!is_red[d]) acc *= static_cast<std::ptrdiff_t>(e[d]);
    }
    for (std::size_t q = 0; q < R; ++q) {
        auto d = static_cast<std::size_t>(s.order[q]);
        s.ext[q] = e[d];
        s.red[q] = is_red[d];
        s.dyn[q] = dyn[d];
        s.out[q] = ostride[d];
    }
    return s;
}

// A known monoid on compute type C: identity and the combine step on scalars and vec lanes.
template<class F, class C>
consteval C monoid_identity() {
    constexpr bool b = std::is_same_v<C, bool>;
    if constexpr (std::is_same_v<F, add_fn> && std::is_floating_point_v<C>)
        return -C{}; // -0: x + -0 is x for every x (+0 is not: it turns a -0 sum into +0), so the
                     // unused accumulators change nothing and the compiler drops their adds
    else if constexpr (std::is_same_v<F, add_fn> || std::is_same_v<F, or_fn>)
        return C{};
    else if constexpr (std::is_same_v<F, mul_fn>)
        return b ? C(true) : C(1);
    else if constexpr (std::is_same_v<F, and_fn>) {
        if constexpr (b)
            return true;
        else
            return static_cast<C>(~C{});
    } else if constexpr (std::is_same_v<F, max_fn>) {
        if constexpr (b)
            return false;
        else if constexpr (std::is_floating_point_v<C>)
            return -std::numeric_limits<C>::infinity();
        else
            return std::numeric_limits<C>::lowest();
    } else {
        static_assert(std::is_same_v<F, min_fn>);
        if constexpr (b)
            return true;
        else if constexpr (std::is_floating_point_v<C>)
            return std::numeric_limits<C>::infinity();
        else
            return std::numeric_limits<C>::max();
    }
}

template<class F>
inline constexpr bool is_monoid = std::is_same_v<F, add_fn> || std::is_same_v<F, mul_fn> || std::is_same_v<F, max_fn> ||
                                  std::is_same_v<F, min_fn> || std::is_same_v<F, and_fn> || std::is_same_v<F, or_fn>;

// The identity map of operand dimension j onto its space position.
template<std::size_t R>
consteval index_map<R, R> space_map(const reduce_space<R>& s) {
    index_map<R, R> m;
    for (std::size_t q = 0; q < R; ++q) {
        auto d = static_cast<std::size_t>(s.order[q]);
        m.src[d] = static_cast<int>(q);
        m.scale[d] = 1;
        m.offset[d] = 0;
    }
    return m;
}

template<std::size_t R>
using group_sizes = std::array<std::size_t, R + 1>;

template<std::size_t R, reduce_space<R> S, class... Nd>
struct reduce_walk {
    static constexpr index_map<R, R> M = space_map(S);
    static constexpr std::size_t ndyn = [] {
        std::size_t n = 0;
        for (bool d : S.dyn)
            n += d ? 1 : 0;
        return n;
    }();
    static constexpr std::size_t nleaves = (Nd::leaf_count + ... + 0);
    // Leaf views, the output (keeps kept and reduced dimensions in separate loops) and a barrier
    // per dynamic dimension (a loop of its own).
    static constexpr auto views = [] {
        auto v = children_leaf_strides<R, M, 1 + ndyn, Nd...>();
        std::size_t at = nleaves;
        v[at++] = leaf_view<R>{S.out, 0};
        for (std::size_t q = 0; q < R; ++q)
            if (S.dyn[q]) v[at++] = barrier<R>(q);
        return v;
    }();
    static constexpr loop_plan<R> P = make_plan(S.ext, views);
    static constexpr std::size_t G = P.groups;
    static constexpr std::size_t last = G - 1;
    static constexpr bool group_reduced(std::size_t g) {
        return P.rep[g] >= 0 && S.red[static_cast<std::size_t>(P.rep[g])];
    }
    static constexpr bool inner_reduced = group_reduced(last);

    // Non-innermost groups by kind, in loop order.
    struct group_list {
        std::array<std::size_t, R + 1> g{};
        std::size_t n = 0;
    };
    static constexpr group_list list(bool reduced) {
        group_list l;
        for (std::size_t g = 0; g < last; ++g)
            if (group_reduced(g) == reduced) l.g[l.n++] = g;
        return l;
    }
    static constexpr group_list kept = list(false), red = list(true);

    static group_sizes<R> sizes(const std::array<std::size_t, R>* dyn_size) {
        group_sizes<R> gs{};
        for (std::size_t g = 0; g < G; ++g)
            gs[g] = P.size[g];
        if constexpr (ndyn > 0) {
            if (dyn_size)
                for (std::size_t g = 0; g < G; ++g)
                    if (group_reduced(g) && S.dyn[static_cast<std::size_t>(P.rep[g])])
                        gs[g] = (*dyn_size)[static_cast<std::size_t>(S.order[static_cast<std::size_t>(P.rep[g])])];
        }
        return gs;
    }
    // The innermost loop's length: a constant unless it is a dynamic reduced dimension (a constant
    // also lets the compiler bound the tail loads).
    static std::size_t inner(const group_sizes<R>& gs) {
        if constexpr (ndyn > 0 && inner_reduced) {
            if (S.dyn[static_cast<std::size_t>(P.rep[last])]) return gs[last];
        }
        return P.size[last];
    }
    static std::size_t count(const group_list& l, const group_sizes<R>& gs) {
        std::size_t n = 1;
        for (std::size_t k = 0; k < l.n; ++k)
            n *= gs[l.g[k]];
        return n;
    }
    // Set the loop indices of the groups in l from a row-major flat index over them.
    static void spread(outer_index<R>& o, std::size_t flat, const group_list& l, const group_sizes<R>& gs) {
        for (std::size_t k = l.n; k-- > 0;) {
            auto g = l.g[k];
            o[g] = flat % gs[g];
            flat /= gs[g];
        }
    }
    static std::ptrdiff_t out_offset(const outer_index<R>& o) {
        std::ptrdiff_t off = 0;
        for (std::size_t k = 0; k < kept.n; ++k)
            off += static_cast<std::ptrdiff_t>(o[kept.g[k]]) * S.out[static_cast<std::size_t>(P.rep[kept.g[k]])];
        return off;
    }
    static constexpr std::ptrdiff_t out_inner_stride =
        P.rep[last] < 0 ? 0 : S.out[static_cast<std::size_t>(P.rep[last])];

    static constexpr std::size_t lanes = std::max({std::size_t{4}, Nd::lanes...});
    static constexpr double cost = (Nd::cost + ... + 0.0) + 1.0;
    static bool parallel(std::size_t elements) { return cost * static_cast<double>(elements) >= parallel_threshold; }

    // Whether any call can go parallel: the elements a call passes (at most the static sizes, which
    // bound the dynamic ones, with the innermost loop rounded up to whole blocks of at most twice
    // its length) reach parallel_threshold. When not, the parallel loop and the chunked folds are
    // not compiled.
    static constexpr bool may_split = [] {
        double n = 2.0 * static_cast<double>((P.size[last] + lanes - 1) / lanes * lanes);
        for (std::size_t g = 0; g < last; ++g)
            n *= static_cast<double>(P.size[g]);
        return cost * n >= parallel_threshold;
    }();

    template<class Body>
    static void for_units(std::size_t units, std::size_t elements, const Body& body) {
        if constexpr (may_split)
            if (units > 1 && parallel(elements)) {
                run_parallel(tbb::blocked_range<std::size_t>(0, units), [&](const tbb::blocked_range<std::size_t>& r) {
                    for (std::size_t u = r.begin(); u != r.end(); ++u)
                        body(u);
                });
                return;
            }
        for (std::size_t u = 0; u < units; ++u)
            body(u);
    }
};

// ---- known monoids: one operand ---------------------------------------------------------------

template<class F, class T, std::size_t R, reduce_space<R> S, class Nd>
struct monoid_reduce {
    using W = reduce_walk<R, S, Nd>;
    using C = compute_t<T>;
    static constexpr std::size_t N = W::lanes;
    using V = vec<C, N>;
    static constexpr C id = monoid_identity<F, C>();

    static C op(C a, C b) { return static_cast<C>(F::scalar(a, b)); }
    static V op(const V& a, const V& b) { return apply_vec<F, C, N>(a, b); }
    static T finish(C init, C r) { return narrow<T>(round_scalar_to_storage<T>(op(init, r))); }
    // The fixed pairwise tree (lane i op lane i + w, for w = N/2, N/4, ..., 1), on batches of w
    // lanes while such a batch exists (f32 on AVX-512: 16 -> 8 -> 4 lanes), then in scalar: a
    // 16-lane fold was 15 scalar ops after as many extracts (f32[4,4] sum 3.1 ns).
    // Returns the lanes still to fold in scalar.
    template<std::size_t Wd>
    static std::size_t fold_batches(C* l) {
        if constexpr (Wd >= 2 && std::is_floating_point_v<C>) { // (the integer forms are for native batches)
            using Bw = xsimd::make_sized_batch_t<C, Wd>;
            if constexpr (!std::is_void_v<Bw>) {
                F::simd(Bw::load_unaligned(l), Bw::load_unaligned(l + Wd)).store_unaligned(l);
                return fold_batches<Wd / 2>(l);
            }
        }
        return Wd;
    }
    static C fold_lanes(const V& v) {
        auto l = to_lanes(v);
#pragma GCC unroll 8
        for (std::size_t w = fold_batches<N / 2>(l.data()); w > 0; w /= 2)
#pragma GCC unroll 32
            for (std::size_t i = 0; i < w; ++i)
                l[i] = op(l[i], l[i + w]);
        return l[0];
    }

    // Inner-reduced: chunk c of output u's reduced elements (row-major over the reduced loops).
    static C chunk(const Nd& n, const group_sizes<R>& gs, std::size_t u, std::size_t c, std::size_t total) {
        const std::size_t inner = W::inner(gs);
        outer_index<R> o{};
        W::spread(o, u, W::kept, gs);
        std::array<V, 4> acc;
        acc.fill(V::broadcast(id));
        C tail = id;
        std::size_t f = c * reduce_chunk;
        const std::size_t fend = std::min(total, f + reduce_chunk);
        while (f < fend) {
            std::size_t i = f % inner;
            const std::size_t i0 = i, end = std::min(inner, i + (fend - f));
            W::spread(o, f / inner, W::red, gs);
            auto cur = n.template cursor<R, W::M, W::P>(o);
            // (The static size bounds the innermost loop, dynamic or not: GCC, which cannot see
            // that bound in a dynamic one, otherwise warned of whole-vector loads past a short
            // operand held in the node once the serial path was inlined.)
            if constexpr (W::P.size[W::last] >= 4 * N)
                for (; i + 4 * N <= end; i += 4 * N)
                    for (std::size_t k = 0; k < 4; ++k)
                        acc[k] = op(acc[k], cur.template load<N>(i + k * N));
            if constexpr (W::P.size[W::last] >= N)
                for (; i + N <= end; i += N)
                    acc[0] = op(acc[0], cur.template load<N>(i));
            if (i < end) {
                auto l = to_lanes(cur.template load_partial<N>(i, end - i));
                for (std::size_t j = 0; j < end - i; ++j)
                    tail = op(tail, l[j]);
            }
            f += end - i0;
        }
        return op(fold_lanes(op(op(acc[0], acc[1]), op(acc[2], acc[3]))), tail);
    }

    static void inner_reduced(T* out, const Nd& n, C init, const group_sizes<R>& gs) {
        const std::size_t n_out = W::count(W::kept, gs);
        const std::size_t total = W::count(W::red, gs) * W::inner(gs);
        const std::size_t nc = (total + reduce_chunk - 1) / reduce_chunk;
        auto out_at = [&](std::size_t u) -> T& {
            outer_index<R> o{};
            W::spread(o, u, W::kept, gs);
            return out[W::out_offset(o)];
        };
        auto whole = [&](std::size_t u) {
            C r = id;
            for (std::size_t c = 0; c < nc; ++c)
                r = c == 0 ? chunk(n, gs, u, c, total) : op(r, chunk(n, gs, u, c, total));
            out_at(u) = finish(init, r);
        };
        if constexpr (W::may_split)
            if (nc > 1 && n_out < reduce_min_units && W::parallel(n_out * total)) {
                // Few outputs, long folds: chunks in parallel, then combined in chunk order. Every
                // entry of `part` is written before it is read.
                scratch<C> part(n_out * nc);
                W::for_units(n_out * nc, n_out * total,
                             [&](std::size_t k) { part[k] = chunk(n, gs, k / nc, k % nc, total); });
                for (std::size_t u = 0; u < n_out; ++u) {
                    C r = part[u * nc];
                    for (std::size_t c = 1; c < nc; ++c)
                        r = op(r, part[u * nc + c]);
                    out_at(u) = finish(init, r);
                }
                return;
            }
        W::for_units(n_out, n_out * total, whole);
    }

    // Inner-kept: block b (of `block` lanes) of the outputs at kept index ko, rows [r0, r1).
    static constexpr std::size_t block = [] {
        std::size_t want = std::max<std::size_t>(N, reduce_block_bytes / sizeof(C) / N * N);
        std::size_t inner = W::P.size[W::last];
        return std::min(want, (inner + N - 1) / N * N);
    }();
    static constexpr std::size_t block_div = block == 0 ? 1 : block; // block is 0 only for empty shapes
    static void rows(const Nd& n, const group_sizes<R>& gs, std::size_t ko, std::size_t b, std::size_t r0,
                     std::size_t r1, std::array<V, block / N>& acc) {
        const std::size_t inner = W::inner(gs);
        const std::size_t i0 = b * block, w = std::min(block, inner - i0);
        outer_index<R> o{};
        W::spread(o, ko, W::kept, gs);
        acc.fill(V::broadcast(id));
        std::size_t r = r0;
        // pass_rows rows per pass: their loads are independent (more memory streams in flight)
        // while each lane still adds row after row in order, so the result is the one-row loop's.
        // 8 rows: column sums of [4096,4096] 23 -> 27 GB/s on 1 thread against 4 rows.
        for (; r + pass_rows <= r1; r += pass_rows) {
            auto cur_at = [&](std::size_t k) {
                W::spread(o, r + k, W::red, gs);
                return n.template cursor<R, W::M, W::P>(o);
            };
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                const auto c = std::array{cur_at(K)...};
                std::size_t j = 0;
                for (; j + N <= w; j += N) {
                    const std::size_t i = i0 + j;
                    V a = acc[j / N];
                    ((a = op(a, c[K].template load<N>(i))), ...);
                    acc[j / N] = a;
                }
                if (j < w) {
                    const std::size_t i = i0 + j, m = w - j;
                    V a = acc[j / N];
                    ((a = op(a, c[K].template load_partial<N>(i, m))), ...);
                    acc[j / N] = a;
                }
            }
            (std::make_index_sequence<pass_rows>{});
        }
        for (; r < r1; ++r) {
            W::spread(o, r, W::red, gs);
            auto cur = n.template cursor<R, W::M, W::P>(o);
            std::size_t j = 0;
            for (; j + N <= w; j += N)
                acc[j / N] = op(acc[j / N], cur.template load<N>(i0 + j));
            if (j < w) acc[j / N] = op(acc[j / N], cur.template load_partial<N>(i0 + j, w - j));
        }
    }

    static void inner_kept(T* out, const Nd& n, C init, const group_sizes<R>& gs) {
        static_assert(W::out_inner_stride == 1 || W::P.rep[W::last] < 0);
        const std::size_t inner = W::inner(gs);
        const std::size_t nb = (inner + block_div - 1) / block_div; // 0 for an empty shape: no unit runs
        const std::size_t units = W::count(W::kept, gs) * nb;
        const std::size_t nrows = W::count(W::red, gs);
        const std::size_t elements = units * block * nrows;
        auto store = [&](std::size_t unit, const std::array<V, block / N>& acc) {
            outer_index<R> o{};
            W::spread(o, unit / nb, W::kept, gs);
            T* d = out + W::out_offset(o) + (unit % nb) * block;
            const std::size_t w = std::min(block, inner - (unit % nb) * block);
            for (std::size_t j = 0; j < w; j += N) {
                auto l = to_lanes(acc[j / N]);
                for (std::size_t k = 0; k < N && j + k < w; ++k)
                    d[j + k] = finish(init, l[k]);
            }
        };
        if constexpr (W::may_split)
            if (units < reduce_min_units && W::parallel(elements)) {
                if (const std::size_t nc = std::min(nrows, (reduce_min_units + units - 1) / units); nc > 1) {
                    // Rows split into nc fixed chunks, combined in order; rows() writes every entry.
                    scratch<std::array<V, block / N>> part(units * nc);
                    W::for_units(units * nc, elements, [&](std::size_t k) {
                        std::size_t u = k / nc, c = k % nc;
                        rows(n, gs, u / nb, u % nb, nrows * c / nc, nrows * (c + 1) / nc, part[k]);
                    });
                    for (std::size_t u = 0; u < units; ++u) {
                        auto acc = part[u * nc];
                        for (std::size_t c = 1; c < nc; ++c)
                            for (std::size_t k = 0; k < block / N; ++k)
                                acc[k] = op(acc[k], part[u * nc + c][k]);
                        store(u, acc);
                    }
                    return;
                }
            }
        W::for_units(units, elements, [&](std::size_t u) {
            std::array<V, block / N> acc;
            rows(n, gs, u / nb, u % nb, 0, nrows, acc);
            store(u, acc);
        });
    }

    static void run(T* out, const Nd& n, C init, const std::array<std::size_t, R>* dyn_size) {
        auto gs = W::sizes(dyn_size);
        if constexpr (Nd::size() == 0) {
            return fill_init(out, init);
        } else {
            for (std::size_t g = 0; g < W::G; ++g)
                if (gs[g] == 0) return fill_init(out, init); // a dynamic reduced size of 0
            if constexpr (W::inner_reduced)
                inner_reduced(out, n, init, gs);
            else
                inner_kept(out, n, init, gs);
        }
    }
    static void fill_init(T* out, C init) {
        constexpr std::size_t n_out = [] {
            std::size_t k = 1;
            for (std::size_t q = 0; q < R; ++q)
                if (!S.red[q]) k *= S.ext[q];
            return k;
        }();
        std::fill(out, out + n_out, narrow<T>(init));
    }
};

// ---- any callable, any number of operands: sequential folds -----------------------------------

template<class... T>
using acc_tuple = std::tuple<T...>;

// f(accumulators..., values...) with the result taken back as one value per operand.
template<class... T, class F, class... X>
inline void fold_step(const F& f, acc_tuple<T...>& acc, const X&... x) {
    auto r = detail::apply([&](const auto&... a) { return f(a..., x...); }, acc);
    if constexpr (sizeof...(T) == 1)
        std::get<0>(acc) = static_cast<std::tuple_element_t<0, acc_tuple<T...>>>(r);
    else
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((std::get<I>(acc) = static_cast<std::tuple_element_t<I, acc_tuple<T...>>>(std::get<I>(r))), ...);
        }
    (std::index_sequence_for<T...>{});
}

template<class F, std::size_t R, reduce_space<R> S, class Ts, class... Nd>
struct generic_reduce;
template<class F, std::size_t R, reduce_space<R> S, class... T, class... Nd>
struct generic_reduce<F, R, S, acc_tuple<T...>, Nd...> {
    using W = reduce_walk<R, S, Nd...>;
    static constexpr std::size_t N = W::lanes;
    static constexpr std::size_t K = sizeof...(T);
    using Outs = std::tuple<T*...>;

    template<class Cur>
    static auto load(const Cur& cur, std::size_t i, std::size_t n) {
        return detail::apply(
            [&](const auto&... c) {
                return std::make_tuple(to_lanes(n == N ? c.template load<N>(i) : c.template load_partial<N>(i, n))...);
            },
            cur);
    }
    static auto cursors(const std::tuple<const Nd&...>& nodes, const outer_index<R>& o) {
        return detail::apply([&](const auto&... n) { return std::make_tuple(n.template cursor<R, W::M, W::P>(o)...); },
                             nodes);
    }
    template<class L>
    static void step(const F& f, acc_tuple<T...>& acc, const L& lanes, std::size_t j) {
        [&]<std::size_t... I>(std::index_sequence<I...>) { fold_step(f, acc, narrow<T>(std::get<I>(lanes)[j])...); }
        (std::index_sequence_for<T...>{});
    }
    static void store(const Outs& outs, std::ptrdiff_t at, const acc_tuple<T...>& acc) {
        [&]<std::size_t... I>(std::index_sequence<I...>) { ((std::get<I>(outs)[at] = std::get<I>(acc)), ...); }
        (std::index_sequence_for<T...>{});
    }

    // Outputs folded side by side: each output's fold is still strictly sequential, but the folds
    // of `interleave` neighbouring outputs are independent chains the core overlaps (a fold such as
    // argmax's compare-and-select is latency-bound: one chain at a time left most of the core idle).
    static constexpr std::size_t interleave = 4; // 8 measured slower (register pressure)
    static void inner_reduced(const Outs& outs, const std::tuple<const Nd&...>& nodes, const F& f,
                              const acc_tuple<T...>& init, const group_sizes<R>& gs) {
        const std::size_t n_out = W::count(W::kept, gs), nrows = W::count(W::red, gs), inner = W::inner(gs);
        const std::size_t groups = (n_out + interleave - 1) / interleave;
        W::for_units(groups, n_out * nrows * inner, [&](std::size_t ug) {
            const std::size_t u0 = ug * interleave, m = std::min(interleave, n_out - u0);
            std::array<outer_index<R>, interleave> o{};
            std::array<acc_tuple<T...>, interleave> acc;
            for (std::size_t k = 0; k < m; ++k) {
                W::spread(o[k], u0 + k, W::kept, gs);
                acc[k] = init;
            }
            for (std::size_t r = 0; r < nrows; ++r) {
                if (m == interleave) { // four named chains: arrays of cursors compiled slower
                    for (std::size_t k = 0; k < interleave; ++k)
                        W::spread(o[k], r, W::red, gs);
                    auto c0 = cursors(nodes, o[0]);
                    auto c1 = cursors(nodes, o[1]);
                    auto c2 = cursors(nodes, o[2]);
                    auto c3 = cursors(nodes, o[3]);
                    for (std::size_t i = 0; i < inner; i += N) {
                        const std::size_t n = std::min(N, inner - i);
                        auto l0 = load(c0, i, n);
                        auto l1 = load(c1, i, n);
                        auto l2 = load(c2, i, n);
                        auto l3 = load(c3, i, n);
                        for (std::size_t j = 0; j < n; ++j) {
                            step(f, acc[0], l0, j);
                            step(f, acc[1], l1, j);
                            step(f, acc[2], l2, j);
                            step(f, acc[3], l3, j);
                        }
                    }
                } else {
                    for (std::size_t k = 0; k < m; ++k) {
                        W::spread(o[k], r, W::red, gs);
                        auto cur = cursors(nodes, o[k]);
                        for (std::size_t i = 0; i < inner; i += N) {
                            const std::size_t n = std::min(N, inner - i);
                            auto lanes = load(cur, i, n);
                            for (std::size_t j = 0; j < n; ++j)
                                step(f, acc[k], lanes, j);
                        }
                    }
                }
            }
            for (std::size_t k = 0; k < m; ++k)
                store(outs, W::out_offset(o[k]), acc[k]);
        });
    }

    static constexpr std::size_t block = std::min<std::size_t>(256, (W::P.size[W::last] + N - 1) / N * N);
    static constexpr std::size_t block_div = block == 0 ? 1 : block; // block is 0 only for empty shapes
    static void inner_kept(const Outs& outs, const std::tuple<const Nd&...>& nodes, const F& f,
                           const acc_tuple<T...>& init, const group_sizes<R>& gs) {
        const std::size_t inner = W::inner(gs),
                          nb = (inner + block_div - 1) / block_div; // 0 for an empty shape: no unit runs
        const std::size_t units = W::count(W::kept, gs) * nb, nrows = W::count(W::red, gs);
        W::for_units(units, units * block * nrows, [&](std::size_t u) {
            outer_index<R> o{};
            W::spread(o, u / nb, W::kept, gs);
            const std::size_t i0 = (u % nb) * block, w = std::min(block, inner - i0);
            std::array<acc_tuple<T...>, block> acc;
            acc.fill(init);
            for (std::size_t r = 0; r < nrows; ++r) {
                W::spread(o, r, W::red, gs);
                auto cur = cursors(nodes, o);
                for (std::size_t j = 0; j < w; j += N) {
                    const std::size_t n = std::min(N, w - j);
                    auto lanes = load(cur, i0 + j, n);
                    for (std::size_t k = 0; k < n; ++k)
                        step(f, acc[j + k], lanes, k);
                }
            }
            const std::ptrdiff_t base = W::out_offset(o) + static_cast<std::ptrdiff_t>(i0);
            for (std::size_t k = 0; k < w; ++k)
                store(outs, base + static_cast<std::ptrdiff_t>(k), acc[k]);
        });
    }

    static void run(const Outs& outs, const std::tuple<const Nd&...>& nodes, const F& f, const acc_tuple<T...>& init,
                    const std::array<std::size_t, R>* dyn_size) {
        auto gs = W::sizes(dyn_size);
        bool empty = (Nd::size() * ...) == 0;
        for (std::size_t g = 0; g < W::G; ++g)
            empty = empty || gs[g] == 0;
        if (empty) {
            constexpr std::size_t n_out = [] {
                std::size_t k = 1;
                for (std::size_t q = 0; q < R; ++q)
                    if (!S.red[q]) k *= S.ext[q];
                return k;
            }();
            for (std::size_t i = 0; i < n_out; ++i)
                store(outs, static_cast<std::ptrdiff_t>(i), init);
            return;
        }
        if constexpr (W::inner_reduced)
            inner_reduced(outs, nodes, f, init, gs);
        else
            inner_kept(outs, nodes, f, init, gs);
    }
};

} // namespace xlet::detail
