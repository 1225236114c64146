// Dot and DotGeneral: the spec's examples verbatim, hand-checked ranks and types (integers with
// preferred s32, wrap-around, complex, bf16/f16 accumulated in f32), and the result layout for
// batch / free / contracting dimensions in any order. The GEMM kernels themselves, on run-time
// sizes around every block edge, strides, update modes and thread counts, and the differential
// tests of dot_general against the reference: dot_diff_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

using dt::rf;

// Heap allocations are counted (tests/alloc_counter.hpp).
#include "alloc_counter.hpp"

TEST_CASE("spec: DotGeneral with contracting dimensions") {
    f32<2, 3> lhs{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
    f32<2, 3> rhs{{1.0f, 1.0f, 1.0f}, {2.0f, 2.0f, 2.0f}};
    auto r = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}>(lhs, rhs);
    static_assert(std::is_same_v<decltype(r), f32<2, 2>>);
    CHECK(equal(r, f32<2, 2>{{6.0f, 12.0f}, {15.0f, 30.0f}}));
}

TEST_CASE("attributes at their default are accepted: empty batch lists, default precision, Out = operand type") {
    f32<2, 3> lhs{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
    f32<2, 3> rhs{{1.0f, 1.0f, 1.0f}, {2.0f, 2.0f, 2.0f}};
    auto plain = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}>(lhs, rhs);
    auto spelled =
        dot_general<dot_dims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contracting = {1}, .rhs_contracting = {1}}, float,
                    precision_config{.lhs = precision::default_, .rhs = precision::default_}>(lhs, rhs);
    static_assert(std::is_same_v<decltype(spelled), f32<2, 2>>);
    CHECK(equal(plain, spelled));
}

TEST_CASE("spec: DotGeneral with batch dimensions (batch size 2, 2x2 matrices)") {
    f32<2, 2, 2> lhs{{{1.0f, 2.0f}, {3.0f, 4.0f}}, {{5.0f, 6.0f}, {7.0f, 8.0f}}};
    f32<2, 2, 2> rhs{{{1.0f, 0.0f}, {0.0f, 1.0f}}, {{1.0f, 0.0f}, {0.0f, 1.0f}}};
    auto r = dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}}>(
        lhs, rhs);
    CHECK(equal(r, f32<2, 2, 2>{{{1.0f, 2.0f}, {3.0f, 4.0f}}, {{5.0f, 6.0f}, {7.0f, 8.0f}}}));
}

TEST_CASE("spec: batch matmul shapes [b0, m, k] x [b0, k, n] and [b0, b1, m, k] x [b0, b1, k, n]") {
    auto a = lt::iota_tensor<f32<3, 4, 5>>();
    auto b = lt::iota_tensor<f32<3, 5, 2>>();
    auto r =
        dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}}>(a, b);
    static_assert(std::is_same_v<decltype(r), f32<3, 4, 2>>);
    auto c = lt::iota_tensor<f32<2, 3, 4, 5>>();
    auto d = lt::iota_tensor<f32<2, 3, 5, 6>>();
    auto q =
        dot_general<dot_dims{.lhs_batch = {0, 1}, .rhs_batch = {0, 1}, .lhs_contracting = {3}, .rhs_contracting = {2}}>(
            c, d);
    static_assert(std::is_same_v<decltype(q), f32<2, 3, 4, 6>>);
    // element [1, 2, 3, 4] = sum_k c[1,2,3,k] d[1,2,k,4]
    double s = 0;
    for (std::size_t k = 0; k < 5; ++k)
        s += double(c(1, 2, 3, k)) * double(d(1, 2, k, 4));
    CHECK(q(1, 2, 3, 4) == float(s));
}

