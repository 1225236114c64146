// Dot benchmarks (issue #5): xlet's dot / dot_general beside OpenBLAS (cblas_sgemm / cblas_dgemm)
// and Eigen in one executable, row-major operands, GFLOP/s (2 m n k per product) in the counter
// "FLOP/s".
//   BM_gemm_<m>x<n>x<k>  detail::gemm at 1 and 2 threads, aspect ratios with m n k >= 2^26
//   BM_peak_fma_<t>  independent FMAs on the widest batch: the core's peak, the sgemm/dgemm ceiling
//   BM_sgemm_<n>     f32 [n,n] x [n,n], n = 256, 1024, 2048, 1 and 2 threads
//   BM_dgemm_1024    f64 [1024,1024] x [1024,1024]
//   BM_sgemm_1024_tn / _nt   f32 a^T b and a b^T through the dimension numbers (contracting
//                    {0}/{0} and {1}/{1}): transposed operands are strides in the packing
//   BM_bmm           f32 [64,128,128] x [64,128,128] batch matmul (Eigen: one product per batch,
//                    the batches split over the threads with a static TBB loop at 2 threads)
//   BM_static_<n>    f32 [n,n] x [n,n], n = 4, 16, static shapes (Eigen: fixed-size matrices)
//   BM_ragged_moe    ragged_dot, MoE case: f32 [4096,1024] x [8,1024,1024], 8 uneven groups ->
//                    [4096,1024]; peers: xlet's GEMM kernel (detail::gemm) called per group, and
//                    cblas_sgemm per group (xlet::dot needs static shapes, so per-group run-time
//                    sizes go to the kernel a user would call)
//   BM_scaled_1024   scaled_dot f32 [1024,1024] x [1024,1024], MX blocks of 32 along k (scales
//                    [1024,32] and [32,1024]); peers: the same dequantisation loop + cblas_sgemm,
//                    and + xlet::dot
// xlet returns a new tensor per product (its time includes allocating it); the peers write into
// an existing matrix (Eigen: c.noalias() = a * b). Threads: TBB's global_control for xlet,
// Eigen::setNbThreads (OpenMP) for Eigen, openblas_set_num_threads for OpenBLAS. Results and the
// command: docs/performance.md.
#include <algorithm>
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
    fill(t->data(), t->size(), [&](std::size_t i) { return static_cast<T>(gen(i, seed, -1.0f, 1.0f)); });
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

// ---- the core's FMA peak --------------------------------------------------------------------------

// Independent FMAs on as many accumulators as the registers hold beside the two operands (12 ymm
// with AVX2, 28 zmm with AVX-512; two FMA pipes of latency 4 need >= 8 in flight): the ceiling the
// sgemm / dgemm rows are measured against, per thread count (each thread runs its own loop).
inline constexpr int peak_accumulators = static_cast<int>(xlet::detail::gemm_vector_registers) - 4;
template<class T>
[[gnu::noinline]] T peak_fma_loop(std::size_t steps) {
    using B = xsimd::batch<T>;
    constexpr int K = peak_accumulators;
    B acc[K];
#pragma GCC unroll 32
    for (int i = 0; i < K; ++i)
        acc[i] = B(static_cast<T>(i) * T(1e-3));
    const B x(T(0.999999)), y(T(1e-7));
    for (std::size_t s = 0; s < steps; ++s) {
#pragma GCC unroll 32
        for (int i = 0; i < K; ++i)
            acc[i] = xsimd::fma(acc[i], x, y);
    }
    B sum = acc[0];
#pragma GCC unroll 32
    for (int i = 1; i < K; ++i)
        sum += acc[i];
    return xsimd::hadd(sum);
}

template<class T>
void BM_peak_fma(benchmark::State& st, int threads) {
    constexpr std::size_t steps = 1 << 16;
    for (auto _ : st) {
        tbb::parallel_for(0, threads, [](int) { benchmark::DoNotOptimize(peak_fma_loop<T>(steps)); });
    }
    set_flops(st, 2.0 * peak_accumulators * xsimd::batch<T>::size * steps * threads);
}

