// Reduce: the spec's examples verbatim, the monoid tags' semantics (NaN, -0, integer wrapping,
// pred), init values, empty and rank-0 cases, variadic reduce (argmax), fusion of the operand, a
// 2^24-element f32 sum against a double reference, and identical results for any thread count.
// Differential tests against the reference on random shapes and dimension sets: reduce_diff_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_common.hpp"

#include <tbb/global_control.h>

#include <functional>

using lt::rf;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float qnan = std::numeric_limits<float>::quiet_NaN();
} // namespace

TEST_CASE("spec: 1-D [10, 11, 12, 13]") {
    f32<4> v{10, 11, 12, 13};
    CHECK(reduce(v, 0.0f, add_fn{}, dims<0>)() == 46);
    CHECK(reduce(
              v, 0.0f, [](float a, float b) { return a + b; }, dims<0>)() == 46);
}

TEST_CASE("spec: 2-D [2, 3]") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    CHECK(equal(reduce(a, 0.0f, add_fn{}, dims<0>), f32<3>{5, 7, 9}));
    CHECK(equal(reduce(a, 0.0f, add_fn{}, dims<1>), f32<2>{6, 15}));
}

TEST_CASE("spec: 3-D [4, 2, 3]") {
    f32<4, 2, 3> a{{{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}};
    CHECK(equal(reduce(a, 0.0f, add_fn{}, dims<0>), f32<2, 3>{{4, 8, 12}, {16, 20, 24}}));
    CHECK(equal(reduce(a, 0.0f, add_fn{}, dims<2>), f32<4, 2>{{6, 15}, {6, 15}, {6, 15}, {6, 15}}));
    CHECK(equal(reduce(a, 0.0f, add_fn{}, dims<0, 1>), f32<3>{20, 28, 36}));
    CHECK(equal(reduce(a, 0.0f, add_fn{}, dims<1, 0>), f32<3>{20, 28, 36})); // an unordered set
    CHECK(reduce(a, 0.0f, add_fn{}, dims<0, 1, 2>)() == 84);
}

TEST_CASE("spec: variadic max and argmax with iota") {
    // f(max, argmax, value, index): value >= max takes the later index on ties.
    auto argmax = [](float m, std::int32_t am, float v, std::int32_t i) {
        return v >= m ? std::tuple{v, i} : std::tuple{m, am};
    };
    f32<6> v{3, 9, 2, 9, 1, 5};
    auto [m, i] =
        reduce(std::forward_as_tuple(v, iota<s32<6>, 0>()), std::tuple{-inf, std::int32_t{0}}, argmax, dims<0>);
    CHECK(m() == 9);
    CHECK(i() == 3);
    // Along the last dimension of a matrix, iota fused (never materialised).
    f32<2, 4> a{{1, 8, 8, 2}, {-1, -3, -2, -7}};
    auto [mm, ii] = reduce(std::forward_as_tuple(a, iota<s32<2, 4>, 1>()), std::tuple{-inf, 0}, argmax, dims<1>);
    CHECK(equal(mm, f32<2>{8, -1}));
    CHECK(equal(ii, s32<2>{2, 0}));
    // Along the first dimension (the inner-kept loops).
    auto [m0, i0] = reduce(std::forward_as_tuple(a, iota<s32<2, 4>, 0>()), std::tuple{-inf, 0}, argmax, dims<0>);
    CHECK(equal(m0, f32<4>{1, 8, 8, 2}));
    CHECK(equal(i0, s32<4>{0, 0, 0, 0}));
    // std::pair works as the result too; operands of different types.
    auto [s, c] = reduce(
        std::forward_as_tuple(a, convert_element_type<std::int32_t>(a > 0.0f)), std::tuple{0.0f, 0},
        [](float sa, std::int32_t cnt, float x, std::int32_t pos) {
            return std::pair{sa + x, cnt + pos};
        },
        dims<1>);
    CHECK(equal(s, f32<2>{19, -13}));
    CHECK(equal(c, s32<2>{4, 0}));
}

TEST_CASE("monoids: max/min propagate NaN and order -0 < +0") {
    f32<4> z{0.0f, -0.0f, -0.0f, 0.0f};
    CHECK(!std::signbit(reduce(z, -inf, max_fn{}, dims<0>)()));
    CHECK(std::signbit(reduce(z, inf, min_fn{}, dims<0>)()));
    f32<3> nz{-0.0f, -0.0f, -0.0f};
    CHECK(std::signbit(reduce(nz, -inf, max_fn{}, dims<0>)()));
    f32<40> n;
    for (std::size_t i = 0; i < 40; ++i)
        n(i) = float(i);
    n(17) = qnan;
    CHECK(std::isnan(reduce(n, -inf, max_fn{}, dims<0>)()));
    CHECK(std::isnan(reduce(n, inf, min_fn{}, dims<0>)()));
    f32<2, 40> n2;
    for (std::size_t i = 0; i < 40; ++i)
        n2(0, i) = n2(1, i) = float(i);
    n2(1, 3) = qnan;
    auto cm = reduce(n2, -inf, max_fn{}, dims<0>); // inner-kept lanes
    CHECK(std::isnan(cm(3)));
    CHECK(cm(39) == 39);
    CHECK(reduce(f32<3>{-inf, -inf, -inf}, -inf, max_fn{}, dims<0>)() == -inf);
    // 16 lanes: the pairwise fold runs on halves (8, then 4 lanes) before its scalar steps.
    f32<16> h{};
    h.data()[12] = qnan;
    CHECK(std::isnan(reduce(h, -inf, max_fn{}, dims<0>)()));
    f32<16> hz{-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f,
               -0.0f, 0.0f,  -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
    CHECK(!std::signbit(reduce(hz, -inf, max_fn{}, dims<0>)()));
    f32<16> hp{};
    hp.data()[13] = -0.0f;
    CHECK(std::signbit(reduce(hp, inf, min_fn{}, dims<0>)()));
    // The tree pairs lane i with lane i + 8 first: 1e8 meets -1e8 before the ones are absorbed
    // (a sequential sum gives 7).
    f32<16> ht{1e8f, 1, 1, 1, 1, 1, 1, 1, -1e8f, 1, 1, 1, 1, 1, 1, 1};
    CHECK(reduce(ht, 0.0f, add_fn{}, dims<0>)() == 14.0f);
    // The additive identity of the unused accumulators and lanes is -0 (x + -0 is x; +0 is not):
    // a sum of -0s from an init of -0 is -0, as a sequential sum is, over a tail alone, one
    // vector, and several accumulators plus a tail; from +0 it is +0.
    auto negative_zeros = [](auto z) {
        for (std::size_t i = 0; i < decltype(z)::num_elements; ++i)
            z.data()[i] = -0.0f;
        return z;
    };
    const auto z3 = negative_zeros(f32<3>{});
    const auto z16 = negative_zeros(f32<16>{});
    const auto z69 = negative_zeros(f32<69>{});
    CHECK(std::signbit(reduce(z3, -0.0f, add_fn{}, dims<0>)()));
    CHECK(std::signbit(reduce(z16, -0.0f, add_fn{}, dims<0>)()));
    CHECK(std::signbit(reduce(z69, -0.0f, add_fn{}, dims<0>)()));
    CHECK(!std::signbit(reduce(z69, 0.0f, add_fn{}, dims<0>)()));
    const auto zr = reduce(negative_zeros(f32<3, 20>{}), -0.0f, add_fn{}, dims<1>); // rows: inner-reduced
    CHECK((std::signbit(zr(0)) && std::signbit(zr(1)) && std::signbit(zr(2))));
}

TEST_CASE("monoids: integers wrap, pred add/mul are or/and, bitwise and/or") {
    s8<5> a{100, 100, 100, -128, 1};
    CHECK(reduce(a, std::int8_t{0}, add_fn{}, dims<0>)() == std::int8_t(100 + 100 + 100 - 128 + 1 - 256));
    s32<3> m{65536, 65536, 3};
    CHECK(reduce(m, 1, mul_fn{}, dims<0>)() == 0);
    u64<2> big{~0ull, 2};
    CHECK(reduce(big, std::uint64_t{0}, add_fn{}, dims<0>)() == 1);
    pred<4> p{false, true, false, false};
    CHECK(reduce(p, false, add_fn{}, dims<0>)() == true);
    CHECK(reduce(p, true, mul_fn{}, dims<0>)() == false);
    CHECK(reduce(p, false, or_fn{}, dims<0>)() == true);
    CHECK(reduce(p, true, and_fn{}, dims<0>)() == false);
    u32<3> bits{0xF0F0u, 0x0FF0u, 0x00FFu};
    CHECK(reduce(bits, ~0u, and_fn{}, dims<0>)() == 0x00F0u);
    CHECK(reduce(bits, 0u, or_fn{}, dims<0>)() == 0xFFFFu);
    s32<2, 3> mx{{-5, 7, 2}, {9, -1, 3}};
    CHECK(equal(reduce(mx, std::numeric_limits<std::int32_t>::lowest(), max_fn{}, dims<1>), s32<2>{7, 9}));
    CHECK(equal(reduce(mx, std::numeric_limits<std::int32_t>::max(), min_fn{}, dims<0>), s32<3>{-5, -1, 2}));
}

TEST_CASE("init value: applied exactly once, even when it is not an identity") {
    f32<100> ones;
    for (std::size_t i = 0; i < 100; ++i)
        ones(i) = 1;
    CHECK(reduce(ones, 10.0f, add_fn{}, dims<0>)() == 110);
    static f32<3, 100000> many; // chunked, multi-threaded path
    for (std::size_t i = 0; i < many.size(); ++i)
        many.data()[i] = 1;
    CHECK(equal(reduce(many, 5.0f, add_fn{}, dims<1>), f32<3>{100005, 100005, 100005}));
    static f32<100000, 3> tall;
    for (std::size_t i = 0; i < tall.size(); ++i)
        tall.data()[i] = 1;
    CHECK(equal(reduce(tall, 5.0f, add_fn{}, dims<0>), f32<3>{100005, 100005, 100005}));
    CHECK(reduce(f32<2>{3, 4}, 100.0f, max_fn{}, dims<0>)() == 100);
    CHECK(reduce(f32<2>{3, 4}, f32<>{1.0f}, add_fn{}, dims<0>)() == 8); // a rank-0 tensor as init
}

TEST_CASE("edge: empty reductions give init, empty outputs, rank 0, no dimensions") {
    f32<0, 3> e;
    CHECK(equal(reduce(e, 7.0f, add_fn{}, dims<0>), f32<3>{7, 7, 7}));
    CHECK(equal(reduce(
                    e, 7.0f, [](float a, float b) { return a * b; }, dims<0>),
                f32<3>{7, 7, 7}));
    auto e1 = reduce(e, 7.0f, add_fn{}, dims<1>);
    static_assert(std::is_same_v<decltype(e1), f32<0>>);
    f32<4, 0> e2;
    CHECK(equal(reduce(e2, 1.5f, max_fn{}, dims<1>), f32<4>{1.5f, 1.5f, 1.5f, 1.5f}));
    CHECK(reduce(e2, 1.5f, add_fn{}, dims<0, 1>)() == 1.5f);
    f32<> s{2.5f};
    CHECK(reduce(s, 1.0f, add_fn{}, dims<>)() == 3.5f);
    // No dimensions: f(init, x) element-wise, same shape.
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    CHECK(equal(reduce(a, 10.0f, add_fn{}, dims<>), f32<2, 3>{{11, 12, 13}, {14, 15, 16}}));
    CHECK(equal(reduce(
                    a, 10.0f, [](float x, float y) { return x - y; }, dims<>),
                f32<2, 3>{{9, 8, 7}, {6, 5, 4}}));
    // Unit dimensions reduced or kept.
    f32<1, 3, 1> u{{{1}, {2}, {3}}};
    CHECK(equal(reduce(u, 0.0f, add_fn{}, dims<0, 2>), f32<3>{1, 2, 3}));
    CHECK(equal(reduce(u, 0.0f, add_fn{}, dims<1>), f32<1, 1>{{6}}));
}

TEST_CASE("narrow floats and complex") {
    // f16: the monoid accumulates in f32 and rounds once; 0.1 (f16) * 1000 = 99.975... -> 99.94 in f16
    f16<1000> h;
    for (std::size_t i = 0; i < 1000; ++i)
        h(i) = half(0.1f);
    const double exact = 1000.0 * double(float(half(0.1f)));
    CHECK(float(reduce(h, half(0.0f), add_fn{}, dims<0>)()) == float(half(float(exact))));
    // A user lambda sees f16 values and rounds every step like XLA's f16 adds.
    auto seq = reduce(
        h, half(0.0f), [](half a, half b) { return half(float(a) + float(b)); }, dims<0>);
    half want(0.0f);
    for (int i = 0; i < 1000; ++i)
        want = half(float(want) + float(half(0.1f)));
    CHECK(seq().bits() == want.bits());
    bf16<3> b{bfloat16(1.0f), bfloat16(2.0f), bfloat16(-8.0f)};
    CHECK(float(reduce(b, bfloat16(-1e30f), max_fn{}, dims<0>)()) == 2.0f);
    c64<3> c{{1.0f, 2.0f}, {3.0f, -1.0f}, {0.5f, 0.5f}};
    CHECK(reduce(c, std::complex<float>{}, add_fn{}, dims<0>)() == std::complex<float>(4.5f, 1.5f));
    CHECK(reduce(c, std::complex<float>(1.0f), mul_fn{}, dims<0>)() ==
          std::complex<float>(1.0f, 2.0f) * std::complex<float>(3.0f, -1.0f) * std::complex<float>(0.5f, 0.5f));
}

TEST_CASE("fusion: element-wise and layout operands are read, not materialised") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    CHECK(equal(reduce(a * a, 0.0f, add_fn{}, dims<1>), f32<2>{14, 77}));
    CHECK(equal(reduce(transpose(a, dims<1, 0>), 0.0f, add_fn{}, dims<1>), f32<3>{5, 7, 9}));
    CHECK(equal(reduce(broadcast(a, sizes<4>), 0.0f, add_fn{}, dims<0>), f32<2, 3>{{4, 8, 12}, {16, 20, 24}}));
    CHECK(equal(reduce(slice(a, dims<0, 1>, dims<2, 3>, dims<1, 1>), -inf, max_fn{}, dims<0>), f32<2>{5, 6}));
    CHECK(reduce(pad(a, 100.0f, dims<0, 0>, dims<1, 0>, dims<0, 0>), 0.0f, add_fn{}, dims<0, 1>)() == 321);
    CHECK(reduce(exp(a - a), 0.0f, add_fn{}, dims<0, 1>)() == 6);
}

TEST_CASE("large: 2^24 f32 sum against double, identical for 1, 2 and 3 threads") {
    constexpr std::size_t n = std::size_t{1} << 24;
    auto a = std::make_unique<f32<n>>();
    std::mt19937 g(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    double exact = 0, abs_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        a->data()[i] = u(g) + 0.5f;
        exact += a->data()[i];
        abs_sum += std::abs(a->data()[i]);
    }
    float s1, s2, s3;
    {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
        s1 = reduce(*a, 0.0f, add_fn{}, dims<0>)();
    }
    {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, 2);
        s2 = reduce(*a, 0.0f, add_fn{}, dims<0>)();
    }
    {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, 3);
        s3 = reduce(*a, 0.0f, add_fn{}, dims<0>)();
    }
    CHECK(std::bit_cast<std::uint32_t>(s1) == std::bit_cast<std::uint32_t>(s2));
    CHECK(std::bit_cast<std::uint32_t>(s1) == std::bit_cast<std::uint32_t>(s3));
    // Stated bound (docs/semantics.md): relative error of the 2^24 sum below 1e-6 of sum|x|
    // (N-lane x 4-accumulator chunks of 2^16, chunk partials summed in order).
    MESSAGE("2^24 sum: relative error " << std::abs(s1 - exact) / abs_sum);
    CHECK(std::abs(s1 - exact) <= 1e-6 * abs_sum);
}

