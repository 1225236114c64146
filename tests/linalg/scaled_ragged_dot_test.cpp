// scaled_dot and ragged_dot (ops/linalg/scaled_dot.hpp, ops/linalg/ragged_dot.hpp): hand-checked cases,
// differential tests against the reference (reference_dot.hpp: dequantise then dot_general in
// double; ragged_dot group by group on masked operands) on odd sizes, empty groups and group sizes
// summing to less than the ragged dimension; run-time errors; 1 and 2 threads give the same bits.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"

#include <xlet/ops/linalg/ragged_dot.hpp>
#include <xlet/ops/linalg/scaled_dot.hpp>

#include <cstring>

#include <tbb/global_control.h>

using dt::rf;

namespace {

template<class Tn>
Tn random_scale() { // powers of two and ordinary values in [1/8, 8)
    Tn t;
    for (std::size_t i = 0; i < Tn::size(); ++i) {
        const int e = static_cast<int>(lt::rng()() % 7) - 3;
        const float m = i % 2 ? 1.0f : 1.0f + static_cast<float>(lt::rng()() % 64) / 64.0f;
        t.data()[i] = static_cast<typename Tn::value_type>(std::ldexp(m, e));
    }
    return t;
}

// Random sizes of G groups over a dimension of n: some zero, summing to at most n.
template<std::size_t G>
s32<G> random_groups(std::size_t n, bool fill) {
    s32<G> g;
    std::size_t left = n;
    for (std::size_t i = 0; i < G; ++i) {
        const std::size_t v = lt::rng()() % 3 == 0 ? 0 : static_cast<std::size_t>(lt::rng()() % (left + 1));
        g.data()[i] = static_cast<std::int32_t>(v);
        left -= v;
    }
    if (fill && G > 0) g.data()[G - 1] += static_cast<std::int32_t>(left);
    return g;
}

template<dot_dims D, class Lt, class LSt, class Rt, class RSt, class Out = void>
void scaled_case() {
    const r::dot_dims_t rd = dt::ref_dims(D);
    const auto l = dt::random<Lt>();
    const auto r_ = dt::random<Rt>();
    const auto ls = random_scale<LSt>();
    const auto rs = random_scale<RSt>();
    auto got = scaled_dot<D, Out>(l, ls, r_, rs);
    const auto dql = r::dequantise(rf(l), rf(ls)), dqr = r::dequantise(rf(r_), rf(rs));
    std::size_t k = 1;
    for (std::size_t i = 0; i < D.lhs_contracting.size(); ++i)
        k *= Lt::extents[static_cast<std::size_t>(D.lhs_contracting[i])];
    dt::check_close(got, r::dot_general<double>(dql, dqr, rd), r::dot_general<double, double, true>(dql, dqr, rd), k);
}

template<ragged_dot_dims D, class Lt, class Rt, std::size_t G, class Out = void>
void ragged_case(bool fill) {
    using T = typename Lt::value_type;
    const r::dot_dims_t rd = dt::ref_dims(D.dot);
    const std::int64_t rag = D.lhs_ragged[0];
    const auto l = dt::random<Lt>();
    const auto r_ = dt::random<Rt>();
    const auto gs = random_groups<G>(Lt::extents[static_cast<std::size_t>(rag)], fill);
    std::vector<std::int64_t> sizes(gs.begin(), gs.end());
    CAPTURE(r::show_dims(sizes));
    auto got = ragged_dot<D, Out>(l, r_, gs);
    using Got = typename decltype(got)::value_type;
    std::size_t k = 1;
    for (std::size_t i = 0; i < D.dot.lhs_contracting.size(); ++i)
        k *= Lt::extents[static_cast<std::size_t>(D.dot.lhs_contracting[i])];
    if constexpr (std::is_integral_v<T>) {
        const auto want = r::ragged_dot<std::uint64_t>(rf(l), rf(r_), sizes, rd, rag, dt::dl(D.rhs_group));
        std::vector<Got> w;
        for (auto v : want.data)
            w.push_back(static_cast<Got>(v));
        CHECK_SAME(got, (r::array<Got>(want.dims, w)));
    } else {
        dt::check_close(got, r::ragged_dot<double>(rf(l), rf(r_), sizes, rd, rag, dt::dl(D.rhs_group)),
                        r::ragged_dot<double, T, true>(rf(l), rf(r_), sizes, rd, rag, dt::dl(D.rhs_group)), k);
    }
}

constexpr dot_dims mk{.lhs_contracting = {1}, .rhs_contracting = {0}};  // [m,k] x [k,n]
constexpr dot_dims moe{.lhs_contracting = {1}, .rhs_contracting = {1}}; // [m,k] x [g,k,n]
constexpr ragged_dot_dims moe_dims{.dot = moe, .lhs_ragged = {0}, .rhs_group = {0}};
constexpr ragged_dot_dims kdims{.dot = mk, .lhs_ragged = {1}}; // [m,k] x [k,n] -> [g,m,n]

} // namespace

