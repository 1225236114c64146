// Element-wise benchmarks: xlet beside its peers (plain loops, Eigen's Tensor module, xtensor) in
// one executable, f32, at 1 and 2 threads. Every case reports the bytes its kernel must move
// (SetBytesProcessed), so GB/s compare directly across cases and against the STREAM-style triad.
//
// Names: BM_<case>/<impl>/threads:<t>/real_time, e.g. BM_add/xlet/threads:2/real_time. A script
// pairs rows by <case> and <t>. Results and the commands to reproduce them: docs/performance.md.
//
// Built twice (bench/CMakeLists.txt): elementwise_bench has every peer except xtensor's TBB build;
// elementwise_bench_xtensor_tbb (XLET_BENCH_XTENSOR_TBB_BUILD, XTENSOR_USE_TBB) has the xtensor_tbb
// peers plus xlet and the triad as in-process references, because XTENSOR_USE_TBB changes every
// xtensor assignment in the program.
//
// Small static shapes (1 thread, ns a call): BM_add4x4 (xlet, loop, Eigen Matrix4f, xtensor_fixed),
// BM_dot4x4, BM_mv4x4 (matrix x vector) and BM_sum4x4 (xlet, Eigen).
//
// Minimum time per benchmark defaults to 0.5 s (bench_common.hpp); override with
// --benchmark_min_time=<seconds>.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>

#include <xlet/xlet.hpp>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#if defined(XLET_BENCH_HAVE_EIGEN) && !defined(XLET_BENCH_XTENSOR_TBB_BUILD)
#define XLET_BENCH_EIGEN 1
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#if defined(XLET_BENCH_HAVE_XTENSOR)
#define XLET_BENCH_XTENSOR 1
#include <xtensor/xfixed.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#endif

#include "bench_common.hpp"

namespace xlet_bench { // named (not anonymous): the xtensor_tbb build leaves some cases unregistered

constexpr std::size_t n_flat = std::size_t{1} << 24; // 16 Mi floats = 64 MiB per array
constexpr std::size_t n_rows = 4096, n_cols = 4096;  // broadcast case: [4096,4096] + [4096]
constexpr std::size_t n_mat = n_rows * n_cols;
constexpr float triad_s = 1.5f;

// Bytes each kernel must move per evaluation (reads + writes of the arrays, no write-allocate).
constexpr std::int64_t bytes_add = 12 * static_cast<std::int64_t>(n_flat);   // a, b in; y out
constexpr std::int64_t bytes_fused = 16 * static_cast<std::int64_t>(n_flat); // a, b, c in; y out
constexpr std::int64_t bytes_bcast = 8 * static_cast<std::int64_t>(n_mat) + 4 * static_cast<std::int64_t>(n_cols);
constexpr std::int64_t bytes_triad = 12 * static_cast<std::int64_t>(n_flat); // b, c in; a out
constexpr std::int64_t bytes_4x4 = 3 * 16 * 4;                               // a, b in; y out

// ---- Data: deterministic, non-trivial, finite and normal (no denormals, no NaN) ------------------

// Operand k of every case: a, b in [0.5, 2), c in [-4, 4) (exp stays in [0.018, 55]).
inline float in_a(std::size_t i) { return gen(i, 1, 0.5f, 2.0f); }
inline float in_b(std::size_t i) { return gen(i, 2, 0.5f, 2.0f); }
inline float in_c(std::size_t i) { return gen(i, 3, -4.0f, 4.0f); }
inline float in_v(std::size_t i) { return gen(i, 4, -1.0f, 1.0f); }

// Reference values; max here is XLA's (NaN-propagating), but no input is NaN so any max agrees.
inline float ref_add(std::size_t i) { return in_a(i) + in_b(i); }
inline float ref_fused(std::size_t i) {
    float a = in_a(i), b = in_b(i), c = in_c(i);
    return a * b + std::exp(c) - std::max(a, c);
}
inline float ref_bcast(std::size_t i) { return in_a(i) + in_v(i % n_cols); }
inline float ref_triad(std::size_t i) { return in_b(i) + triad_s * in_c(i); }

// Spot-check a result so nothing can be optimised away and a wrong kernel cannot post a number.
template<class F>
void check(benchmark::State& st, const float* y, std::size_t n, F ref, float rel_tol = 0.0f) {
    for (std::size_t probe : {std::size_t{0}, std::size_t{1}, n / 3, n / 2 + 7, n - 1}) {
        const std::size_t i = std::min(probe, n - 1); // (n / 2 + 7 is past the end of an f32[4])
        float want = ref(i), got = y[i];
        if (!(std::fabs(got - want) <= rel_tol * std::fabs(want))) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "wrong result at %zu: got %.9g, want %.9g", i, double(got), double(want));
            st.SkipWithError(msg);
            return;
        }
    }
}
constexpr float fused_tol = 4e-6f; // exp implementations differ by an ulp or two

