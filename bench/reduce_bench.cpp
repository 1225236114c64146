// Reduction benchmarks (issue #4): xlet beside plain loops, Eigen and xtensor in one executable.
//   BM_sum     sum of 2^24 f32 (paired_with_loop_simd: alternated with the tuned loop, run_paired)
//   BM_rowsum  [4096,4096] f32 summed along dimension 1 (each row)
//   BM_colsum  [4096,4096] f32 summed along dimension 0 (each column)
//   BM_maxpool NHWC [32,112,112,64] f32, 3x3 windows, stride 2, SAME -> [32,56,56,64]
//   BM_argmax  [4096,4096] f32 (max, index) along dimension 1, variadic reduce with a fused iota
// Bytes processed: the bytes read (and written, for maxpool), so GB/s compare with the read
// bandwidth. Results and the command: docs/performance.md.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>

#include <xlet/xlet.hpp> // first: see core/simd.hpp (GCC 12 AVX-512 false warnings)

#include <tbb/parallel_reduce.h>

#if defined(XLET_BENCH_HAVE_EIGEN)
#define XLET_BENCH_EIGEN 1
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#if defined(XLET_BENCH_HAVE_XTENSOR)
#define XLET_BENCH_XTENSOR 1
#include <xtensor/xadapt.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xtensor.hpp>
#endif

#include "bench_common.hpp"

namespace xlet_bench {
namespace {

constexpr std::size_t n_flat = std::size_t{1} << 24;
constexpr std::size_t n_rows = 4096, n_cols = 4096;
constexpr std::size_t pn = 32, ph = 112, pw = 112, pc = 64, oh = 56, ow = 56;

using flat_t = xlet::f32<n_flat>;
using mat_t = xlet::f32<n_rows, n_cols>;
using img_t = xlet::f32<pn, ph, pw, pc>;

struct data {
    std::unique_ptr<flat_t> flat = std::make_unique<flat_t>();
    std::unique_ptr<mat_t> mat = std::make_unique<mat_t>();
    std::unique_ptr<img_t> img = std::make_unique<img_t>();
    data() {
        fill(flat->data(), n_flat, [](std::size_t i) { return gen(i, 1, 0.5f, 2.0f); });
        fill(mat->data(), n_rows * n_cols, [](std::size_t i) { return gen(i, 2, -1.0f, 1.0f); });
        fill(img->data(), pn * ph * pw * pc, [](std::size_t i) { return gen(i, 3, -1.0f, 1.0f); });
    }
};
data& in() {
    static data d;
    return d;
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "reduce_bench: %s differs from the reference\n", what);
    std::abort();
}
bool close(double a, double b) { return std::abs(a - b) <= 1e-4 * (std::abs(b) + 1.0); }

// ---- sum of 2^24 -----------------------------------------------------------------------------
constexpr std::int64_t bytes_sum = 4 * static_cast<std::int64_t>(n_flat);
double sum_reference() {
    double s = 0;
    for (std::size_t i = 0; i < n_flat; ++i)
        s += in().flat->data()[i];
    return s;
}

void BM_sum_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const auto& a = *in().flat;
    if (!close(xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<0>)(), sum_reference())) fail("sum/xlet");
    for (auto _ : st)
        benchmark::DoNotOptimize(xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<0>)());
    set_bytes(st, bytes_sum);
}
// What a user writes: one accumulator (the compiler may not reorder float adds: scalar).
void BM_sum_loop(benchmark::State& st, int) {
    const float* p = in().flat->data();
    for (auto _ : st) {
        float s = 0;
        for (std::size_t i = 0; i < n_flat; ++i)
            s += p[i];
        benchmark::DoNotOptimize(s);
    }
    set_bytes(st, bytes_sum);
}
// A tuned loop: 32 independent accumulators (vectorisable), TBB-split when threads > 1.
float sum_range(const float* p, std::size_t b, std::size_t e) {
    float acc[32] = {};
    const std::size_t full = b + (e - b) / 32 * 32;
    for (std::size_t i = b; i < full; i += 32)
        for (std::size_t k = 0; k < 32; ++k)
            acc[k] += p[i + k];
    float s = 0;
    for (std::size_t i = full; i < e; ++i)
        s += p[i];
    for (float v : acc)
        s += v;
    return s;
}
// The tuned loop over all of p: TBB-split when threads > 1.
float sum_loop_simd(const float* p, int threads) {
    if (threads == 1) return sum_range(p, 0, n_flat);
    return tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, n_flat, 1 << 16), 0.0f,
        [&](const tbb::blocked_range<std::size_t>& r, float v) { return v + sum_range(p, r.begin(), r.end()); },
        [](float x, float y) { return x + y; }, tbb::static_partitioner{});
}
void BM_sum_loop_simd(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* p = in().flat->data();
    for (auto _ : st)
        benchmark::DoNotOptimize(sum_loop_simd(p, threads));
    set_bytes(st, bytes_sum);
}
// xlet's sum and the tuned loop alternated in one timed loop (run_paired): `ratio` is robust to the
// machine's bandwidth drift between benchmarks (64 MiB: each pass reads from memory).
void BM_sum_paired(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const auto& a = *in().flat;
    run_paired(
        st, bytes_sum, [&] { benchmark::DoNotOptimize(xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<0>)()); },
        [&] { benchmark::DoNotOptimize(sum_loop_simd(a.data(), threads)); });
}
#if XLET_BENCH_EIGEN
void BM_sum_eigen(benchmark::State& st, int threads) {
    Eigen::TensorMap<Eigen::Tensor<const float, 1, Eigen::RowMajor>> a(in().flat->data(),
                                                                       static_cast<Eigen::Index>(n_flat));
    Eigen::Tensor<float, 0, Eigen::RowMajor> s;
    eigen_run(st, threads, [&](const auto& dev) { s.device(dev) = a.sum(); });
    if (!close(s(), sum_reference())) fail("sum/eigen");
    set_bytes(st, bytes_sum);
}
#endif
#if XLET_BENCH_XTENSOR
void BM_sum_xtensor(benchmark::State& st, int) {
    auto a = xt::adapt(in().flat->data(), n_flat, xt::no_ownership(), std::array<std::size_t, 1>{n_flat});
    for (auto _ : st)
        benchmark::DoNotOptimize(xt::sum(a)());
    set_bytes(st, bytes_sum);
}
#endif

