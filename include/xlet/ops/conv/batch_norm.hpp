// Batch normalisation (spec: BatchNormTraining, BatchNormInference, BatchNormGrad; StableHLO
// batch_norm_training, batch_norm_inference, batch_norm_grad):
//   auto [y, mean, var] = batch_norm_training<feature_index>(x, scale, offset, epsilon);
//   auto y = batch_norm_inference<feature_index>(x, scale, offset, mean, variance, epsilon);   (lazy)
//   auto [gx, gscale, goffset] = batch_norm_grad<feature_index>(x, scale, mean, variance, grad_output, epsilon);
// x: any rank >= 1, floating element type T (f16, bf16, f32, f64); the 1-D operands are T[C] with
// C = dim(x, feature_index); epsilon is a run-time float (Clang 14 has no floating template
// arguments), used as given. Operands are any expressions, each evaluated once. Per-tensor
// quantized operands (all of them): quant/float_ops.hpp, with the results' types as template
// arguments after feature_index.
//
// Semantics (N = number of elements per feature = size(x) / C; l a feature):
//   mean_l = sum(x_l) / N, var_l = sum((x_l - mean_l)^2) / N  (biased, as the spec's formula)
//   y = scale_l (x - mean_l) / sqrt(var_l + epsilon) + offset_l
//   batch_norm_grad, with mean and variance the given ones:
//     d_l = sum(gy_l) / N, c_l = sum(gy_l (x_l - mean_l)) / N / (var_l + epsilon)
//     gx = scale_l / sqrt(var_l + epsilon) (gy - d_l - c_l (x - mean_l))
//     gscale_l = sum(gy_l (x_l - mean_l)) / sqrt(var_l + epsilon), goffset_l = sum(gy_l)
//   This gx is the total derivative of sum(y * gy) through batch_norm_training (mean and variance
//   as functions of x) when mean and variance are that op's outputs (tested by finite differences).
// Computation (docs/semantics.md, "batch_norm"): in compute_t<T> (f32 for f16/bf16/f32, f64 for
// f64), rounded to T once at the end. Mean and variance: x viewed as [outer, C, inner]; the
// elements of each feature are cut into pieces fixed by the shape (a block of rows of about 16 Ki
// elements when inner < 64, else chunks of at most 16 Ki of each contiguous run of inner
// elements); each piece is summed in 16 lanes and its variance taken around its own mean (two
// passes over data in cache), and the pieces are combined pairwise in index order with Chan's
// update. Memory is read once for the moments, once more for y (fused (x - mean) * a + offset,
// a = scale / sqrt(var + epsilon), through the element-wise evaluator). Pieces run on TBB above
// 64 Ki elements; results are bitwise identical for any thread count.
// batch_norm_inference returns a lazy element-wise expression (one fused pass that also fuses into
// its consumer): (x - mean) * a + offset, with a computed once per feature; f16/bf16 operands are
// converted to f32 inside the expression and rounded once. A negative epsilon is used as given:
// var + epsilon < 0 gives NaN (sqrt of a negative number) for the whole feature, = 0 gives +-inf
// or NaN, per IEEE.
//
// Rules (StableHLO numbering; xlet's own rules appended):
//   batch_norm_training   C1 0 <= feature_index < rank(x)
//                         C2 x, scale and offset have the same element type
//                         C3 scale is rank 1 of size dim(x, feature_index)
//                         C4 offset is rank 1 of size dim(x, feature_index)
//                         C5-C7 batch_mean, batch_var, output types (by construction)
//                         C8 (xlet) the element type is floating point
//   batch_norm_inference  C1 feature_index; C2 x, scale, offset, mean, variance same element type;
//                         C3-C6 scale, offset, mean, variance rank 1 of size dim(x, feature_index);
//                         C7 result type (by construction); C8 (xlet) floating point
//   batch_norm_grad       C1 feature_index; C2 x, scale, mean, variance, grad_output same element
//                         type; C3 grad_output has the shape of x (grad_operand by construction);
//                         C4 scale, mean and variance are rank 1 of one size; C5 that size is
//                         dim(x, feature_index); C6 (xlet) floating point
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../eval/assign.hpp"
#include "../../eval/parallel.hpp"
#include "../elementwise/convert.hpp"
#include "../elementwise/operators.hpp"
#include "../layout/layout.hpp"