// Plain loops, run on [i0, i1); 2-thread versions split the range statically with TBB.
void loop_add(float* __restrict y, const float* __restrict a, const float* __restrict b, std::size_t i0,
              std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
        y[i] = a[i] + b[i];
}
void loop_fused(float* __restrict y, const float* __restrict a, const float* __restrict b, const float* __restrict c,
                std::size_t i0, std::size_t i1) {
    // std::exp does not vectorise without -ffast-math: this is the naive scalar-exp loop.
    for (std::size_t i = i0; i < i1; ++i)
        y[i] = a[i] * b[i] + std::exp(c[i]) - std::max(a[i], c[i]);
}
void loop_bcast(float* __restrict y, const float* __restrict m, const float* __restrict v, std::size_t r0,
                std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t j = 0; j < n_cols; ++j)
            y[r * n_cols + j] = m[r * n_cols + j] + v[j];
}
void loop_triad(float* __restrict a, const float* __restrict b, const float* __restrict c, float s, std::size_t i0,
                std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
        a[i] = b[i] + s * c[i];
}
// The triad with non-temporal stores: no read-for-ownership of the output, so it moves exactly the
// 12 B/element counted (a plain store also reads the line first: 16 B/element on the bus).
void loop_triad_nt(float* __restrict a, const float* __restrict b, const float* __restrict c, float s, std::size_t i0,
                   std::size_t i1) {
    std::size_t i = i0;
#if defined(__AVX__)
    for (; i < i1 && reinterpret_cast<std::uintptr_t>(a + i) % 32 != 0; ++i)
        a[i] = b[i] + s * c[i];
    const __m256 vs = _mm256_set1_ps(s);
    for (; i + 8 <= i1; i += 8)
        _mm256_stream_ps(a + i, _mm256_add_ps(_mm256_loadu_ps(b + i), _mm256_mul_ps(vs, _mm256_loadu_ps(c + i))));
    _mm_sfence();
#endif
    for (; i < i1; ++i)
        a[i] = b[i] + s * c[i];
}
struct loop_buffers {
    buffer<> y, a, b, c;
    explicit loop_buffers(std::size_t n, int operands)
        : y(make_buffer(n)), a(make_buffer(n)), b(operands > 1 ? make_buffer(n) : nullptr),
          c(operands > 2 ? make_buffer(n) : nullptr) {}
};

// ======================= y = a + b ===============================================================

void BM_add_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto y = std::make_unique<xlet::f32<n_flat>>();
    auto a = std::make_unique<xlet::f32<n_flat>>();
    auto b = std::make_unique<xlet::f32<n_flat>>();
    fill(a->data(), n_flat, in_a);
    fill(b->data(), n_flat, in_b);
    for (auto _ : st) {
        *y = *a + *b;
        benchmark::ClobberMemory();
    }
    check(st, y->data(), n_flat, ref_add);
    set_bytes(st, bytes_add);
}