// ---- aspect ratios: 2-thread scaling of detail::gemm (f32, row-major, run-time sizes) ---------------

template<std::size_t M, std::size_t N, std::size_t K>
void BM_gemm_shape_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    static const auto a = [] {
        auto p = make_buffer<float>(M * K);
        fill(p.get(), M * K, [](std::size_t i) { return gen(i, 11, -1.0f, 1.0f); });
        return p;
    }();
    static const auto b = [] {
        auto p = make_buffer<float>(K * N);
        fill(p.get(), K * N, [](std::size_t i) { return gen(i, 12, -1.0f, 1.0f); });
        return p;
    }();
    auto c = make_buffer<float>(M * N);
    for (auto _ : st) {
        xlet::detail::gemm<float>(M, N, K, a.get(), K, 1, b.get(), N, 1, c.get(), N);
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, 2.0 * M * N * K);
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

// ---- ragged_dot (MoE) and scaled_dot -------------------------------------------------------------

constexpr std::size_t moe_m = 4096, moe_k = 1024, moe_n = 1024, moe_g = 8;
constexpr std::int32_t moe_sizes[moe_g] = {900, 100, 700, 300, 1000, 50, 646, 400}; // sum 4096
constexpr double moe_flops = 2.0 * moe_m * moe_k * moe_n;
struct moe_data {
    std::unique_ptr<xlet::f32<moe_m, moe_k>> x = make_input<float, moe_m, moe_k>(7);
    std::unique_ptr<xlet::f32<moe_g, moe_k, moe_n>> w = make_input<float, moe_g, moe_k, moe_n>(8);
    xlet::s32<moe_g> gs;
    moe_data() { std::copy(std::begin(moe_sizes), std::end(moe_sizes), gs.begin()); }
};
moe_data& moe() {
    static moe_data d;
    return d;
}

constexpr xlet::ragged_dot_dims moe_dims{
    .dot = xlet::dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}, .lhs_ragged = {0}, .rhs_group = {0}};

void BM_ragged_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = moe();
    for (auto _ : st) {
        auto c = xlet::ragged_dot<moe_dims>(*d.x, *d.w, d.gs);
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, moe_flops);
}

// The GEMM kernel per group, into an existing buffer.
void BM_ragged_kernel_per_group(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = moe();
    auto c = make_buffer<float>(moe_m * moe_n);
    constexpr auto k = static_cast<std::ptrdiff_t>(moe_k), n = static_cast<std::ptrdiff_t>(moe_n);
    for (auto _ : st) {
        std::size_t row = 0;
        for (std::size_t g = 0; g < moe_g; ++g) {
            const auto rows = static_cast<std::size_t>(moe_sizes[g]);
            xlet::detail::gemm<float>(rows, moe_n, moe_k, d.x->data() + row * moe_k, k, 1,
                                      d.w->data() + g * moe_k * moe_n, n, 1, c.get() + row * moe_n, n);
            row += rows;
        }
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, moe_flops);
}

#if defined(XLET_BENCH_HAVE_OPENBLAS)
void BM_ragged_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = moe();
    auto c = make_buffer<float>(moe_m * moe_n);
    constexpr int k = static_cast<int>(moe_k), n = static_cast<int>(moe_n);
    for (auto _ : st) {
        std::size_t row = 0;
        for (std::size_t g = 0; g < moe_g; ++g) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, moe_sizes[g], n, k, 1.0f, d.x->data() + row * moe_k,
                        k, d.w->data() + g * moe_k * moe_n, n, 0.0f, c.get() + row * moe_n, n);
            row += static_cast<std::size_t>(moe_sizes[g]);
        }
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, moe_flops);
}
#endif

constexpr std::size_t sd_n = 1024, sd_blk = 32, sd_nb = sd_n / sd_blk;
struct scaled_data {
    std::unique_ptr<xlet::f32<sd_n, sd_n>> a = make_input<float, sd_n, sd_n>(9), b = make_input<float, sd_n, sd_n>(10);
    std::unique_ptr<xlet::f32<sd_n, sd_nb>> as = make_input<float, sd_n, sd_nb>(11);
    std::unique_ptr<xlet::f32<sd_nb, sd_n>> bs = make_input<float, sd_nb, sd_n>(12);
};
scaled_data& scaled() {
    static scaled_data d;
    return d;
}

