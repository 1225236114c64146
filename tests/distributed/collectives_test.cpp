// Collectives over the replica pool (issue #13): the spec's examples verbatim, every op on 1, 2, 3,
// 4, 8, 64 and 256 replicas against a naive reference, groups, channels and the partition modes,
// results bitwise equal for 1, 2 and 3 threads, user computations of every shape, and each misuse
// diagnosed (with a time bound, so a regression to a hang fails instead of stalling CI).
//
// Built a second time with XLET_TEST_MPI (collectives_mpi_test): every program then also runs on
// MPI processes and must give the same bits there (mpi_test_pool.hpp).
#ifdef XLET_TEST_MPI
#define DOCTEST_CONFIG_IMPLEMENT
#else
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#endif
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <xlet/xlet.hpp>
#include <xlet/distributed.hpp>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

using namespace xlet;
#ifdef XLET_TEST_MPI
#include "mpi_test_pool.hpp"
using xlet_test::test_pool;
#else
using test_pool = xlet::replica_pool;
#endif

namespace {

// Runs fn, failing the whole test binary if it has not returned within `seconds`: a collective that
// hangs must be a failure, not a stalled CI job.
template<class Fn>
void within(double seconds, Fn&& fn) {
    auto fut = std::async(std::launch::async, std::forward<Fn>(fn));
    if (fut.wait_for(std::chrono::duration<double>(seconds)) != std::future_status::ready) {
        std::fprintf(stderr, "collectives_test: did not finish within %.0f s (a hang)\n", seconds);
        std::_Exit(1);
    }
    fut.get();
}

// The error a pool run raises, or "" when it raises none.
template<class Fn>
std::string error_of(test_pool& pool, Fn&& program) {
    std::string what;
    within(60, [&] {
        try {
            pool.run(program);
        } catch (const std::exception& e) {
            what = e.what();
        }
    });
    return what;
}

// Equal shapes and element values (== on tensors is XLA's element-wise Eq).
template<class A, class B>
bool same(const A& a, const B& b) {
    static_assert(A::extents == B::extents);
    return std::equal(a.begin(), a.end(), b.begin());
}

// Input of device d: distinct small integers, exact in f32 sums of up to 256 devices.
template<class T, std::size_t... D>
tensor<T, D...> input(std::uint32_t d) {
    tensor<T, D...> t;
    for (std::size_t i = 0; i < t.size(); ++i)
        t.data()[i] = static_cast<T>(static_cast<int>((d * 7 + i * 3) % 23) - 11);
    return t;
}

std::vector<std::int64_t> iota_group(std::int64_t from, std::int64_t n, std::int64_t step = 1) {
    std::vector<std::int64_t> g;
    for (std::int64_t i = 0; i < n; ++i)
        g.push_back(from + i * step);
    return g;
}

// Groups of size G over R replicas, interleaved: {0, R/G, 2R/G, ...}, {1, ...}: not in id order,
// so group order and id order differ.
replica_groups_t interleaved(std::int64_t R, std::int64_t G) {
    replica_groups_t gs;
    for (std::int64_t i = 0; i < R / G; ++i) {
        auto g = iota_group(i, G, R / G);
        std::reverse(g.begin(), g.end()); // group order is not id order
        gs.push_back(g);
    }
    return gs;
}

// The group (as replica ids, in group order) of replica r, and r's position in it.
std::pair<std::vector<std::int64_t>, std::size_t> group_of(const replica_groups_t& gs, std::int64_t R, std::int64_t r) {
    if (gs.empty()) return {iota_group(0, R), static_cast<std::size_t>(r)};
    for (const auto& g : gs)
        for (std::size_t i = 0; i < g.size(); ++i)
            if (g[i] == r) return {g, i};
    return {{}, 0};
}

} // namespace

