// Helpers shared by the benchmark executables: deterministic data, aligned buffers, thread limits,
// the static TBB split of the plain-loop peers, the bytes/s counter, the host's description and
// main(). Include after the peer headers (Eigen's Tensor module when XLET_BENCH_EIGEN is set).
#pragma once
// xsimd through xlet, first: on AVX-512, xlet's fused multiply-add kernels must be declared before
// xsimd's templates (core/simd.hpp); xsimd read first left fft_bench, rng_bench and
// elementwise_bench without FMA (a multiply and an add) until 2026-11-29.
#include <xlet/core/simd.hpp>

#include <benchmark/benchmark.h>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace xlet_bench {

// ---- Data: deterministic, non-trivial, finite and normal (no denormals, no NaN) ------------------

inline std::uint32_t mix(std::size_t i, std::uint32_t seed) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ (seed * 0x85EBCA77u + 0x165667B1u);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    x ^= x >> 15;
    return x;
}
inline float gen(std::size_t i, std::uint32_t seed, float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(mix(i, seed) >> 8) * (1.0f / 16777216.0f);
}

template<class T, class F>
void fill(T* p, std::size_t n, F f) {
    for (std::size_t i = 0; i < n; ++i)
        p[i] = f(i);
}

// With XLET_BENCH_TIMESTAMPS set, every run also reports t_end (CLOCK_MONOTONIC seconds when it
// finished), so a driver on a shared machine can drop runs that overlapped other processes' work.
inline void set_bytes(benchmark::State& st, std::int64_t per_iteration) {
    st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * per_iteration);
    static const bool stamps = std::getenv("XLET_BENCH_TIMESTAMPS") != nullptr;
    if (stamps)
        st.counters["t_end"] =
            std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// TBB-based code (xlet, loop_tbb, xtensor_tbb) runs on at most `threads` threads.
struct tbb_threads {
    tbb::global_control gc;
    explicit tbb_threads(int threads)
        : gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads)) {}
};

// The plain-loop peers' parallel form: [0, n) split statically over the threads TBB allows.
template<class F>
void static_parallel(std::size_t n, F f) {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, n), [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); },
        tbb::static_partitioner{});
}

// 64-byte aligned like xlet's, Eigen's and xtensor's storage; zero-filled so pages are touched.
struct free_delete {
    void operator()(void* p) const { std::free(p); }
};
template<class T = float>
using buffer = std::unique_ptr<T[], free_delete>;
template<class T = float>
buffer<T> make_buffer(std::size_t n) {
    auto* p = static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64));
    if (!p) throw std::bad_alloc();
    std::fill_n(p, n, T{});
    return buffer<T>(p);
}