TEST_CASE("spec: Dot by ranks: vector.vector, matrix.vector, vector.matrix, matrix.matrix") {
    f32<3> v{1, 2, 3};
    f32<3> w{4, -5, 6};
    auto s = dot(v, w);
    static_assert(std::is_same_v<decltype(s), f32<>>);
    CHECK(s() == 12.0f);
    f32<2, 3> m{{1, 2, 3}, {4, 5, 6}};
    auto mv = dot(m, v);
    static_assert(std::is_same_v<decltype(mv), f32<2>>);
    CHECK(equal(mv, f32<2>{14, 32}));
    f32<2> u{1, -1};
    CHECK(equal(dot(u, m), f32<3>{-3, -3, -3}));
    f32<3, 2> n{{1, 0}, {0, 1}, {1, 1}};
    CHECK(equal(dot(m, n), f32<2, 2>{{4, 5}, {10, 11}}));
    f64<2, 3> md{{1, 2, 3}, {4, 5, 6}};
    f64<3, 2> nd{{1, 0}, {0, 1}, {1, 1}};
    CHECK(equal(dot(md, nd), f64<2, 2>{{4, 5}, {10, 11}}));
}

TEST_CASE("result layout: batch, lhs free (increasing), rhs free (increasing); contracting pairs in list order") {
    // lhs [2(k1), 3(b), 4(m), 5(k0)], rhs [5(k0), 6(n0), 3(b), 2(k1), 7(n1)]
    auto l = lt::iota_tensor<s32<2, 3, 4, 5>>(-50);
    auto r = lt::iota_tensor<s32<5, 6, 3, 2, 7>>(-300);
    constexpr dot_dims D{.lhs_batch = {1}, .rhs_batch = {2}, .lhs_contracting = {3, 0}, .rhs_contracting = {0, 3}};
    auto o = dot_general<D>(l, r);
    static_assert(std::is_same_v<decltype(o), s32<3, 4, 6, 7>>);
    for (std::size_t b = 0; b < 3; ++b)
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j0 = 0; j0 < 6; ++j0)
                for (std::size_t j1 = 0; j1 < 7; ++j1) {
                    std::int64_t s = 0;
                    for (std::size_t k0 = 0; k0 < 5; ++k0)
                        for (std::size_t k1 = 0; k1 < 2; ++k1)
                            s += std::int64_t{l(k1, b, i, k0)} * r(k0, j0, b, k1, j1);
                    REQUIRE(o(b, i, j0, j1) == s);
                }
    CHECK_SAME(o, (r::dot_general<std::int32_t>(rf(l), rf(r), {{1}, {2}, {3, 0}, {0, 3}})));
}

TEST_CASE("no contracting dimensions: outer product; no free dimensions: batched dot") {
    f32<3> a{1, 2, 3};
    f32<2> b{10, 20};
    CHECK(equal(dot_general<dot_dims{}>(a, b), f32<3, 2>{{10, 20}, {20, 40}, {30, 60}}));
    f32<2, 3> x{{1, 2, 3}, {4, 5, 6}};
    f32<2, 3> y{{1, 1, 1}, {0, 1, 0}};
    CHECK(equal(
        dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {1}, .rhs_contracting = {1}}>(x, y),
        f32<2>{6, 5}));
}

TEST_CASE("zero-size dimensions: empty results, and K = 0 gives zeros") {
    f32<0, 3> e;
    f32<3, 4> b = lt::iota_tensor<f32<3, 4>>();
    auto r = dot(e, b);
    static_assert(std::is_same_v<decltype(r), f32<0, 4>>);
    f32<2, 0> p;
    f32<0, 3> q;
    CHECK(equal(dot(p, q), f32<2, 3>{}));
    s8<2, 0> pi;
    s8<0, 3> qi;
    CHECK(equal(dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, std::int32_t>(pi, qi),
                s32<2, 3>{}));
}