TEST_CASE("spec examples, verbatim") {
    test_pool two(2);
    // AllGather: [1.0, 2.5] and [3.0, 5.25], all_gather_dim 0 -> [1.0, 2.5, 3.0, 5.25] on both.
    // AllReduce (sum) of the same -> [4.0, 7.75] on both.
    auto r = two.run([](replica_context& ctx) {
        const f32<2> x = ctx.replica_id() == 0 ? f32<2>{1.0f, 2.5f} : f32<2>{3.0f, 5.25f};
        return std::pair{all_gather<0, 2>(ctx, x), all_reduce(ctx, x, add_fn{})};
    });
    for (auto& [g, s] : r) {
        CHECK(same(g, f32<4>{1.0f, 2.5f, 3.0f, 5.25f}));
        CHECK(same(s, f32<2>{4.0f, 7.75f}));
    }
    // ReduceScatter: [1.0, 2.25] and [3.0, 5.25], scatter_dim 0 -> [4.0] on the first, [7.5] on the second.
    auto rs = two.run([](replica_context& ctx) {
        const f32<2> x = ctx.replica_id() == 0 ? f32<2>{1.0f, 2.25f} : f32<2>{3.0f, 5.25f};
        return reduce_scatter<0, 2>(ctx, x, add_fn{});
    });
    CHECK(same(rs[0], f32<1>{4.0f}));
    CHECK(same(rs[1], f32<1>{7.5f}));
    // ReduceScatter (StableHLO): f32[2,4] on two replicas, scatter_dimension 1.
    auto rs2 = two.run([](replica_context& ctx) {
        const f32<2, 4> x = ctx.replica_id() == 0 ? f32<2, 4>{{1, 2, 3, 4}, {5, 6, 7, 8}}
                                                  : f32<2, 4>{{9, 10, 11, 12}, {13, 14, 15, 16}};
        return reduce_scatter<1, 2>(ctx, x, add_fn{});
    });
    CHECK(same(rs2[0], f32<2, 2>{{10, 12}, {18, 20}}));
    CHECK(same(rs2[1], f32<2, 2>{{14, 16}, {22, 24}}));
    // AllToAll (StableHLO): f32[2,4], split_dimension 1, concat_dimension 0, split_count 2 -> f32[4,2].
    auto a2 = two.run([](replica_context& ctx) {
        const f32<2, 4> x = ctx.replica_id() == 0 ? f32<2, 4>{{1, 2, 3, 4}, {5, 6, 7, 8}}
                                                  : f32<2, 4>{{9, 10, 11, 12}, {13, 14, 15, 16}};
        return all_to_all<1, 0, 2>(ctx, x);
    });
    CHECK(same(a2[0], f32<4, 2>{{1, 2}, {5, 6}, {9, 10}, {13, 14}}));
    CHECK(same(a2[1], f32<4, 2>{{3, 4}, {7, 8}, {11, 12}, {15, 16}}));
    // AllToAll example 1: f32[4,16] on four cores, split 1, concat 0, split_count 4 -> f32[16,4];
    // core c's output rows 4k..4k+3 are core k's columns 4c..4c+3.
    test_pool four(4);
    auto a4 = four.run([](replica_context& ctx) {
        f32<4, 16> x;
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j = 0; j < 16; ++j)
                x(i, j) = static_cast<float>(ctx.replica_id() * 1000 + i * 16 + j);
        return all_to_all<1, 0, 4>(ctx, x);
    });
    for (std::size_t c = 0; c < 4; ++c)
        for (std::size_t k = 0; k < 4; ++k)
            for (std::size_t i = 0; i < 4; ++i)
                for (std::size_t j = 0; j < 4; ++j)
                    CHECK(a4[c](k * 4 + i, j) == static_cast<float>(k * 1000 + i * 16 + c * 4 + j));
    // CollectivePermute (StableHLO): pairs (0,1), (1,2) on three replicas; replica 0 is no target.
    test_pool three(3);
    auto cp = three.run([](replica_context& ctx) {
        const f32<2, 2> xs[3] = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}, {{9, 10}, {11, 12}}};
        return collective_permute(ctx, xs[ctx.replica_id()], {{0, 1}, {1, 2}});
    });
    CHECK(same(cp[0], f32<2, 2>{{0, 0}, {0, 0}}));
    CHECK(same(cp[1], f32<2, 2>{{1, 2}, {3, 4}}));
    CHECK(same(cp[2], f32<2, 2>{{5, 6}, {7, 8}}));
    // CollectiveBroadcast (StableHLO): replica_groups [[2, 1]] on four replicas.
    auto cb = four.run([](replica_context& ctx) {
        const s64<1, 2> xs[4] = {{{1, 2}}, {{3, 4}}, {{5, 6}}, {{7, 8}}};
        return collective_broadcast(ctx, xs[ctx.replica_id()], {.replica_groups = {{2, 1}}});
    });
    CHECK(same(cb[0], s64<1, 2>{{0, 0}}));
    CHECK(same(cb[1], s64<1, 2>{{5, 6}}));
    CHECK(same(cb[2], s64<1, 2>{{5, 6}}));
    CHECK(same(cb[3], s64<1, 2>{{0, 0}}));
    // ... with a dynamic root (StableHLO 1.20's has_dynamic_root): member 1 of each group, [[2, 1]]
    // and [[0, 3]]; a root outside the group is an error.
    auto cr = four.run([](replica_context& ctx) {
        const s64<1, 2> xs[4] = {{{1, 2}}, {{3, 4}}, {{5, 6}}, {{7, 8}}};
        return collective_broadcast_from(ctx, 1, xs[ctx.replica_id()], {.replica_groups = {{2, 1}, {0, 3}}});
    });
    CHECK(same(cr[0], s64<1, 2>{{7, 8}}));
    CHECK(same(cr[1], s64<1, 2>{{3, 4}}));
    CHECK(same(cr[2], s64<1, 2>{{3, 4}}));
    CHECK(same(cr[3], s64<1, 2>{{7, 8}}));
    CHECK_THROWS_WITH_AS(four.run([](replica_context& ctx) {
        return collective_broadcast_from(ctx, 2, s64<1>{1}, {.replica_groups = {{2, 1}, {0, 3}}});
    }),
                         doctest::Contains("root 2 is not a member index of a group of 2"), xlet::error);
    // ReplicaId / PartitionId: u32 scalars.
    test_pool grid(3, 2);
    auto ids = grid.run([](replica_context& ctx) { return std::pair{replica_id(ctx), partition_id(ctx)}; });
    for (std::uint32_t d = 0; d < 6; ++d) {
        CHECK(ids[d].first() == d / 2);
        CHECK(ids[d].second() == d % 2);
    }
}

TEST_CASE_TEMPLATE("every op on 1..256 replicas, with and without groups, against the reference", T, float,
                   std::int32_t) {
    for (std::uint32_t R : {1u, 2u, 3u, 4u, 8u, 64u, 256u}) {
        for (bool grouped : {false, true}) {
            const std::int64_t G = grouped ? (R % 2 == 0 ? 2 : 1) : R;
            const replica_groups_t gs = grouped ? interleaved(R, G) : replica_groups_t{};
            CAPTURE(R);
            CAPTURE(grouped);
            test_pool pool(R, 1, 2);
            struct out_t {
                tensor<T, 3, 4> sum;
                tensor<T, 3, 4> mx;
                tensor<T, 3, 4> ring;
                tensor<T, 3, 4> bcast;
                auto tie() const { return std::tie(sum, mx, ring, bcast); } // (compared bitwise under MPI)
            };
            const collective_opts o{.replica_groups = gs};
            auto outs = pool.run([&](replica_context& ctx) {
                const auto x = input<T, 3, 4>(ctx.replica_id());
                out_t r;
                r.sum = all_reduce(ctx, x, add_fn{}, o);
                r.mx = all_reduce(
                    ctx, x, [](auto a, auto b) { return a > b ? a : b; }, o);
                source_target_pairs_t ring;
                for (std::int64_t i = 0; i < static_cast<std::int64_t>(R); ++i)
                    if (i + 1 < static_cast<std::int64_t>(R) || R > 2) ring.push_back({i, (i + 1) % R});
                r.ring = collective_permute(ctx, x, ring);
                r.bcast = collective_broadcast(ctx, x, o);
                return r;
            });
            for (std::uint32_t r = 0; r < R; ++r) {
                const auto [g, pos] = group_of(gs, R, r);
                tensor<T, 3, 4> sum, mx;
                for (std::size_t i = 0; i < 12; ++i) {
                    T s = input<T, 3, 4>(static_cast<std::uint32_t>(g[0])).data()[i], m = s;
                    for (std::size_t k = 1; k < g.size(); ++k) {
                        const T v = input<T, 3, 4>(static_cast<std::uint32_t>(g[k])).data()[i];
                        s = static_cast<T>(s + v);
                        m = m > v ? m : v;
                    }
                    sum.data()[i] = s;
                    mx.data()[i] = m;
                }
                CHECK(same(outs[r].sum, sum));
                CHECK(same(outs[r].mx, mx));
                const bool has_source = r > 0 || R > 2;
                CHECK(same(outs[r].ring, (has_source ? input<T, 3, 4>((r + R - 1) % R) : tensor<T, 3, 4>{})));
                CHECK(same(outs[r].bcast, input<T, 3, 4>(static_cast<std::uint32_t>(g[0]))));
                (void)pos;
            }
        }
    }
}

