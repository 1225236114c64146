// Dot benchmarks (issue #5): xlet's dot / dot_general beside OpenBLAS (cblas_sgemm / cblas_dgemm)
// and Eigen in one executable, row-major operands, GFLOP/s (2 m n k per product) in the counter
// "FLOP/s".
//   BM_sgemm_<n>     f32 [n,n] x [n,n], n = 256, 1024, 2048, 1 and 2 threads
//   BM_dgemm_1024    f64 [1024,1024] x [1024,1024]
//   BM_sgemm_1024_tn / _nt   f32 a^T b and a b^T through the dimension numbers (contracting
//                    {0}/{0} and {1}/{1}): transposed operands are strides in the packing
//   BM_bmm           f32 [64,128,128] x [64,128,128] batch matmul (Eigen: one product per batch,
//                    the batches split over the threads with a static TBB loop at 2 threads)
//   BM_static_<n>    f32 [n,n] x [n,n], n = 4, 16, static shapes (Eigen: fixed-size matrices)
// xlet returns a new tensor per product (its time includes allocating it); the peers write into
// an existing matrix (Eigen: c.noalias() = a * b). Threads: TBB's global_control for xlet,
// Eigen::setNbThreads (OpenMP) for Eigen, openblas_set_num_threads for OpenBLAS. Results and the
// command: docs/performance.md.
#include <cstdint>
#include <memory>

#include <xlet/xlet.hpp>

#if defined(XLET_BENCH_HAVE_EIGEN)
#include <Eigen/Core>
#endif
#if defined(XLET_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif

#include "bench_common.hpp"

namespace xlet_bench {
namespace {

template<class T, std::size_t... D>
std::unique_ptr<xlet::tensor<T, D...>> make_input(std::uint32_t seed) {
    auto t = std::make_unique<xlet::tensor<T, D...>>();
    fill(t->data(), t->size, [&](std::size_t i) { return static_cast<T>(gen(i, seed, -1.0f, 1.0f)); });
    return t;
}

template<class T, std::size_t N>
struct square_data {
    std::unique_ptr<xlet::tensor<T, N, N>> a = make_input<T, N, N>(1), b = make_input<T, N, N>(2);
};
template<class T, std::size_t N>
square_data<T, N>& square() {
    static square_data<T, N> d;
    return d;
}

void set_flops(benchmark::State& st, double per_iteration) {
    st.counters["FLOP/s"] =
        benchmark::Counter(per_iteration * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

// ---- square products ------------------------------------------------------------------------------

template<class T, std::size_t N>
void BM_gemm_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = square<T, N>();
    for (auto _ : st) {
        auto c = xlet::dot(*d.a, *d.b);
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, 2.0 * N * N * N);
}

#if defined(XLET_BENCH_HAVE_OPENBLAS)
template<class T, std::size_t N>
void BM_gemm_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = square<T, N>();
    auto c = make_buffer<T>(N * N);
    const int n = static_cast<int>(N);
    for (auto _ : st) {
        if constexpr (std::is_same_v<T, float>)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, d.a->data(), n, d.b->data(), n, 0.0f,
                        c.get(), n);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, d.a->data(), n, d.b->data(), n, 0.0,
                        c.get(), n);
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, 2.0 * N * N * N);
}
#endif

#if defined(XLET_BENCH_HAVE_EIGEN)
template<class T>
using emat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template<class T, std::size_t N>
void BM_gemm_eigen(benchmark::State& st, int threads) {
    Eigen::setNbThreads(threads);
    auto& d = square<T, N>();
    const Eigen::Index n = static_cast<Eigen::Index>(N);
    Eigen::Map<const emat<T>> a(d.a->data(), n, n), b(d.b->data(), n, n);
    emat<T> c(n, n);
    for (auto _ : st) {
        c.noalias() = a * b;
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, 2.0 * N * N * N);
}
#endif

// Transposed operands: TransA = lhs contracting dimension 0, TransB = rhs contracting dimension 1.
template<bool TransA, bool TransB>
void BM_trans_xlet(benchmark::State& st, int threads) {
    constexpr std::size_t N = 1024;
    tbb_threads t(threads);
    auto& d = square<float, N>();
    constexpr xlet::dot_dims D{.lhs_contracting = {TransA ? 0 : 1}, .rhs_contracting = {TransB ? 1 : 0}};
    for (auto _ : st) {
        auto c = xlet::dot_general<D>(*d.a, *d.b);
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, 2.0 * N * N * N);
}
#if defined(XLET_BENCH_HAVE_OPENBLAS)
template<bool TransA, bool TransB>
void BM_trans_openblas(benchmark::State& st, int threads) {
    constexpr int n = 1024;
    openblas_set_num_threads(threads);
    auto& d = square<float, 1024>();
    auto c = make_buffer<float>(std::size_t{n} * n);
    for (auto _ : st) {
        cblas_sgemm(CblasRowMajor, TransA ? CblasTrans : CblasNoTrans, TransB ? CblasTrans : CblasNoTrans, n, n, n,
                    1.0f, d.a->data(), n, d.b->data(), n, 0.0f, c.get(), n);
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, 2.0 * n * n * n);
}
#endif

