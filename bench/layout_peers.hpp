// What layout_bench.cpp's cases share, so that the file reads as its list of cases: the peers'
// headers (Eigen's Tensor module, xtensor) and types, the shapes, the input data, operands made and
// filled outside the timed loops, the plain-loop kernels (split memcpy, row gather, scatter-add) and
// the checks of every result against its definition.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#if defined(XLET_BENCH_HAVE_EIGEN)
#define XLET_BENCH_EIGEN 1
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#if defined(XLET_BENCH_HAVE_XTENSOR)
#define XLET_BENCH_XTENSOR 1
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#endif

#include "bench_common.hpp"

namespace xlet_bench {
// Unnamed, as in the benchmark file that includes this header (its only includer): the same linkage,
// so the compiler sees the same program as when all of it was in that file.
namespace {

// ---- Shapes -----------------------------------------------------------------------------------

constexpr std::size_t n_t = 4096; // transpose and fused cases: [4096,4096]
constexpr std::size_t n_tt = n_t * n_t;
constexpr std::size_t g_rows = 65536; // gather/scatter table [65536,64]
constexpr std::size_t g_cols = 64;
constexpr std::size_t g_n = std::size_t{1} << 20; // 1 Mi rows gathered / scattered
constexpr std::size_t p_n = 2048;                 // pad and concatenate operands: [2048,2048]
constexpr std::size_t p_lo = 8, p_hi = 8;         // edge padding on both dimensions
constexpr std::size_t p_out = p_n + p_lo + p_hi;
constexpr float pad_value = -1.0f;

// ---- Data and checks ---------------------------------------------------------------------------

inline float in_a(std::size_t i) { return gen(i, 11, -4.0f, 4.0f); } // exp stays in [0.018, 55]
inline float in_b(std::size_t i) { return gen(i, 12, 0.5f, 2.0f); }
inline std::int32_t in_idx(std::size_t i) { return static_cast<std::int32_t>(mix(i, 13) % g_rows); }

// The whole result against its definition; a wrong kernel stops the run instead of posting a number.
template<class Got, class Want>
void verify(const char* what, std::size_t n, Got got, Want want, float rel_tol = 0.0f) {
    for (std::size_t i = 0; i < n; ++i) {
        float g = got(i), w = want(i);
        if (!(g == w || std::fabs(g - w) <= rel_tol * std::fabs(w))) {
            std::fprintf(stderr, "layout_bench: %s: wrong result at flat index %zu: got %.9g, want %.9g\n", what, i,
                         double(g), double(w));
            std::abort();
        }
    }
}
constexpr float exp_tol = 4e-6f; // exp implementations differ by an ulp or two

// Transposed element of the [n_t,n_t] result: y[i][j] = a[j][i].
inline std::size_t tr(std::size_t i) { return (i % n_t) * n_t + i / n_t; }
template<class P>
void verify_transpose(const char* what, const P* y, const float* a) {
    verify(
        what, n_tt, [&](std::size_t i) { return y[i]; }, [&](std::size_t i) { return a[tr(i)]; });
}
template<class P>
void verify_fused(const char* what, const P* y, const float* a, const float* b) {
    verify(
        what, n_tt, [&](std::size_t i) { return y[i]; }, [&](std::size_t i) { return std::exp(a[tr(i)]) + b[i]; },
        exp_tol);
}

// ---- Plain loops: the peers of every case, and the hand-written references -------------------

// memcpy of `bytes`, split in equal parts over the threads TBB allows when threads > 1.
void copy_bytes(void* dst, const void* src, std::size_t bytes, int threads) {
    if (threads == 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    constexpr std::size_t line = 64;
    static_parallel(bytes / line, [&](std::size_t l0, std::size_t l1) {
        std::size_t end = l1 == bytes / line ? bytes : l1 * line;
        std::memcpy(static_cast<char*>(dst) + l0 * line, static_cast<const char*>(src) + l0 * line, end - l0 * line);
    });
}
// A range [0, n) run whole (1 thread) or split statically (2 threads).
template<class F>
void split(int threads, std::size_t n, F f) {
    if (threads == 1)
        f(std::size_t{0}, n);
    else
        static_parallel(n, f);
}

void gather_rows(float* __restrict out, const float* __restrict table, const std::int32_t* __restrict idx,
                 std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r)
        std::memcpy(out + r * g_cols, table + static_cast<std::size_t>(idx[r]) * g_cols, g_cols * sizeof(float));
}

void scatter_add_rows(float* __restrict out, const float* __restrict up, const std::int32_t* __restrict idx,
                      std::size_t n) {
    for (std::size_t r = 0; r < n; ++r) {
        auto k = idx[r];
        if (k < 0 || static_cast<std::size_t>(k) >= g_rows) continue; // XLA skips a window out of bounds
        float* o = out + static_cast<std::size_t>(k) * g_cols;
        const float* u = up + r * g_cols;
        for (std::size_t j = 0; j < g_cols; ++j)
            o[j] += u[j];
    }
}

// ---- Checks of the gather, scatter, pad and concatenate results ------------------------------

void verify_gather(const char* what, const float* out, const float* table, const std::int32_t* idx) {
    verify(
        what, g_n * g_cols, [&](std::size_t i) { return out[i]; },
        [&](std::size_t i) { return table[static_cast<std::size_t>(idx[i / g_cols]) * g_cols + i % g_cols]; });
}

// The result the hand loop computes, made once and shared by every scatter benchmark's check.
const float* scatter_reference(const float* table, const float* up, const std::int32_t* idx) {
    static const buffer<> ref = [&] {
        auto r = make_buffer(g_rows * g_cols);
        std::memcpy(r.get(), table, g_rows * g_cols * sizeof(float));
        scatter_add_rows(r.get(), up, idx, g_n);
        return r;
    }();
    return ref.get();
}
template<class P>
void verify_scatter(const char* what, const P* out, const float* table, const float* up, const std::int32_t* idx) {
    const float* ref = scatter_reference(table, up, idx);
    verify(
        what, g_rows * g_cols, [&](std::size_t i) { return out[i]; }, [&](std::size_t i) { return ref[i]; });
}
inline float in_up(std::size_t i) { return gen(i, 14, -1.0f, 1.0f); }

void verify_pad(const char* what, const float* y, const float* a) {
    verify(
        what, p_out * p_out, [&](std::size_t i) { return y[i]; },
        [&](std::size_t i) {
            std::size_t r = i / p_out, c = i % p_out;
            bool inside = r >= p_lo && r < p_lo + p_n && c >= p_lo && c < p_lo + p_n;
            return inside ? a[(r - p_lo) * p_n + (c - p_lo)] : pad_value;
        });
}

template<int Dim>
void verify_concat(const char* what, const float* y, const float* a, const float* b) {
    verify(
        what, 2 * p_n * p_n, [&](std::size_t i) { return y[i]; },
        [&](std::size_t i) {
            if constexpr (Dim == 0) return i < p_n * p_n ? a[i] : b[i - p_n * p_n];
            std::size_t r = i / (2 * p_n), c = i % (2 * p_n);
            return c < p_n ? a[r * p_n + c] : b[r * p_n + c - p_n];
        });
}

// ---- Operands, made and filled outside the timed loops -----------------------------------------

// An xlet tensor on the heap (the large ones do not fit a stack), filled with f.
template<class T, class F>
std::unique_ptr<T> filled(F f) {
    auto t = std::make_unique<T>();
    fill(t->data(), t->size(), f);
    return t;
}
// An aligned, zero-filled buffer of n elements (make_buffer), then filled with f.
template<class T = float, class F>
buffer<T> filled_buffer(std::size_t n, F f) {
    auto b = make_buffer<T>(n);
    fill(b.get(), n, f);
    return b;
}

#if XLET_BENCH_EIGEN
using etensor2 = Eigen::Tensor<float, 2, Eigen::RowMajor>;
using ematrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr auto EN = static_cast<Eigen::Index>(n_t);
const Eigen::array<int, 2> swap_dims{1, 0};

// [n_t, n_t] operands of Eigen's Tensor module and Matrix: filled with f, or zeros.
template<class E = etensor2, class F>
E eigen_filled(F f) {
    E a(EN, EN);
    fill(a.data(), n_tt, f);
    return a;
}
template<class E = etensor2>
E eigen_zeros() {
    E y(EN, EN);
    y.setZero();
    return y;
}
#endif

#if XLET_BENCH_XTENSOR
using xtensor2 = xt::xtensor<float, 2>;

// [n_t, n_t] xtensor operands filled with f.
template<class F>
xtensor2 xt_filled(F f) {
    xtensor2 a = xt::empty<float>({n_t, n_t});
    fill(a.data(), n_tt, f);
    return a;
}
#endif

} // namespace
} // namespace xlet_bench