// all_gather, reduce_scatter and all_to_all with a group size known at compile time (2 and 4)
// over many replicas, along every dimension of a rank-3 operand.
template<std::int64_t G, std::int64_t Dim, std::int64_t Dim2>
void shape_ops(std::uint32_t R, bool grouped, int threads) {
    CAPTURE(R);
    CAPTURE(G);
    CAPTURE(Dim);
    CAPTURE(Dim2);
    using T = std::int32_t;
    const replica_groups_t gs = grouped ? interleaved(R, G) : replica_groups_t{};
    const collective_opts o{.replica_groups = gs};
    test_pool pool(R, 1, threads);
    auto outs = pool.run([&](replica_context& ctx) {
        const auto x = input<T, 4, 8, 12>(ctx.replica_id());
        return std::tuple{all_gather<Dim, G>(ctx, x, o), reduce_scatter<Dim, G>(ctx, x, add_fn{}, o),
                          all_to_all<Dim, Dim2, G>(ctx, x, o)};
    });
    constexpr std::size_t E[3] = {4, 8, 12};
    for (std::uint32_t r = 0; r < R; ++r) {
        const auto [g, pos] = group_of(gs, R, r);
        const auto& [ag, rs, aa] = outs[r];
        // all_gather: output index i along Dim comes from member i / E[Dim] at i % E[Dim].
        for (std::size_t i = 0; i < ag.size(); ++i) {
            auto idx = unflatten(i, ag.extents);
            const auto k = idx[Dim] / E[Dim];
            idx[Dim] %= E[Dim];
            const auto src = input<T, 4, 8, 12>(static_cast<std::uint32_t>(g[k]));
            REQUIRE(ag.data()[i] == src.data()[src.offset(idx)]);
        }
        // reduce_scatter: block `pos` along Dim, summed over the group in group order.
        for (std::size_t i = 0; i < rs.size(); ++i) {
            auto idx = unflatten(i, rs.extents);
            idx[Dim] += pos * (E[Dim] / G);
            T s = 0;
            for (auto m : g)
                s += input<T, 4, 8, 12>(static_cast<std::uint32_t>(m)).data()[tensor<T, 4, 8, 12>::offset(idx)];
            REQUIRE(rs.data()[i] == s);
        }
        // all_to_all: output block k along Dim2 is member k's block `pos` along Dim.
        for (std::size_t i = 0; i < aa.size(); ++i) {
            auto idx = unflatten(i, aa.extents);
            const std::size_t piece2 = Dim == Dim2 ? E[Dim2] / G : E[Dim2];
            const auto k = idx[Dim2] / piece2;
            idx[Dim2] %= piece2;
            idx[Dim] += pos * (E[Dim] / G);
            REQUIRE(aa.data()[i] ==
                    input<T, 4, 8, 12>(static_cast<std::uint32_t>(g[k])).data()[tensor<T, 4, 8, 12>::offset(idx)]);
        }
    }
}

TEST_CASE("all_gather, reduce_scatter, all_to_all along every dimension, groups of 2 and 4") {
    // (a pool of 3 threads gets its third on 2 cores only under a global limit above 2)
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 4);
    for (std::uint32_t R : {4u, 8u, 64u}) {
        shape_ops<2, 0, 1>(R, true, 2);
        shape_ops<2, 1, 2>(R, true, 2);
        shape_ops<2, 2, 0>(R, true, 2);
        shape_ops<4, 0, 0>(R, true, 2);
        shape_ops<4, 1, 1>(R, true, 3);
        shape_ops<4, 2, 2>(R, true, 1);
    }
    shape_ops<2, 1, 0>(2, false, 2);
    shape_ops<4, 2, 1>(4, false, 2);
    shape_ops<4, 0, 2>(4, false, 1);
}

TEST_CASE("large operands (each member does its part) are bitwise equal for 1, 2 and 3 threads") {
    // Non-associative f32 sums: the fold order is the group order whatever the thread count.
    constexpr std::size_t N = 1 << 16;
    auto program = [](replica_context& ctx) {
        f32<N> x;
        std::uint32_t s = 12345u + ctx.replica_id() * 7919u;
        for (auto& v : x) {
            s = s * 1664525u + 1013904223u;
            v = static_cast<float>(s >> 8) * 1e-7f - 0.5f;
        }
        auto sum = all_reduce(ctx, x, add_fn{});
        auto fn = all_reduce(ctx, x, [](float a, float b) { return a * 0.5f + b; });
        auto rs = reduce_scatter<0, 8>(ctx, x, add_fn{});
        auto ag = all_gather<0, 8>(ctx, rs);
        auto aa = all_to_all<0, 0, 8>(ctx, x);
        return std::tuple{sum, fn, ag, aa, x};
    };
    std::vector<decltype(test_pool(8).run(program))> runs;
    for (int threads : {1, 2, 3}) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 4); // 3 threads on 2 cores too
        test_pool pool(8, 1, threads);
        runs.push_back(pool.run(program));
    }
    // The reference: the same folds, sequentially.
    const auto& r0 = runs[0];
    for (std::size_t i = 0; i < N; i += 97) {
        float s = std::get<4>(r0[0])(i), h = s;
        for (std::size_t k = 1; k < 8; ++k) {
            s = s + std::get<4>(r0[k])(i);
            h = h * 0.5f + std::get<4>(r0[k])(i);
        }
        REQUIRE(std::get<0>(r0[3])(i) == s);
        REQUIRE(std::get<1>(r0[5])(i) == h);
        REQUIRE(std::get<2>(r0[6])(i) == s); // reduce_scatter then all_gather is all_reduce
    }
    for (std::size_t j = 0; j < N; j += 101) {
        const std::size_t k = j / (N / 8);
        REQUIRE(std::get<3>(r0[2])(j) == std::get<4>(r0[k])(2 * (N / 8) + j % (N / 8)));
    }
    for (int t = 1; t < 3; ++t)
        for (std::size_t d = 0; d < 8; ++d) {
            CHECK(std::memcmp(std::get<0>(runs[t][d]).data(), std::get<0>(r0[d]).data(), N * 4) == 0);
            CHECK(std::memcmp(std::get<1>(runs[t][d]).data(), std::get<1>(r0[d]).data(), N * 4) == 0);
            CHECK(std::memcmp(std::get<2>(runs[t][d]).data(), std::get<2>(r0[d]).data(), N * 4) == 0);
            CHECK(std::memcmp(std::get<3>(runs[t][d]).data(), std::get<3>(r0[d]).data(), N * 4) == 0);
        }
}