// ---- batch matmul -----------------------------------------------------------------------------------

constexpr std::size_t bb = 64, bm = 128;
struct bmm_data {
    std::unique_ptr<xlet::f32<bb, bm, bm>> a = make_input<float, bb, bm, bm>(3), b = make_input<float, bb, bm, bm>(4);
};
bmm_data& bmm() {
    static bmm_data d;
    return d;
}
constexpr double bmm_flops = 2.0 * bb * bm * bm * bm;

void BM_bmm_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = bmm();
    for (auto _ : st) {
        auto c = xlet::dot_general<xlet::dot_dims{
            .lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}}>(*d.a, *d.b);
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, bmm_flops);
}

#if defined(XLET_BENCH_HAVE_EIGEN)
void BM_bmm_eigen(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    Eigen::setNbThreads(1);
    auto& d = bmm();
    auto c = make_buffer<float>(bb * bm * bm);
    const Eigen::Index n = bm;
    for (auto _ : st) {
        static_parallel(bb, [&](std::size_t q0, std::size_t q1) {
            for (std::size_t q = q0; q < q1; ++q) {
                Eigen::Map<const emat<float>> a(d.a->data() + q * bm * bm, n, n), b(d.b->data() + q * bm * bm, n, n);
                Eigen::Map<emat<float>> cm(c.get() + q * bm * bm, n, n);
                cm.noalias() = a * b;
            }
        });
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, bmm_flops);
}
#endif

// ---- small static products -----------------------------------------------------------------------

template<std::size_t N>
void BM_static_xlet(benchmark::State& st, int) {
    xlet::f32<N, N> a, b;
    fill(a.data(), N * N, [](std::size_t i) { return gen(i, 5, -1.0f, 1.0f); });
    fill(b.data(), N * N, [](std::size_t i) { return gen(i, 6, -1.0f, 1.0f); });
    for (auto _ : st) {
        benchmark::DoNotOptimize(a.data());
        benchmark::DoNotOptimize(b.data());
        auto c = xlet::dot(a, b);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    set_flops(st, 2.0 * N * N * N);
}

#if defined(XLET_BENCH_HAVE_EIGEN)
template<std::size_t N>
void BM_static_eigen(benchmark::State& st, int) {
    using M = Eigen::Matrix<float, static_cast<int>(N), static_cast<int>(N), Eigen::RowMajor>;
    M a, b;
    fill(a.data(), N * N, [](std::size_t i) { return gen(i, 5, -1.0f, 1.0f); });
    fill(b.data(), N * N, [](std::size_t i) { return gen(i, 6, -1.0f, 1.0f); });
    for (auto _ : st) {
        benchmark::DoNotOptimize(a.data());
        benchmark::DoNotOptimize(b.data());
        M c = a * b;
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    set_flops(st, 2.0 * N * N * N);
}
#endif

template<class T, std::size_t N>
void reg_square(const std::string& name) {
    for (int t : {1, 2}) {
        reg(name + "/xlet", BM_gemm_xlet<T, N>, t);
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg(name + "/openblas", BM_gemm_openblas<T, N>, t);
#endif
#if defined(XLET_BENCH_HAVE_EIGEN)
        reg(name + "/eigen", BM_gemm_eigen<T, N>, t);
#endif
    }
}

void register_all() {
    reg_square<float, 256>("BM_sgemm_256");
    reg_square<float, 1024>("BM_sgemm_1024");
    reg_square<float, 2048>("BM_sgemm_2048");
    reg_square<double, 1024>("BM_dgemm_1024");
    for (int t : {1, 2}) {
        reg("BM_sgemm_1024_tn/xlet", BM_trans_xlet<true, false>, t);
        reg("BM_sgemm_1024_nt/xlet", BM_trans_xlet<false, true>, t);
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_sgemm_1024_tn/openblas", BM_trans_openblas<true, false>, t);
        reg("BM_sgemm_1024_nt/openblas", BM_trans_openblas<false, true>, t);
#endif
    }
    for (int t : {1, 2}) {
        reg("BM_bmm_64x128/xlet", BM_bmm_xlet, t);
#if defined(XLET_BENCH_HAVE_EIGEN)
        reg("BM_bmm_64x128/eigen", BM_bmm_eigen, t);
#endif
    }
    reg("BM_static_4/xlet", BM_static_xlet<4>, 1, 1, benchmark::kNanosecond);
    reg("BM_static_16/xlet", BM_static_xlet<16>, 1, 1, benchmark::kNanosecond);
#if defined(XLET_BENCH_HAVE_EIGEN)
    reg("BM_static_4/eigen", BM_static_eigen<4>, 1, 1, benchmark::kNanosecond);
    reg("BM_static_16/eigen", BM_static_eigen<16>, 1, 1, benchmark::kNanosecond);
#endif
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