void BM_add_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    loop_buffers d(n_flat, 2);
    fill(d.a.get(), n_flat, in_a);
    fill(d.b.get(), n_flat, in_b);
    for (auto _ : st) {
        if (threads == 1)
            loop_add(d.y.get(), d.a.get(), d.b.get(), 0, n_flat);
        else
            static_parallel(n_flat,
                            [&](std::size_t i0, std::size_t i1) { loop_add(d.y.get(), d.a.get(), d.b.get(), i0, i1); });
        benchmark::ClobberMemory();
    }
    check(st, d.y.get(), n_flat, ref_add);
    set_bytes(st, bytes_add);
}

#if XLET_BENCH_EIGEN
using etensor1 = Eigen::Tensor<float, 1, Eigen::RowMajor>;
using etensor2 = Eigen::Tensor<float, 2, Eigen::RowMajor>;

void BM_add_eigen(benchmark::State& st, int threads) {
    etensor1 y(static_cast<Eigen::Index>(n_flat)), a(static_cast<Eigen::Index>(n_flat)),
        b(static_cast<Eigen::Index>(n_flat));
    fill(y.data(), n_flat, [](std::size_t) { return 0.0f; });
    fill(a.data(), n_flat, in_a);
    fill(b.data(), n_flat, in_b);
    eigen_run(st, threads, [&](const auto& dev) { y.device(dev) = a + b; });
    check(st, y.data(), n_flat, ref_add);
    set_bytes(st, bytes_add);
}
#endif

#if XLET_BENCH_XTENSOR
using xtensor1 = xt::xtensor<float, 1>;
using xtensor2 = xt::xtensor<float, 2>;

// xt::noalias: without it xtensor assigns through a temporary.
void BM_add_xtensor(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    xtensor1 y = xt::zeros<float>({n_flat});
    xtensor1 a = xt::empty<float>({n_flat}), b = xt::empty<float>({n_flat});
    fill(a.data(), n_flat, in_a);
    fill(b.data(), n_flat, in_b);
    for (auto _ : st) {
        xt::noalias(y) = a + b;
        benchmark::ClobberMemory();
    }
    check(st, y.data(), n_flat, ref_add);
    set_bytes(st, bytes_add);
}
#endif

// ======================= y = a*b + exp(c) - max(a, c) ============================================

void BM_fused_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto y = std::make_unique<xlet::f32<n_flat>>();
    auto a = std::make_unique<xlet::f32<n_flat>>();
    auto b = std::make_unique<xlet::f32<n_flat>>();
    auto c = std::make_unique<xlet::f32<n_flat>>();
    fill(a->data(), n_flat, in_a);
    fill(b->data(), n_flat, in_b);
    fill(c->data(), n_flat, in_c);
    for (auto _ : st) {
        *y = *a * *b + xlet::exp(*c) - xlet::max(*a, *c); // XLA max: NaN-propagating, +0 > -0
        benchmark::ClobberMemory();
    }
    check(st, y->data(), n_flat, ref_fused, fused_tol);
    set_bytes(st, bytes_fused);
}

void BM_fused_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    loop_buffers d(n_flat, 3);
    fill(d.a.get(), n_flat, in_a);
    fill(d.b.get(), n_flat, in_b);
    fill(d.c.get(), n_flat, in_c);
    for (auto _ : st) {
        if (threads == 1)
            loop_fused(d.y.get(), d.a.get(), d.b.get(), d.c.get(), 0, n_flat);
        else
            static_parallel(n_flat, [&](std::size_t i0, std::size_t i1) {
                loop_fused(d.y.get(), d.a.get(), d.b.get(), d.c.get(), i0, i1);
            });
        benchmark::ClobberMemory();
    }
    check(st, d.y.get(), n_flat, ref_fused, fused_tol);
    set_bytes(st, bytes_fused);
}

