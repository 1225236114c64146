// Bounded dynamic dimensions: set_dimension_size / get_dimension_size / dynamic_reshape, the spec's
// reduce_sum example, sizes carried through element-wise ops, reductions that stop at the run-time
// sizes (both loop layouts, multi-threaded sizes, variadic), and the run-time errors.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_common.hpp"

#include <functional>

using lt::rf;

namespace {
// The reference view of a bounded value: its elements inside the run-time sizes.
template<class B>
auto valid_region(const B& b) {
    auto full = rf(b.padded());
    r::dims_t start(B::rank, 0), limit;
    for (std::size_t d = 0; d < B::rank; ++d)
        limit.push_back(static_cast<std::int64_t>(b.size(d)));
    return r::slice(full, start, limit);
}
} // namespace

TEST_CASE("spec: set_dimension_size then reduce_sum / reduce_product") {
    f32<10> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    s32<> five{5};
    s32<> six{6};
    // Setting dynamic dimension size doesn't change the upper bound of the static shape.
    auto padded_v_five = set_dimension_size<0>(v, five);
    auto padded_v_six = set_dimension_size<0>(v, six);
    static_assert(decltype(padded_v_five)::bounds == extents_t<1>{10});
    CHECK(reduce(padded_v_five, 0.0f, add_fn{}, dims<0>)() == 1 + 2 + 3 + 4 + 5);
    CHECK(reduce(padded_v_five, 1.0f, mul_fn{}, dims<0>)() == 1 * 2 * 3 * 4 * 5);
    CHECK(reduce(padded_v_six, 0.0f, add_fn{}, dims<0>)() == 1 + 2 + 3 + 4 + 5 + 6);
}

TEST_CASE("get_dimension_size: run-time sizes of dynamic dimensions, extents of static ones") {
    f32<3, 4> m{};
    CHECK(get_dimension_size<1>(m)() == 4);
    auto b = set_dimension_size<1>(m, 2);
    CHECK(get_dimension_size<0>(b)() == 3);
    CHECK(get_dimension_size<1>(b)() == 2);
    auto bb = set_dimension_size<0>(b, std::int64_t{1}); // a second dynamic dimension
    static_assert(decltype(bb)::dynamic_mask == 3u);
    CHECK(get_dimension_size<0>(bb)() == 1);
    CHECK(get_dimension_size<1>(bb)() == 2);
    CHECK(get_dimension_size<1>(set_dimension_size<1>(b, 4))() == 4); // reset, still dynamic
    CHECK(get_dimension_size<1>(set_dimension_size<1>(m * 2.0f, 0))() == 0);
}

TEST_CASE("set_dimension_size: sizes outside [0, bound] are errors") {
    f32<10> v{};
    CHECK_THROWS_WITH_AS(set_dimension_size<0>(v, 11), "xlet::set_dimension_size: size 11 outside [0, 10]",
                         xlet::error);
    CHECK_THROWS_WITH_AS(set_dimension_size<0>(v, -1), "xlet::set_dimension_size: size -1 outside [0, 10]",
                         xlet::error);
    CHECK_THROWS_WITH_AS(set_dimension_size<0>(v, s64<>{std::int64_t{1} << 40}),
                         "xlet::set_dimension_size: size 1099511627776 outside [0, 10]", xlet::error);
    auto b = set_dimension_size<0>(v, 3);
    CHECK(b(2) == 0);
    CHECK_THROWS_AS((void)b(3), xlet::error); // element access stays inside the sizes
}