// ---- row and column sums of [4096,4096] ------------------------------------------------------
constexpr std::int64_t bytes_mat = 4 * static_cast<std::int64_t>(n_rows * n_cols);

template<int Dim>
void check_mat(const float* got, const char* what) {
    const float* a = in().mat->data();
    for (std::size_t k = 0; k < 4096; k += 511) {
        double s = 0;
        for (std::size_t j = 0; j < 4096; ++j)
            s += Dim == 1 ? a[k * n_cols + j] : a[j * n_cols + k];
        if (!close(got[k], s)) fail(what);
    }
}

template<int Dim>
void BM_matsum_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const auto& a = *in().mat;
    check_mat<Dim>(xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<Dim>).data(), "matsum/xlet");
    for (auto _ : st) {
        auto r = xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<Dim>);
        benchmark::DoNotOptimize(r.data());
    }
    set_bytes(st, bytes_mat);
}
// Column sums of the matrix and row sums of a copy of it alternated in one timed loop
// (run_paired): row sums run at the read bandwidth, so `ratio` is the column sums' fraction of it,
// robust to this machine's drift between runs. Two matrices of 64 MiB, so neither pass finds the
// other's data in the 32 MiB L3.
void BM_colsum_paired(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const auto& a = *in().mat;
    static const auto b = std::make_unique<mat_t>(a);
    run_paired(
        st, bytes_mat, [&] { benchmark::DoNotOptimize(xlet::reduce(a, 0.0f, xlet::add_fn{}, xlet::dims<0>).data()); },
        [&] { benchmark::DoNotOptimize(xlet::reduce(*b, 0.0f, xlet::add_fn{}, xlet::dims<1>).data()); });
}
// Plain loops: row sums with the tuned range sum per row; column sums add row after row into the
// output vector (contiguous, vectorisable). TBB splits rows / columns when threads > 1.
template<int Dim>
void BM_matsum_loop(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* a = in().mat->data();
    auto out = make_buffer<float>(4096);
    for (auto _ : st) {
        if constexpr (Dim == 1) {
            static_parallel(n_rows, [&](std::size_t b, std::size_t e) {
                for (std::size_t r = b; r < e; ++r)
                    out[r] = sum_range(a + r * n_cols, 0, n_cols);
            });
        } else {
            // Each thread adds whole row segments of its columns into the output (<= 16 KiB, in L1).
            static_parallel(n_cols / 64, [&](std::size_t b, std::size_t e) {
                float* o = out.get() + b * 64;
                const std::size_t w = (e - b) * 64;
                std::fill(o, o + w, 0.0f);
                for (std::size_t r = 0; r < n_rows; ++r) {
                    const float* p = a + r * n_cols + b * 64;
                    for (std::size_t k = 0; k < w; ++k)
                        o[k] += p[k];
                }
            });
        }
        benchmark::ClobberMemory();
    }
    check_mat<Dim>(out.get(), "matsum/loop");
    set_bytes(st, bytes_mat);
}
#if XLET_BENCH_EIGEN
template<int Dim>
void BM_matsum_eigen(benchmark::State& st, int threads) {
    Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor>> a(in().mat->data(), 4096, 4096);
    Eigen::Tensor<float, 1, Eigen::RowMajor> s(4096);
    const Eigen::array<Eigen::Index, 1> dims{Dim};
    eigen_run(st, threads, [&](const auto& dev) { s.device(dev) = a.sum(dims); });
    check_mat<Dim>(s.data(), "matsum/eigen");
    set_bytes(st, bytes_mat);
}
template<int Dim>
void BM_matsum_eigen_matrix(benchmark::State& st, int) {
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> a(in().mat->data(), 4096,
                                                                                              4096);
    Eigen::VectorXf row(4096);
    Eigen::RowVectorXf col(4096);
    for (auto _ : st) {
        if constexpr (Dim == 1)
            row.noalias() = a.rowwise().sum();
        else
            col.noalias() = a.colwise().sum();
        benchmark::ClobberMemory();
    }
    check_mat<Dim>(Dim == 1 ? row.data() : col.data(), "matsum/eigen_matrix");
    set_bytes(st, bytes_mat);
}
#endif
#if XLET_BENCH_XTENSOR
template<int Dim>
void BM_matsum_xtensor(benchmark::State& st, int) {
    auto a =
        xt::adapt(in().mat->data(), n_rows * n_cols, xt::no_ownership(), std::array<std::size_t, 2>{n_rows, n_cols});
    xt::xtensor<float, 1> s = xt::zeros<float>({std::size_t{4096}});
    for (auto _ : st) {
        s = xt::sum(a, {Dim}, xt::evaluation_strategy::immediate);
        benchmark::ClobberMemory();
    }
    check_mat<Dim>(s.data(), "matsum/xtensor");
    set_bytes(st, bytes_mat);
}
#endif