TEST_CASE("integers: s8 x s8 -> s32 as preferred element type; s8 result wraps; u8 zero-extends") {
    s8<2, 3> a{{127, -128, 3}, {-1, 2, 100}};
    s8<3, 2> b{{127, 1}, {-128, 2}, {5, -7}};
    auto r = dot<std::int32_t>(a, b);
    static_assert(std::is_same_v<decltype(r), s32<2, 2>>);
    CHECK(equal(r, s32<2, 2>{{127 * 127 + 128 * 128 + 15, 127 - 256 - 21}, {-127 - 256 + 500, -1 + 4 - 700}}));
    auto w = dot(a, b); // s8 accumulation wraps modulo 256
    CHECK(equal(
        w, s8<2, 2>{{static_cast<std::int8_t>(127 * 127 + 128 * 128 + 15), static_cast<std::int8_t>(127 - 256 - 21)},
                    {static_cast<std::int8_t>(-127 - 256 + 500), static_cast<std::int8_t>(-1 + 4 - 700)}}));
    u8<3> u{255, 255, 1};
    CHECK(dot<std::int32_t>(u, u)() == 255 * 255 * 2 + 1);
    s32<2> big{0x40000000, 0x40000000};
    CHECK(dot(big, s32<2>{4, 4})() == 0); // 2 * 2^32 wraps to 0, no UB
    s64<2> l{std::int64_t{1} << 40, 3};
    CHECK(dot(l, s64<2>{1 << 20, -1})() == (std::int64_t{1} << 60) - 3);
}

TEST_CASE("complex: c64 and c128, no conjugation") {
    c64<2> z{{1, 1}, {2, -1}};
    CHECK(dot(z, z)() == std::complex<float>(3, -2));
    c128<2, 2> m{{{1, 0}, {0, 1}}, {{0, -1}, {2, 0}}};
    c128<2> v{{1, 2}, {3, 4}};
    auto r = dot(m, v);
    CHECK(r(0) == std::complex<double>(1, 2) + std::complex<double>(0, 1) * std::complex<double>(3, 4));
    CHECK(r(1) == std::complex<double>(0, -1) * std::complex<double>(1, 2) + std::complex<double>(6, 8));
}

TEST_CASE("bf16 / f16: accumulated in f32, rounded once") {
    // 256 + 1 + 1: in bf16 steps 256 + 1 rounds back to 256 each time; in f32 it is 258 -> bf16 258.
    bf16<3> a{bfloat16(256.0f), bfloat16(1.0f), bfloat16(1.0f)};
    bf16<3> one{bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f)};
    CHECK(float(dot(a, one)()) == 258.0f);
    CHECK(dot<float>(a, one)() == 258.0f);
    f16<2, 2> h{{half(1.5f), half(2.0f)}, {half(-3.0f), half(0.25f)}};
    auto hh = dot<float>(h, h);
    static_assert(std::is_same_v<decltype(hh), f32<2, 2>>);
    CHECK(equal(hh, f32<2, 2>{{1.5f * 1.5f - 6.0f, 3.0f + 0.5f}, {-4.5f - 0.75f, -6.0f + 0.0625f}}));
    CHECK(float(dot(h, h)(0, 0)) == -3.75f);
    // f32 operands, f64 result: the products and sums in f64
    f32<2> big{16777216.0f, 1.0f};
    CHECK(dot<double>(big, f32<2>{1.0f, 1.0f})() == 16777217.0);
    CHECK(dot(big, f32<2>{1.0f, 1.0f})() == 16777216.0f);
}

TEST_CASE("precision_config is accepted (all levels mean full precision)") {
    f32<2, 3> m{{1, 2, 3}, {4, 5, 6}};
    f32<3> v{1, 2, 3};
    constexpr precision_config hi{.lhs = precision::highest, .rhs = precision::highest};
    CHECK(equal(dot<void, hi>(m, v), dot(m, v)));
    CHECK(equal(dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, float,
                            precision_config{.lhs = precision::high}>(m, v),
                f32<2>{14, 32}));
}

