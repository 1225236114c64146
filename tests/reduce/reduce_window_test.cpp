// ReduceWindow: the spec's examples verbatim (2x3 max pool, VALID/SAME min, the base/window
// dilation example), variadic windows, the SIMD row path (NHWC pooling) and the element path
// against the reference on random configurations (strides, dilations, paddings incl. negative).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_common.hpp"

#include <tbb/global_control.h>

using lt::rf;

namespace {
constexpr float lowest = std::numeric_limits<float>::lowest();

template<window_config W>
r::window_params params_of(std::size_t rank, const r::dims_t& dims) {
    auto get = [&](const dim_list& l, std::int64_t dflt) {
        r::dims_t v;
        for (std::size_t d = 0; d < rank; ++d)
            v.push_back(l.size() == 0 ? dflt : l[d]);
        return v;
    };
    r::window_params p{get(W.window_dimensions, 1), get(W.window_strides, 1), get(W.base_dilations, 1),
                       get(W.window_dilations, 1),  get(W.padding_low, 0),    get(W.padding_high, 0)};
    if (W.mode == pad_mode::same) // XLA's MakePadding: out = ceil(in / stride), total split low-first
        for (std::size_t d = 0; d < rank; ++d) {
            const std::int64_t in = dims[d] == 0 ? 0 : (dims[d] - 1) * p.base_dilations[d] + 1;
            const std::int64_t out = (in + p.strides[d] - 1) / p.strides[d];
            const std::int64_t total = std::max<std::int64_t>(
                0, (out - 1) * p.strides[d] + (p.window[d] - 1) * p.window_dilations[d] + 1 - in);
            p.low[d] = total / 2;
            p.high[d] = total - total / 2;
        }
    return p;
}

template<class Tn, class Ref>
void check_max(const Tn& got, const Ref& want) {
    REQUIRE(got.size() == want.data.size());
    std::size_t bad = 0;
    for (std::size_t k = 0; k < got.size(); ++k)
        bad += rt::same_float(got.data()[k], want.data[k]) ? 0 : 1;
    CHECK_MESSAGE(bad == 0, bad << " window maxima differ");
}

// One configuration, checked with max_fn on data with NaN/inf/-0 (exact in any order, NaN as
// NaN), a summing lambda (sequential: bit-exact) and a variadic max/argmax on clean data.
template<window_config W, class Tn>
void diff_window(const Tn& a) {
    const auto ra = rf(a);
    const auto p = params_of<W>(Tn::rank, ra.dims);
    check_max(reduce_window<W>(a, lowest, max_fn{}), r::reduce_window(ra, lowest, rt::ieee_max, p));
    const Tn clean = lt::random_tensor<Tn>(false);
    const auto rc = rf(clean);
    auto plus = [](float x, float y) { return x + y; };
    CHECK_SAME(reduce_window<W>(clean, 0.0f, plus), r::reduce_window(rc, 0.0f, plus, p));
    using Ti = tensor_type_of<decltype(convert_element_type<std::int32_t>(a))>;
    Ti idx = lt::iota_tensor<Ti>();
    auto argmax = [](float m, std::int32_t i, float x, std::int32_t j) {
        return x > m ? std::pair{x, j} : std::pair{m, i};
    };
    auto [m, i] = reduce_window<W>(std::forward_as_tuple(clean, idx), std::tuple{lowest, -1}, argmax);
    CHECK_SAME(m, r::reduce_window(rc, lowest, rt::ieee_max, p));
    for (std::size_t k = 0; k < i.size(); ++k)
        if (i.data()[k] >= 0) CHECK(clean.data()[static_cast<std::size_t>(i.data()[k])] == m.data()[k]);
}
} // namespace

TEST_CASE("spec example 1: [4x6] max, windows 2x3, strides 2x3, VALID") {
    f32<4, 6> a{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15, 16, 17, 18}, {19, 20, 21, 22, 23, 24}};
    auto m =
        reduce_window<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}, .mode = pad_mode::valid}>(
            a, lowest, max_fn{});
    CHECK(equal(m, f32<2, 2>{{9, 12}, {21, 24}}));
}

