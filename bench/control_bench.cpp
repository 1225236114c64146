// Control flow (issue #17), each beside the plain C++ it should match, alternated in one timed
// loop (run_paired: `ratio` = plain time / xlet time, > 1: xlet is faster):
//   BM_while_spec: the spec's While example (s32 counter, f32[10] accumulator += constant vector,
//     1000 iterations) against the same loop over a float[10]; counter ns_per_iter (xlet).
//     Target: plain / xlet >= 1 / 1.1.
//   BM_while_small: a 3-element state (s32, f32, f32[4]) doing a scalar recurrence, 1000 iterations.
//   BM_conditional_index / BM_conditional_pred: 1000 dispatches over 3 branches (index form, an
//     index read from a table, some out of range) or 2 (pred form), f32[4] operands, against a
//     plain switch / if over float[4].
//   BM_feed/<bytes>: one thread pushes n items of 4 B (f32[1]) or 1 MiB (f32[262144]) while this
//     thread reads them with infeed; peer: tbb::concurrent_bounded_queue<tensor> with the same
//     capacity, push(copy) / pop; counters msgs_per_s for both and `ratio` (xlet / tbb).
#include <xlet/xlet.hpp>

#include "bench_common.hpp"

#include <tbb/concurrent_queue.h>

#include <thread>

