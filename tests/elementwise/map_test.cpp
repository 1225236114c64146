// Map: the spec's form (operands, computation, dimensions, static operands), element type changes,
// the vectorised path (callables over xsimd batches) against the scalar path, fusion with other
// element-wise ops and views, f16 callables, and large multi-threaded maps.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "layout_common.hpp"

#include <atomic>

TEST_CASE("spec: Map(op1, op2, op3, computation, par1)") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    s32<2, 3> b{{1, 0, 1}, {0, 1, 0}};
    f32<2, 3> c{{0.5f, 0.5f, 0.5f}, {1, 1, 1}};
    auto comp = [](float x, std::int32_t on, float y, float par1) { return on ? x * y + par1 : x; };
    f32<2, 3> out = map(std::forward_as_tuple(a, b, c), comp, dims<0, 1>, 100.0f);
    CHECK(equal(out, f32<2, 3>{{100.5f, 2, 101.5f}, {4, 105, 6}}));
    // The static operand may be a rank-0 tensor.
    f32<2, 3> out2 = map(std::forward_as_tuple(a, b, c), comp, dims<0, 1>, f32<>{-100.0f});
    CHECK(out2(0, 0) == -99.5f);
}

TEST_CASE("map: the result element type is the callable's") {
    f32<4> a{-1.5f, 0.0f, 2.5f, 7.0f};
    pred<4> p = map([](float x) { return x > 0.0f; }, a);
    CHECK(equal(p, pred<4>{false, false, true, true}));
    s64<4> r = map([](float x) { return static_cast<std::int64_t>(x * 2); }, a);
    CHECK(equal(r, s64<4>{-3, 0, 5, 14}));
    c64<4> z = map([](float x, float y) { return std::complex<float>(x, y); }, a, a * 2.0f);
    CHECK(z(2) == std::complex<float>(2.5f, 5.0f));
}

TEST_CASE("map: a callable declared vectorized gives the scalar path's results") {
    using T = f32<37, 53>;
    const auto a = lt::random_tensor<T>(false), b = lt::random_tensor<T>(false);
    auto generic = vectorized([](auto x, auto y) { return x * y - x / (y + y); }); // runs on batches
    auto scalar = [](float x, float y) { return x * y - x / (y + y); };             // lane by lane
    static_assert(detail::batch_computation<decltype(generic), float, float, float>);
    static_assert(!detail::batch_computation<decltype(scalar), float, float, float>);
    T g = map(generic, a, b), s = map(scalar, a, b), e = a * b - a / (b + b);
    CHECK(std::memcmp(g.data(), s.data(), sizeof(float) * T::size()) == 0);
    CHECK(std::memcmp(g.data(), e.data(), sizeof(float) * T::size()) == 0);
    // xsimd functions in the callable.
    T x = map(vectorized([](auto v) { return xsimd::sqrt(xsimd::abs(v)); }), a);
    for (std::size_t i = 0; i < T::size(); ++i)
        CHECK(x.data()[i] == std::sqrt(std::abs(a.data()[i])));
}

TEST_CASE("map: fuses with element-wise ops and views") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    f32<3, 2> t = map([](float x) { return x + 1; }, transpose(a, dims<1, 0>)) * 2.0f;
    CHECK(equal(t, f32<3, 2>{{4, 10}, {6, 12}, {8, 14}}));
    CHECK(reduce(map([](auto x) { return x * x; }, a), 0.0f, add_fn{}, dims<0, 1>)() == 91);
    f32<2, 3> same = a;
    same = map([](float x) { return -x; }, same); // in place
    CHECK(same(1, 2) == -6);
}

TEST_CASE("map: f16 callables see f16 values") {
    f16<3> h{half(1.0f), half(2049.0f), half(0.1f)};
    f16<3> r = map([](half x) { return half(float(x) + 1.0f); }, h);
    CHECK(float(r(0)) == 2.0f);
    CHECK(float(r(1)) == float(half(float(half(2049.0f)) + 1.0f))); // 2048 + 1 rounds back to 2048 in f16
    CHECK(r(2).bits() == half(float(half(0.1f)) + 1.0f).bits());
}

TEST_CASE("map: large, multi-threaded, every element once") {
    using T = s32<1024, 1024>;
    auto a = std::make_unique<T>(lt::iota_tensor<T>());
    std::atomic<std::size_t> calls{0};
    T r = map([&](std::int32_t x) { calls.fetch_add(1, std::memory_order_relaxed); return x * 3; }, *a);
    CHECK(calls.load() >= T::size()); // the padded tail may call it on a few repeated lanes
    CHECK(calls.load() < T::size() + 1024 * 16);
    for (std::size_t i = 0; i < T::size(); i += 997)
        CHECK(r.data()[i] == static_cast<std::int32_t>(3 * i));
}