TEST_CASE("attributes at their default are accepted: all-ones strides and dilations, zero padding") {
    f32<4, 6> a{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15, 16, 17, 18}, {19, 20, 21, 22, 23, 24}};
    auto plain = reduce_window<window_config{.window_dimensions = {2, 3}}>(a, 0.0f, add_fn{});
    auto spelled = reduce_window<window_config{.window_dimensions = {2, 3},
                                               .window_strides = {1, 1},
                                               .base_dilations = {1, 1},
                                               .window_dilations = {1, 1},
                                               .padding_low = {0, 0},
                                               .padding_high = {0, 0},
                                               .mode = pad_mode::explicit_}>(a, 0.0f, add_fn{});
    static_assert(std::is_same_v<decltype(plain), f32<3, 4>>);
    CHECK(equal(plain, spelled));
    CHECK(plain(0, 0) == 1 + 2 + 3 + 7 + 8 + 9);
}

TEST_CASE("spec: min of [10000, 1000, 100, 10, 1], window 3, stride 2: VALID [100, 1], SAME [1000, 10, 1]") {
    f32<5> v{10000, 1000, 100, 10, 1};
    constexpr float big = std::numeric_limits<float>::max();
    auto valid = reduce_window<window_config{.window_dimensions = {3}, .window_strides = {2}, .mode = pad_mode::valid}>(
        v, big, min_fn{});
    auto same = reduce_window<window_config{.window_dimensions = {3}, .window_strides = {2}, .mode = pad_mode::same}>(
        v, big, min_fn{});
    CHECK(equal(valid, f32<2>{100, 1}));
    CHECK(equal(same, f32<3>{1000, 10, 1}));
}

TEST_CASE("spec example 2 (StableHLO): base dilation, padding, window dilation, strides") {
    s32<3, 2> a{{1, 2}, {3, 4}, {5, 6}};
    constexpr window_config w{.window_dimensions = {2, 1},
                              .window_strides = {4, 1},
                              .base_dilations = {2, 1},
                              .window_dilations = {3, 1},
                              .padding_low = {2, 0},
                              .padding_high = {1, 0}};
    CHECK(equal(reduce_window<w>(a, 0, add_fn{}), s32<2, 2>{{0, 0}, {3, 4}}));
    CHECK(
        equal(reduce_window<w>(a, 0, [](std::int32_t x, std::int32_t y) { return x + y; }), s32<2, 2>{{0, 0}, {3, 4}}));
}

TEST_CASE("edge: windows that do not fit, zero-size operands, unit windows, f16") {
    f32<2> v{1, 2};
    auto none = reduce_window<window_config{.window_dimensions = {3}}>(v, 0.0f, add_fn{});
    static_assert(std::is_same_v<decltype(none), f32<0>>);
    auto padded = reduce_window<window_config{.window_dimensions = {3}, .padding_low = {1}, .padding_high = {1}}>(
        v, 0.0f, add_fn{});
    CHECK(equal(padded, f32<2>{3, 3}));
    f32<0, 3> e;
    auto ez = reduce_window<window_config{.window_dimensions = {1, 2}}>(e, 0.0f, add_fn{});
    static_assert(std::is_same_v<decltype(ez), f32<0, 2>>);
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    CHECK(equal(reduce_window<window_config{.window_dimensions = {1, 1}}>(a, 0.0f, add_fn{}), a)); // identity windows
    f32<6> nz;
    for (std::size_t i = 0; i < 6; ++i)
        nz(i) = -0.0f;
    const auto wz = reduce_window<window_config{.window_dimensions = {2}, .window_strides = {2}}>(nz, -0.0f, add_fn{});
    CHECK((std::signbit(wz(0)) && std::signbit(wz(1)) && std::signbit(wz(2)))); // -0 + -0 + -0 is -0
    f16<4> h{half(1.0f), half(2.0f), half(3.0f), half(0.5f)};
    auto hs = reduce_window<window_config{.window_dimensions = {2}, .window_strides = {2}}>(h, half(0.0f), add_fn{});
    CHECK(float(hs(0)) == 3.0f);
    CHECK(float(hs(1)) == 3.5f);
    // All-padding windows give init.
    auto allpad = reduce_window<window_config{.window_dimensions = {2}, .window_strides = {1}, .padding_low = {3}}>(
        v, -7.0f, max_fn{});
    CHECK(allpad(0) == -7.0f);
}

