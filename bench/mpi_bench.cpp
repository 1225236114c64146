// The MPI transport (issue #27) beside bare MPI in the same run. Run under mpirun; rank 0 reports:
//   mpirun -np 2 build/bench/bench/mpi_bench        (and -np 4; --oversubscribe beyond the cores)
// Each case times `reps` collectives inside one mpi_pool::run (every rank's time, the slowest
// reported), then the same exchange through the bare MPI call on the same buffers, alternately;
// `vs_mpi` = bare time / xlet time, the median over the pairs (target: >= 0.9 for all_reduce
// 64 MiB, >= 0.95 all_gather and all_to_all, latency of a 4-byte all_reduce <= 1.2x bare, i.e.
// vs_mpi >= 0.83).
//   BM_all_reduce_64MiB     f32[16M] sum, bitwise in group order  |  MPI_Allreduce(MPI_SUM)
//   BM_all_gather_64MiB     f32[16M / ranks] -> f32[16M]          |  MPI_Allgather
//   BM_all_to_all_64MiB     f32[16M] -> f32[16M]                  |  MPI_Alltoall
//   BM_latency_all_reduce_4B  one f32, 20000 times                |  MPI_Allreduce of one float
//   BM_overlap_all_reduce_64MiB  all_reduce_start + compute + done  |  MPI_Iallreduce + compute + MPI_Wait
//   BM_hybrid_all_reduce_1MiB/D  D devices per rank (ranks x D devices), f32[256K]: per collective
//     (run it with -np 4 and D = 16, and with -np 64 and D = 1: the same 64-device program).
#include <xlet/xlet.hpp>
#include <xlet/distributed/mpi.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

constexpr std::size_t n64 = (64u << 20) / sizeof(float);
using big = xlet::f32<n64>;
using clk = std::chrono::steady_clock;

