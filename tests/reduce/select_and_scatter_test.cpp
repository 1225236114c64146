// SelectAndScatter: overlapping windows that pick the same element combine (the spec's "9 selected
// twice gives 8"), max-pool gradients, padding, ties (the first element wins with >=), and random
// configurations against the reference.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_common.hpp"

using lt::rf;

namespace {
auto sel_ge = [](float a, float b) { return a >= b; };
auto plus = [](float a, float b) { return a + b; };
} // namespace

TEST_CASE("spec: overlapping windows select 9 twice, scatter add gives 8 (2 + 6)") {
    f32<3, 5> a{{1, 2, 3, 4, 5}, {3, 8, 9, 3, 1}, {1, 5, 7, 5, 6}};
    constexpr window_config w{.window_dimensions = {3, 3}, .window_strides = {2, 2}};
    f32<1, 2> src{{2, 6}};
    auto out = select_and_scatter<w>(a, sel_ge, src, 0.0f, plus);
    CHECK(equal(out, f32<3, 5>{{0, 0, 0, 0, 0}, {0, 0, 8, 0, 0}, {0, 0, 0, 0, 0}}));
}

TEST_CASE("non-overlapping max-pool gradient, and the first of equal maxima wins with >=") {
    f32<4, 6> a{{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 1, 9}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 7, 2, 7}};
    constexpr window_config w{.window_dimensions = {2, 3}, .window_strides = {2, 3}};
    f32<2, 2> src{{2, 6}, {3, 1}};
    auto out = select_and_scatter<w>(a, sel_ge, src, 0.0f, plus);
    CHECK(equal(out, f32<4, 6>{{0, 0, 0, 0, 6, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 3, 0, 0, 0}, {0, 0, 0, 1, 0, 0}}));
    f32<2, 2> ties{{5, 5}, {5, 5}};
    auto t = select_and_scatter<window_config{.window_dimensions = {2, 2}}>(ties, sel_ge, f32<1, 1>{{1}}, 0.0f, plus);
    CHECK(equal(t, f32<2, 2>{{1, 0}, {0, 0}}));
    auto t2 = select_and_scatter<window_config{.window_dimensions = {2, 2}}>(ties, [](float x, float y) { return x > y; }, f32<1, 1>{{1}}, 0.0f, plus);
    CHECK(equal(t2, f32<2, 2>{{0, 0}, {0, 1}})); // > keeps moving to the last of equals
}

TEST_CASE("attributes at their default are accepted: all-ones dilations, zero padding, unit strides") {
    f32<4, 6> a{{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 1, 9}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 7, 2, 7}};
    f32<2, 2> src{{2, 6}, {3, 1}};
    auto plain = select_and_scatter<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}}>(
        a, sel_ge, src, 0.0f, plus);
    auto spelled = select_and_scatter<window_config{.window_dimensions = {2, 3},
                                                    .window_strides = {2, 3},
                                                    .base_dilations = {1, 1},
                                                    .window_dilations = {1, 1},
                                                    .padding_low = {0, 0},
                                                    .padding_high = {0, 0}}>(a, sel_ge, src, 0.0f, plus);
    CHECK(equal(plain, spelled));
    CHECK(equal(plain, f32<4, 6>{{0, 0, 0, 0, 6, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 3, 0, 0, 0}, {0, 0, 0, 1, 0, 0}}));
    f32<3, 4> src1;
    for (std::size_t k = 0; k < src1.size(); ++k)
        src1.data()[k] = static_cast<float>(k + 1);
    auto unit = select_and_scatter<window_config{.window_dimensions = {2, 3}}>(a, sel_ge, src1, 0.0f, plus);
    auto unit_spelled = select_and_scatter<window_config{
        .window_dimensions = {2, 3}, .window_strides = {1, 1}, .window_dilations = {1, 1}}>(a, sel_ge, src1, 0.0f,
                                                                                            plus);
    CHECK(equal(unit, unit_spelled));
}

TEST_CASE("padding is never selected; SAME mode; init and scatter other than add") {
    f32<3> v{-5, -6, -7};
    constexpr window_config w{.window_dimensions = {3}, .window_strides = {1}, .mode = pad_mode::same};
    auto out = select_and_scatter<w>(v, sel_ge, f32<3>{1, 10, 100}, 0.5f, plus);
    // windows {pad,-5,-6} -> -5; {-5,-6,-7} -> -5; {-6,-7,pad} -> -6
    CHECK(equal(out, f32<3>{11.5f, 100.5f, 0.5f}));
    s32<4> i{1, 3, 2, 0};
    auto m = select_and_scatter<window_config{.window_dimensions = {2}, .window_strides = {1}}>(
        i, [](std::int32_t a, std::int32_t b) { return a >= b; }, s32<3>{5, 7, 9}, 1, [](std::int32_t a, std::int32_t b) { return a * b; });
    CHECK(equal(m, s32<4>{1, 35, 9, 1}));
}

TEST_CASE("differential: random configurations") {
    auto run = [](auto w_tag, const auto& a) {
        constexpr window_config w = decltype(w_tag)::value;
        using Tn = std::remove_cvref_t<decltype(a)>;
        using S = decltype(reduce_window<w>(a, 0.0f, add_fn{}));
        const S src = lt::random_tensor<S>(false);
        r::window_params p;
        for (std::size_t d = 0; d < Tn::rank; ++d) {
            p.window.push_back(w.window_dimensions[d]);
            p.strides.push_back(w.window_strides.size() ? w.window_strides[d] : 1);
            p.low.push_back(w.padding_low.size() ? w.padding_low[d] : 0);
        }
        CHECK_SAME(select_and_scatter<w>(a, sel_ge, src, 0.0f, plus), r::select_and_scatter(rf(a), sel_ge, rf(src), 0.0f, plus, p));
    };
    const auto a = lt::random_tensor<f32<17, 13>>(false);
    run(std::integral_constant<window_config, window_config{.window_dimensions = {3, 3}, .window_strides = {2, 2}}>{}, a);
    run(std::integral_constant<window_config, window_config{.window_dimensions = {4, 2}, .window_strides = {1, 3}}>{}, a);
    run(std::integral_constant<window_config, window_config{.window_dimensions = {3, 5}, .window_strides = {2, 1}, .padding_low = {1, 2},
                                                            .padding_high = {2, 2}}>{},
        a);
    const auto b = lt::random_tensor<f32<6, 40, 40>>(false);
    run(std::integral_constant<window_config, window_config{.window_dimensions = {1, 3, 3}, .window_strides = {1, 2, 2}}>{}, b);
}