// Two implementations of the same work alternated inside one timed loop: this machine's bandwidth
// drifts by tens of percent between benchmarks, so the ratio of neighbouring runs is the robust
// figure. Counters: each side's GB/s over the whole run (`bytes` per call) and `ratio`, the median
// of the per-iteration ratios (xlet's speed ÷ the peer's speed; > 1: xlet is faster).
template<class X, class Peer>
void run_paired(benchmark::State& st, std::int64_t bytes, X xlet_side, Peer peer_side) {
    std::vector<double> ratios;
    double t_x = 0, t_p = 0;
    for (auto _ : st) {
        auto t0 = std::chrono::steady_clock::now();
        xlet_side();
        benchmark::ClobberMemory();
        auto t1 = std::chrono::steady_clock::now();
        peer_side();
        benchmark::ClobberMemory();
        auto t2 = std::chrono::steady_clock::now();
        const double x = std::chrono::duration<double>(t1 - t0).count(),
                     p = std::chrono::duration<double>(t2 - t1).count();
        t_x += x;
        t_p += p;
        ratios.push_back(p / x);
    }
    std::sort(ratios.begin(), ratios.end());
    const double it = static_cast<double>(st.iterations());
    st.counters["xlet_GBps"] = static_cast<double>(bytes) * it / t_x / 1e9;
    st.counters["peer_GBps"] = static_cast<double>(bytes) * it / t_p / 1e9;
    st.counters["ratio"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
}

#if defined(XLET_BENCH_EIGEN) && XLET_BENCH_EIGEN
// Eigen's Tensor module: DefaultDevice (threads == 0 here means "no pool") or a ThreadPoolDevice.
template<class Assign>
void eigen_run(benchmark::State& st, int threads, Assign assign) {
    if (threads == 0) {
        for (auto _ : st) {
            assign(Eigen::DefaultDevice{});
            benchmark::ClobberMemory();
        }
    } else {
        Eigen::ThreadPool pool(threads);
        Eigen::ThreadPoolDevice dev(&pool, threads);
        for (auto _ : st) {
            assign(dev);
            benchmark::ClobberMemory();
        }
    }
}
#endif

// Registers BM_<case>/<impl>/threads:<t>/real_time. `threads` names the case; `arg` is what the
// function gets (Eigen: 0 = DefaultDevice, else a pool of that many threads; elsewhere `threads`).
using bench_fn = void (*)(benchmark::State&, int);
inline void reg(const std::string& name, bench_fn fn, int threads, int arg,
                benchmark::TimeUnit unit = benchmark::kMillisecond) {
    benchmark::RegisterBenchmark((name + "/threads:" + std::to_string(threads)).c_str(),
                                 [fn, arg](benchmark::State& st) { fn(st, arg); })
        ->UseRealTime()
        ->Unit(unit);
}
inline void reg(const std::string& name, bench_fn fn, int threads) { reg(name, fn, threads, threads); }

// The ISA this executable was compiled for (xsimd's default architecture and the widest x86 level
// the compiler flags enable) and the host's SIMD flags from /proc/cpuinfo: every figure names both.
inline std::string compiled_isa() {
    std::string s = xsimd::default_arch::name();
#if defined(__AVX512F__)
    s += " (x86-64 AVX-512: 16 x f32 per register, 32 registers)";
#elif defined(__AVX2__)
    s += " (x86-64 AVX2: 8 x f32 per register, 16 registers)";
#endif
#if defined(__FMA__)
    s += " +FMA";
#endif
    return s;
}
inline std::string host_simd_flags() {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model, out;
    while (std::getline(in, line)) {
        if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 2);
        if (line.rfind("flags", 0) == 0) {
            std::istringstream words(line.substr(line.find(':') + 1));
            for (std::string w; words >> w;)
                if (w == "sse4_2" || w == "avx" || w == "avx2" || w == "fma" || w == "f16c" ||
                    w.rfind("avx512", 0) == 0)
                    out += (out.empty() ? "" : " ") + w;
            break;
        }
    }
    return model + ": " + out;
}

// The host's CPU as "<model name>, <vendor> family <f> model <m>" (the model name alone is "AMD EPYC"
// on the KVM guests; the family and model tell the core generation, bench/plot.py names it).
inline std::string host_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line, name, vendor, family, model;
    auto value = [&] { return line.substr(line.find(':') + 2); };
    while (std::getline(in, line) && !line.empty()) {
        if (line.rfind("model name", 0) == 0)
            name = value();
        else if (line.rfind("vendor_id", 0) == 0)
            vendor = value();
        else if (line.rfind("cpu family", 0) == 0)
            family = value();
        else if (line.rfind("model", 0) == 0 && line.find(':') != std::string::npos)
            model = value();
    }
    return name + ", " + vendor + " family " + family + " model " + model;
}

// main(): --benchmark_min_time defaults to 0.5 s unless the caller gives one (keeps a run short).
inline int bench_main(int argc, char** argv, void (*register_all)()) {
    std::vector<char*> args(argv, argv + argc);
    bool has_min_time = std::any_of(args.begin(), args.end(),
                                    [](const char* a) { return std::strncmp(a, "--benchmark_min_time", 20) == 0; });
    static char min_time[] = "--benchmark_min_time=0.5";
    if (!has_min_time) args.insert(args.begin() + 1, min_time);
    int n = static_cast<int>(args.size());
    register_all();
    benchmark::AddCustomContext("xlet_isa", compiled_isa());
    benchmark::AddCustomContext("host_cpu", host_simd_flags());
    benchmark::AddCustomContext("host_model", host_model());
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // namespace xlet_bench