TEST_CASE_TEMPLATE("all_reduce above the streaming size: every element, groups of 1, 2 and 3, parts off the alignment",
                   T, float, double) {
    // 2 * N * sizeof(T) * group size >= 32 MiB: the results leave through non-temporal stores from
    // a double-buffered block on the stack (shared_memory.hpp); with 3 elements more than a whole
    // number of blocks, the parts of a group of 3 start off the 32-byte alignment and take the
    // plain copy.
    constexpr std::size_t N = (std::size_t{1} << 24) / sizeof(T) + 3; // 16 MiB: a group of 1 streams too
    using A = tensor<T, N>;
    auto input = [](std::size_t r, std::size_t i) {
        return static_cast<T>(static_cast<double>((i * 2654435761u + r * 40503u) % 1000003u) * 1e-3 - 0.3);
    };
    auto program = [&](replica_context& ctx) {
        A x;
        for (std::size_t i = 0; i < N; ++i)
            x(i) = input(ctx.replica_id(), i);
        auto all = all_reduce(ctx, x, add_fn{});
        auto pairs = all_reduce(ctx, x, [](T a, T b) { return a * T(0.5) + b; }, {.replica_groups = {{0, 2}, {1}}});
        return std::tuple{all, pairs};
    };
    test_pool pool(3, 1, 2);
    const auto out = pool.run(program);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < N; ++i) {
        const T all = (input(0, i) + input(1, i)) + input(2, i);
        const T pair = input(0, i) * T(0.5) + input(2, i);
        for (std::size_t r = 0; r < 3; ++r)
            wrong += std::get<0>(out[r])(i) != all;
        wrong += std::get<1>(out[0])(i) != pair;
        wrong += std::get<1>(out[2])(i) != pair;
        wrong += std::get<1>(out[1])(i) != input(1, i);
    }
    CHECK(wrong == 0);
}

namespace user {
template<class T>
T larger(T a, T b) {
    return a > b ? a : b;
}
} // namespace user

TEST_CASE_TEMPLATE("all_reduce takes any computation valid on scalars", T, float, std::int32_t, half) {
    test_pool pool(5, 1, 2);
    auto outs = pool.run([](replica_context& ctx) {
        tensor<T, 37> x;
        for (std::size_t i = 0; i < 37; ++i)
            x(i) = static_cast<T>(static_cast<int>((ctx.replica_id() * 5 + i) % 9) - 4);
        return std::tuple{all_reduce(ctx, x, [](auto a, auto b) { return a > b ? a : b; }),
                          all_reduce(ctx, x, [](auto a, auto b) { return std::max(a, b); }),
                          all_reduce(ctx, x, [](auto a, auto b) { return user::larger(a, b); }),
                          all_reduce(ctx, x, [](auto a, auto b) { return a + b + T(1); }),
                          all_reduce(ctx, x, max_fn{}),
                          cross_replica_sum(ctx, x),
                          x};
    });
    for (std::size_t i = 0; i < 37; ++i) {
        float m = -100, s = 0, s1 = 0;
        for (std::size_t k = 0; k < 5; ++k) {
            const float v = static_cast<float>(std::get<6>(outs[k])(i));
            m = std::max(m, v);
            s += v;
            s1 = k == 0 ? v : s1 + v + 1;
        }
        for (std::size_t r = 0; r < 5; ++r) {
            CHECK(static_cast<float>(std::get<0>(outs[r])(i)) == m);
            CHECK(static_cast<float>(std::get<1>(outs[r])(i)) == m);
            CHECK(static_cast<float>(std::get<2>(outs[r])(i)) == m);
            CHECK(static_cast<float>(std::get<3>(outs[r])(i)) == s1);
            CHECK(static_cast<float>(std::get<4>(outs[r])(i)) == m);
            CHECK(static_cast<float>(std::get<5>(outs[r])(i)) == s);
        }
    }
}

TEST_CASE("tuple all_reduce, expression operands, vectorized opt-in") {
    test_pool pool(4);
    auto outs = pool.run([](replica_context& ctx) {
        const f32<3> a{1, 2, 3};
        const s32<2> b{10, 20};
        const float k = static_cast<float>(ctx.replica_id());
        auto [x, y] = all_reduce(ctx, std::tuple{a * k, b}, add_fn{});
        auto z = all_reduce(ctx, a + k, vectorized([](auto p, auto q) { return p * q; }));
        return std::tuple{x, y, z};
    });
    for (auto& [x, y, z] : outs) {
        CHECK(same(x, f32<3>{6, 12, 18}));
        CHECK(same(y, s32<2>{40, 80}));
        CHECK(same(z, f32<3>{1 * 2 * 3 * 4, 2 * 3 * 4 * 5, 3 * 4 * 5 * 6}));
    }
}

TEST_CASE("partitions: cross_replica, cross_partition, cross_replica_and_partition, flattened_ids") {
    // 2 replicas x 4 partitions; device d = replica * 4 + partition holds [d].
    test_pool pool(2, 4);
    auto outs = pool.run([](replica_context& ctx) {
        const s32<1> x{static_cast<std::int32_t>(ctx.device_id())};
        return std::tuple{
            all_gather<0, 2>(ctx, x),                    // cross_replica: same partition
            all_gather<0, 8>(ctx, x, {.channel_id = 1}), // cross_replica_and_partition
            all_gather<0, 4>(ctx, x,
                             {.replica_groups = {{0, 1, 4, 5}, {2, 3, 6, 7}},
                              .channel_id = 1,
                              .use_global_device_ids = true}), // flattened_ids
            all_to_all<0, 0, 4>(ctx, s32<4>{10 * x(0), 10 * x(0) + 1, 10 * x(0) + 2, 10 * x(0) + 3},
                                {.channel_id = 3}),                         // cross_partition
            collective_permute(ctx, x, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, 5) // cross_partition ring
        };
    });
    for (std::int32_t d = 0; d < 8; ++d) {
        const std::int32_t r = d / 4, p = d % 4;
        CHECK(same(std::get<0>(outs[d]), s32<2>{p, 4 + p}));
        // partition-major: (r0,p0), (r1,p0), (r0,p1), ...
        CHECK(same(std::get<1>(outs[d]), s32<8>{0, 4, 1, 5, 2, 6, 3, 7}));
        CHECK(same(std::get<2>(outs[d]), (p < 2 ? s32<4>{0, 1, 4, 5} : s32<4>{2, 3, 6, 7})));
        CHECK(same(std::get<3>(outs[d]),
                   s32<4>{(r * 4) * 10 + p, (r * 4 + 1) * 10 + p, (r * 4 + 2) * 10 + p, (r * 4 + 3) * 10 + p}));
        CHECK(same(std::get<4>(outs[d]), s32<1>{r * 4 + (p + 3) % 4}));
    }
}