// ---- scaled_dot --------------------------------------------------------------------------------

TEST_CASE("scaled_dot: hand-checked blocks of 2 along k, per-column scales of rhs") {
    const f32<2, 4> a{{1, 2, 3, 4}, {5, 6, 7, 8}};
    const f32<2, 2> as{{1, 2}, {0.5f, 4}}; // block 2: a's effective rows {1,2,6,8}, {2.5,3,28,32}
    const f32<4, 2> b{{1, 0}, {0, 1}, {1, 1}, {2, -1}};
    const f32<2, 2> bs{{2, 1}, {1, 3}}; // rows 0-1 scaled by (2, 1), rows 2-3 by (1, 3)
    // effective b: {2,0},{0,1},{1,3},{2,-3}
    const auto c = scaled_dot<mk>(a, as, b, bs);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(c)>, f32<2, 2>>);
    CHECK(c(0, 0) == 1 * 2 + 2 * 0 + 6 * 1 + 8 * 2);
    CHECK(c(0, 1) == 1 * 0 + 2 * 1 + 6 * 3 + 8 * -3);
    CHECK(c(1, 0) == 2.5f * 2 + 3 * 0 + 28 * 1 + 32 * 2);
    CHECK(c(1, 1) == 2.5f * 0 + 3 * 1 + 28 * 3 - 32 * 3);
}

TEST_CASE("scaled_dot: per-tensor scales (all sizes 1) scale dot by their product") {
    const auto a = dt::random<f32<7, 33>>();
    const auto b = dt::random<f32<33, 5>>();
    const f32<1, 1> s1{{2}}, s2{{0.25f}};
    const auto got = scaled_dot<mk>(a, s1, b, s2);
    const auto want = dot(a, b);
    for (std::size_t i = 0; i < want.size(); ++i)
        CHECK(got.data()[i] == want.data()[i] * 0.5f); // powers of two: exact
}

TEST_CASE("scaled_dot: expressions as operands and scales, bf16 scales, bf16 operands") {
    const auto a = dt::random<bf16<6, 64>>();
    const auto b = dt::random<bf16<64, 10>>();
    const bf16<6, 2> as = random_scale<bf16<6, 2>>();
    const bf16<2, 10> bs = random_scale<bf16<2, 10>>();
    const auto c1 = scaled_dot<mk, float>(a, as, b, bs);
    const auto c2 = scaled_dot<mk, float>(a + bfloat16(0.0f), as * bfloat16(1.0f), eval(b), bs);
    CHECK(std::memcmp(c1.data(), c2.data(), sizeof(float) * c1.size()) == 0);
}

TEST_CASE("scaled_dot differential: MX blocks of 32, odd sizes, batch and transposed dims, types") {
    scaled_case<mk, f32<37, 96>, f32<37, 3>, f32<96, 29>, f32<3, 29>>();
    scaled_case<mk, f32<37, 96>, bf16<37, 3>, f32<96, 29>, bf16<3, 1>>(); // per-row / per-block
    scaled_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {1}}, f32<64, 13>, f32<2, 13>, f32<21, 64>,
                f32<21, 2>>(); // both transposed
    scaled_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
                f32<3, 11, 64>, f32<3, 1, 4>, f32<3, 64, 9>, f32<1, 8, 9>>(); // batch, blocks 16 / 8
    scaled_case<dot_dims{.lhs_contracting = {1, 2}, .rhs_contracting = {0, 2}}, f64<5, 6, 32>, f64<5, 3, 1>,
                f64<6, 7, 32>, f64<2, 7, 4>>(); // two contracting dims
    scaled_case<mk, bf16<19, 64>, f32<19, 2>, bf16<64, 23>, f32<2, 23>, float>();
    scaled_case<mk, f16<19, 64>, f16<19, 2>, f16<64, 23>, f16<2, 23>>();         // f16 result, f32 accumulation
    scaled_case<mk, f32<150, 320>, f32<150, 10>, f32<320, 140>, f32<10, 140>>(); // the packed GEMM
}

TEST_CASE("scaled_dot: empty contracting dimension gives zeros") {
    const f32<3, 0> a;
    const f32<3, 0> as;
    const f32<0, 2> b;
    const f32<0, 2> bs;
    const auto c = scaled_dot<mk>(a, as, b, bs);
    for (float v : c)
        CHECK(v == 0.0f);
}