namespace xlet {

namespace detail {

// Elements above which the moment and gradient-sum passes run on TBB (the element-wise passes use
// the evaluator's own threshold).
inline constexpr std::size_t bn_parallel_elements = std::size_t{1} << 16;
// Elements per feature in one piece (a block of rows, or a chunk of a run): 64 KiB of f32, so
// that the second pass over a piece reads it from cache.
inline constexpr std::size_t bn_piece_elements = std::size_t{1} << 14;
// Contiguous runs of at least this many elements of one feature are summed run by run.
inline constexpr std::size_t bn_run_min = 64;
// Independent accumulators per run (vectorised by the compiler; combined pairwise).
inline constexpr std::size_t bn_lanes = 16;

// x seen as [outer, C, inner] and cut into pieces; every field depends on the shape only, so the
// order of every sum is fixed whatever the number of threads.
//   rows path (inner < bn_run_min): a row is L = C * inner contiguous elements; k rows form a
//     super-row of at least bn_run_min positions, each with its own accumulator; a piece is a block
//     of B rows (a multiple of k), every feature's elements of those rows.
//   runs path: every (o, c) is a contiguous run of inner elements, cut into chunks of K; piece
//     o * chunks + j is chunk j of every feature's run o.
struct bn_plan {
    std::size_t outer = 1, C = 0, inner = 1;
    bool rows = true;
    std::size_t L = 0, k = 1, B = 1;
    std::size_t K = 0, chunks = 1;
    std::size_t pieces = 0;

