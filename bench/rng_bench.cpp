// Random number benchmarks (issue #16): 2^24 values (64 MiB of output), 1 and 2 threads.
//   BM_rng_bits_<alg>/xlet       rng_bit_generator<alg, u32[2^24]> (philox = default_, three_fry)
//   BM_rng_uniform_f32/xlet      rng_uniform<f32[2^24]>(gen, 0, 1)
//   BM_rng_normal_f32/xlet       rng_normal<f32[2^24]>(gen, 0, 1)
//   BM_rng_memset/loop           memset of the same 64 MiB (TBB-split on 2 threads): the write bound
//   BM_rng_fill/loop             the same with byte 0x5A (Zen 5 stores zeros about twice as fast as
//                                other data: see docs/performance.md)
//   BM_rng_uniform_f32/mt19937   std::mt19937 + std::uniform_real_distribution<float> (2 threads:
//                                one engine per half)
//   BM_rng_normal_f32/mt19937    std::mt19937 + std::normal_distribution<float>
//   BM_rng_uniform_f32/eigen     Eigen::VectorXf::setRandom (std::rand: one thread only)
// The /vs_memset, /vs_fill and /vs_mt19937 cases alternate xlet and the peer inside one timed loop (see
// bench_common.hpp run_paired): `ratio` = xlet's speed / the peer's speed, robust against this
// machine's drifting bandwidth. Bytes processed: the output's 64 MiB for every case.
#include <cstdio>
#include <cstring>
#include <random>

#include <xlet/xlet.hpp> // first: see core/simd.hpp (GCC 12 AVX-512 false warnings)

#include "bench_common.hpp"

#if defined(XLET_BENCH_HAVE_EIGEN)
#include <Eigen/Core>
#endif