#if XLET_BENCH_EIGEN
// cwiseMax<PropagateNaN>: the same NaN semantics as XLA's max (Eigen's default PropagateFast is not).
void BM_fused_eigen(benchmark::State& st, int threads) {
    etensor1 y(static_cast<Eigen::Index>(n_flat)), a(static_cast<Eigen::Index>(n_flat)),
        b(static_cast<Eigen::Index>(n_flat)), c(static_cast<Eigen::Index>(n_flat));
    fill(y.data(), n_flat, [](std::size_t) { return 0.0f; });
    fill(a.data(), n_flat, in_a);
    fill(b.data(), n_flat, in_b);
    fill(c.data(), n_flat, in_c);
    eigen_run(st, threads,
              [&](const auto& dev) { y.device(dev) = a * b + c.exp() - a.template cwiseMax<Eigen::PropagateNaN>(c); });
    check(st, y.data(), n_flat, ref_fused, fused_tol);
    set_bytes(st, bytes_fused);
}
#endif

#if XLET_BENCH_XTENSOR
// Two peers for max: xt::fmax is IEEE fmax (a NaN operand loses: fmax(NaN, 1) = 1), unlike XLA's
// max, which propagates NaN; xt::maximum maps to xsimd::max (x86 max_ps: returns the second
// operand when either is NaN), so neither matches XLA exactly. The inputs hold no NaN.
template<bool Fmax>
void BM_fused_xtensor(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    xtensor1 y = xt::zeros<float>({n_flat});
    xtensor1 a = xt::empty<float>({n_flat}), b = xt::empty<float>({n_flat}), c = xt::empty<float>({n_flat});
    fill(a.data(), n_flat, in_a);
    fill(b.data(), n_flat, in_b);
    fill(c.data(), n_flat, in_c);
    for (auto _ : st) {
        if constexpr (Fmax)
            xt::noalias(y) = a * b + xt::exp(c) - xt::fmax(a, c);
        else
            xt::noalias(y) = a * b + xt::exp(c) - xt::maximum(a, c);
        benchmark::ClobberMemory();
    }
    check(st, y.data(), n_flat, ref_fused, fused_tol);
    set_bytes(st, bytes_fused);
}
#endif

// ======================= [4096,4096] + [4096], broadcast_dimensions {1} ===========================

void BM_bcast_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto y = std::make_unique<xlet::f32<n_rows, n_cols>>();
    auto m = std::make_unique<xlet::f32<n_rows, n_cols>>();
    auto v = std::make_unique<xlet::f32<n_cols>>();
    fill(m->data(), n_mat, in_a);
    fill(v->data(), n_cols, in_v);
    for (auto _ : st) {
        *y = xlet::add(*m, *v, xlet::dims<1>);
        benchmark::ClobberMemory();
    }
    check(st, y->data(), n_mat, ref_bcast);
    set_bytes(st, bytes_bcast);
}

void BM_bcast_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    loop_buffers d(n_mat, 2); // a: the matrix, b: the vector (allocated n_mat, uses n_cols)
    fill(d.a.get(), n_mat, in_a);
    fill(d.b.get(), n_cols, in_v);
    for (auto _ : st) {
        if (threads == 1)
            loop_bcast(d.y.get(), d.a.get(), d.b.get(), 0, n_rows);
        else
            static_parallel(
                n_rows, [&](std::size_t r0, std::size_t r1) { loop_bcast(d.y.get(), d.a.get(), d.b.get(), r0, r1); });
        benchmark::ClobberMemory();
    }
    check(st, d.y.get(), n_mat, ref_bcast);
    set_bytes(st, bytes_bcast);
}

#if XLET_BENCH_EIGEN
void BM_bcast_eigen(benchmark::State& st, int threads) {
    const auto R = static_cast<Eigen::Index>(n_rows), C = static_cast<Eigen::Index>(n_cols);
    etensor2 y(R, C), m(R, C);
    etensor1 v(C);
    fill(y.data(), n_mat, [](std::size_t) { return 0.0f; });
    fill(m.data(), n_mat, in_a);
    fill(v.data(), n_cols, in_v);
    const Eigen::array<Eigen::Index, 2> shape{1, C}, times{R, 1};
    eigen_run(st, threads, [&](const auto& dev) { y.device(dev) = m + v.reshape(shape).broadcast(times); });
    check(st, y.data(), n_mat, ref_bcast);
    set_bytes(st, bytes_bcast);
}
#endif

