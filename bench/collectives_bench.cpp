// Collectives over the replica pool (issue #13), each beside the bound it should approach in the
// same run:
//   BM_all_reduce_64MiB / BM_all_gather_64MiB / BM_all_to_all_64MiB, R replicas: one pool.run
//     doing one collective on 64 MiB f32 per replica, paired (run_paired) with copying the same
//     bytes (every input read once per reader, every output written once) by tbb::parallel_for
//     memcpy on the same threads; `ratio` = copy time / collective time (target >= 0.7).
//   BM_latency_all_reduce_4B, R replicas: 1000 all_reduces of one f32 in one pool.run, against a
//     tbb::parallel_for over the replicas + the serial sum (a bulk-synchronous barrier), per
//     collective.
#include <xlet/xlet.hpp>

#include "bench_common.hpp"

#include <tbb/task_arena.h>

namespace xlet_bench {
namespace {

constexpr std::size_t n64 = (64u << 20) / sizeof(float); // 64 MiB of f32
using big = xlet::f32<n64>;

// Inputs of R replicas, made once per process.
const std::vector<std::unique_ptr<big>>& inputs(std::size_t R) {
    static std::vector<std::unique_ptr<big>> in;
    while (in.size() < R) {
        auto t = std::make_unique<big>();
        const auto seed = static_cast<std::uint32_t>(in.size());
        fill(t->data(), n64, [&](std::size_t i) { return gen(i, seed, -1.0f, 1.0f); });
        in.push_back(std::move(t));
    }
    return in;
}

// The copy bound: `pieces` memcpys of `bytes` each, from src(i) to dst(i), split over the threads.
template<class Src, class Dst>
void copy_bound(std::size_t pieces, std::size_t bytes, Src src, Dst dst) {
    const std::size_t chunk = 1 << 20, per = (bytes + chunk - 1) / chunk;
    tbb::parallel_for(std::size_t{0}, pieces * per, [&](std::size_t c) {
        const std::size_t i = c / per, off = (c % per) * chunk, len = std::min(chunk, bytes - off);
        std::memcpy(reinterpret_cast<char*>(dst(i)) + off, reinterpret_cast<const char*>(src(i)) + off, len);
    });
}

// What every bandwidth case starts from: R inputs, R outputs, a pool of R replicas.
template<int R>
struct setup {
    const std::vector<std::unique_ptr<big>>& in = inputs(R);
    std::vector<std::unique_ptr<big>> out;
    xlet::replica_pool pool;
    explicit setup(int threads) : pool(R, 1, threads) {
        for (int r = 0; r < R; ++r)
            out.push_back(std::make_unique<big>());
    }
};

// run_paired after one untimed run of each side: the first fresh 64 MiB results fault their pages in.
template<class X, class P>
void warm_paired(benchmark::State& st, std::int64_t bytes, X x, P p) {
    x();
    p();
    run_paired(st, bytes, x, p);
}

template<int R>
void BM_all_reduce(benchmark::State& st, int threads) {
    tbb_threads limit(threads);
    setup<R> su(threads);
    const auto& in = su.in;
    auto& out = su.out;
    auto& pool = su.pool;
    warm_paired(
        st, 2 * std::int64_t{R} * std::int64_t(n64 * 4),
        [&] {
            pool.run([&](xlet::replica_context& ctx) {
                const auto r = ctx.replica_id();
                *out[r] = xlet::all_reduce(ctx, *in[r], xlet::add_fn{});
            });
        },
        [&] {
            copy_bound(
                R, n64 * 4, [&](std::size_t i) { return in[i]->data(); },
                [&](std::size_t i) { return out[i]->data(); });
        });
    // Replica 0's result is the sum in replica order.
    float s = 0;
    for (int k = 0; k < R; ++k)
        s += (*in[k])(12345);
    pool.run([&](xlet::replica_context& ctx) {
        *out[ctx.replica_id()] = xlet::all_reduce(ctx, *in[ctx.replica_id()], xlet::add_fn{});
    });
    if ((*out[R - 1])(12345) != s) st.SkipWithError("all_reduce: wrong sum");
}

template<int R>
void BM_all_gather(benchmark::State& st, int threads) {
    tbb_threads limit(threads);
    constexpr std::size_t piece = n64 / R;
    setup<R> su(threads);
    const auto& in = su.in;
    auto& out = su.out;
    auto& pool = su.pool;
    warm_paired(
        st, 2 * std::int64_t{R} * std::int64_t(n64 * 4),
        [&] {
            pool.run([&](xlet::replica_context& ctx) {
                const auto r = ctx.replica_id();
                xlet::tensor_map<const float, piece> mine(in[r]->data());
                *out[r] = xlet::all_gather<0, R>(ctx, mine);
            });
        },
        [&] {
            copy_bound(
                R * R, piece * 4, [&](std::size_t i) { return in[i % R]->data(); },
                [&](std::size_t i) { return out[i / R]->data() + (i % R) * piece; });
        });
}

template<int R>
void BM_all_to_all(benchmark::State& st, int threads) {
    tbb_threads limit(threads);
    constexpr std::size_t piece = n64 / R;
    setup<R> su(threads);
    const auto& in = su.in;
    auto& out = su.out;
    auto& pool = su.pool;
    warm_paired(
        st, 2 * std::int64_t{R} * std::int64_t(n64 * 4),
        [&] {
            pool.run([&](xlet::replica_context& ctx) {
                const auto r = ctx.replica_id();
                *out[r] = xlet::all_to_all<0, 0, R>(ctx, *in[r]);
            });
        },
        [&] {
            copy_bound(
                R * R, piece * 4, [&](std::size_t i) { return in[i % R]->data() + (i / R) * piece; },
                [&](std::size_t i) { return out[i / R]->data() + (i % R) * piece; });
        });
}

constexpr int rounds = 1000;

template<int R>
void BM_latency_xlet(benchmark::State& st, int threads) {
    tbb_threads limit(threads);
    xlet::replica_pool pool(R, 1, threads);
    float check = 0;
    double seconds = 0;
    for (auto _ : st) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = pool.run([](xlet::replica_context& ctx) {
            xlet::f32<1> x{static_cast<float>(ctx.replica_id())};
            float acc = 0;
            for (int i = 0; i < rounds; ++i)
                acc += xlet::all_reduce(ctx, x, xlet::add_fn{})(0);
            return acc;
        });
        check = r[0];
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (check != static_cast<float>(rounds) * (R * (R - 1) / 2)) st.SkipWithError("latency: wrong sum");
    st.counters["us_per_collective"] = seconds * 1e6 / (static_cast<double>(st.iterations()) * rounds);
}

// The bulk-synchronous reference: per round, a parallel_for over the replicas writes their values
// (the barrier is the end of the parallel_for), then one thread sums them.
template<int R>
void BM_latency_parallel_for(benchmark::State& st, int threads) {
    tbb_threads limit(threads);
    tbb::task_arena arena(threads);
    std::vector<float> v(R);
    float check = 0;
    double seconds = 0;
    for (auto _ : st) {
        const auto t0 = std::chrono::steady_clock::now();
        arena.execute([&] {
            float acc = 0;
            for (int i = 0; i < rounds; ++i) {
                tbb::parallel_for(0, R, [&](int r) { v[static_cast<std::size_t>(r)] = static_cast<float>(r); });
                float s = 0;
                for (float x : v)
                    s += x;
                acc += s;
            }
            check = acc;
        });
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    benchmark::DoNotOptimize(check);
    st.counters["us_per_collective"] = seconds * 1e6 / (static_cast<double>(st.iterations()) * rounds);
}

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_all_reduce_64MiB/replicas:2/paired", BM_all_reduce<2>, t);
        reg("BM_all_reduce_64MiB/replicas:4/paired", BM_all_reduce<4>, t);
        reg("BM_all_reduce_64MiB/replicas:8/paired", BM_all_reduce<8>, t);
        reg("BM_all_gather_64MiB/replicas:2/paired", BM_all_gather<2>, t);
        reg("BM_all_gather_64MiB/replicas:8/paired", BM_all_gather<8>, t);
        reg("BM_all_to_all_64MiB/replicas:2/paired", BM_all_to_all<2>, t);
        reg("BM_all_to_all_64MiB/replicas:8/paired", BM_all_to_all<8>, t);
    }
    for (int t : {1, 2}) {
        reg("BM_latency_all_reduce_4B/replicas:8/xlet", BM_latency_xlet<8>, t, t, benchmark::kMicrosecond);
        reg("BM_latency_all_reduce_4B/replicas:8/parallel_for", BM_latency_parallel_for<8>, t, t,
            benchmark::kMicrosecond);
        reg("BM_latency_all_reduce_4B/replicas:64/xlet", BM_latency_xlet<64>, t, t, benchmark::kMicrosecond);
        reg("BM_latency_all_reduce_4B/replicas:64/parallel_for", BM_latency_parallel_for<64>, t, t,
            benchmark::kMicrosecond);
    }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
