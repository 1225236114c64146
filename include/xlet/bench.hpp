// Microbenchmarks of xlet code in one line a case (Google Benchmark; not included by xlet.hpp):
//
//   #include <xlet/bench.hpp>
//   XLET_BENCHMARK(fused, [](const auto& a, const auto& b) { return a * b + exp(a); },
//                  xlet::f32<4096, 4096>, xlet::f32<4096, 4096>)
//   XLET_BENCHMARK_FLOPS(gemm, 2.0 * 1024 * 1024 * 1024, [](const auto& a, const auto& b) { return dot(a, b); },
//                        xlet::f32<1024, 1024>, xlet::f32<1024, 1024>)
//   int main(int argc, char** argv) { return xlet::bench::main(argc, argv); }
//
// Each case runs on 1 thread and on every hardware thread (oneTBB's global_control), with its
// inputs made once (deterministic values: floats in [-1, 1), small integers, alternating preds)
// and its result evaluated in full every iteration. Counters: bytes/s (inputs read + result
// written), FLOP/s when the case gives its FLOP count, and the fractions of this host's limits
// measured in the same executable at the same thread count: `of_copy` (bytes/s over a memcpy of
// 2 x 64 MiB) and `of_fma` (FLOP/s over FMA chains in registers, the widest SIMD the build has).
// The callable is written once for the types given after it; a callable whose body has commas
// outside parentheses goes in parentheses itself: XLET_BENCHMARK(name, ([] { ... }), ...).
// xlet-translate --emit bench builds the same cases from a StableHLO module (the module's public
// functions as "module/<f>", each op alone as "op/<f>/<k>_<op>"); xlet::bench::main then also
// prints each op's share of its function's time.
#pragma once
#include <benchmark/benchmark.h>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <xlet/xlet.hpp>