// ---- ragged_dot --------------------------------------------------------------------------------

TEST_CASE("ragged_dot mode 1 (MoE): hand-checked, rows after the last group are zero") {
    const f32<5, 2> x{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}};
    const f32<2, 2, 3> w{{{1, 0, 0}, {0, 1, 0}}, {{0, 0, 1}, {1, 1, 1}}};
    const s32<2> gs{1, 3}; // row 0: group 0; rows 1-3: group 1; row 4: none
    const auto y = ragged_dot<moe_dims>(x, w, gs);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(y)>, f32<5, 3>>);
    const f32<5, 3> want{{1, 2, 0}, {4, 4, 7}, {6, 6, 11}, {8, 8, 15}, {0, 0, 0}};
    CHECK(equal(y, want));
}

TEST_CASE("ragged_dot mode 2 (ragged contracting): hand-checked, one product per group") {
    const f32<2, 4> x{{1, 2, 3, 4}, {5, 6, 7, 8}};
    const f32<4, 1> w{{1}, {10}, {100}, {1000}};
    const s64<3> gs{1, 0, 2}; // k 0 | none | k 1-2; k 3 in no group
    const auto y = ragged_dot<kdims>(x, w, gs);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(y)>, f32<3, 2, 1>>);
    const f32<3, 2, 1> want{{{1}, {5}}, {{0}, {0}}, {{320}, {760}}};
    CHECK(equal(y, want));
}

TEST_CASE("ragged_dot mode 3 (ragged batch): dot_general's result") {
    constexpr ragged_dot_dims d{
        .dot = dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
        .lhs_ragged = {0}};
    const auto x = dt::random<f32<4, 3, 5>>();
    const auto w = dt::random<f32<4, 5, 2>>();
    const auto y = ragged_dot<d>(x, w, u8<2>{1, 2});
    const auto want = dot_general<d.dot>(x, w);
    CHECK(equal(y, want));
    CHECK_THROWS_AS(ragged_dot<d>(x, w, u8<2>{3, 2}), xlet::error);
}

TEST_CASE("ragged_dot: run-time errors name the op and the reason") {
    const auto x = dt::random<f32<6, 4>>();
    const auto w = dt::random<f32<3, 4, 2>>();
    CHECK_THROWS_AS(ragged_dot<moe_dims>(x, w, s32<3>{1, -1, 2}), xlet::error);
    CHECK_THROWS_AS(ragged_dot<moe_dims>(x, w, s32<3>{4, 2, 1}), xlet::error);
    CHECK_THROWS_AS(ragged_dot<moe_dims>(x, w, u64<3>{0, ~std::uint64_t{0}, 0}), xlet::error);
    try {
        (void)ragged_dot<moe_dims>(x, w, s32<3>{1, -1, 2});
    } catch (const xlet::error& e) {
        CHECK(std::string(e.what()).find("xlet::ragged_dot: group_sizes[1] = -1 is negative") == 0);
    }
    try {
        (void)ragged_dot<moe_dims>(x, w, s32<3>{4, 2, 1});
    } catch (const xlet::error& e) {
        CHECK(std::string(e.what()).find("xlet::ragged_dot: group sizes sum to more than") == 0);
    }
    CHECK_THROWS_AS(ragged_dot<kdims>(dt::random<f32<2, 3>>(), dt::random<f32<3, 2>>(), s32<2>{2, 2}), xlet::error);
}

TEST_CASE("ragged_dot: no groups, empty groups, every row in no group") {
    const auto x = dt::random<f32<4, 3>>();
    const f32<0, 3, 2> w0;
    const auto y0 = ragged_dot<moe_dims>(x, w0, s32<0>{});
    for (float v : y0)
        CHECK(v == 0.0f);
    const auto w = dt::random<f32<2, 3, 2>>();
    const auto y1 = ragged_dot<moe_dims>(x, w, s32<2>{0, 0});
    for (float v : y1)
        CHECK(v == 0.0f);
    const auto y2 = ragged_dot<kdims>(x, dt::random<f32<3, 2>>(), s32<2>{0, 0});
    for (float v : y2)
        CHECK(v == 0.0f);
}