// ---- NHWC max pool 3x3 / 2, SAME --------------------------------------------------------------
constexpr xlet::window_config pool_cfg{
    .window_dimensions = {1, 3, 3, 1}, .window_strides = {1, 2, 2, 1}, .mode = xlet::pad_mode::same};
constexpr std::int64_t bytes_pool = 4 * static_cast<std::int64_t>(pn * ph * pw * pc + pn * oh * ow * pc);

// SAME for 112 / 2 with a 3-wide window: total padding 1, low 0, high 1.
void pool_loop(const float* a, float* o, std::size_t n0, std::size_t n1) {
    for (std::size_t n = n0; n < n1; ++n)
        for (std::size_t y = 0; y < oh; ++y)
            for (std::size_t x = 0; x < ow; ++x) {
                float acc[pc];
                std::fill(acc, acc + pc, std::numeric_limits<float>::lowest());
                for (std::size_t dy = 0; dy < 3; ++dy)
                    for (std::size_t dx = 0; dx < 3; ++dx) {
                        std::size_t iy = 2 * y + dy, ix = 2 * x + dx;
                        if (iy >= ph || ix >= pw) continue;
                        const float* p = a + ((n * ph + iy) * pw + ix) * pc;
                        for (std::size_t c = 0; c < pc; ++c)
                            acc[c] = std::max(acc[c], p[c]);
                    }
                std::copy(acc, acc + pc, o + ((n * oh + y) * ow + x) * pc);
            }
}
void BM_maxpool_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const auto& a = *in().img;
    auto ref = make_buffer<float>(pn * oh * ow * pc);
    pool_loop(a.data(), ref.get(), 0, pn);
    {
        auto r = xlet::reduce_window<pool_cfg>(a, std::numeric_limits<float>::lowest(), xlet::max_fn{});
        if (!std::equal(r.data(), r.data() + r.size(), ref.get())) fail("maxpool/xlet");
    }
    for (auto _ : st) {
        auto r = xlet::reduce_window<pool_cfg>(a, std::numeric_limits<float>::lowest(), xlet::max_fn{});
        benchmark::DoNotOptimize(r.data());
    }
    set_bytes(st, bytes_pool);
}
void BM_maxpool_loop(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* a = in().img->data();
    auto o = make_buffer<float>(pn * oh * ow * pc);
    for (auto _ : st) {
        static_parallel(pn, [&](std::size_t b, std::size_t e) { pool_loop(a, o.get(), b, e); });
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes_pool);
}