namespace xlet::bench {

// This host's limits at 1 thread and at every hardware thread (index 0 and 1).
struct limits {
    double copy_bytes_per_s[2]{};
    double fma_flops_per_s[2]{};
};

inline int max_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

namespace detail {

template<class F>
double best_seconds(int reps, F f) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

// memcpy of 64 MiB, split in equal parts over `threads` threads: bytes read + written per second.
inline double copy_bandwidth(int threads) {
    constexpr std::size_t n = std::size_t{64} << 20;
    std::vector<char> a(n, 1), b(n, 2);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    auto run = [&] {
        tbb::parallel_for(0, threads, [&](int t) {
            std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
            std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
            std::memcpy(b.data() + lo, a.data() + lo, hi - lo);
        });
    };
    run();
    double s = best_seconds(5, run);
    benchmark::DoNotOptimize(b.data());
    return 2.0 * static_cast<double>(n) / s;
}

// Independent FMA chains in registers (as many as the registers hold beside the operands; two
// pipes of latency 4 need >= 8 in flight), per thread: the FLOP/s the build's widest SIMD allows.
inline constexpr int fma_chains = static_cast<int>(xlet::detail::gemm_vector_registers) - 4;
[[gnu::noinline]] inline float fma_loop(long steps, float seed) {
    using B = xsimd::batch<float>;
    B acc[fma_chains];
#pragma GCC unroll 32
    for (int c = 0; c < fma_chains; ++c)
        acc[c] = B(seed + 1e-3f * static_cast<float>(c));
    const B m(0.999999f), a(1e-7f);
    for (long i = 0; i < steps; ++i) {
#pragma GCC unroll 32
        for (int c = 0; c < fma_chains; ++c)
            acc[c] = xsimd::fma(acc[c], m, a);
    }
    B s = acc[0];
#pragma GCC unroll 32
    for (int c = 1; c < fma_chains; ++c)
        s += acc[c];
    return xsimd::hadd(s);
}
inline double fma_peak(int threads) {
    constexpr long steps = 1L << 22;
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    std::vector<float> sink(static_cast<std::size_t>(threads));
    auto run = [&] {
        tbb::parallel_for(0, threads, [&](int t) {
            sink[static_cast<std::size_t>(t)] = fma_loop(steps, 1.0f + static_cast<float>(t));
        });
    };
    run();
    double s = best_seconds(3, run);
    benchmark::DoNotOptimize(sink.data());
    return 2.0 * static_cast<double>(xsimd::batch<float>::size) * fma_chains * static_cast<double>(steps) * threads / s;
}

template<class T>
struct is_tuple : std::false_type {};
template<class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

template<class R>
double result_bytes(const R& r) {
    if constexpr (is_tuple<R>::value)
        return std::apply([](const auto&... e) { return (0.0 + ... + result_bytes(e)); }, r);
    else if constexpr (requires {
                           R::size();
                           typename R::value_type;
                       })
        return static_cast<double>(R::size() * sizeof(typename R::value_type));
    else
        return static_cast<double>(sizeof(R));
}

// A result evaluated in full: expressions into tensors; tensors and tuples (already evaluated) as is.
template<class R>
decltype(auto) materialize(R&& r) {
    if constexpr (is_tuple<std::remove_cvref_t<R>>::value || !requires { xlet::eval(r); })
        return std::forward<R>(r);
    else
        return xlet::eval(r);
}

template<class T>
void fill(T& t, std::uint32_t seed) {
    using V = typename T::value_type;
    std::uint32_t s = seed * 2654435761u + 12345u;
    std::size_t i = 0;
    for (auto& v : t) {
        s = s * 1664525u + 1013904223u;
        float u = static_cast<float>(s >> 8) / 8388608.0f - 1.0f; // [-1, 1)
        if constexpr (std::is_same_v<V, bool>)
            v = (i % 2) != 0;
        else if constexpr (is_quantized<V>) // stored integers, within the storage range
            v = V(element_traits<V>::storage_min +
                  static_cast<std::int64_t>((s >> 24) % 8) %
                      (element_traits<V>::storage_max - element_traits<V>::storage_min + 1));
        else if constexpr (std::is_integral_v<V>)
            v = static_cast<V>((s >> 24) % 8);
        else if constexpr (requires { v.imag(); })
            v = V(u, -u);
        else
            v = static_cast<V>(u);
        ++i;
    }
}

// Inputs live on the heap (large tensors would not fit a stack), made once per case.
template<class... T>
struct inputs {
    std::tuple<std::unique_ptr<T>...> v;
    inputs() : v(std::make_unique<T>()...) {
        std::uint32_t seed = 1;
        std::apply([&](auto&... p) { (fill(*p, seed++), ...); }, v);
    }
    double bytes() const { return (0.0 + ... + static_cast<double>(T::size() * sizeof(typename T::value_type))); }
};

} // namespace detail

inline const limits& host_limits() {
    static const limits l = [] {
        limits r;
        int n = max_threads();
        r.copy_bytes_per_s[0] = detail::copy_bandwidth(1);
        r.copy_bytes_per_s[1] = n > 1 ? detail::copy_bandwidth(n) : r.copy_bytes_per_s[0];
        r.fma_flops_per_s[0] = detail::fma_peak(1);
        r.fma_flops_per_s[1] = n > 1 ? detail::fma_peak(n) : r.fma_flops_per_s[0];
        return r;
    }();
    return l;
}

// Registers `name/threads:1` and `name/threads:N`; flops <= 0: no FLOP counters.
template<class... T, class F>
bool add(const std::string& name, double flops, F f) {
    auto data = std::make_shared<std::unique_ptr<detail::inputs<T...>>>();
    std::vector<int> counts{1};
    if (max_threads() > 1) counts.push_back(max_threads());
    for (int threads : counts) {
        auto body = [=](benchmark::State& st) {
            if (!*data) *data = std::make_unique<detail::inputs<T...>>();
            const auto& in = **data;
            const limits& lim = host_limits();
            tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
            double out_bytes = 0;
            auto t0 = std::chrono::steady_clock::now();
            for (auto _ : st) {
                auto r = std::apply([&](const auto&... p) { return detail::materialize(f(*p...)); }, in.v);
                benchmark::DoNotOptimize(r);
                out_bytes = detail::result_bytes(r);
            }
            double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            double per_call = secs / static_cast<double>(std::max<benchmark::IterationCount>(st.iterations(), 1));
            double bytes = in.bytes() + out_bytes;
            int k = threads > 1 ? 1 : 0;
            st.SetBytesProcessed(static_cast<std::int64_t>(bytes * static_cast<double>(st.iterations())));
            // fractions of this host's limits at this thread count (plain numbers, not rates)
            st.counters["of_copy"] = bytes / per_call / lim.copy_bytes_per_s[k];
            if (flops > 0) {
                st.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
                st.counters["of_fma"] = flops / per_call / lim.fma_flops_per_s[k];
            }
        };
        benchmark::RegisterBenchmark((name + "/threads:" + std::to_string(threads)).c_str(), body)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    }
    return true;
}

namespace detail {
// Collects every run's time so that main() can print each op's share of its function.
class share_reporter : public benchmark::ConsoleReporter {
public:
    std::map<std::string, double> seconds; // name -> real time per iteration
    void ReportRuns(const std::vector<Run>& runs) override {
        for (auto& r : runs)
            if (r.run_type == Run::RT_Iteration || r.aggregate_name == "mean")
                seconds[r.run_name.str()] = r.GetAdjustedRealTime();
        ConsoleReporter::ReportRuns(runs);
    }
};
} // namespace detail

// Google Benchmark's main, plus the share of each "op/<f>/..." case in "module/<f>" at the same
// thread count (a sum over 100% means the ops alone cost more than fused in the function).
inline int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    const limits& l = host_limits();
    std::printf(
        "host limits: copy %.1f GB/s (1 thread), %.1f GB/s (%d threads); FMA %.1f GFLOP/s (1), %.1f GFLOP/s (%d)\n",
        l.copy_bytes_per_s[0] / 1e9, l.copy_bytes_per_s[1] / 1e9, max_threads(), l.fma_flops_per_s[0] / 1e9,
        l.fma_flops_per_s[1] / 1e9, max_threads());
    detail::share_reporter rep;
    benchmark::RunSpecifiedBenchmarks(&rep);
    bool header = false;
    for (auto& [name, t] : rep.seconds) {
        if (name.rfind("op/", 0) != 0) continue;
        // op/<f>/<k>_<op>/threads:T  ->  module/<f>/threads:T
        auto f_end = name.find('/', 3);
        auto th = name.rfind("/threads:");
        if (f_end == std::string::npos || th == std::string::npos) continue;
        auto m = rep.seconds.find("module/" + name.substr(3, f_end - 3) + name.substr(th));
        if (m == rep.seconds.end() || m->second <= 0) continue;
        if (!header) std::printf("\n%-60s %12s %8s\n", "op (alone)", "time (us)", "share");
        header = true;
        std::printf("%-60s %12.3g %7.1f%%\n", name.c_str(), t, 100.0 * t / m->second);
    }
    benchmark::Shutdown();
    return 0;
}

} // namespace xlet::bench

#define XLET_BENCH_CAT2(a, b) a##b
#define XLET_BENCH_CAT(a, b) XLET_BENCH_CAT2(a, b)
// XLET_BENCHMARK(name, callable, input types...)
#define XLET_BENCHMARK(name, fn, ...)                                                                                  \
    static const bool XLET_BENCH_CAT(xlet_bench_case_, __LINE__) = ::xlet::bench::add<__VA_ARGS__>(#name, 0.0, fn);
// XLET_BENCHMARK_FLOPS(name, flops per call, callable, input types...)
#define XLET_BENCHMARK_FLOPS(name, flops, fn, ...)                                                                     \
    static const bool XLET_BENCH_CAT(xlet_bench_case_, __LINE__) = ::xlet::bench::add<__VA_ARGS__>(#name, (flops), fn);