TEST_CASE("ragged_dot differential mode 1: odd sizes, batch dims, outer free dims, transposed rhs") {
    for (int rep = 0; rep < 3; ++rep) {
        ragged_case<moe_dims, f32<37, 29>, f32<4, 29, 23>, 4>(rep == 0);
        ragged_case<moe_dims, f32<300, 200>, f32<3, 200, 150>, 3>(rep != 1); // the packed GEMM
        // [b, m, k] x [g, b, k, n] (StableHLO's example), ragged m
        ragged_case<
            ragged_dot_dims{
                .dot = dot_dims{.lhs_batch = {0}, .rhs_batch = {1}, .lhs_contracting = {2}, .rhs_contracting = {2}},
                .lhs_ragged = {1},
                .rhs_group = {0}},
            f32<2, 11, 5>, f32<3, 2, 5, 7>, 3>(rep == 0);
        // free dims outside the ragged one: [o, m, i, k] with m ragged; rhs [k, g, n] (group in the middle)
        ragged_case<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {3}, .rhs_contracting = {0}},
                                    .lhs_ragged = {1},
                                    .rhs_group = {1}},
                    f64<3, 9, 2, 13>, f64<13, 5, 6>, 5>(rep == 2);
        // rhs [n, k, g]: transposed copy
        ragged_case<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}},
                                    .lhs_ragged = {0},
                                    .rhs_group = {2}},
                    f32<17, 8>, f32<6, 8, 3>, 3>(false);
    }
}

TEST_CASE("ragged_dot differential mode 2: several contracting dims, batch dims") {
    for (int rep = 0; rep < 3; ++rep) {
        ragged_case<kdims, f32<23, 41>, f32<41, 19>, 4>(rep == 0);
        // [b, m, k] x [b, k, n], ragged k -> [g, b, m, n]
        ragged_case<
            ragged_dot_dims{
                .dot = dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
                .lhs_ragged = {2}},
            f32<2, 11, 31>, f32<2, 31, 7>, 3>(rep == 1);
        // two contracting dims, the ragged one second in the list: [m, k1, k2] x [k2, k1, n]
        ragged_case<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1, 2}, .rhs_contracting = {1, 0}},
                                    .lhs_ragged = {2}},
                    f64<9, 4, 15>, f64<15, 4, 6>, 3>(rep == 2);
    }
}

TEST_CASE("ragged_dot differential: integer, narrow float and preferred types") {
    ragged_case<moe_dims, s32<21, 13>, s32<3, 13, 9>, 3>(true);
    ragged_case<moe_dims, s8<21, 13>, s8<3, 13, 9>, 3, std::int32_t>(false);
    ragged_case<kdims, s32<7, 30>, s32<30, 5>, 3>(false);
    ragged_case<moe_dims, bf16<25, 40>, bf16<3, 40, 11>, 3, float>(false);
    ragged_case<moe_dims, f16<25, 40>, f16<3, 40, 11>, 3>(true); // f16 result, f32 accumulation
    ragged_case<kdims, bf16<13, 50>, bf16<50, 9>, 2>(false);
}

TEST_CASE("results do not depend on the thread count (1 and 2 threads, bitwise)") {
    auto run = [](int threads, auto f) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        return f();
    };
    const auto x = dt::random<f32<700, 256>>();
    const auto w = dt::random<f32<4, 256, 200>>();
    const s32<4> gs{300, 0, 250, 100};
    auto m1 = [&] { return ragged_dot<moe_dims>(x, w, gs); };
    auto a1 = run(1, m1), a2 = run(2, m1);
    CHECK(std::memcmp(a1.data(), a2.data(), sizeof(float) * a1.size()) == 0);
    const s32<8> small{10, 3, 0, 40, 7, 1, 90, 5}; // small groups: side by side on TBB
    auto m1s = [&] { return ragged_dot<moe_dims>(x, dt::random<f32<8, 256, 200>>(), small); };
    lt::rng().seed(7);
    auto c1 = run(1, m1s);
    lt::rng().seed(7);
    auto c2 = run(2, m1s);
    CHECK(std::memcmp(c1.data(), c2.data(), sizeof(float) * c1.size()) == 0);
    auto m2 = [&] { return ragged_dot<kdims>(dt::random<f32<200, 700>>(), dt::random<f32<700, 180>>(), gs); };
    lt::rng().seed(9);
    auto d1 = run(1, m2);
    lt::rng().seed(9);
    auto d2 = run(2, m2);
    CHECK(std::memcmp(d1.data(), d2.data(), sizeof(float) * d1.size()) == 0);
    const auto a = dt::random<f32<300, 512>>();
    const auto b = dt::random<f32<512, 300>>();
    const auto as = random_scale<f32<300, 16>>();
    const auto bs = random_scale<f32<16, 300>>();
    auto sd = [&] { return scaled_dot<mk>(a, as, b, bs); };
    auto s1 = run(1, sd), s2 = run(2, sd);
    CHECK(std::memcmp(s1.data(), s2.data(), sizeof(float) * s1.size()) == 0);
}