#if XLET_BENCH_EIGEN
// Eigen's Tensor module has no pooling op (TensorFlow's SpatialMaxPooling lives outside Eigen): the
// idiomatic form is the maximum of the nine strided window offsets of the padded input, one fused
// expression evaluated by Eigen's vectorised executor.
void BM_maxpool_eigen(benchmark::State& st, int threads) {
    using I = Eigen::Index;
    Eigen::TensorMap<Eigen::Tensor<const float, 4, Eigen::RowMajor>> a(in().img->data(), I{pn}, I{ph}, I{pw}, I{pc});
    Eigen::Tensor<float, 4, Eigen::RowMajor> o(I{pn}, I{oh}, I{ow}, I{pc});
    const Eigen::array<std::pair<I, I>, 4> pads{{{0, 0}, {0, 1}, {0, 1}, {0, 0}}};
    const Eigen::array<I, 4> ext{I{pn}, I{2 * oh - 1}, I{2 * ow - 1}, I{pc}}, str{1, 2, 2, 1};
    auto p = a.pad(pads, std::numeric_limits<float>::lowest());
    auto at = [&](I dy, I dx) { return p.slice(Eigen::array<I, 4>{0, dy, dx, 0}, ext).stride(str); };
    eigen_run(st, threads, [&](const auto& dev) {
        o.device(dev) = at(0, 0)
                            .cwiseMax(at(0, 1))
                            .cwiseMax(at(0, 2))
                            .cwiseMax(at(1, 0))
                            .cwiseMax(at(1, 1))
                            .cwiseMax(at(1, 2))
                            .cwiseMax(at(2, 0))
                            .cwiseMax(at(2, 1))
                            .cwiseMax(at(2, 2));
    });
    auto ref = make_buffer<float>(pn * oh * ow * pc);
    pool_loop(in().img->data(), ref.get(), 0, pn);
    if (!std::equal(o.data(), o.data() + o.size(), ref.get())) fail("maxpool/eigen");
    set_bytes(st, bytes_pool);
}
#endif

// ---- argmax along the last dimension ----------------------------------------------------------
void BM_argmax_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const auto& a = *in().mat;
    auto f = [](float m, std::int32_t i, float x, std::int32_t j) { return x > m ? std::pair{x, j} : std::pair{m, i}; };
    for (auto _ : st) {
        auto [m, i] = xlet::reduce(std::forward_as_tuple(a, xlet::iota<xlet::s32<n_rows, n_cols>, 1>()),
                                   std::tuple{std::numeric_limits<float>::lowest(), -1}, f, xlet::dims<1>);
        benchmark::DoNotOptimize(i.data());
    }
    set_bytes(st, bytes_mat);
}
void BM_argmax_loop(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* a = in().mat->data();
    auto idx = make_buffer<std::int32_t>(n_rows);
    for (auto _ : st) {
        static_parallel(n_rows, [&](std::size_t b, std::size_t e) {
            for (std::size_t r = b; r < e; ++r) {
                const float* p = a + r * n_cols;
                idx[r] = static_cast<std::int32_t>(std::max_element(p, p + n_cols) - p);
            }
        });
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes_mat);
}

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_sum/xlet", BM_sum_xlet, t);
        reg("BM_sum/loop_simd", BM_sum_loop_simd, t);
        reg("BM_sum/paired_with_loop_simd", BM_sum_paired, t);
    }
    reg("BM_sum/loop", BM_sum_loop, 1);
#if XLET_BENCH_EIGEN
    reg("BM_sum/eigen", BM_sum_eigen, 1, 0);
    reg("BM_sum/eigen_pool", BM_sum_eigen, 2);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_sum/xtensor", BM_sum_xtensor, 1);
#endif
    for (int t : {1, 2}) {
        reg("BM_rowsum/xlet", BM_matsum_xlet<1>, t);
        reg("BM_rowsum/loop", BM_matsum_loop<1>, t);
        reg("BM_colsum/xlet", BM_matsum_xlet<0>, t);
        reg("BM_colsum/loop", BM_matsum_loop<0>, t);
        reg("BM_colsum/paired_with_rowsum", BM_colsum_paired, t);
    }
#if XLET_BENCH_EIGEN
    reg("BM_rowsum/eigen", BM_matsum_eigen<1>, 1, 0);
    reg("BM_rowsum/eigen_pool", BM_matsum_eigen<1>, 2);
    reg("BM_rowsum/eigen_matrix", BM_matsum_eigen_matrix<1>, 1);
    reg("BM_colsum/eigen", BM_matsum_eigen<0>, 1, 0);
    reg("BM_colsum/eigen_pool", BM_matsum_eigen<0>, 2);
    reg("BM_colsum/eigen_matrix", BM_matsum_eigen_matrix<0>, 1);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_rowsum/xtensor", BM_matsum_xtensor<1>, 1);
    reg("BM_colsum/xtensor", BM_matsum_xtensor<0>, 1);
#endif
    for (int t : {1, 2}) {
        reg("BM_maxpool/xlet", BM_maxpool_xlet, t);
        reg("BM_maxpool/loop", BM_maxpool_loop, t);
#if XLET_BENCH_EIGEN
        reg("BM_maxpool/eigen_pool", BM_maxpool_eigen, t);
#endif
        reg("BM_argmax/xlet", BM_argmax_xlet, t);
        reg("BM_argmax/loop", BM_argmax_loop, t);
    }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