TEST_CASE("row path: NHWC max pool 3x3 stride 2 against the reference, thread-count independent") {
    using T = f32<2, 19, 17, 37>;
    auto a = std::make_unique<T>(lt::random_tensor<T>());
    constexpr window_config pool{.window_dimensions = {1, 3, 3, 1}, .window_strides = {1, 2, 2, 1}};
    auto got = reduce_window<pool>(*a, lowest, max_fn{});
    check_max(got, r::reduce_window(rf(*a), lowest, rt::ieee_max, params_of<pool>(4, rf(*a).dims)));
    constexpr window_config same{
        .window_dimensions = {1, 3, 3, 1}, .window_strides = {1, 2, 2, 1}, .mode = pad_mode::same};
    auto got_same = reduce_window<same>(*a, lowest, max_fn{});
    static_assert(decltype(got_same)::extents == extents_t<4>{2, 10, 9, 37});
    // average-pool style sums: add_fn on the row path is the sequential fold per lane.
    auto s1 = reduce_window<same>(*a, 0.0f, add_fn{});
    auto s2 = reduce_window<same>(*a, 0.0f, [](float x, float y) { return x + y; });
    for (std::size_t k = 0; k < s1.size(); ++k)
        CHECK(rt::same_float(s1.data()[k], s2.data()[k]));
    using B = f32<8, 56, 56, 64>;
    auto big = std::make_unique<B>(lt::random_tensor<B>(false));
    decltype(reduce_window<pool>(*big, lowest, max_fn{})) one, two;
    {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
        one = reduce_window<pool>(*big, lowest, max_fn{});
    }
    two = reduce_window<pool>(*big, lowest, max_fn{});
    CHECK(std::memcmp(one.data(), two.data(), sizeof(float) * one.size()) == 0);
}

TEST_CASE("differential: random window configurations") {
    const auto a1 = lt::random_tensor<f32<29>>();
    diff_window<window_config{.window_dimensions = {4}, .window_strides = {3}}>(a1);
    diff_window<window_config{.window_dimensions = {3},
                              .window_strides = {2},
                              .base_dilations = {3},
                              .window_dilations = {2},
                              .padding_low = {4},
                              .padding_high = {1}}>(a1);
    diff_window<window_config{
        .window_dimensions = {5}, .window_strides = {1}, .padding_low = {-2}, .padding_high = {3}}>(a1);
    diff_window<window_config{.window_dimensions = {2}, .window_strides = {4}, .mode = pad_mode::same}>(a1);
    const auto a2 = lt::random_tensor<f32<13, 11>>();
    diff_window<window_config{.window_dimensions = {3, 2}, .window_strides = {2, 1}, .window_dilations = {2, 3}}>(a2);
    diff_window<window_config{.window_dimensions = {2, 4},
                              .window_strides = {3, 2},
                              .base_dilations = {2, 2},
                              .padding_low = {1, 0},
                              .padding_high = {0, 2}}>(a2);
    diff_window<window_config{.window_dimensions = {4, 1}, .window_strides = {1, 1}, .mode = pad_mode::same}>(a2);
    diff_window<window_config{.window_dimensions = {13, 11}}>(a2);
    const auto a3 = lt::random_tensor<f32<4, 9, 10>>();
    diff_window<window_config{.window_dimensions = {2, 3, 1}, .window_strides = {1, 2, 1}}>(a3); // row path
    diff_window<window_config{
        .window_dimensions = {1, 2, 2}, .window_strides = {2, 2, 3}, .window_dilations = {1, 1, 2}}>(a3);
    diff_window<window_config{.window_dimensions = {3, 3, 3},
                              .window_strides = {1, 1, 1},
                              .base_dilations = {1, 2, 1},
                              .padding_low = {1, 1, 1},
                              .padding_high = {1, 1, 1}}>(a3);
}