namespace xlet_bench {
namespace {

using namespace xlet;

void BM_while_spec(benchmark::State& st, int) {
    f32<10> c{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    float cc[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    float sink = 0;
    auto xs = [&] {
        auto [n, acc] = while_loop([](const s32<>& i, const f32<10>&) { return i < 1000; },
                                   [&](const s32<>& i, const f32<10>& v) {
                                       return std::tuple{i + 1, v + c};
                                   },
                                   std::tuple{s32<>(0), f32<10>{}});
        benchmark::DoNotOptimize(acc.data());
        sink += acc(9) + static_cast<float>(n());
    };
    auto plain = [&] {
        std::int32_t i = 0;
        alignas(64) float acc[10] = {};
        while (i < 1000) {
            ++i;
            for (int k = 0; k < 10; ++k)
                acc[k] += cc[k];
            benchmark::DoNotOptimize(acc); // one state per iteration, as the body returns one
        }
        sink += acc[9] + static_cast<float>(i);
    };
    run_paired(st, 1000, xs, plain);
    st.counters["xlet_ns_per_iter"] = 1.0 / st.counters["xlet_GBps"];
    st.counters["plain_ns_per_iter"] = 1.0 / st.counters["peer_GBps"];
    benchmark::DoNotOptimize(sink);
}

void BM_while_small(benchmark::State& st, int) {
    float sink = 0;
    auto xs = [&] {
        auto [n, x, v] = while_loop([](const s32<>& i, const f32<>&, const f32<4>&) { return i < 1000; },
                                    [](const s32<>& i, const f32<>& a, const f32<4>& w) {
                                        return std::tuple{i + 1, a * 0.5f + 1.0f, w + a};
                                    },
                                    std::tuple{s32<>(0), f32<>(0.0f), f32<4>{}});
        benchmark::DoNotOptimize(v.data());
        sink += v(3) + x() + static_cast<float>(n());
    };
    auto plain = [&] {
        std::int32_t i = 0;
        float a = 0;
        alignas(16) float w[4] = {};
        while (i < 1000) {
            float na = a * 0.5f + 1.0f;
            for (int k = 0; k < 4; ++k)
                w[k] += a;
            a = na;
            ++i;
            benchmark::DoNotOptimize(w);
        }
        sink += w[3] + a + static_cast<float>(i);
    };
    run_paired(st, 1000, xs, plain);
    st.counters["xlet_ns_per_iter"] = 1.0 / st.counters["xlet_GBps"];
    st.counters["plain_ns_per_iter"] = 1.0 / st.counters["peer_GBps"];
    benchmark::DoNotOptimize(sink);
}

std::vector<std::int32_t> indices() {
    std::vector<std::int32_t> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<std::int32_t>(mix(i, 7) % 5) - 1; // -1..3: a quarter out of range
    return v;
}

void BM_conditional_index(benchmark::State& st, int) {
    const auto idx = indices();
    f32<4> x{1, 2, 3, 4};
    alignas(16) float xp[4] = {1, 2, 3, 4};
    float sink = 0;
    auto br =
        std::tuple{[](const f32<4>& a) { return f32<4>(a + 1.0f); }, [](const f32<4>& a) { return f32<4>(a * 2.0f); },
                   [](const f32<4>& a) { return f32<4>(a - 3.0f); }};
    auto xs = [&] {
        f32<4> acc{};
        for (std::int32_t b : idx) {
            f32<4> r = conditional(b, br, std::forward_as_tuple(x, x, x));
            acc = acc + r;
        }
        benchmark::DoNotOptimize(acc.data());
        sink += acc(0);
    };
    auto plain = [&] {
        alignas(16) float acc[4] = {};
        for (std::int32_t b : idx) {
            alignas(16) float r[4];
            switch (b) {
            case 0:
                for (int k = 0; k < 4; ++k)
                    r[k] = xp[k] + 1.0f;
                break;
            case 1:
                for (int k = 0; k < 4; ++k)
                    r[k] = xp[k] * 2.0f;
                break;
            default:
                for (int k = 0; k < 4; ++k)
                    r[k] = xp[k] - 3.0f;
            }
            for (int k = 0; k < 4; ++k)
                acc[k] += r[k];
            benchmark::DoNotOptimize(acc);
        }
        sink += acc[0];
    };
    run_paired(st, 1000, xs, plain);
    st.counters["xlet_ns_per_dispatch"] = 1.0 / st.counters["xlet_GBps"];
    st.counters["plain_ns_per_dispatch"] = 1.0 / st.counters["peer_GBps"];
    benchmark::DoNotOptimize(sink);
}

void BM_conditional_pred(benchmark::State& st, int) {
    const auto idx = indices();
    f32<4> x{1, 2, 3, 4};
    alignas(16) float xp[4] = {1, 2, 3, 4};
    float sink = 0;
    auto t = [](const f32<4>& a) { return f32<4>(a + 1.0f); };
    auto f = [](const f32<4>& a) { return f32<4>(a * 2.0f); };
    auto xs = [&] {
        f32<4> acc{};
        for (std::int32_t b : idx) {
            f32<4> r = conditional(b > 1, x, t, x, f);
            acc = acc + r;
        }
        benchmark::DoNotOptimize(acc.data());
        sink += acc(0);
    };
    auto plain = [&] {
        alignas(16) float acc[4] = {};
        for (std::int32_t b : idx) {
            alignas(16) float r[4];
            if (b > 1)
                for (int k = 0; k < 4; ++k)
                    r[k] = xp[k] + 1.0f;
            else
                for (int k = 0; k < 4; ++k)
                    r[k] = xp[k] * 2.0f;
            for (int k = 0; k < 4; ++k)
                acc[k] += r[k];
            benchmark::DoNotOptimize(acc);
        }
        sink += acc[0];
    };
    run_paired(st, 1000, xs, plain);
    st.counters["xlet_ns_per_dispatch"] = 1.0 / st.counters["xlet_GBps"];
    st.counters["plain_ns_per_dispatch"] = 1.0 / st.counters["peer_GBps"];
    benchmark::DoNotOptimize(sink);
}

// n items from a producer thread to this thread: xlet's feed_queue + infeed, then the TBB queue.
template<std::size_t Elems>
void BM_feed(benchmark::State& st, int) {
    using T = f32<Elems>;
    const std::size_t n = Elems == 1 ? 200000 : 400;
    const std::size_t capacity = Elems == 1 ? 1024 : 8;
    auto src = std::make_unique<T>();
    fill(src->data(), Elems, [](std::size_t i) { return gen(i, 3, -1.0f, 1.0f); });
    double t_x = 0, t_p = 0;
    std::vector<double> ratios;
    float sink = 0;
    for (auto _ : st) {
        auto t0 = std::chrono::steady_clock::now();
        {
            feed_queue q(capacity);
            std::thread producer([&] {
                for (std::size_t i = 0; i < n; ++i)
                    q.push(*src);
            });
            token t = after_all();
            for (std::size_t i = 0; i < n; ++i) {
                auto [v, t1] = infeed<T>(q, t);
                sink += v(Elems - 1);
                t = t1;
            }
            producer.join();
        }
        auto t1 = std::chrono::steady_clock::now();
        {
            tbb::concurrent_bounded_queue<T> q;
            q.set_capacity(static_cast<std::ptrdiff_t>(capacity));
            std::thread producer([&] {
                for (std::size_t i = 0; i < n; ++i)
                    q.push(*src);
            });
            for (std::size_t i = 0; i < n; ++i) {
                T v;
                q.pop(v);
                sink += v(Elems - 1);
            }
            producer.join();
        }
        auto t2 = std::chrono::steady_clock::now();
        const double x = std::chrono::duration<double>(t1 - t0).count(),
                     p = std::chrono::duration<double>(t2 - t1).count();
        t_x += x;
        t_p += p;
        ratios.push_back(p / x);
    }
    std::sort(ratios.begin(), ratios.end());
    const double it = static_cast<double>(st.iterations());
    st.counters["xlet_msgs_per_s"] = static_cast<double>(n) * it / t_x;
    st.counters["tbb_msgs_per_s"] = static_cast<double>(n) * it / t_p;
    st.counters["xlet_GBps"] = static_cast<double>(n * sizeof(float) * Elems) * it / t_x / 1e9;
    st.counters["ratio"] = ratios[ratios.size() / 2];
    benchmark::DoNotOptimize(sink);
}

void register_all() {
    reg("BM_while_spec", BM_while_spec, 1);
    reg("BM_while_small", BM_while_small, 1);
    reg("BM_conditional_index", BM_conditional_index, 1);
    reg("BM_conditional_pred", BM_conditional_pred, 1);
    reg("BM_feed/4B", BM_feed<1>, 1);
    reg("BM_feed/1MiB", BM_feed<262144>, 1);
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