TEST_CASE("large: row, column and full reductions are thread-count independent") {
    using M = f32<1500, 1700>;
    auto a = std::make_unique<M>(lt::random_tensor<M>(false));
    auto run = [&](int threads) {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        return std::tuple{reduce(*a, 0.0f, add_fn{}, dims<0>), reduce(*a, 0.0f, add_fn{}, dims<1>),
                          reduce(*a, 0.0f, add_fn{}, dims<0, 1>),
                          reduce(transpose(*a, dims<1, 0>), 0.0f, add_fn{}, dims<0>)};
    };
    auto r1 = run(1), r2 = run(2), r3 = run(3);
    CHECK(std::memcmp(std::get<0>(r1).data(), std::get<0>(r2).data(), sizeof(float) * 1700) == 0);
    CHECK(std::memcmp(std::get<0>(r1).data(), std::get<0>(r3).data(), sizeof(float) * 1700) == 0);
    CHECK(std::memcmp(std::get<1>(r1).data(), std::get<1>(r2).data(), sizeof(float) * 1500) == 0);
    CHECK(std::memcmp(std::get<1>(r1).data(), std::get<1>(r3).data(), sizeof(float) * 1500) == 0);
    CHECK(std::get<2>(r1)() == std::get<2>(r2)());
    CHECK(std::get<2>(r1)() == std::get<2>(r3)());
    CHECK(std::memcmp(std::get<3>(r1).data(), std::get<3>(r3).data(), sizeof(float) * 1500) == 0);
    const auto ra = rf(*a);
    const auto exact0 = r::reduce(rt::to_double(ra), 0.0, std::plus<>{}, {0});
    const auto abs0 = r::reduce(rt::to_double(ra, true), 0.0, std::plus<>{}, {0});
    rt::check_sum_close(std::get<0>(r1), exact0, abs0, 1500);
    const auto exact1 = r::reduce(rt::to_double(ra), 0.0, std::plus<>{}, {1});
    const auto abs1 = r::reduce(rt::to_double(ra, true), 0.0, std::plus<>{}, {1});
    rt::check_sum_close(std::get<1>(r1), exact1, abs1, 1700);
    rt::check_sum_close(std::get<3>(r1), exact1, abs1, 1700);
}