TEST_CASE("misuse is diagnosed, never a hang") {
    test_pool pool(8, 1, 2);
    const f32<4> x{1, 2, 3, 4};
    // Different ops at the same collective: names both devices and both ops.
    auto e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 5)
            (void)all_gather<0, 8>(ctx, x);
        else
            (void)all_reduce(ctx, x, add_fn{});
    });
    CHECK(e.find("devices disagree at collective #0") != std::string::npos);
    // (whichever of the two arrived first "is at" its op, the other "reached" its own: devices that
    // are OS threads, under sanitizers, can put replica 5 first)
    CHECK((e.find("replica 5 reached all_gather f32[4]") != std::string::npos ||
           e.find("replica 5 is at all_gather f32[4]") != std::string::npos));
    CHECK(e.find("all_reduce f32[4]") != std::string::npos);
    // Different shapes.
    e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 3)
            (void)all_reduce(ctx, f32<5>{}, add_fn{});
        else
            (void)all_reduce(ctx, x, add_fn{});
    });
    CHECK(e.find("f32[5]") != std::string::npos);
    CHECK(e.find("f32[4]") != std::string::npos);
    // Different element types.
    e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 0)
            (void)all_reduce(ctx, s32<4>{}, add_fn{});
        else
            (void)all_reduce(ctx, x, add_fn{});
    });
    CHECK(e.find("s32[4]") != std::string::npos);
    // Different groups, different channels.
    e = error_of(pool, [&](replica_context& ctx) {
        const replica_groups_t g =
            ctx.replica_id() == 2 ? replica_groups_t{{0, 1, 2, 3, 4, 5, 6, 7}} : replica_groups_t{};
        (void)all_reduce(ctx, x, add_fn{}, {.replica_groups = g});
    });
    CHECK(e.find("replica_groups={{0,1,2,3,4,5,6,7}}") != std::string::npos);
    e = error_of(pool, [&](replica_context& ctx) {
        (void)all_reduce(ctx, x, add_fn{}, {.channel_id = ctx.replica_id() == 6 ? 2 : 1});
    });
    // Only ops with the same channel id meet: replica 6 waits on channel 2, the rest on channel 1.
    CHECK(e.find("deadlock: every running device waits") != std::string::npos);
    CHECK(e.find("replica 6 in a collective at collective #0 on channel 2") != std::string::npos);
    CHECK(e.find("collective #0 on channel 1") != std::string::npos);
    // One replica returns while the others wait for it.
    e = error_of(pool, [&](replica_context& ctx) {
        (void)all_reduce(ctx, x, add_fn{});
        if (ctx.replica_id() == 4) return;
        (void)all_reduce(ctx, x, add_fn{});
    });
    CHECK(e.find("replica 4 returned after 1 collectives") != std::string::npos);
    // ... also when it is not in the waiting group: the counts differ at the end.
    e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 4) return;
        (void)all_reduce(ctx, x, add_fn{}, {.replica_groups = {{0, 1}, {2, 3}, {4, 5}, {6, 7}}});
    });
    CHECK(e.find("replica 4") != std::string::npos);
    // An exception in one replica cancels the others and reaches the caller as it was thrown.
    struct boom : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    bool caught = false;
    within(60, [&] {
        try {
            pool.run([&](replica_context& ctx) {
                (void)all_reduce(ctx, x, add_fn{});
                if (ctx.replica_id() == 6) throw boom("replica six failed");
                for (int i = 0; i < 3; ++i)
                    (void)all_reduce(ctx, x, add_fn{});
            });
        } catch (const boom& b) {
            caught = std::string(b.what()) == "replica six failed";
        }
    });
    CHECK(caught);
    // Bad groups: duplicates, out of range, unequal sizes where required, not covering.
    auto group_error = [&](replica_groups_t g, bool gather) {
        return error_of(pool, [&, g](replica_context& ctx) {
            if (gather)
                (void)all_gather<0, 4>(ctx, x, {.replica_groups = g});
            else
                (void)all_reduce(ctx, x, add_fn{}, {.replica_groups = g});
        });
    };
    CHECK(group_error({{0, 1, 2, 3}, {4, 5, 6, 3}}, false).find("name replica 3 twice") != std::string::npos);
    CHECK(group_error({{0, 1, 2, 3}, {4, 5, 6, 8}}, false).find("names replica 8, outside [0, 8)") !=
          std::string::npos);
    CHECK(group_error({{0, 1, 2, 3, 4}, {5, 6, 7}}, true).find("unequal sizes") != std::string::npos);
    CHECK(group_error({{0, 1, 2, 3}}, false).find("cover 4 of the 8 replicas") != std::string::npos);
    CHECK(group_error({{0, 1}, {2, 3}, {4, 5}, {6, 7}}, true).find("shard_count is 4 but the group") !=
          std::string::npos);
    CHECK(error_of(pool, [&](replica_context& ctx) {
              (void)collective_permute(ctx, x, {{0, 1}, {2, 1}});
          }).find("target 1 appears in two pairs") != std::string::npos);
    CHECK(error_of(pool, [&](replica_context& ctx) {
              (void)all_reduce(ctx, x, add_fn{}, {.use_global_device_ids = true});
          }).find("use_global_device_ids needs a channel_id") != std::string::npos);
    // Many replicas, one of them wrong: still an error, not a hang.
    test_pool big(256, 1, 2);
    e = error_of(big, [&](replica_context& ctx) {
        for (int i = 0; i < 3; ++i)
            (void)all_reduce(ctx, x, add_fn{});
        if (ctx.replica_id() == 200)
            (void)all_reduce(ctx, f32<2>{}, add_fn{});
        else
            (void)all_reduce(ctx, x, add_fn{});
    });
    CHECK(e.find("collective #3") != std::string::npos);
    // The pool is usable again after a failed run.
    auto ok = pool.run([&](replica_context& ctx) { return all_reduce(ctx, x, add_fn{}); });
    CHECK(same(ok[7], f32<4>{8, 16, 24, 32}));
}