#if XLET_BENCH_XTENSOR
void BM_bcast_xtensor(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    xtensor2 y = xt::zeros<float>({n_rows, n_cols});
    xtensor2 m = xt::empty<float>({n_rows, n_cols});
    xtensor1 v = xt::empty<float>({n_cols});
    fill(m.data(), n_mat, in_a);
    fill(v.data(), n_cols, in_v);
    for (auto _ : st) {
        xt::noalias(y) = m + v; // numpy broadcasting: v along the last dimension
        benchmark::ClobberMemory();
    }
    check(st, y.data(), n_mat, ref_bcast);
    set_bytes(st, bytes_bcast);
}
#endif

// ======================= STREAM triad a = b + s*c (the bandwidth limit) =========================

template<bool NT>
void BM_triad_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    loop_buffers d(n_flat, 3); // y: a (output), a: b, b: c
    fill(d.a.get(), n_flat, in_b);
    fill(d.b.get(), n_flat, in_c);
    constexpr auto kernel = NT ? loop_triad_nt : loop_triad;
    for (auto _ : st) {
        if (threads == 1)
            kernel(d.y.get(), d.a.get(), d.b.get(), triad_s, 0, n_flat);
        else
            static_parallel(n_flat, [&](std::size_t i0, std::size_t i1) {
                kernel(d.y.get(), d.a.get(), d.b.get(), triad_s, i0, i1);
            });
        benchmark::ClobberMemory();
    }
    check(st, d.y.get(), n_flat, ref_triad);
    set_bytes(st, bytes_triad);
}

void BM_triad_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = std::make_unique<xlet::f32<n_flat>>();
    auto b = std::make_unique<xlet::f32<n_flat>>();
    auto c = std::make_unique<xlet::f32<n_flat>>();
    fill(b->data(), n_flat, in_b);
    fill(c->data(), n_flat, in_c);
    for (auto _ : st) {
        *a = *b + triad_s * *c;
        benchmark::ClobberMemory();
    }
    check(st, a->data(), n_flat, ref_triad);
    set_bytes(st, bytes_triad);
}

// ======================= 4x4 static add (latency of a tiny op) ===================================

// The timed loop of every small case: a and b are "modified" (DoNotOptimize) before and y "read"
// after every iteration, so each iteration loads its inputs and stores y; set(y, a, b) is the
// statement measured.
template<class A, class B, class Y, class Set>
void small_loop(benchmark::State& st, A& a, B& b, Y& y, Set set) {
    for (auto _ : st) {
        benchmark::DoNotOptimize(a);
        benchmark::DoNotOptimize(b);
        set(y, a, b);
        benchmark::DoNotOptimize(y);
        benchmark::ClobberMemory();
    }
}

// y = op(a, b) of two xlet f32[4,4] in the timed loop (the add and the product); returns y.
template<class Op>
xlet::f32<4, 4> xlet_4x4(benchmark::State& st, Op op) {
    xlet::f32<4, 4> a, b, y;
    fill(a.data(), 16, in_a);
    fill(b.data(), 16, in_b);
    small_loop(st, a, b, y, [&](auto& r, const auto& l, const auto& m) { r = op(l, m); });
    return y;
}

void BM_add4x4_xlet(benchmark::State& st, int) {
    const auto y = xlet_4x4(st, [](const auto& a, const auto& b) { return a + b; });
    check(st, y.data(), 16, ref_add);
    set_bytes(st, bytes_4x4);
}