namespace xlet_bench {
namespace {

constexpr std::size_t n = std::size_t{1} << 24;
constexpr std::int64_t bytes = 4 * static_cast<std::int64_t>(n);
using bits_t = xlet::u32<n>;
using f32_t = xlet::f32<n>;

xlet::u64<3> state{0x0123456789abcdefull, 0, 0};
xlet::u64<2> state2{0x0123456789abcdefull, 0};

void memset_out(void* p, int threads, int value = 0) {
    if (threads == 1)
        std::memset(p, value, n * 4);
    else
        static_parallel(64, [&](std::size_t b, std::size_t e) {
            std::memset(static_cast<char*>(p) + b * (n * 4 / 64), value, (e - b) * (n * 4 / 64));
        });
}

void mt_uniform(float* p, int threads) {
    auto run = [p](std::size_t b, std::size_t e) {
        std::mt19937 g(static_cast<unsigned>(b + 1));
        std::uniform_real_distribution<float> d(0.0f, 1.0f);
        for (std::size_t i = b; i < e; ++i)
            p[i] = d(g);
    };
    if (threads == 1)
        run(0, n);
    else
        static_parallel(2, [&](std::size_t b, std::size_t e) { run(b * n / 2, e * n / 2); });
}

void mt_normal(float* p, int threads) {
    auto run = [p](std::size_t b, std::size_t e) {
        std::mt19937 g(static_cast<unsigned>(b + 1));
        std::normal_distribution<float> d(0.0f, 1.0f);
        for (std::size_t i = b; i < e; ++i)
            p[i] = d(g);
    };
    if (threads == 1)
        run(0, n);
    else
        static_parallel(2, [&](std::size_t b, std::size_t e) { run(b * n / 2, e * n / 2); });
}

template<xlet::rng_algorithm A>
void BM_bits(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    for (auto _ : st) {
        if constexpr (A == xlet::rng_algorithm::three_fry) {
            auto r = xlet::rng_bit_generator<A, bits_t>(state2);
            benchmark::DoNotOptimize(std::get<1>(r).data());
        } else {
            auto r = xlet::rng_bit_generator<A, bits_t>(state);
            benchmark::DoNotOptimize(std::get<1>(r).data());
        }
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}

void BM_uniform(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    xlet::rng_generator gen(1);
    for (auto _ : st) {
        auto r = xlet::rng_uniform<f32_t>(gen, 0.0f, 1.0f);
        benchmark::DoNotOptimize(r.data());
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}

void BM_normal(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    xlet::rng_generator gen(1);
    for (auto _ : st) {
        auto r = xlet::rng_normal<f32_t>(gen, 0.0f, 1.0f);
        benchmark::DoNotOptimize(r.data());
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}

template<int Value>
void BM_memset(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto out = make_buffer<float>(n);
    for (auto _ : st) {
        memset_out(out.get(), threads, Value);
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}

void BM_mt_uniform(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto out = make_buffer<float>(n);
    for (auto _ : st) {
        mt_uniform(out.get(), threads);
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}

void BM_mt_normal(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto out = make_buffer<float>(n);
    for (auto _ : st) {
        mt_normal(out.get(), threads);
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}

#if defined(XLET_BENCH_HAVE_EIGEN)
void BM_eigen_uniform(benchmark::State& st, int) {
    Eigen::VectorXf v(static_cast<Eigen::Index>(n));
    for (auto _ : st) {
        v.setRandom();
        benchmark::DoNotOptimize(v.data());
        benchmark::ClobberMemory();
    }
    set_bytes(st, bytes);
}
#endif

// Paired: xlet beside memset of the same bytes (ratio = fraction of the write bandwidth); Value:
// the byte memset writes (0, or 0x5A: some cores store zeros faster than any other data).
template<int Kind, int Value = 0>
void BM_vs_memset(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    xlet::rng_generator gen(1);
    auto out = make_buffer<float>(n);
    run_paired(
        st, bytes,
        [&] {
            if constexpr (Kind == 0) {
                auto r = xlet::rng_bit_generator<xlet::rng_algorithm::default_, bits_t>(state);
                benchmark::DoNotOptimize(std::get<1>(r).data());
            } else if constexpr (Kind == 1) {
                auto r = xlet::rng_bit_generator<xlet::rng_algorithm::three_fry, bits_t>(state2);
                benchmark::DoNotOptimize(std::get<1>(r).data());
            } else if constexpr (Kind == 2) {
                auto r = xlet::rng_uniform<f32_t>(gen, 0.0f, 1.0f);
                benchmark::DoNotOptimize(r.data());
            } else {
                auto r = xlet::rng_normal<f32_t>(gen, 0.0f, 1.0f);
                benchmark::DoNotOptimize(r.data());
            }
        },
        [&] { memset_out(out.get(), threads, Value); });
    set_bytes(st, bytes);
}

// Paired: xlet's uniform floats beside mt19937 + uniform_real_distribution (Kind 0), normals
// beside mt19937 + normal_distribution (Kind 1), each on the same thread count.
template<int Kind>
void BM_vs_mt(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    xlet::rng_generator gen(1);
    auto out = make_buffer<float>(n);
    run_paired(
        st, bytes,
        [&] {
            if constexpr (Kind == 0) {
                auto r = xlet::rng_uniform<f32_t>(gen, 0.0f, 1.0f);
                benchmark::DoNotOptimize(r.data());
            } else {
                auto r = xlet::rng_normal<f32_t>(gen, 0.0f, 1.0f);
                benchmark::DoNotOptimize(r.data());
            }
        },
        [&] {
            if constexpr (Kind == 0)
                mt_uniform(out.get(), threads);
            else
                mt_normal(out.get(), threads);
        });
    set_bytes(st, bytes);
}

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_rng_memset/loop", BM_memset<0>, t);
        reg("BM_rng_fill/loop", BM_memset<0x5A>, t);
        reg("BM_rng_bits_philox/xlet", BM_bits<xlet::rng_algorithm::philox>, t);
        reg("BM_rng_bits_three_fry/xlet", BM_bits<xlet::rng_algorithm::three_fry>, t);
        reg("BM_rng_uniform_f32/xlet", BM_uniform, t);
        reg("BM_rng_normal_f32/xlet", BM_normal, t);
        reg("BM_rng_uniform_f32/mt19937", BM_mt_uniform, t);
        reg("BM_rng_normal_f32/mt19937", BM_mt_normal, t);
        reg("BM_rng_bits_philox/vs_memset", BM_vs_memset<0>, t);
        reg("BM_rng_bits_three_fry/vs_memset", BM_vs_memset<1>, t);
        reg("BM_rng_uniform_f32/vs_memset", BM_vs_memset<2>, t);
        reg("BM_rng_normal_f32/vs_memset", BM_vs_memset<3>, t);
        reg("BM_rng_bits_philox/vs_fill", BM_vs_memset<0, 0x5A>, t);
        reg("BM_rng_uniform_f32/vs_fill", BM_vs_memset<2, 0x5A>, t);
        reg("BM_rng_uniform_f32/vs_mt19937", BM_vs_mt<0>, t);
        reg("BM_rng_normal_f32/vs_mt19937", BM_vs_mt<1>, t);
    }
#if defined(XLET_BENCH_HAVE_EIGEN)
    reg("BM_rng_uniform_f32/eigen", BM_eigen_uniform, 1);
#endif
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