// Devices are fibers (distributed/fiber.hpp): a wait inside a parallel loop of the device's own
// program would run another device inside that oneTBB wait, so it is an error naming the cause;
// devices have oneTBB's thread stack size (4 MiB) each, in the pool's stacks, reused by every run.
TEST_CASE("fibers: a wait inside a parallel loop is an error; deep stacks; many runs of one pool") {
#if XLET_POOL_THREADS
    MESSAGE("devices are OS threads in this build (sanitizers): nothing to check");
#else
    xlet::replica_pool pool(2, 1, 2);
    const f32<4> x{1, 2, 3, 4};
    CHECK_THROWS_WITH_AS(pool.run([&](replica_context& ctx) {
        if (ctx.replica_id() == 0)
            tbb::parallel_for(0, 1, [&](int) { (void)all_reduce(ctx, x, add_fn{}); });
        else
            (void)all_reduce(ctx, x, add_fn{});
    }),
                         doctest::Contains("inside a parallel loop of its own program"), xlet::error);
    // 2 MiB of each device's stack in use across a collective.
    struct deep {
        static float down(replica_context& ctx, int depth, const f32<4>& v) {
            volatile char pad[16384];
            pad[0] = static_cast<char>(depth);
            if (depth == 0) return all_reduce(ctx, v, add_fn{})(3) + pad[0];
            return down(ctx, depth - 1, v) + static_cast<float>(pad[0] != 0);
        }
    };
    xlet::replica_pool four(4, 1, 2);
    for (int run = 0; run < 50; ++run) { // (a fresh set of stacks per run would map 50 x 16 MiB)
        auto r = four.run([&](replica_context& ctx) { return deep::down(ctx, 128, x); });
        CHECK(r[3] == 16.0f + 128.0f);
    }
#endif
}

TEST_CASE("fibers: two devices' parts of a large collective run at once on two threads") {
    // The device that completes the meeting is about to run its part (every member does one
    // above 256 KiB): the other, ready now, gets the second thread at once, not after that part
    // (the devices' earlier runs were short, so the run-length mean recruits no second thread).
    // Each device's combiner holds its part until the other's has begun: run one after the other,
    // the first part would wait out the deadline. (The in-process pool only: the MPI build's
    // test_pool puts the devices in processes, which do not share `begun`, and limits each to one
    // thread: then there is no second thread to check.)
    if (std::thread::hardware_concurrency() < 2 ||
        tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) < 2)
        return;
    constexpr std::size_t N = 1 << 16; // 2 * 256 KiB * 2 members: split into parts
    std::atomic<int> begun{0};
    std::atomic<bool> late{false};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    xlet::replica_pool pool(2, 1, 2);
    auto out = pool.run([&](replica_context& ctx) {
        f32<N> x;
        for (std::size_t i = 0; i < N; ++i)
            x(i) = static_cast<float>(ctx.replica_id() + 1);
        const f32<1> one{1};
        for (int k = 0; k < 64; ++k) // short runs first
            (void)all_reduce(ctx, one, add_fn{});
        bool mine = false; // this device's part has begun
        return all_reduce(ctx, x, [&](float a, float b) {
            if (!mine) {
                mine = true;
                begun.fetch_add(1);
            }
            while (begun.load(std::memory_order_relaxed) < 2 && !late.load(std::memory_order_relaxed))
                if (std::chrono::steady_clock::now() > deadline) late = true;
            return a + b;
        });
    });
    CHECK_FALSE(late.load());
    CHECK(begun.load() == 2);
    CHECK(out[0](0) == 3.0f);
    CHECK(out[1](N - 1) == 3.0f);
}

#include "../examples/data_parallel_model.hpp"

TEST_CASE("data-parallel training converges to the single-replica weights (examples/data_parallel.cpp)") {
    using namespace data_parallel;
    f32<batch, features> x;
    f32<batch> y;
    make_problem(x, y);
    const auto one = train<1>(x, y, 300, 0.5f);
    const auto four = train<4>(x, y, 300, 0.5f);
    const auto many = train<64>(x, y, 300, 0.5f);
    for (std::size_t j = 0; j < features; ++j) {
        // The gradient sums differ from the full-batch dot only in how f32 additions group
        // (shards, then replicas in order): within 1e-5 after 300 steps.
        CHECK(std::fabs(four(j) - one(j)) <= 1e-5f);
        CHECK(std::fabs(many(j) - one(j)) <= 1e-5f);
        CHECK(std::fabs(one(j) - truth[j]) <= 5e-3f); // it did converge (noise 0.01)
    }
}

TEST_CASE("ragged_all_to_all: the spec's two-replica example and the [devices, updates] form") {
    test_pool two(2);
    auto r = two.run([](replica_context& ctx) {
        const bool first = ctx.replica_id() == 0;
        const f32<3> input = first ? f32<3>{1, 2, 2} : f32<3>{3, 4, 0};
        const s32<2> input_offsets{0, 1};
        const s32<2> send_sizes = first ? s32<2>{1, 2} : s32<2>{1, 1};
        const s32<2> output_offsets = first ? s32<2>{0, 0} : s32<2>{1, 2};
        const s32<2> recv_sizes = first ? s32<2>{1, 1} : s32<2>{2, 1};
        return ragged_all_to_all(ctx, input, input_offsets, send_sizes, f32<4>{}, output_offsets, recv_sizes);
    });
    CHECK(same(r[0], f32<4>{1, 3, 0, 0}));
    CHECK(same(r[1], f32<4>{2, 2, 4, 0}));
    // [devices, updates] with rows of 2 elements: device k sends two single rows to each device j,
    // rows 2j and 2j+1 of its input, landing at rows 2k+1 and 2k of j's output (swapped).
    test_pool three(3);
    auto q = three.run([](replica_context& ctx) {
        const std::int32_t k = static_cast<std::int32_t>(ctx.replica_id());
        s32<6, 2> input;
        for (std::int32_t i = 0; i < 6; ++i)
            input(i, 0) = 100 * k + i, input(i, 1) = -(100 * k + i);
        s64<3, 2> io, ss, oo, rs;
        for (std::int64_t j = 0; j < 3; ++j) {
            io(j, 0) = 2 * j, io(j, 1) = 2 * j + 1;
            ss(j, 0) = ss(j, 1) = rs(j, 0) = rs(j, 1) = 1;
            oo(j, 0) = 2 * k + 1, oo(j, 1) = 2 * k;
        }
        return ragged_all_to_all(ctx, input, io, ss, s32<6, 2>::filled(7), oo, rs);
    });
    for (std::int32_t j = 0; j < 3; ++j)
        for (std::int32_t k = 0; k < 3; ++k) {
            CHECK(q[j](2 * k + 1, 0) == 100 * k + 2 * j);
            CHECK(q[j](2 * k, 0) == 100 * k + 2 * j + 1);
            CHECK(q[j](2 * k, 1) == -(100 * k + 2 * j + 1));
        }
    // Sizes that disagree, and rows out of range: errors on every device.
    CHECK(error_of(two, [](replica_context& ctx) {
              const s32<2> z{0, 0}, one{1, 1};
              (void)ragged_all_to_all(ctx, f32<3>{}, z, one, f32<4>{}, z, ctx.replica_id() == 0 ? one : s32<2>{1, 2});
          }).find("whose recv_sizes says 2") != std::string::npos);
    CHECK(error_of(two, [](replica_context& ctx) {
              const s32<2> z{0, 0}, one{1, 1}, far{3, 3};
              (void)ragged_all_to_all(ctx, f32<3>{}, z, one, f32<4>{}, far, one);
          }).find("out of range") == std::string::npos); // rows [3, 4) of 4 fit
    CHECK(error_of(two, [](replica_context& ctx) {
              const s32<2> z{0, 0}, two_rows{2, 2}, far{3, 3};
              (void)ragged_all_to_all(ctx, f32<3>{}, z, two_rows, f32<4>{}, far, two_rows);
          }).find("out of range") != std::string::npos);
}