void BM_add4x4_loop(benchmark::State& st, int) {
    alignas(64) float a[16], b[16], y[16];
    fill(a, 16, in_a);
    fill(b, 16, in_b);
    small_loop(st, a, b, y, [](auto& r, const auto& l, const auto& m) {
        for (int i = 0; i < 16; ++i)
            r[i] = l[i] + m[i];
    });
    check(st, y, 16, ref_add);
    set_bytes(st, bytes_4x4);
}

#if XLET_BENCH_EIGEN
void BM_add4x4_eigen(benchmark::State& st, int) {
    Eigen::Matrix4f a, b, y;
    fill(a.data(), 16, in_a); // element order is irrelevant for an element-wise add
    fill(b.data(), 16, in_b);
    small_loop(st, a, b, y, [](auto& r, const auto& l, const auto& m) { r = l + m; });
    check(st, y.data(), 16, ref_add);
    set_bytes(st, bytes_4x4);
}
#endif

// Small static products and reductions beside Eigen's fixed-size Matrix4f (the code a user of
// small static shapes compares): y = dot(a, b) and s = sum of a 4x4. Reference: plain loops.
inline float ref_dot4x4(std::size_t i) {
    float s = 0;
    for (std::size_t k = 0; k < 4; ++k)
        s += in_a(i / 4 * 4 + k) * in_b(k * 4 + i % 4);
    return s;
}
inline float ref_mv4x4(std::size_t i) {
    float s = 0;
    for (std::size_t k = 0; k < 4; ++k)
        s += in_a(i * 4 + k) * in_b(k);
    return s;
}
inline float ref_sum4x4() {
    float s = 0;
    for (std::size_t k = 0; k < 16; ++k)
        s += in_a(k);
    return s;
}
inline void check_sum4x4(benchmark::State& st, float got) {
    if (!(std::fabs(got - ref_sum4x4()) <= 1e-6f * std::fabs(ref_sum4x4()))) st.SkipWithError("wrong sum");
}
constexpr float small_tol = 1e-6f;

void BM_dot4x4_xlet(benchmark::State& st, int) {
    const auto y = xlet_4x4(st, [](const auto& a, const auto& b) { return xlet::dot(a, b); });
    check(st, y.data(), 16, ref_dot4x4, small_tol);
}
void BM_mv4x4_xlet(benchmark::State& st, int) {
    xlet::f32<4, 4> a;
    xlet::f32<4> x, y;
    fill(a.data(), 16, in_a);
    fill(x.data(), 4, in_b);
    small_loop(st, a, x, y, [](auto& r, const auto& l, const auto& m) { r = xlet::dot(l, m); });
    check(st, y.data(), 4, ref_mv4x4, small_tol);
}
void BM_sum4x4_xlet(benchmark::State& st, int) {
    xlet::f32<4, 4> a;
    xlet::f32<> s;
    fill(a.data(), 16, in_a);
    for (auto _ : st) {
        benchmark::DoNotOptimize(a);
        s = xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<0, 1>);
        benchmark::DoNotOptimize(s);
        benchmark::ClobberMemory();
    }
    check_sum4x4(st, s());
}
#if XLET_BENCH_EIGEN
void BM_dot4x4_eigen(benchmark::State& st, int) {
    Eigen::Matrix<float, 4, 4, Eigen::RowMajor> a, b, y;
    fill(a.data(), 16, in_a);
    fill(b.data(), 16, in_b);
    small_loop(st, a, b, y, [](auto& r, const auto& l, const auto& m) { r.noalias() = l * m; });
    check(st, y.data(), 16, ref_dot4x4, small_tol);
}
void BM_mv4x4_eigen(benchmark::State& st, int) {
    Eigen::Matrix<float, 4, 4, Eigen::RowMajor> a;
    Eigen::Vector4f x, y;
    fill(a.data(), 16, in_a);
    fill(x.data(), 4, in_b);
    small_loop(st, a, x, y, [](auto& r, const auto& l, const auto& m) { r.noalias() = l * m; });
    check(st, y.data(), 4, ref_mv4x4, small_tol);
}
void BM_sum4x4_eigen(benchmark::State& st, int) {
    Eigen::Matrix4f a;
    float s = 0;
    fill(a.data(), 16, in_a);
    for (auto _ : st) {
        benchmark::DoNotOptimize(a);
        s = a.sum();
        benchmark::DoNotOptimize(s);
        benchmark::ClobberMemory();
    }
    check_sum4x4(st, s);
}
#endif