    constexpr std::size_t per_feature() const { return outer * inner; }
    constexpr std::size_t width() const { return L * k; } // accumulators of the rows path
    // Elements of one feature in piece p.
    constexpr std::size_t count(std::size_t p) const {
        if (rows) return std::min(B, outer - p * B) * inner;
        const std::size_t j = p % chunks;
        return std::min(K, inner - j * K);
    }
};

template<std::size_t R>
constexpr bn_plan bn_make_plan(const extents_t<R>& e, std::size_t f) {
    bn_plan pl;
    for (std::size_t d = 0; d < f; ++d)
        pl.outer *= e[d];
    pl.C = e[f];
    for (std::size_t d = f + 1; d < R; ++d)
        pl.inner *= e[d];
    if (pl.C == 1) { // one feature: all its elements are contiguous
        pl.inner *= pl.outer;
        pl.outer = 1;
    }
    if (pl.C == 0 || pl.per_feature() == 0) return pl;
    pl.rows = pl.inner < bn_run_min;
    if (pl.rows) {
        pl.L = pl.C * pl.inner;
        pl.k = pl.L < bn_run_min ? (bn_run_min + pl.L - 1) / pl.L : 1;
        pl.B = pl.k * std::max<std::size_t>(1, bn_piece_elements / pl.width());
        pl.pieces = (pl.outer + pl.B - 1) / pl.B;
    } else {
        pl.K = std::min(pl.inner, bn_piece_elements);
        pl.chunks = (pl.inner + pl.K - 1) / pl.K;
        pl.pieces = pl.outer * pl.chunks;
    }
    return pl;
}

// Runs f(t0, t1) over [0, n) tasks, split on TBB when par; each task's results go to places fixed
// by its index, so the split does not change them.
template<class F>
void bn_tasks(std::size_t n, std::size_t grain, bool par, const F& f) {
    if (par && n > 1)
        run_parallel(tbb::blocked_range<std::size_t>(0, n, grain),
                     [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
    else
        f(0, n);
}

template<class A>
A bn_lane_total(A (&a)[bn_lanes]) {
    for (std::size_t w = bn_lanes / 2; w > 0; w /= 2)
        for (std::size_t j = 0; j < w; ++j)
            a[j] += a[j + w];
    return a[0];
}

// Rows path: out[c] = sum of the accumulators of feature c's positions, in increasing position.
template<class A>
void bn_fold_positions(const A* acc, const bn_plan& pl, A* out) {
    std::fill_n(out, pl.C, A(0));
    for (std::size_t q = 0; q < pl.width(); ++q)
        out[(q % pl.L) / pl.inner] += acc[q];
}

// Mean and sum of squared deviations of one contiguous run of n > 0 elements (two passes).
template<class T, class A = compute_t<T>>
void bn_run_moments(const T* p, std::size_t n, A& mean, A& m2) {
    const std::size_t nv = n - n % bn_lanes;
    A a[bn_lanes] = {};
    for (std::size_t i = 0; i < nv; i += bn_lanes)
        for (std::size_t j = 0; j < bn_lanes; ++j)
            a[j] += widen(p[i + j]);
    A s = bn_lane_total(a);
    for (std::size_t i = nv; i < n; ++i)
        s += widen(p[i]);
    const A m = s / static_cast<A>(n);
    A b[bn_lanes] = {};
    for (std::size_t i = 0; i < nv; i += bn_lanes)
        for (std::size_t j = 0; j < bn_lanes; ++j) {
            const A d = widen(p[i + j]) - m;
            b[j] += d * d;
        }
    A q = bn_lane_total(b);
    for (std::size_t i = nv; i < n; ++i) {
        const A d = widen(p[i]) - m;
        q += d * d;
    }
    mean = m;
    m2 = q;
}

// Rows path: per-feature mean and sum of squared deviations of nrows > 0 rows starting at x.
// acc and mexp: scratch of width() elements.
template<class T, class A = compute_t<T>>
void bn_rows_moments(const T* x, std::size_t nrows, const bn_plan& pl, A* acc, A* mexp, A* mean, A* m2) {
    const std::size_t L = pl.L, W = pl.width();
    std::fill_n(acc, W, A(0));
    for (std::size_t r = 0; r < nrows; r += pl.k) {
        const T* row = x + r * L;
        const std::size_t n = std::min(pl.k, nrows - r) * L;
        for (std::size_t q = 0; q < n; ++q)
            acc[q] += widen(row[q]);
    }
    bn_fold_positions(acc, pl, mean);
    const A cnt = static_cast<A>(nrows * pl.inner);
    for (std::size_t c = 0; c < pl.C; ++c)
        mean[c] /= cnt;
    for (std::size_t q = 0; q < W; ++q)
        mexp[q] = mean[(q % L) / pl.inner];
    std::fill_n(acc, W, A(0));
    for (std::size_t r = 0; r < nrows; r += pl.k) {
        const T* row = x + r * L;
        const std::size_t n = std::min(pl.k, nrows - r) * L;
        for (std::size_t q = 0; q < n; ++q) {
            const A d = widen(row[q]) - mexp[q];
            acc[q] += d * d;
        }
    }
    bn_fold_positions(acc, pl, m2);
}

// Per-feature mean and biased variance of x (row-major, plan pl) in compute_t<T>.
template<class T, class A = compute_t<T>>
void bn_moments(const T* x, const bn_plan& pl, A* mean, A* var) {
    const std::size_t C = pl.C, n = pl.per_feature();
    if (C == 0) return;
    if (n == 0) { // the mean of nothing: 0 / 0, as the spec's decomposition
        std::fill_n(mean, C, std::numeric_limits<A>::quiet_NaN());
        std::fill_n(var, C, std::numeric_limits<A>::quiet_NaN());
        return;
    }
    const std::size_t P = pl.pieces;
    std::vector<A> sm(P * C), sq(P * C);
    const bool par = n * C >= bn_parallel_elements;
    if (pl.rows) {
        bn_tasks(P, 1, par, [&](std::size_t t0, std::size_t t1) {
            std::vector<A> acc(pl.width()), mexp(pl.width());
            for (std::size_t p = t0; p < t1; ++p)
                bn_rows_moments(x + p * pl.B * pl.L, std::min(pl.B, pl.outer - p * pl.B), pl, acc.data(), mexp.data(),
                                &sm[p * C], &sq[p * C]);
        });
    } else {
        // One task per chunk: t = (o * C + c) * chunks + j.
        bn_tasks(pl.outer * C * pl.chunks, std::max<std::size_t>(1, bn_piece_elements / pl.K), par,
                 [&](std::size_t t0, std::size_t t1) {
                     for (std::size_t t = t0; t < t1; ++t) {
                         const std::size_t oc = t / pl.chunks, j = t % pl.chunks, o = oc / C, c = oc % C;
                         const std::size_t p = o * pl.chunks + j;
                         bn_run_moments(x + oc * pl.inner + j * pl.K, std::min(pl.K, pl.inner - j * pl.K),
                                        sm[p * C + c], sq[p * C + c]);
                     }
                 });
    }
    // Pairwise in index order (Chan, Golub, LeVeque): n = na + nb, d = mean_b - mean_a,
    // mean = mean_a + d nb / n, m2 = m2_a + m2_b + d^2 na nb / n.
    std::vector<double> cnt(P);
    for (std::size_t p = 0; p < P; ++p)
        cnt[p] = static_cast<double>(pl.count(p));
    for (std::size_t s = 1; s < P; s *= 2)
        for (std::size_t p = 0; p + s < P; p += 2 * s) {
            const double na = cnt[p], nb = cnt[p + s], nn = na + nb;
            const A wb = static_cast<A>(nb / nn), wab = static_cast<A>(na * nb / nn);
            A* ma = &sm[p * C];
            A* qa = &sq[p * C];
            const A* mb = &sm[(p + s) * C];
            const A* qb = &sq[(p + s) * C];
            for (std::size_t c = 0; c < C; ++c) {
                const A d = mb[c] - ma[c];
                ma[c] += d * wb;
                qa[c] += qb[c] + d * d * wab;
            }
            cnt[p] = nn;
        }
    for (std::size_t c = 0; c < C; ++c) {
        mean[c] = sm[c];
        var[c] = static_cast<A>(static_cast<double>(sq[c]) / static_cast<double>(n));
    }
}

// Per-feature sums of g and of g * (x - mu) (batch_norm_grad), pieces summed pairwise.
template<class T, class A = compute_t<T>>
void bn_grad_sums(const T* x, const T* g, const bn_plan& pl, const A* mu, A* s1, A* s2) {
    const std::size_t C = pl.C, n = pl.per_feature();
    if (C == 0) return;
    std::fill_n(s1, C, A(0));
    std::fill_n(s2, C, A(0));
    if (n == 0) return;
    const std::size_t P = pl.pieces;
    std::vector<A> u(P * C), v(P * C);
    const bool par = n * C >= bn_parallel_elements;
    if (pl.rows) {
        const std::size_t L = pl.L, W = pl.width();
        std::vector<A> mexp(W);
        for (std::size_t q = 0; q < W; ++q)
            mexp[q] = mu[(q % L) / pl.inner];
        bn_tasks(P, 1, par, [&](std::size_t t0, std::size_t t1) {
            std::vector<A> a1(W), a2(W);
            for (std::size_t p = t0; p < t1; ++p) {
                const std::size_t nrows = std::min(pl.B, pl.outer - p * pl.B);
                std::fill(a1.begin(), a1.end(), A(0));
                std::fill(a2.begin(), a2.end(), A(0));
                for (std::size_t r = 0; r < nrows; r += pl.k) {
                    const std::size_t off = (p * pl.B + r) * L, m = std::min(pl.k, nrows - r) * L;
                    const T* xr = x + off;
                    const T* gr = g + off;
                    for (std::size_t q = 0; q < m; ++q) {
                        const A gy = widen(gr[q]);
                        a1[q] += gy;
                        a2[q] += gy * (widen(xr[q]) - mexp[q]);
                    }
                }
                bn_fold_positions(a1.data(), pl, &u[p * C]);
                bn_fold_positions(a2.data(), pl, &v[p * C]);
            }
        });
    } else {
        bn_tasks(pl.outer * C * pl.chunks, std::max<std::size_t>(1, bn_piece_elements / pl.K), par,
                 [&](std::size_t t0, std::size_t t1) {
                     for (std::size_t t = t0; t < t1; ++t) {
                         const std::size_t oc = t / pl.chunks, j = t % pl.chunks, o = oc / C, c = oc % C;
                         const A m = mu[c];
                         {
                             const std::size_t p = o * pl.chunks + j, len = std::min(pl.K, pl.inner - j * pl.K);
                             const T* xr = x + oc * pl.inner + j * pl.K;
                             const T* gr = g + oc * pl.inner + j * pl.K;
                             const std::size_t nv = len - len % bn_lanes;
                             A a[bn_lanes] = {}, b[bn_lanes] = {};
                             for (std::size_t i = 0; i < nv; i += bn_lanes)
                                 for (std::size_t l = 0; l < bn_lanes; ++l) {
                                     const A gy = widen(gr[i + l]);
                                     a[l] += gy;
                                     b[l] += gy * (widen(xr[i + l]) - m);
                                 }
                             A sa = bn_lane_total(a), sb = bn_lane_total(b);
                             for (std::size_t i = nv; i < len; ++i) {
                                 const A gy = widen(gr[i]);
                                 sa += gy;
                                 sb += gy * (widen(xr[i]) - m);
                             }
                             u[p * C + c] = sa;
                             v[p * C + c] = sb;
                         }
                     }
                 });
    }
    for (std::size_t s = 1; s < P; s *= 2)
        for (std::size_t p = 0; p + s < P; p += 2 * s)
            for (std::size_t c = 0; c < C; ++c) {
                u[p * C + c] += u[(p + s) * C + c];
                v[p * C + c] += v[(p + s) * C + c];
            }
    std::copy_n(u.data(), C, s1);
    std::copy_n(v.data(), C, s2);
}

// A 1-D operand evaluated once and widened to the compute type.
// (An expression, not a loop: to_stablehlo records it, where a loop's result would be a constant.)
template<class A, std::size_t C, class V>
tensor<A, C> bn_vector(V&& v) {
    if constexpr (std::is_same_v<element_of<V>, A>)
        return tensor<A, C>(std::forward<V>(v));
    else
        return tensor<A, C>(convert_element_type<A>(std::forward<V>(v)));
}

template<class T, std::size_t C>
tensor<T, C> bn_narrow(const tensor<compute_t<T>, C>& v) {
    tensor<T, C> r(no_init);
    for (std::size_t i = 0; i < C; ++i)
        r.data()[i] = narrow<T>(v.data()[i]);
    return r;
}

// A per-feature vector broadcast along dimension F of a shape E (a stride-0 view: no copy).
template<auto E, std::int64_t F, class V, std::size_t... I>
auto bn_bcast(V&& v, std::index_sequence<I...>) {
    return broadcast_in_dim(std::forward<V>(v), dims<static_cast<std::int64_t>(E[I])...>, dims<F>);
}

// x in the compute type: f16/bf16 converted to f32 inside the expression (no rounding per op).
template<class X>
auto bn_widened(X&& x) {
    if constexpr (is_narrow_float<element_of<X>>)
        return convert_element_type<float>(std::forward<X>(x));
    else
        return as_node(std::forward<X>(x));
}
template<class T, class E>
auto bn_stored(E&& e) {
    if constexpr (is_narrow_float<T>)
        return convert_element_type<T>(std::forward<E>(e));
    else
        return std::forward<E>(e);
}

// y = (x - mean) * a + offset, lazily, in the compute type, rounded once to x's element type.
template<std::int64_t F, class X, class A, std::size_t C>
auto bn_normalize(X&& x, tensor<A, C> mean, tensor<A, C> a, tensor<A, C> offset) {
    constexpr auto E = shape_of<X>::extents;
    constexpr auto seq = std::make_index_sequence<E.size()>{};
    return bn_stored<element_of<X>>((bn_widened(std::forward<X>(x)) - bn_bcast<E, F>(std::move(mean), seq)) *
                                        bn_bcast<E, F>(std::move(a), seq) +
                                    bn_bcast<E, F>(std::move(offset), seq));
}

// Common rule values: C1 and the feature count (0 while C1 fails).
template<std::int64_t F, class X>
struct bn_operand_rules {
    static constexpr std::size_t R = shape_of<X>::rank;
    static constexpr bool index_ok = F >= 0 && static_cast<std::size_t>(F) < R;
    static constexpr std::size_t features = [] {
        if constexpr (index_ok)
            return shape_of<X>::extents[static_cast<std::size_t>(F)];
        else
            return std::size_t{0};
    }();
    // (quantized operands: their element-type rules are quant/float_ops.hpp's)
    static constexpr bool floating = is_float<element_of<X>> || is_quantized<element_of<X>>;
};
// V is a rank-1 operand of N elements (not checked while feature_index is invalid).
template<class V, std::size_t N, bool Known>
inline constexpr bool bn_vector_of = [] {
    if constexpr (!Known)
        return true;
    else if constexpr (shape_of<V>::rank != 1)
        return false;
    else
        return shape_of<V>::extents[0] == N;
}();
template<class X, class... V>
inline constexpr bool bn_same_type = (std::is_same_v<element_of<X>, element_of<V>> && ...) ||
                                     (is_quantized<element_of<X>> || ... || is_quantized<element_of<V>>);

template<std::int64_t F, class X, class S, class O>
struct batch_norm_training_rules {
    using B = bn_operand_rules<F, X>;
    static constexpr bool c1 = B::index_ok;
    static constexpr bool c2 = bn_same_type<X, S, O>;
    static constexpr bool c3 = bn_vector_of<S, B::features, c1>;
    static constexpr bool c4 = bn_vector_of<O, B::features, c1>;
    static constexpr bool c8 = B::floating;
    static constexpr bool ok = c1 && c2 && c3 && c4 && c8;
    static consteval bool check() {
        using XT = shown_t<X>;
        using ST = shown_t<S>;
        using OT = shown_t<O>;
        static_assert(diag::got<c1, XT, diag::dimensions<F>>::value,
                      "xlet::batch_norm_training [C1]: feature_index must be in [0, rank(operand))");
        static_assert(diag::got<c2, XT, ST, OT>::value,
                      "xlet::batch_norm_training [C2]: operand, scale and offset must have the same element type");
        static_assert(diag::got<c3, XT, ST, diag::dimensions<F>>::value,
                      "xlet::batch_norm_training [C3]: scale must have rank 1 and size dim(operand, feature_index)");
        static_assert(diag::got<c4, XT, OT, diag::dimensions<F>>::value,
                      "xlet::batch_norm_training [C4]: offset must have rank 1 and size dim(operand, feature_index)");
        static_assert(diag::got<c8, XT>::value,
                      "xlet::batch_norm_training [C8]: the element type must be floating point (f16, bf16, f32, f64)");
        return ok;
    }
};

template<std::int64_t F, class X, class S, class O, class M, class V>
struct batch_norm_inference_rules {
    using B = bn_operand_rules<F, X>;
    static constexpr bool c1 = B::index_ok;
    static constexpr bool c2 = bn_same_type<X, S, O, M, V>;
    static constexpr bool c3 = bn_vector_of<S, B::features, c1>;
    static constexpr bool c4 = bn_vector_of<O, B::features, c1>;
    static constexpr bool c5 = bn_vector_of<M, B::features, c1>;
    static constexpr bool c6 = bn_vector_of<V, B::features, c1>;
    static constexpr bool c8 = B::floating;
    static constexpr bool ok = c1 && c2 && c3 && c4 && c5 && c6 && c8;
    static consteval bool check() {
        using XT = shown_t<X>;
        using D = diag::dimensions<F>;
        static_assert(diag::got<c1, XT, D>::value,
                      "xlet::batch_norm_inference [C1]: feature_index must be in [0, rank(operand))");
        static_assert(diag::got<c2, XT, shown_t<S>, shown_t<O>, shown_t<M>, shown_t<V>>::value,
                      "xlet::batch_norm_inference [C2]: operand, scale, offset, mean and variance must have the same "
                      "element type");
        static_assert(diag::got<c3, XT, shown_t<S>, D>::value,
                      "xlet::batch_norm_inference [C3]: scale must have rank 1 and size dim(operand, feature_index)");
        static_assert(diag::got<c4, XT, shown_t<O>, D>::value,
                      "xlet::batch_norm_inference [C4]: offset must have rank 1 and size dim(operand, feature_index)");
        static_assert(diag::got<c5, XT, shown_t<M>, D>::value,
                      "xlet::batch_norm_inference [C5]: mean must have rank 1 and size dim(operand, feature_index)");
        static_assert(
            diag::got<c6, XT, shown_t<V>, D>::value,
            "xlet::batch_norm_inference [C6]: variance must have rank 1 and size dim(operand, feature_index)");
        static_assert(diag::got<c8, XT>::value,
                      "xlet::batch_norm_inference [C8]: the element type must be floating point (f16, bf16, f32, f64)");
        return ok;
    }
};

template<std::int64_t F, class X, class S, class M, class V, class G>
struct batch_norm_grad_rules {
    using B = bn_operand_rules<F, X>;
    static constexpr bool c1 = B::index_ok;
    static constexpr bool c2 = bn_same_type<X, S, M, V, G>;
    static constexpr bool c3 = same_extents(shape_of<G>::extents, shape_of<X>::extents);
    static constexpr bool c4 = [] {
        if constexpr (shape_of<S>::rank != 1)
            return false;
        else
            return bn_vector_of<M, shape_of<S>::extents[0], true> && bn_vector_of<V, shape_of<S>::extents[0], true>;
    }();
    static constexpr bool c5 = !c4 || bn_vector_of<S, B::features, c1>;
    static constexpr bool c6 = B::floating;
    static constexpr bool ok = c1 && c2 && c3 && c4 && c5 && c6;
    static consteval bool check() {
        using XT = shown_t<X>;
        using D = diag::dimensions<F>;
        static_assert(diag::got<c1, XT, D>::value,
                      "xlet::batch_norm_grad [C1]: feature_index must be in [0, rank(operand))");
        static_assert(diag::got<c2, XT, shown_t<S>, shown_t<M>, shown_t<V>, shown_t<G>>::value,
                      "xlet::batch_norm_grad [C2]: operand, scale, mean, variance and grad_output must have the same "
                      "element type");
        static_assert(diag::got<c3, XT, shown_t<G>>::value,
                      "xlet::batch_norm_grad [C3]: grad_output must have the shape of operand");
        static_assert(diag::got<c4, shown_t<S>, shown_t<M>, shown_t<V>>::value,
                      "xlet::batch_norm_grad [C4]: scale, mean and variance must have rank 1 and the same size");
        static_assert(diag::got<c5, XT, shown_t<S>, D>::value,
                      "xlet::batch_norm_grad [C5]: size(scale) must be dim(operand, feature_index)");
        static_assert(diag::got<c6, XT>::value,
                      "xlet::batch_norm_grad [C6]: the element type must be floating point (f16, bf16, f32, f64)");
        return ok;
    }
};

template<std::int64_t Fi, class X, class S, class O>
auto batch_norm_training_impl(X&& x, S&& scale, O&& offset, float epsilon) {
    using T = element_of<X>;
    using A = compute_t<T>;
    constexpr auto E = shape_of<X>::extents;
    constexpr std::size_t C = E[static_cast<std::size_t>(Fi)];
    static constexpr bn_plan pl = bn_make_plan(E, static_cast<std::size_t>(Fi));
    const auto& xa = as_array(std::forward<X>(x));
    tensor<A, C> mean(no_init), var(no_init), a(no_init);
    bn_moments(xa.data(), pl, mean.data(), var.data());
    const auto g = bn_vector<A, C>(std::forward<S>(scale));
    auto b = bn_vector<A, C>(std::forward<O>(offset));
    for (std::size_t c = 0; c < C; ++c)
        a.data()[c] = g.data()[c] / std::sqrt(var.data()[c] + static_cast<A>(epsilon));
    auto mean_t = bn_narrow<T>(mean);
    auto var_t = bn_narrow<T>(var);
    tensor_type_of<X> y(bn_normalize<Fi>(xa, std::move(mean), std::move(a), std::move(b)));
    return std::tuple{std::move(y), std::move(mean_t), std::move(var_t)};
}

template<std::int64_t Fi, class X, class S, class O, class M, class V>
auto batch_norm_inference_impl(X&& x, S&& scale, O&& offset, M&& mean, V&& variance, float epsilon) {
    using A = compute_t<element_of<X>>;
    constexpr std::size_t C = shape_of<X>::extents[static_cast<std::size_t>(Fi)];
    const auto g = bn_vector<A, C>(std::forward<S>(scale));
    auto b = bn_vector<A, C>(std::forward<O>(offset));
    auto mu = bn_vector<A, C>(std::forward<M>(mean));
    const auto v = bn_vector<A, C>(std::forward<V>(variance));
    // Per feature, as one expression (correctly rounded ops: the loop's bits, and traceable).
    tensor<A, C> a = g / sqrt(v + static_cast<A>(epsilon));
    return bn_normalize<Fi>(std::forward<X>(x), std::move(mu), std::move(a), std::move(b));
}

template<std::int64_t Fi, class X, class S, class M, class V, class G>
auto batch_norm_grad_impl(X&& x, S&& scale, M&& mean, V&& variance, G&& grad_output, float epsilon) {
    using T = element_of<X>;
    using A = compute_t<T>;
    constexpr auto E = shape_of<X>::extents;
    constexpr std::size_t C = E[static_cast<std::size_t>(Fi)];
    static constexpr bn_plan pl = bn_make_plan(E, static_cast<std::size_t>(Fi));
    const auto& xa = as_array(std::forward<X>(x));
    const auto& ga = as_array(std::forward<G>(grad_output));
    const auto g = bn_vector<A, C>(std::forward<S>(scale));
    auto mu = bn_vector<A, C>(std::forward<M>(mean));
    const auto v = bn_vector<A, C>(std::forward<V>(variance));
    tensor<A, C> s1(no_init), s2(no_init), k(no_init), d(no_init), cc(no_init);
    bn_grad_sums(xa.data(), ga.data(), pl, mu.data(), s1.data(), s2.data());
    tensor<T, C> gscale(no_init), goffset(no_init);
    const A n = static_cast<A>(pl.per_feature());
    for (std::size_t c = 0; c < C; ++c) {
        const A ve = v.data()[c] + static_cast<A>(epsilon), sd = std::sqrt(ve);
        k.data()[c] = g.data()[c] / sd;
        d.data()[c] = s1.data()[c] / n;
        cc.data()[c] = s2.data()[c] / n / ve;
        gscale.data()[c] = narrow<T>(s2.data()[c] / sd);
        goffset.data()[c] = narrow<T>(s1.data()[c]);
    }
    // gx = k (gy - d - c (x - mean)), lazily in the compute type, rounded once.
    constexpr auto seq = std::make_index_sequence<E.size()>{};
    tensor_type_of<X> gx(
        bn_stored<T>(((bn_widened(ga) - bn_bcast<E, Fi>(std::move(d), seq)) -
                      bn_bcast<E, Fi>(std::move(cc), seq) * (bn_widened(xa) - bn_bcast<E, Fi>(std::move(mu), seq))) *
                     bn_bcast<E, Fi>(std::move(k), seq)));
    return std::tuple{std::move(gx), std::move(gscale), std::move(goffset)};
}

template<class = void>
inline std::string batch_norm_attrs(float epsilon, std::int64_t feature_index) {
    return "epsilon = " + trace::impl::scalar_literal(epsilon) +
           " : f32, feature_index = " + std::to_string(feature_index) + " : i64";
}

// Quantized operands: quant/float_ops.hpp (<xlet/quant.hpp>, in <xlet/xlet.hpp>) defines these,
// with the spec's dequantize / op / quantize and its rules on the types.
template<std::int64_t F, class Out, class OutMean, class OutVar, class X, class S, class O>
auto quant_batch_norm_training(X&& x, S&& scale, O&& offset, float epsilon);
template<std::int64_t F, class Out, class X, class S, class O, class M, class V>
auto quant_batch_norm_inference(X&& x, S&& scale, O&& offset, M&& mean, V&& variance, float epsilon);
template<std::int64_t F, class Out, class OutScale, class OutOffset, class X, class S, class M, class V, class G>
auto quant_batch_norm_grad(X&& x, S&& scale, M&& mean, V&& variance, G&& grad_output, float epsilon);

template<class... X>
inline constexpr bool bn_quantized = (is_quantized<element_of<X>> || ...);

// The result types a caller may name: quantized results of quantized operands only.
template<class X, class Out>
inline constexpr bool bn_result_of = std::is_void_v<Out> || std::is_same_v<Out, element_of<X>>;
template<class X, class... Out>
inline constexpr bool bn_results_ok = is_quantized<element_of<X>> || (bn_result_of<X, Out> && ...);
#define XLET_BN_RESULTS_ASSERT(OP, RULE, X, ...)                                                                       \
    static_assert(diag::got<detail::bn_results_ok<X, __VA_ARGS__>, detail::shown_t<X>, __VA_ARGS__>::value,            \
                  OP " [" RULE "]: the results of a floating operand have its element type (result types are "         \
                     "named for quantized operands)")

} // namespace detail

// BatchNormTraining(operand, scale, offset, epsilon, feature_index): (output, batch_mean,
// batch_var), the biased variance; output = scale (x - mean) / sqrt(var + epsilon) + offset.
// Quantized operands: Out, OutMean, OutVar are the results' quantized types (default: x's).
template<std::int64_t FeatureIndex, class Out = void, class OutMean = Out, class OutVar = OutMean, expression X,
         expression S, expression O>
auto batch_norm_training(X&& operand, S&& scale, O&& offset, float epsilon) {
    using Rules = detail::batch_norm_training_rules<FeatureIndex, X, S, O>;
    XLET_BN_RESULTS_ASSERT("xlet::batch_norm_training", "C2", X, Out, OutMean, OutVar);
    if constexpr (Rules::check() && detail::bn_results_ok<X, Out, OutMean, OutVar>) {
        if constexpr (detail::bn_quantized<X, S, O>)
            return detail::quant_batch_norm_training<FeatureIndex, Out, OutMean, OutVar>(
                std::forward<X>(operand), std::forward<S>(scale), std::forward<O>(offset), epsilon);
        else
            return trace::heavy(
                "stablehlo.batch_norm_training", [&] { return detail::batch_norm_attrs(epsilon, FeatureIndex); },
                [&] {
                    return detail::batch_norm_training_impl<FeatureIndex>(
                        std::forward<X>(operand), std::forward<S>(scale), std::forward<O>(offset), epsilon);
                },
                operand, scale, offset);
    }
}

// BatchNormInference(operand, scale, offset, mean, variance, epsilon, feature_index): a lazy
// expression scale (x - mean) / sqrt(variance + epsilon) + offset, computed as (x - mean) * a +
// offset with a = scale / sqrt(variance + epsilon) per feature. Quantized operands: Out is the
// result's quantized type (default: x's).
template<std::int64_t FeatureIndex, class Out = void, expression X, expression S, expression O, expression M,
         expression V>
auto batch_norm_inference(X&& operand, S&& scale, O&& offset, M&& mean, V&& variance, float epsilon) {
    using Rules = detail::batch_norm_inference_rules<FeatureIndex, X, S, O, M, V>;
    XLET_BN_RESULTS_ASSERT("xlet::batch_norm_inference", "C2", X, Out);
    if constexpr (Rules::check() && detail::bn_results_ok<X, Out>) {
        if constexpr (detail::bn_quantized<X, S, O, M, V>)
            return detail::quant_batch_norm_inference<FeatureIndex, Out>(
                std::forward<X>(operand), std::forward<S>(scale), std::forward<O>(offset), std::forward<M>(mean),
                std::forward<V>(variance), epsilon);
        else
            return detail::batch_norm_inference_impl<FeatureIndex>(std::forward<X>(operand), std::forward<S>(scale),
                                                                   std::forward<O>(offset), std::forward<M>(mean),
                                                                   std::forward<V>(variance), epsilon);
    }
}

// BatchNormGrad(operand, scale, mean, variance, grad_output, epsilon, feature_index):
// (grad_operand, grad_scale, grad_offset) by the spec's formulas. Quantized operands: Out,
// OutScale, OutOffset are the results' quantized types (default: x's).
template<std::int64_t FeatureIndex, class Out = void, class OutScale = Out, class OutOffset = OutScale, expression X,
         expression S, expression M, expression V, expression G>
auto batch_norm_grad(X&& operand, S&& scale, M&& mean, V&& variance, G&& grad_output, float epsilon) {
    using Rules = detail::batch_norm_grad_rules<FeatureIndex, X, S, M, V, G>;
    XLET_BN_RESULTS_ASSERT("xlet::batch_norm_grad", "C2", X, Out, OutScale, OutOffset);
    if constexpr (Rules::check() && detail::bn_results_ok<X, Out, OutScale, OutOffset>) {
        if constexpr (detail::bn_quantized<X, S, M, V, G>)
            return detail::quant_batch_norm_grad<FeatureIndex, Out, OutScale, OutOffset>(
                std::forward<X>(operand), std::forward<S>(scale), std::forward<M>(mean), std::forward<V>(variance),
                std::forward<G>(grad_output), epsilon);
        else
            return trace::heavy(
                "stablehlo.batch_norm_grad", [&] { return detail::batch_norm_attrs(epsilon, FeatureIndex); },
                [&] {
                    return detail::batch_norm_grad_impl<FeatureIndex>(std::forward<X>(operand), std::forward<S>(scale),
                                                                      std::forward<M>(mean), std::forward<V>(variance),
                                                                      std::forward<G>(grad_output), epsilon);
                },
                operand, scale, mean, variance, grad_output);
    }
}

#undef XLET_BN_RESULTS_ASSERT

} // namespace xlet