TEST_CASE("operands may be expressions, transposes and maps; evaluated once") {
    auto a = dt::random<f32<5, 7>>();
    auto b = dt::random<f32<7, 3>>();
    f32<5, 3> want = dot(a, b);
    CHECK(equal(dot(a * 1.0f, b + 0.0f), want));
    CHECK(equal(dot(transpose(eval(transpose(a, dims<1, 0>)), dims<1, 0>), b), want));
    tensor_map<const float, 5, 7> am(a.data());
    CHECK(equal(dot(am, b), want));
    // a^T . b^T through dimension numbers equals (b . a)^T
    auto bt = dot_general<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {1}}>(b, a); // [3, 5]
    CHECK(equal(bt, eval(transpose(want, dims<1, 0>))));
    // same numbers through a permuted copy (free dims [0, 2] of a rank-3 lhs do not collapse)
    auto l3 = dt::random<f32<2, 7, 3>>();
    auto w3 = dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(l3, b);
    static_assert(std::is_same_v<decltype(w3), f32<2, 3, 3>>);
    dt::check_close(w3, r::dot_general<double>(rf(l3), rf(b), {{}, {}, {1}, {0}}),
                    r::dot_general<double, float, true>(rf(l3), rf(b), {{}, {}, {1}, {0}}), 7);
}

TEST_CASE("small static shapes: the register path equals the GEMM's bits (K <= 256)") {
    auto a = dt::random<f32<4, 4>>();
    auto b = dt::random<f32<4, 4>>();
    auto r = dot(a, b);
    f32<4, 4> g;
    detail::gemm<float>(4, 4, 4, a.data(), 4, 1, b.data(), 4, 1, g.data(), 4);
    CHECK(equal(r, g));
    auto c = dt::random<f64<16, 16>>();
    auto d = dt::random<f64<16, 13>>();
    f64<16, 13> h;
    detail::gemm<double>(16, 13, 16, c.data(), 16, 1, d.data(), 13, 1, h.data(), 13);
    CHECK(equal(dot(c, d), h));
    // Rows narrower than the native batch take a narrower one (4, 8, 12 f32; 2, 6 f64 columns):
    // the same single-rounding FMAs as the GEMM.
    auto same_bits = []<class T, std::size_t M, std::size_t N, std::size_t K>(std::type_identity<T>,
                                                                              std::index_sequence<M, N, K>) {
        auto x = dt::random<tensor<T, M, K>>();
        auto y = dt::random<tensor<T, K, N>>();
        tensor<T, M, N> ref;
        detail::gemm<T>(M, N, K, x.data(), K, 1, y.data(), N, 1, ref.data(), N);
        CHECK(equal(dot(x, y), ref));
    };
    same_bits(std::type_identity<float>{}, std::index_sequence<3, 4, 7>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<5, 8, 16>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<2, 12, 9>{});
    same_bits(std::type_identity<double>{}, std::index_sequence<4, 2, 11>{});
    same_bits(std::type_identity<double>{}, std::index_sequence<3, 6, 5>{});
    // f32 [M,4] x [4,4]: whole registers of rows (4 on AVX-512, 2 on AVX2), the rest row by row.
    same_bits(std::type_identity<float>{}, std::index_sequence<8, 4, 4>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<6, 4, 4>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<2, 4, 4>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<3, 4, 4>{});
    f32<4, 4> ha{{1, 2, 0, 0}, {0, 1, 0, 0}, {0, 0, 2, 0}, {1, 1, 1, 1}};
    f32<4, 4> hb{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
    CHECK(equal(dot(ha, hb), f32<4, 4>{{11, 14, 17, 20}, {5, 6, 7, 8}, {18, 20, 22, 24}, {28, 32, 36, 40}}));
    // Matrix x vector (N = 1: no batch fits a row): one FMA chain per row, k in order, as the GEMM.
    same_bits(std::type_identity<float>{}, std::index_sequence<4, 1, 4>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<7, 1, 5>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<16, 1, 16>{});
    same_bits(std::type_identity<float>{}, std::index_sequence<3, 1, 9>{});
    same_bits(std::type_identity<double>{}, std::index_sequence<5, 1, 3>{});
    same_bits(std::type_identity<double>{}, std::index_sequence<4, 1, 4>{});
    auto m = dt::random<f32<6, 7>>();
    auto v = dt::random<f32<7>>();
    f32<6> mv;
    detail::gemm<float>(6, 1, 7, m.data(), 7, 1, v.data(), 1, 1, mv.data(), 1);
    CHECK(equal(dot(m, v), mv));
    // Hand-checked: rows of a 4x4 times (1, 10, 100, 1000).
    f32<4, 4> hm{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {-1, 0, 0.5f, 2}};
    f32<4> w{1, 10, 100, 1000};
    CHECK(equal(dot(hm, w), f32<4>{4321, 8765, 13209, 2049}));
    // A transposed (its k strided): the row-at-a-time form, the same bits.
    auto mt = dt::random<f32<7, 6>>();
    f32<6> mtv;
    detail::gemm<float>(6, 1, 7, mt.data(), 1, 6, v.data(), 1, 1, mtv.data(), 1);
    CHECK(equal(dot_general<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}>(mt, v), mtv));
}