#if XLET_BENCH_XTENSOR
void BM_add4x4_xtensor(benchmark::State& st, int) {
    xt::xtensor_fixed<float, xt::xshape<4, 4>> a, b, y;
    fill(a.data(), 16, in_a);
    fill(b.data(), 16, in_b);
    small_loop(st, a, b, y, [](auto& r, const auto& l, const auto& m) { xt::noalias(r) = l + m; });
    check(st, y.data(), 16, ref_add);
    set_bytes(st, bytes_4x4);
}
#endif

// ======================= fresh result vs assignment ==============================================

// What users write, `auto y = eval(a + b)` (a fresh array per call), paired in one timed loop with
// the assignment into an array that exists already (`y = a + b`), from 64 KiB to 64 MiB per array.
// ratio = assignment time / fresh time: 1.0 means a fresh result costs nothing extra.
template<std::size_t N>
void BM_fresh_add(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto y = std::make_unique<xlet::f32<N>>();
    auto a = std::make_unique<xlet::f32<N>>();
    auto b = std::make_unique<xlet::f32<N>>();
    fill(a->data(), N, in_a);
    fill(b->data(), N, in_b);
    run_paired(
        st, 3 * 4 * static_cast<std::int64_t>(N),
        [&] {
            auto r = xlet::eval(*a + *b);
            benchmark::DoNotOptimize(r.data());
        },
        [&] { *y = *a + *b; });
}

// ======================= registration ============================================================