TEST_CASE("element-wise ops carry the sizes and check that they agree") {
    f32<6> v{1, 2, 3, 4, 5, 6};
    auto b4 = set_dimension_size<0>(v, 4);
    auto e = exp(b4 - b4) * 3.0f + v; // a static operand reads its first 4 elements
    static_assert(decltype(e)::dynamic_mask == 1u);
    CHECK(e.size(0) == 4);
    CHECK(reduce(e, 0.0f, add_fn{}, dims<0>)() == 3 * 4 + 10);
    auto c = convert_element_type<std::int32_t>(b4 > 2.5f);
    CHECK(c.size(0) == 4);
    CHECK(reduce(c, 0, add_fn{}, dims<0>)() == 2);
    auto s = select(b4 > 2.0f, b4, -b4);
    CHECK(reduce(s, 0.0f, add_fn{}, dims<0>)() == -1 - 2 + 3 + 4);
    CHECK(reduce(clamp(2.0f, b4, 3.0f), 0.0f, add_fn{}, dims<0>)() == 2 + 2 + 3 + 3);
    CHECK(reduce(-b4 + 1.0f, 0.0f, max_fn{}, dims<0>)() == 0);
    CHECK(reduce(~set_dimension_size<0>(s32<3>{1, 2, 3}, 2), 0, add_fn{}, dims<0>)() == -2 - 3);
    auto b5 = set_dimension_size<0>(v, 5);
    CHECK_THROWS_WITH_AS(b4 + b5, "xlet::add: dynamic sizes differ in dimension 0: 4 and 5", xlet::error);
    CHECK_THROWS_WITH_AS(select(b4 > 0.0f, b5, v), "xlet::select: dynamic sizes differ in dimension 0: 4 and 5",
                         xlet::error);
    // A dynamic dimension broadcast from bound 1 must have size 1.
    f32<1, 3> row{{1, 2, 3}};
    f32<2, 3> m{{1, 1, 1}, {2, 2, 2}};
    CHECK(equal(eval(set_dimension_size<0>(row, 1) + m).padded(), f32<2, 3>{{2, 3, 4}, {3, 4, 5}}));
    CHECK_THROWS_WITH_AS(set_dimension_size<0>(row, 0) + m, "xlet::add: dynamic dimension 0 of size 0 is broadcast",
                         xlet::error);
}

