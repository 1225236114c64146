// Linear-algebra benchmarks (issue #5): xlet's cholesky and triangular_solve beside OpenBLAS's
// LAPACK spotrf_ and cblas_strsm in one executable, f32, GFLOP/s in the counter "FLOP/s".
//   BM_cholesky_1024   f32 [1024,1024] SPD, lower factor (n^3 / 3 flops). OpenBLAS: spotrf_ with
//                      uplo 'U' on the row-major data, which is the same lower triangle
//                      (column-major upper = row-major lower).
//   BM_trsm_1024       f32 a [1024,1024] lower, b [1024,1024], left side, no transpose, non-unit
//                      diagonal (m^2 n flops). OpenBLAS: cblas_strsm row-major, same arguments.
// xlet returns a new tensor (its time includes allocating it and copying the input into it, as
// the op is out of place); the peers work in place, so each of their iterations first copies the
// input into the work buffer (a memcpy of 4 MiB). Threads: TBB's global_control for xlet,
// openblas_set_num_threads for OpenBLAS. Results and the command: docs/performance.md.
#include <cstdint>
#include <cstring>
#include <memory>

#include <xlet/xlet.hpp>

#if defined(XLET_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
extern "C" void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
#endif

#include "bench_common.hpp"

namespace xlet_bench {
namespace {

constexpr std::size_t N = 1024;

struct linalg_data {
    std::unique_ptr<xlet::f32<N, N>> spd = std::make_unique<xlet::f32<N, N>>();
    std::unique_ptr<xlet::f32<N, N>> tri = std::make_unique<xlet::f32<N, N>>();
    std::unique_ptr<xlet::f32<N, N>> rhs = std::make_unique<xlet::f32<N, N>>();
    linalg_data() {
        // spd = m m^T / n + I (well conditioned); tri: diagonal in [1.5, 2.5], the rest in
        // [-1, 1] / n (only the lower triangle is read); rhs in [-1, 1].
        auto m = std::make_unique<xlet::f32<N, N>>();
        fill(m->data(), N * N, [](std::size_t i) { return gen(i, 1, -1.0f, 1.0f); });
        *spd = xlet::dot_general<xlet::dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}>(*m, *m);
        for (std::size_t i = 0; i < N; ++i)
            (*spd)(i, i) += static_cast<float>(N);
        fill(tri->data(), N * N, [](std::size_t i) { return gen(i, 2, -1.0f, 1.0f) / static_cast<float>(N); });
        for (std::size_t i = 0; i < N; ++i)
            (*tri)(i, i) = 1.5f + gen(i, 3, 0.0f, 1.0f);
        fill(rhs->data(), N * N, [](std::size_t i) { return gen(i, 4, -1.0f, 1.0f); });
    }
};
linalg_data& data() {
    static linalg_data d;
    return d;
}

void set_flops(benchmark::State& st, double per_iteration) {
    st.counters["FLOP/s"] =
        benchmark::Counter(per_iteration * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}
constexpr double cholesky_flops = double(N) * N * N / 3.0;
constexpr double trsm_flops = double(N) * N * N;

void BM_cholesky_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = data();
    for (auto _ : st) {
        auto l = xlet::cholesky<true>(*d.spd);
        benchmark::DoNotOptimize(l.data());
    }
    set_flops(st, cholesky_flops);
}

void BM_trsm_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = data();
    for (auto _ : st) {
        auto x = xlet::triangular_solve<true, true, false, xlet::transpose_type::no_transpose>(*d.tri, *d.rhs);
        benchmark::DoNotOptimize(x.data());
    }
    set_flops(st, trsm_flops);
}

#if defined(XLET_BENCH_HAVE_OPENBLAS)
void BM_cholesky_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = data();
    auto w = make_buffer<float>(N * N);
    const int n = static_cast<int>(N);
    int info = 0;
    for (auto _ : st) {
        std::memcpy(w.get(), d.spd->data(), N * N * sizeof(float));
        spotrf_("U", &n, w.get(), &n, &info);
        benchmark::DoNotOptimize(w.get());
    }
    if (info != 0) st.SkipWithError("spotrf_ failed");
    set_flops(st, cholesky_flops);
}

void BM_trsm_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = data();
    auto w = make_buffer<float>(N * N);
    const int n = static_cast<int>(N);
    for (auto _ : st) {
        std::memcpy(w.get(), d.rhs->data(), N * N * sizeof(float));
        cblas_strsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0f, d.tri->data(), n,
                    w.get(), n);
        benchmark::DoNotOptimize(w.get());
    }
    set_flops(st, trsm_flops);
}
#endif

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_cholesky_1024/xlet", BM_cholesky_xlet, t);
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_cholesky_1024/openblas", BM_cholesky_openblas, t);
#endif
    }
    for (int t : {1, 2}) {
        reg("BM_trsm_1024/xlet", BM_trsm_xlet, t);
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_trsm_1024/openblas", BM_trsm_openblas, t);
#endif
    }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