int ranks() { return xlet::mpi_session::size(); }
double slowest(double t) {
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}
double seconds_since(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

template<class T>
std::unique_ptr<T> filled(float seed) {
    auto t = std::make_unique<T>();
    for (std::size_t i = 0; i < T::size(); ++i)
        t->data()[i] = static_cast<float>((i * 7 + static_cast<std::size_t>(seed) * 13) % 101) * 0.01f;
    return t;
}

// Times `reps` of xlet's collective (inside one run) and of the bare MPI call, alternating per
// benchmark iteration; reports the xlet time per collective and the ratio.
template<class Xlet, class Bare>
void paired(benchmark::State& st, int reps, std::int64_t bytes, Xlet xlet_op, Bare bare_op) {
    xlet::mpi_pool pool(MPI_COMM_WORLD);
    std::vector<double> ratios;
    double bt = 0;
    pool.run([&](xlet::replica_context& ctx) { xlet_op(ctx); }); // warm: pages, connections
    bare_op();
    for (auto _ : st) {
        double t = 0;
        pool.run([&](xlet::replica_context& ctx) {
            MPI_Barrier(MPI_COMM_WORLD);
            const auto t0 = clk::now();
            for (int i = 0; i < reps; ++i)
                xlet_op(ctx);
            t = seconds_since(t0) / reps;
        });
        t = slowest(t);
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = clk::now();
        for (int i = 0; i < reps; ++i)
            bare_op();
        const double b = slowest(seconds_since(t0) / reps);
        st.SetIterationTime(t);
        ratios.push_back(b / t);
        bt += b;
    }
    // (the median pair: a VM's stray stall in one half of one pair does not decide the ratio)
    std::sort(ratios.begin(), ratios.end());
    st.counters["vs_mpi"] = ratios[ratios.size() / 2];
    st.counters["ranks"] = ranks();
    st.counters["bare_us"] = bt / static_cast<double>(st.iterations()) * 1e6;
    if (bytes) st.SetBytesProcessed(bytes * static_cast<std::int64_t>(st.iterations()));
}

void BM_all_reduce_64MiB(benchmark::State& st) {
    const auto x = filled<big>(static_cast<float>(xlet::mpi_session::rank()));
    auto y = std::make_unique<big>();
    paired(
        st, 1, static_cast<std::int64_t>(n64 * 4),
        [&](xlet::replica_context& ctx) {
            auto r = xlet::all_reduce(ctx, *x, xlet::add_fn{});
            benchmark::DoNotOptimize(r.data());
        },
        [&] { MPI_Allreduce(x->data(), y->data(), static_cast<int>(n64), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); });
}

template<int N>
void all_gather_case(benchmark::State& st) {
    using piece = xlet::f32<n64 / N>;
    const auto x = filled<piece>(static_cast<float>(xlet::mpi_session::rank()));
    auto y = std::make_unique<big>();
    paired(
        st, 1, static_cast<std::int64_t>(n64 * 4),
        [&](xlet::replica_context& ctx) {
            auto r = xlet::all_gather<0, N>(ctx, *x);
            benchmark::DoNotOptimize(r.data());
        },
        [&] {
            MPI_Allgather(x->data(), static_cast<int>(n64 / N), MPI_FLOAT, y->data(), static_cast<int>(n64 / N),
                          MPI_FLOAT, MPI_COMM_WORLD);
        });
}
template<int N>
void all_to_all_case(benchmark::State& st) {
    const auto x = filled<big>(static_cast<float>(xlet::mpi_session::rank()));
    auto y = std::make_unique<big>();
    paired(
        st, 1, static_cast<std::int64_t>(n64 * 4),
        [&](xlet::replica_context& ctx) {
            auto r = xlet::all_to_all<0, 0, N>(ctx, *x);
            benchmark::DoNotOptimize(r.data());
        },
        [&] {
            MPI_Alltoall(x->data(), static_cast<int>(n64 / N), MPI_FLOAT, y->data(), static_cast<int>(n64 / N),
                         MPI_FLOAT, MPI_COMM_WORLD);
        });
}
void BM_all_gather_64MiB(benchmark::State& st) {
    if (ranks() == 2) return all_gather_case<2>(st);
    if (ranks() == 4) return all_gather_case<4>(st);
    st.SkipWithError("run with -np 2 or -np 4");
}
void BM_all_to_all_64MiB(benchmark::State& st) {
    if (ranks() == 2) return all_to_all_case<2>(st);
    if (ranks() == 4) return all_to_all_case<4>(st);
    st.SkipWithError("run with -np 2 or -np 4");
}

void BM_latency_all_reduce_4B(benchmark::State& st) {
    const xlet::f32<1> x{1.0f};
    float y = 0, v = 1.0f;
    paired(
        st, 20000, 0,
        [&](xlet::replica_context& ctx) {
            auto r = xlet::all_reduce(ctx, x, xlet::add_fn{});
            benchmark::DoNotOptimize(r.data());
        },
        [&] { MPI_Allreduce(&v, &y, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); });
}

// ranks x D devices: every device times its own 200 collectives; the slowest is reported.
void BM_hybrid_all_reduce_1MiB(benchmark::State& st) {
    const auto D = static_cast<std::uint32_t>(st.range(0));
    using mid = xlet::f32<(1u << 20) / 4>;
    const auto x = filled<mid>(static_cast<float>(xlet::mpi_session::rank()));
    xlet::mpi_pool pool(MPI_COMM_WORLD, 1, D);
    constexpr int reps = 50;
    auto program = [&](xlet::replica_context& ctx) {
        (void)xlet::all_reduce(ctx, xlet::f32<1>{0.0f}, xlet::add_fn{}); // (everyone has started)
        const auto t0 = clk::now();
        for (int i = 0; i < reps; ++i) {
            auto r = xlet::all_reduce(ctx, *x, xlet::add_fn{});
            benchmark::DoNotOptimize(r.data());
        }
        return seconds_since(t0) / reps;
    };
    pool.run(program);
    for (auto _ : st) {
        double t = 0;
        for (double d : pool.run(program))
            t = std::max(t, d);
        st.SetIterationTime(slowest(t));
    }
    st.counters["devices"] = static_cast<double>(pool.device_count());
    st.counters["ranks"] = ranks();
}

// Overlap of an async all_reduce of 64 MiB with compute (a cache-resident loop calibrated to take
// as long as the collective), against MPI_Iallreduce + the same compute + MPI_Wait:
// overlap = (collective + compute - together) / min(collective, compute): 0 = none, 1 = full.
// Neither Open MPI's nonblocking collectives nor xlet's messages move data while no MPI call runs
// (no asynchronous progress thread by default), so both depend on the library's progress.
float busy(int reps) {
    alignas(64) static float v[4096];
    for (int r = 0; r < reps; ++r) {
        for (float& e : v)
            e = e * 0.999f + 0.5f;
        benchmark::ClobberMemory();
    }
    return v[7];
}
double timed(const auto& f) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = clk::now();
    f();
    return slowest(seconds_since(t0));
}
void BM_overlap_all_reduce_64MiB(benchmark::State& st) {
    const auto x = filled<big>(static_cast<float>(xlet::mpi_session::rank()));
    auto y = std::make_unique<big>();
    xlet::mpi_pool pool(MPI_COMM_WORLD);
    auto sync = [&] {
        pool.run([&](xlet::replica_context& ctx) {
            benchmark::DoNotOptimize(xlet::all_reduce(ctx, *x, xlet::add_fn{}).data());
        });
    };
    auto async = [&](int reps) {
        pool.run([&](xlet::replica_context& ctx) {
            auto h = xlet::all_reduce_start(ctx, *x, xlet::add_fn{});
            benchmark::DoNotOptimize(busy(reps));
            benchmark::DoNotOptimize(xlet::all_reduce_done(std::move(h)).data());
        });
    };
    auto bare = [&](int reps) {
        MPI_Request r;
        MPI_Iallreduce(x->data(), y->data(), static_cast<int>(n64), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        benchmark::DoNotOptimize(busy(reps));
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    };
    sync();
    const double a = timed(sync), one = timed([] { benchmark::DoNotOptimize(busy(100)); }) / 100;
    int reps = std::max(1, static_cast<int>(a / one)); // (the same count on every rank: timed is the slowest)
    MPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double ta = 0, tc = 0, tx = 0, tb = 0, tbw = 0;
    for (auto _ : st) {
        const double t_sync = timed(sync), t_c = timed([&] { benchmark::DoNotOptimize(busy(reps)); });
        const double t_x = timed([&] { async(reps); });
        const double t_bare = timed([&] { bare(0); }), t_bw = timed([&] { bare(reps); });
        st.SetIterationTime(t_x);
        ta += t_sync;
        tc += t_c;
        tx += t_x;
        tb += t_bare;
        tbw += t_bw;
    }
    st.counters["overlap"] = (ta + tc - tx) / std::min(ta, tc);
    st.counters["overlap_mpi"] = (tb + tc - tbw) / std::min(tb, tc);
    st.counters["ranks"] = ranks();
}

BENCHMARK(BM_all_reduce_64MiB)->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_all_gather_64MiB)->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_all_to_all_64MiB)->UseManualTime()->Iterations(11)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_latency_all_reduce_4B)->UseManualTime()->Iterations(7)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_overlap_all_reduce_64MiB)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_hybrid_all_reduce_1MiB)->Arg(1)->Arg(16)->UseManualTime()->Iterations(3)->Unit(benchmark::kMicrosecond);

// Every rank runs every case (they are collective); only rank 0 prints.
class quiet final : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
};

} // namespace

int main(int argc, char** argv) {
    xlet::mpi_session mpi(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (xlet::mpi_session::rank() == 0) {
        benchmark::RunSpecifiedBenchmarks();
    } else {
        quiet q;
        benchmark::RunSpecifiedBenchmarks(&q);
    }
    benchmark::Shutdown();
}