TEST_CASE("allocations: none for small static products; only the result once the packing buffers exist") {
    auto a = dt::random<f32<4, 4>>();
    auto b = dt::random<f32<4, 4>>();
    auto c = dt::random<f64<16, 16>>();
    const long before = allocations.load();
    auto r1 = dot(a, b);
    auto r2 = dot(c, c);
    auto r3 = dot_general<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}>(c, c);
    CHECK(allocations.load() == before);
    f32<4, 4> g1;
    detail::gemm<float>(4, 4, 4, a.data(), 4, 1, b.data(), 4, 1, g1.data(), 4);
    CHECK(equal(r1, g1));
    f64<16, 16> ct = transpose(c, dims<1, 0>);
    CHECK(equal(r3, dot(ct, c)));
    CHECK(equal(r2, dot(c, eval(transpose(ct, dims<1, 0>)))));
    auto x = dt::random<f32<64, 80>>(); // 64 x 80 x 72: below the parallel threshold, one thread
    auto y = dt::random<f32<80, 72>>();
    auto w = dot(x, y); // first call: the packing buffers are allocated
    const long mid = allocations.load();
    auto w2 = dot(x, y);
    // At most the result tensor (18 KiB, on the heap); sanitizer runtimes replace the aligned
    // operator new themselves, so there the count may be 0.
    CHECK(allocations.load() - mid <= 1);
    CHECK(equal(w, w2));
}

TEST_CASE("IEEE specials propagate: NaN, inf, 0 * inf; a sum of -0 products is +0 (accumulators start at +0)") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    f32<2, 3> a{{1, nan, 0}, {1, 2, 3}};
    f32<3, 2> b{{1, 1}, {1, 1}, {inf, 1}};
    auto r = dot(a, b);
    CHECK(std::isnan(r(0, 0)));
    CHECK(std::isnan(r(0, 1)));
    CHECK(r(1, 0) == inf);
    CHECK(r(1, 1) == 6.0f);
    f32<2> z{-0.0f, -0.0f};
    f32<2> o{1.0f, 1.0f};
    CHECK_FALSE(std::signbit(dot(z, o)()));
    // the same through the GEMM path (a product too large for the register loop)
    f32<1, 40> zl;
    for (auto& x : zl)
        x = -0.0f;
    f32<40, 20> ol;
    for (auto& x : ol)
        x = 1.0f;
    auto big = dot(zl, ol);
    for (std::size_t j = 0; j < 20; ++j)
        CHECK_FALSE(std::signbit(big(0, j)));
    f64<40, 1> inf_col;
    for (auto& x : inf_col)
        x = std::numeric_limits<double>::infinity();
    f64<20, 40> zeros;
    auto ni = dot(zeros, inf_col);
    for (std::size_t i = 0; i < 20; ++i)
        CHECK(std::isnan(ni(i, 0)));
}