#if !defined(XLET_BENCH_XTENSOR_TBB_BUILD)
void register_all() {
    // Each case: xlet at 1 and 2 threads, then its peers; the triad last as the bandwidth limit.
    for (int t : {1, 2}) {
        reg("BM_fresh_add_16KiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 12>, t);
        reg("BM_fresh_add_64KiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 14>, t);
        reg("BM_fresh_add_256KiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 16>, t);
        reg("BM_fresh_add_1MiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 18>, t);
        reg("BM_fresh_add_4MiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 20>, t);
        reg("BM_fresh_add_16MiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 22>, t);
        reg("BM_fresh_add_64MiB/paired_with_assign", BM_fresh_add<std::size_t{1} << 24>, t);
    }
    reg("BM_add/xlet", BM_add_xlet, 1);
    reg("BM_add/xlet", BM_add_xlet, 2);
    reg("BM_add/loop", BM_add_loop, 1);
    reg("BM_add/loop_tbb", BM_add_loop, 2);
#if XLET_BENCH_EIGEN
    reg("BM_add/eigen", BM_add_eigen, 1, 0);
    reg("BM_add/eigen_pool", BM_add_eigen, 1);
    reg("BM_add/eigen_pool", BM_add_eigen, 2);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_add/xtensor", BM_add_xtensor, 1);
#endif

    reg("BM_fused/xlet", BM_fused_xlet, 1);
    reg("BM_fused/xlet", BM_fused_xlet, 2);
    reg("BM_fused/loop", BM_fused_loop, 1);
    reg("BM_fused/loop_tbb", BM_fused_loop, 2);
#if XLET_BENCH_EIGEN
    reg("BM_fused/eigen", BM_fused_eigen, 1, 0);
    reg("BM_fused/eigen_pool", BM_fused_eigen, 1);
    reg("BM_fused/eigen_pool", BM_fused_eigen, 2);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_fused/xtensor_fmax", BM_fused_xtensor<true>, 1);
    reg("BM_fused/xtensor_maximum", BM_fused_xtensor<false>, 1);
#endif

    reg("BM_bcast/xlet", BM_bcast_xlet, 1);
    reg("BM_bcast/xlet", BM_bcast_xlet, 2);
    reg("BM_bcast/loop", BM_bcast_loop, 1);
    reg("BM_bcast/loop_tbb", BM_bcast_loop, 2);
#if XLET_BENCH_EIGEN
    reg("BM_bcast/eigen", BM_bcast_eigen, 1, 0);
    reg("BM_bcast/eigen_pool", BM_bcast_eigen, 1);
    reg("BM_bcast/eigen_pool", BM_bcast_eigen, 2);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_bcast/xtensor", BM_bcast_xtensor, 1);
#endif

    reg("BM_add4x4/xlet", BM_add4x4_xlet, 1, 1, benchmark::kNanosecond);
    reg("BM_add4x4/loop", BM_add4x4_loop, 1, 1, benchmark::kNanosecond);
#if XLET_BENCH_EIGEN
    reg("BM_add4x4/eigen", BM_add4x4_eigen, 1, 1, benchmark::kNanosecond);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_add4x4/xtensor", BM_add4x4_xtensor, 1, 1, benchmark::kNanosecond);
#endif
    reg("BM_dot4x4/xlet", BM_dot4x4_xlet, 1, 1, benchmark::kNanosecond);
    reg("BM_mv4x4/xlet", BM_mv4x4_xlet, 1, 1, benchmark::kNanosecond);
    reg("BM_sum4x4/xlet", BM_sum4x4_xlet, 1, 1, benchmark::kNanosecond);
#if XLET_BENCH_EIGEN
    reg("BM_dot4x4/eigen", BM_dot4x4_eigen, 1, 1, benchmark::kNanosecond);
    reg("BM_mv4x4/eigen", BM_mv4x4_eigen, 1, 1, benchmark::kNanosecond);
    reg("BM_sum4x4/eigen", BM_sum4x4_eigen, 1, 1, benchmark::kNanosecond);
#endif

    reg("BM_triad/loop", BM_triad_loop<false>, 1);
    reg("BM_triad/loop_tbb", BM_triad_loop<false>, 2);
    reg("BM_triad/loop_nt", BM_triad_loop<true>, 1);
    reg("BM_triad/loop_nt_tbb", BM_triad_loop<true>, 2);
    reg("BM_triad/xlet", BM_triad_xlet, 1);
    reg("BM_triad/xlet", BM_triad_xlet, 2);
}
#else
// xtensor's TBB build: its peers at 1 and 2 threads, with xlet and the triad for reference. (No
// 4x4 case: XTENSOR_TBB_THRESHOLD defaults to 0, so even a 4x4 add would go through parallel_for.)
void register_all() {
    for (int t : {1, 2}) {
        reg("BM_add/xlet", BM_add_xlet, t);
        reg("BM_add/xtensor_tbb", BM_add_xtensor, t);
    }
    for (int t : {1, 2}) {
        reg("BM_fused/xlet", BM_fused_xlet, t);
        reg("BM_fused/xtensor_tbb_fmax", BM_fused_xtensor<true>, t);
        reg("BM_fused/xtensor_tbb_maximum", BM_fused_xtensor<false>, t);
    }
    for (int t : {1, 2}) {
        reg("BM_bcast/xlet", BM_bcast_xlet, t);
        reg("BM_bcast/xtensor_tbb", BM_bcast_xtensor, t);
    }
    reg("BM_triad/loop", BM_triad_loop<false>, 1);
    reg("BM_triad/loop_tbb", BM_triad_loop<false>, 2);
    reg("BM_triad/loop_nt", BM_triad_loop<true>, 1);
    reg("BM_triad/loop_nt_tbb", BM_triad_loop<true>, 2);
}
#endif

} // namespace xlet_bench

using xlet_bench::register_all;

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, register_all); }