TEST_CASE("async forms: start, compute, done; handles finish when dropped") {
    test_pool pool(4, 1, 2);
    auto outs = pool.run([](replica_context& ctx) {
        const f32<1 << 16> big = f32<1 << 16>::filled(static_cast<float>(ctx.replica_id() + 1)); // split path
        const f32<3> small{1, 2, static_cast<float>(ctx.replica_id())};
        auto h1 = all_reduce_start(ctx, big, add_fn{});
        auto h2 = all_gather_start<0, 4>(ctx, small * 2.0f); // an expression operand: the handle keeps it
        auto h3 = collective_permute_start(ctx, small, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
        auto c = async_start([](float a) { return a * 3; }, 2.0f); // local work beside the collectives
        float local = 0;
        for (int i = 0; i < 1000; ++i)
            local += static_cast<float>(i);
        auto p = collective_permute_done(std::move(h3));
        auto g = all_gather_done(std::move(h2));
        auto s = all_reduce_done(std::move(h1));
        { auto dropped = all_reduce_start(ctx, small, add_fn{}); } // finished by the destructor
        {
            auto dropped = async_start([](float a) { return a + 1; }, 1.0f);
        } // waited for by the destructor
        c = async_update(std::move(c));
        return std::tuple{s(12345), g, p, async_done(std::move(c)) + local - 499500.0f};
    });
    for (std::uint32_t r = 0; r < 4; ++r) {
        const auto& [s, g, p, c] = outs[r];
        CHECK(s == 10.0f);
        CHECK(same(g, f32<12>{2, 4, 0, 2, 4, 2, 2, 4, 4, 2, 4, 6}));
        CHECK(same(p, f32<3>{1, 2, static_cast<float>((r + 3) % 4)}));
        CHECK(c == 6.0f);
    }
}

TEST_CASE("send / recv: a ring, buffered by order, zeros for non-targets, deadlocks diagnosed") {
    test_pool pool(5, 1, 2);
    source_target_pairs_t ring;
    for (std::int64_t i = 0; i < 5; ++i)
        ring.push_back({i, (i + 1) % 5});
    auto outs = pool.run([&](replica_context& ctx) {
        const s32<2> x{static_cast<std::int32_t>(ctx.replica_id()), 10};
        auto s1 = send(ctx, x, 1, ring);
        auto s2 = send(ctx, x + 1, 1, ring); // a second message on the same channel: arrives second
        auto r1 = recv<s32<2>>(ctx, 1, ring);
        auto r2 = recv<s32<2>>(ctx, 1, ring);
        auto r3 = recv<s32<2>>(ctx, 2, {{0, 1}}); // only device 1 is a target here
        auto s3 = send(ctx, x, 2, {{0, 1}});
        const auto a = recv_done(std::move(r1)), b = recv_done(std::move(r2)), c = recv_done(std::move(r3));
        send_done(std::move(s1));
        send_done(std::move(s2));
        send_done(std::move(s3));
        return std::tuple{a, b, c};
    });
    for (std::int32_t r = 0; r < 5; ++r) {
        const std::int32_t from = (r + 4) % 5;
        CHECK(same(std::get<0>(outs[r]), s32<2>{from, 10}));
        CHECK(same(std::get<1>(outs[r]), s32<2>{from + 1, 11}));
        CHECK(same(std::get<2>(outs[r]), r == 1 ? s32<2>{0, 10} : s32<2>{0, 0}));
    }
    // A ring of send_done before recv: every device waits for a receive nobody will post.
    auto e = error_of(pool, [&](replica_context& ctx) {
        auto s = send(ctx, s32<1>{1}, 3, ring);
        send_done(std::move(s));
        (void)recv_done(recv<s32<1>>(ctx, 3, ring));
    });
    CHECK(e.find("deadlock: every running device waits") != std::string::npos);
    CHECK(e.find("in send_done to replica") != std::string::npos);
    // Receiving from a device that returned without sending.
    e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 0) return;
        if (ctx.replica_id() == 1) (void)recv_done(recv<s32<1>>(ctx, 4, {{0, 1}}));
    });
    // (Reported when replica 0 returns, or when replica 1 starts waiting after that.)
    CHECK(e.find("deadlock") != std::string::npos);
    CHECK(e.find("channel 4") != std::string::npos);
    CHECK(e.find("replica 1") != std::string::npos);
    // Different shapes on the two ends.
    e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 0) send_done(send(ctx, s32<2>{}, 5, {{0, 1}}));
        if (ctx.replica_id() == 1) (void)recv_done(recv<s32<3>>(ctx, 5, {{0, 1}}));
    });
    CHECK(e.find("replica 0 sent s32[2] on channel 5 but replica 1 receives s32[3]") != std::string::npos);
    // A collective waiting for a device blocked in recv: a deadlock too, not a hang.
    e = error_of(pool, [&](replica_context& ctx) {
        if (ctx.replica_id() == 2) (void)recv_done(recv<s32<1>>(ctx, 6, {{3, 2}}));
        (void)all_reduce(ctx, s32<1>{1}, add_fn{});
    });
    CHECK(e.find("deadlock") != std::string::npos);
}