void BM_scaled_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = scaled();
    for (auto _ : st) {
        auto c =
            xlet::scaled_dot<xlet::dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(*d.a, *d.as, *d.b, *d.bs);
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, 2.0 * sd_n * sd_n * sd_n);
}

// The peers' dequantisation: a[i][k] * as[i][k / 32] and b[k][j] * bs[k / 32][j], plain loops.
void dequantise_plain(const scaled_data& d, float* da, float* db) {
    for (std::size_t i = 0; i < sd_n; ++i)
        for (std::size_t k = 0; k < sd_n; ++k)
            da[i * sd_n + k] = d.a->data()[i * sd_n + k] * d.as->data()[i * sd_nb + k / sd_blk];
    for (std::size_t k = 0; k < sd_n; ++k)
        for (std::size_t j = 0; j < sd_n; ++j)
            db[k * sd_n + j] = d.b->data()[k * sd_n + j] * d.bs->data()[k / sd_blk * sd_n + j];
}

void BM_scaled_dequant_xlet_dot(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = scaled();
    auto da = std::make_unique<xlet::f32<sd_n, sd_n>>(), db = std::make_unique<xlet::f32<sd_n, sd_n>>();
    for (auto _ : st) {
        dequantise_plain(d, da->data(), db->data());
        auto c = xlet::dot(*da, *db);
        benchmark::DoNotOptimize(c.data());
    }
    set_flops(st, 2.0 * sd_n * sd_n * sd_n);
}

#if defined(XLET_BENCH_HAVE_OPENBLAS)
void BM_scaled_dequant_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = scaled();
    auto da = make_buffer<float>(sd_n * sd_n), db = make_buffer<float>(sd_n * sd_n),
         c = make_buffer<float>(sd_n * sd_n);
    constexpr int n = static_cast<int>(sd_n);
    for (auto _ : st) {
        dequantise_plain(d, da.get(), db.get());
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, da.get(), n, db.get(), n, 0.0f, c.get(),
                    n);
        benchmark::DoNotOptimize(c.get());
    }
    set_flops(st, 2.0 * sd_n * sd_n * sd_n);
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
    for (int t : {1, 2}) { // m n k >= 2^26 in every aspect ratio: the 2-thread scaling target
        reg("BM_gemm_256x512x784/xlet", BM_gemm_shape_xlet<256, 512, 784>, t);
        reg("BM_gemm_128x128x4096/xlet", BM_gemm_shape_xlet<128, 128, 4096>, t);
        reg("BM_gemm_4096x64x256/xlet", BM_gemm_shape_xlet<4096, 64, 256>, t);
        reg("BM_gemm_64x4096x256/xlet", BM_gemm_shape_xlet<64, 4096, 256>, t);
        reg("BM_gemm_1024x1024x64/xlet", BM_gemm_shape_xlet<1024, 1024, 64>, t);
        reg("BM_gemm_2048x32x1024/xlet", BM_gemm_shape_xlet<2048, 32, 1024>, t);
    }
    for (int t : {1, 2}) {
        reg("BM_peak_fma_f32/xlet", BM_peak_fma<float>, t);
        reg("BM_peak_fma_f64/xlet", BM_peak_fma<double>, t);
    }
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
    for (int t : {1, 2}) {
        reg("BM_ragged_moe/xlet", BM_ragged_xlet, t);
        reg("BM_ragged_moe/xlet_gemm_per_group", BM_ragged_kernel_per_group, t);
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_ragged_moe/openblas_per_group", BM_ragged_openblas, t);
#endif
        reg("BM_scaled_1024/xlet", BM_scaled_xlet, t);
        reg("BM_scaled_1024/dequant_xlet_dot", BM_scaled_dequant_xlet_dot, t);
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_scaled_1024/dequant_openblas", BM_scaled_dequant_openblas, t);
#endif
    }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
