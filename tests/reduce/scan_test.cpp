// Scan: the spec's [a, b, c] recursion, several inputs / carries / outputs, reverse scans, per-slice
// init arrays, scans along inner and outer dimensions, and the associative (three-phase parallel)
// path against the sequential one, independent of the thread count.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_common.hpp"

#include <tbb/global_control.h>

TEST_CASE("spec: f(a, i) -> (y0, c0), f(b, c0) -> (y1, c1), f(c, c1) -> (y2, c2); output ([y0, y1, y2], c2)") {
    f32<3> x{1, 2, 3}; // a, b, c
    auto f = [](float e, float c) { return std::tuple{e * c, c + e}; };
    auto [ys, c2] = scan<scan_config{}>(x, 10.0f, f);
    const float y0 = 1 * 10.0f, c0 = 10 + 1.0f, y1 = 2 * c0, c1 = c0 + 2, y2 = 3 * c1, c2w = c1 + 3;
    CHECK(equal(ys, f32<3>{y0, y1, y2}));
    static_assert(std::is_same_v<decltype(c2), f32<>>);
    CHECK(c2() == c2w);
}

TEST_CASE("reverse, several inputs and carries, outputs of other types, no outputs") {
    f32<4> x{1, 2, 3, 4};
    auto [r, rc] = scan<scan_config{.is_reverse = true}>(x, 0.0f, [](float e, float c) { return std::tuple{e + c, e + c}; });
    CHECK(equal(r, f32<4>{10, 9, 7, 4}));
    CHECK(rc() == 10);
    s32<4> w{1, 0, 2, 1};
    // m = 2 inputs, k = 2 carries (running sum, running max), n = 2 outputs (sum so far > 5, the max index so far)
    auto [big, mx, sum, best] = scan<scan_config{}>(std::forward_as_tuple(x, w), std::tuple{0.0f, 0},
                                                    [](float e, std::int32_t v, float s, std::int32_t m) {
                                                        return std::tuple{s + e > 5.0f, std::max(m, v), s + e, std::max(m, v)};
                                                    });
    CHECK(equal(big, pred<4>{false, false, true, true}));
    CHECK(equal(mx, s32<4>{1, 1, 2, 2}));
    CHECK(sum() == 10);
    CHECK(best() == 2);
    auto [only] = scan<scan_config{}>(std::forward_as_tuple(x), std::tuple{1.0f}, [](float e, float c) { return std::tuple{c * e}; });
    CHECK(only() == 24);
}

TEST_CASE("dimensions and per-slice init arrays") {
    s32<2, 3, 2> a{{{1, 2}, {3, 4}, {5, 6}}, {{7, 8}, {9, 10}, {11, 12}}};
    auto add = [](std::int32_t e, std::int32_t c) { return std::tuple{e + c, e + c}; };
    auto [s1, c1] = scan<scan_config{.dimension = 1}>(a, 0, add);
    CHECK(equal(s1, s32<2, 3, 2>{{{1, 2}, {4, 6}, {9, 12}}, {{7, 8}, {16, 18}, {27, 30}}}));
    CHECK(equal(c1, s32<2, 2>{{9, 12}, {27, 30}}));
    auto [s0, c0] = scan<scan_config{.dimension = 0}>(a, s32<3, 2>{{100, 0}, {0, 0}, {0, -1}}, add);
    CHECK(equal(c0, s32<3, 2>{{108, 10}, {12, 14}, {16, 17}}));
    CHECK(s0(0, 0, 0) == 101);
    auto [s2, c2] = scan<scan_config{.dimension = 2, .is_reverse = true}>(a, 0, add);
    CHECK(equal(c2, s32<2, 3>{{3, 7, 11}, {15, 19, 23}}));
    CHECK(s2(1, 2, 0) == 23);
    CHECK(s2(1, 2, 1) == 12);
    f32<0, 3> e;
    auto [se, ce] = scan<scan_config{.dimension = 0}>(e, 2.0f, [](float x, float c) { return std::tuple{x, c}; });
    CHECK(equal(ce, f32<3>{2, 2, 2})); // an empty scan leaves the init
}

TEST_CASE("associative: three-phase parallel prefix equals the sequential scan, any thread count") {
    constexpr std::size_t n = 300000;
    auto ints = std::make_unique<s32<n>>();
    for (std::size_t i = 0; i < n; ++i) ints->data()[i] = static_cast<std::int32_t>(i * 2654435761u % 1000) - 500;
    auto add = [](std::int32_t e, std::int32_t c) { return std::tuple{e + c, e + c}; };
    auto [seq, seq_c] = scan<scan_config{}>(*ints, 7, add);
    for (bool rev : {false, true}) {
        auto run = [&](int threads) {
            tbb::global_control g(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
            return rev ? scan<scan_config{.is_reverse = true, .is_associative = true}>(*ints, 7, add)
                       : scan<scan_config{.is_associative = true}>(*ints, 7, add);
        };
        auto [p1, c1] = run(1);
        auto [p2, c2] = run(2);
        CHECK(std::memcmp(p1.data(), p2.data(), sizeof(std::int32_t) * n) == 0);
        CHECK(c1() == c2());
        if (!rev) {
            CHECK(std::memcmp(p1.data(), seq.data(), sizeof(std::int32_t) * n) == 0); // integers: exact
            CHECK(c1() == seq_c());
        } else {
            auto [rs, rc] = scan<scan_config{.is_reverse = true}>(*ints, 7, add);
            CHECK(std::memcmp(p1.data(), rs.data(), sizeof(std::int32_t) * n) == 0);
            CHECK(c1() == rc());
        }
    }
    // Floats reassociate at chunk borders only: within rounding of the sequential sums.
    auto fl = std::make_unique<f32<n>>(lt::random_tensor<f32<n>>(false));
    auto fadd = [](float e, float c) { return std::tuple{e + c, e + c}; };
    auto [fs, fc] = scan<scan_config{}>(*fl, 0.0f, fadd);
    auto [fp, fpc] = scan<scan_config{.is_associative = true}>(*fl, 0.0f, fadd);
    double abs_run = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
        abs_run += std::abs(static_cast<double>(fl->data()[i]));
        if (std::abs(static_cast<double>(fs(i)) - fp(i)) > static_cast<double>(i + 1) * 0x1p-23 * abs_run) ++bad;
    }
    CHECK(bad == 0);
}