TEST_CASE("collectives on different channels meet by channel, in any order across channels") {
    test_pool pool(4, 1, 2);
    auto outs = pool.run([](replica_context& ctx) {
        const s32<1> x{static_cast<std::int32_t>(ctx.replica_id())};
        const collective_opts c1{.channel_id = 1}, c2{.channel_id = 2};
        // Even replicas start channel 1 first, odd ones channel 2 first.
        if (ctx.replica_id() % 2 == 0) {
            auto a = all_reduce_start(ctx, x, add_fn{}, c1);
            auto b = all_gather_start<0, 4>(ctx, x, c2);
            return std::pair{all_reduce_done(std::move(a)), all_gather_done(std::move(b))};
        }
        auto b = all_gather_start<0, 4>(ctx, x, c2);
        auto a = all_reduce_start(ctx, x, add_fn{}, c1);
        return std::pair{all_reduce_done(std::move(a)), all_gather_done(std::move(b))};
    });
    for (const auto& [sum, all] : outs) {
        CHECK(sum(0) == 6);
        CHECK(same(all, s32<4>{0, 1, 2, 3}));
    }
    // The counts per channel must agree when the devices return.
    auto e = error_of(pool, [](replica_context& ctx) {
        if (ctx.replica_id() == 3)
            (void)all_reduce(ctx, s32<1>{}, add_fn{}, {.replica_groups = {{3}, {0}, {1}, {2}}, .channel_id = 7});
        else
            (void)all_reduce(ctx, s32<1>{}, add_fn{}, {.replica_groups = {{3}, {0}, {1}, {2}}, .channel_id = 8});
    });
    CHECK(e.find("on channel") != std::string::npos);
}

TEST_CASE("tuple all_to_all") {
    test_pool pool(2);
    auto outs = pool.run([](replica_context& ctx) {
        const std::int32_t r = static_cast<std::int32_t>(ctx.replica_id());
        return all_to_all<0, 0, 2>(ctx, std::tuple{s32<2>{10 * r, 10 * r + 1}, f32<4>{}});
    });
    CHECK(same(std::get<0>(outs[0]), s32<2>{0, 10}));
    CHECK(same(std::get<0>(outs[1]), s32<2>{1, 11}));
}

// Every op on every replica count of the issue, with groups of G (1 when R is odd, else 2):
// all_gather, reduce_scatter, all_to_all, ragged_all_to_all, send/recv, the async forms.
template<std::int64_t G>
void every_op(std::uint32_t R) {
    CAPTURE(R);
    const replica_groups_t gs = interleaved(R, G);
    const collective_opts o{.replica_groups = gs};
    source_target_pairs_t ring;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(R); ++i)
        ring.push_back({i, (i + 1) % R});
    test_pool pool(R, 1, 2);
    auto outs = pool.run([&](replica_context& ctx) {
        const auto x = input<std::int32_t, 2 * G, 3>(ctx.replica_id());
        auto h = all_reduce_start(ctx, x, add_fn{}, o);
        auto ag = all_gather<1, G>(ctx, x, o);
        auto rs = reduce_scatter<0, G>(ctx, x, add_fn{}, o);
        auto aa = all_to_all<0, 1, G>(ctx, x, o);
        // ragged: row 2j+1 of the input to member j, at row 2k of j's output (k: this member's position).
        const auto [g, pos] = group_of(gs, R, ctx.replica_id());
        s32<G> io, ss, oo, rsz;
        for (std::int64_t j = 0; j < G; ++j)
            io(j) = static_cast<std::int32_t>(2 * j + 1), ss(j) = rsz(j) = 1,
            oo(j) = static_cast<std::int32_t>(2 * pos);
        auto rg = ragged_all_to_all(ctx, x, io, ss, tensor<std::int32_t, 2 * G, 3>::filled(-1), oo, rsz, o);
        auto s = send(ctx, x, 9, ring);
        auto r = recv_done(recv<tensor<std::int32_t, 2 * G, 3>>(ctx, 9, ring));
        send_done(std::move(s));
        return std::tuple{all_reduce_done(std::move(h)), ag, rs, aa, rg, r};
    });
    for (std::uint32_t r = 0; r < R; ++r) {
        const auto gp = group_of(gs, R, r); // (not a structured binding: Clang 14 cannot capture one)
        const auto& g = gp.first;
        const std::size_t pos = gp.second;
        const auto& [sum, ag, rs, aa, rg, rv] = outs[r];
        auto in = [&](std::size_t k) { return input<std::int32_t, 2 * G, 3>(static_cast<std::uint32_t>(g[k])); };
        for (std::size_t i = 0; i < 2 * G; ++i)
            for (std::size_t c = 0; c < 3; ++c) {
                std::int32_t s = 0;
                for (std::size_t k = 0; k < static_cast<std::size_t>(G); ++k)
                    s += in(k)(i, c);
                REQUIRE(sum(i, c) == s);
                for (std::size_t k = 0; k < static_cast<std::size_t>(G); ++k)
                    REQUIRE(ag(i, k * 3 + c) == in(k)(i, c));
                if (i < 2) {
                    std::int32_t t = 0;
                    for (std::size_t k = 0; k < static_cast<std::size_t>(G); ++k)
                        t += in(k)(pos * 2 + i, c);
                    REQUIRE(rs(i, c) == t);
                    for (std::size_t k = 0; k < static_cast<std::size_t>(G); ++k)
                        REQUIRE(aa(i, k * 3 + c) == in(k)(pos * 2 + i, c));
                }
                // ragged: rows 2k hold member k's row 2*pos+1; odd rows keep -1.
                REQUIRE(rg(i, c) == (i % 2 == 0 ? in(i / 2)(2 * pos + 1, c) : -1));
                REQUIRE(rv(i, c) == input<std::int32_t, 2 * G, 3>((r + R - 1) % R)(i, c));
            }
    }
}

TEST_CASE("every op on 1, 2, 3, 4, 8, 64 and 256 replicas") {
    for (std::uint32_t R : {1u, 3u})
        every_op<1>(R);
    for (std::uint32_t R : {2u, 4u, 8u, 64u, 256u})
        every_op<2>(R);
}

#ifdef XLET_TEST_MPI
int main(int argc, char** argv) {
    xlet::mpi_session mpi(argc, argv);
    doctest::Context context(argc, argv);
    if (mpi.rank() != 0) context.setOption("minimal", true);
    int failed = context.run() != 0 || xlet_test::mismatches != 0;
    if (xlet_test::mismatches)
        std::fprintf(stderr, "rank %d: %zu device results differ between MPI and the in-process pool\n", mpi.rank(),
                     xlet_test::mismatches);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mpi.rank() == 0)
        std::printf(
            "collectives_mpi_test: %d ranks, %zu programs on both pools, %zu misuses diagnosed in-process only\n",
            mpi.size(), xlet_test::runs, xlet_test::unfailed);
    return failed;
}
#endif