TEST_CASE("reduce over bounded operands: both loop layouts, kept dynamic dimensions, empty sizes") {
    f32<3, 4> m{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
    auto rows2 = set_dimension_size<0>(m, 2);
    CHECK(equal(reduce(rows2, 0.0f, add_fn{}, dims<0>), f32<4>{6, 8, 10, 12})); // inner-kept: rows stop at 2
    auto rs = reduce(rows2, 0.0f, add_fn{}, dims<1>);                           // kept dynamic: bounded result
    static_assert(std::is_same_v<decltype(rs), bounded<f32<3>, 1u>>);
    CHECK(rs.size(0) == 2);
    CHECK(rs(0) == 10);
    CHECK(rs(1) == 26);
    auto cols3 = set_dimension_size<1>(m, 3);
    CHECK(equal(reduce(cols3, 0.0f, add_fn{}, dims<1>), f32<3>{6, 18, 30})); // inner-reduced stops at 3
    CHECK(reduce(set_dimension_size<0>(cols3, 2), 0.0f, add_fn{}, dims<0, 1>)() == 1 + 2 + 3 + 5 + 6 + 7);
    CHECK(reduce(set_dimension_size<1>(m, 0), -1.0f, add_fn{}, dims<1>)(1) == -1); // empty: init
    CHECK(reduce(set_dimension_size<0>(m, 0), 7.0f, max_fn{}, dims<0, 1>)() == 7);
    // A callable and variadic argmax see only the first n elements.
    f32<8> v{1, 9, 2, 3, 4, 5, 99, 7};
    auto v6 = set_dimension_size<0>(v, 6);
    CHECK(reduce(
              v6, 0.0f, [](float a, float b) { return a + b; }, dims<0>)() == 24);
    auto [mx, at] = reduce(
        std::forward_as_tuple(v6, iota<s32<8>, 0>()), std::tuple{-1e30f, -1},
        [](float m_, std::int32_t a_, float x, std::int32_t i) {
            return x > m_ ? std::tuple{x, i} : std::tuple{m_, a_};
        },
        dims<0>);
    CHECK(mx() == 9);
    CHECK(at() == 1);
    s32<8> w{};
    CHECK_THROWS_WITH_AS(reduce(
                             std::forward_as_tuple(v6, set_dimension_size<0>(w, 5)), std::tuple{0.0f, 0},
                             [](float a, std::int32_t b, float x, std::int32_t y) {
                                 return std::tuple{a + x, b + y};
                             },
                             dims<0>),
                         "xlet::reduce: dynamic sizes differ in dimension 0: 6 and 5", xlet::error);
}

TEST_CASE("reduce over bounded operands: differential, multi-threaded sizes") {
    using M = f32<700, 900>;
    auto a = std::make_unique<M>(lt::random_tensor<M>(false));
    for (auto sz : {std::pair{700, 900}, {613, 777}, {1, 899}, {699, 1}, {350, 0}}) {
        const int r0 = sz.first, c0 = sz.second; // not a structured binding: Clang 14 cannot capture those
        INFO("sizes " << r0 << " x " << c0);
        auto b = set_dimension_size<1>(set_dimension_size<0>(*a, r0), c0);
        const auto ref = valid_region(b);
        // max is exact in any order; the sums within the bound against double.
        auto mx0 = reduce(b, -1e30f, max_fn{}, dims<0>);
        auto want0 = r::reduce(ref, -1e30f, rt::ieee_max, {0});
        for (std::size_t j = 0; j < static_cast<std::size_t>(c0); ++j)
            CHECK(mx0.padded()(j) == want0.data[j]);
        auto mx1 = reduce(b, -1e30f, max_fn{}, dims<1>);
        auto want1 = r::reduce(ref, -1e30f, rt::ieee_max, {1});
        for (std::size_t i = 0; i < static_cast<std::size_t>(r0); ++i)
            CHECK(mx1.padded()(i) == want1.data[i]);
        auto all = reduce(b, 0.0f, add_fn{}, dims<0, 1>);
        auto want = r::reduce(rt::to_double(ref), 0.0, std::plus<>{}, {0, 1});
        auto abs_sum = r::reduce(rt::to_double(ref, true), 0.0, std::plus<>{}, {0, 1});
        rt::check_sum_close(all, want, abs_sum, static_cast<std::size_t>(r0) * static_cast<std::size_t>(c0));
        auto seq = reduce(
            b, 0.0f, [](float x, float y) { return x + y; }, dims<1>);
        auto want_seq = r::reduce(ref, 0.0f, [](float x, float y) { return x + y; }, {1});
        for (std::size_t i = 0; i < static_cast<std::size_t>(r0); ++i)
            CHECK(seq.padded()(i) == want_seq.data[i]);
    }
}

TEST_CASE("dynamic_reshape: row-major elements inside the sizes, zero padding, checks") {
    f32<3, 4> m{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
    auto r = dynamic_reshape(set_dimension_size<0>(m, 2), std::array<int, 2>{4, 2}, sizes<6, 2>, dims<0>);
    static_assert(std::is_same_v<decltype(r), bounded<f32<6, 2>, 1u>>);
    CHECK(r.size(0) == 4);
    CHECK(equal(r.padded(), f32<6, 2>{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {0, 0}, {0, 0}}));
    CHECK(reduce(r, 0.0f, add_fn{}, dims<0, 1>)() == 36);
    // A static operand, sizes from an s32 tensor (StableHLO's output_shape operand).
    auto f = dynamic_reshape(m, s32<2>{2, 6}, sizes<4, 6>, dims<0>);
    CHECK(equal(f.padded(),
                f32<4, 6>{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}));
    // Both dimensions dynamic; the operand an expression.
    auto g = dynamic_reshape(m * 2.0f, std::array<std::int64_t, 2>{3, 4}, sizes<5, 5>, dims<0, 1>);
    CHECK(g.size(1) == 4);
    CHECK(g(2, 3) == 24);
    CHECK(g.padded()(0, 4) == 0);
    CHECK_THROWS_WITH_AS(dynamic_reshape(m, std::array<int, 2>{5, 2}, sizes<6, 2>, dims<0>),
                         "xlet::dynamic_reshape: 12 elements cannot take the shape of 10", xlet::error);
    CHECK_THROWS_WITH_AS(dynamic_reshape(m, std::array<int, 2>{7, 2}, sizes<6, 2>, dims<0>),
                         "xlet::dynamic_reshape: size 7 of dimension 0 outside [0, 6]", xlet::error);
    CHECK_THROWS_WITH_AS(dynamic_reshape(m, std::array<int, 2>{12, 1}, sizes<12, 2>, dims<0>),
                         "xlet::dynamic_reshape: static dimension 1 has size 1, not 2", xlet::error);
    auto e = dynamic_reshape(set_dimension_size<1>(m, 0), std::array<int, 1>{0}, sizes<12>, dims<0>);
    CHECK(e.size(0) == 0);
    CHECK(reduce(e, 5.0f, add_fn{}, dims<0>)() == 5);
}

TEST_CASE("eval keeps the sizes; padding is computed from the operand's padding") {
    f32<4> v{1, 2, 3, 4};
    auto b = eval(set_dimension_size<0>(v, 2) * 10.0f);
    static_assert(std::is_same_v<decltype(b), bounded<f32<4>, 1u>>);
    CHECK(b.size(0) == 2);
    CHECK(equal(b.padded(), f32<4>{10, 20, 30, 40}));
}
