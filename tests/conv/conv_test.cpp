// Convolution: hand-checked 1-D and 2-D cases for every attribute (strides, SAME/VALID and
// explicit padding incl. negative, lhs and rhs dilation, window reversal, feature and batch
// groups, dimension numbers and layout strings), element types (integers with a preferred type,
// f16/bf16, complex), fused operands, thread-count independence, and the thin forms. The
// differential tests against tests/reference/reference_conv.hpp: conv_diff_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"

#include <tbb/task_arena.h>

#include <cstring>
#include <functional>
#include <limits>

namespace {
template<class A, class B>
bool same_values(const A& a, const B& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a.data()[i] == b.data()[i])) return false;
    return true;
}
template<class Tn>
Tn pattern(int mod, float scale = 1.0f, float shift = 0.0f) {
    Tn t;
    for (std::size_t i = 0; i < t.size(); ++i)
        t.data()[i] = static_cast<typename Tn::value_type>(float(int(i * 7 % std::size_t(mod))) * scale - shift);
    return t;
}
} // namespace

TEST_CASE("1-D: stride 2, padding (1, 1), default dimension numbers [b, f, w] / [o, i, w]") {
    f32<1, 1, 5> x{{{1, 2, 3, 4, 5}}};
    f32<1, 1, 3> w{{{1, 10, 100}}};
    auto y = conv_general_dilated<conv_config{.window_strides = {2}, .padding_low = {1}, .padding_high = {1}}>(x, w);
    static_assert(std::is_same_v<decltype(y), f32<1, 1, 3>>);
    // padded [0 1 2 3 4 5 0], windows at 0, 2, 4
    CHECK(equal(y, f32<1, 1, 3>{{{210, 432, 54}}}));
}

TEST_CASE("Conv's SAME and VALID padding (s32, stride 1 and 2)") {
    s32<1, 1, 5> x{{{1, 2, 3, 4, 5}}};
    s32<1, 1, 3> w{{{1, 10, 100}}};
    auto same = conv<conv_config{.mode = pad_mode::same}>(x, w);
    CHECK(equal(same, s32<1, 1, 5>{{{210, 321, 432, 543, 54}}}));
    auto valid = conv<conv_config{.mode = pad_mode::valid}>(x, w);
    CHECK(equal(valid, s32<1, 1, 3>{{{321, 432, 543}}}));
    // SAME with stride 2: ceil(5 / 2) = 3 outputs, total padding (3-1)*2 + 3 - 5 = 2, low 1
    auto s2 = conv<conv_config{.window_strides = {2}, .mode = pad_mode::same}>(x, w);
    CHECK(equal(s2, s32<1, 1, 3>{{{210, 432, 54}}}));
    // SAME with stride 2 and an even window: total (3-1)*2 + 2 - 5 = 1, low 0, high 1
    s32<1, 1, 2> w2{{{1, 10}}};
    auto s3 = conv<conv_config{.window_strides = {2}, .mode = pad_mode::same}>(x, w2);
    CHECK(equal(s3, s32<1, 1, 3>{{{21, 43, 5}}}));
}

TEST_CASE("negative padding crops, lhs dilation inserts holes, rhs dilation spreads the window") {
    f32<1, 1, 5> x{{{1, 2, 3, 4, 5}}};
    f32<1, 1, 1> one{{{1}}};
    auto crop = conv_with_general_padding<conv_config{.padding_low = {-1}, .padding_high = {-2}}>(x, one);
    CHECK(equal(crop, f32<1, 1, 2>{{{2, 3}}}));
    f32<1, 1, 3> x3{{{1, 2, 3}}};
    f32<1, 1, 2> w11{{{1, 1}}};
    // lhs dilation 2: [1 0 2 0 3] -> windows of 2
    auto up = conv_general_dilated<conv_config{.lhs_dilation = {2}}>(x3, w11);
    CHECK(equal(up, f32<1, 1, 4>{{{1, 2, 2, 3}}}));
    // a transposed convolution (stride 2 upsampling) with padding: [0 1 0 2 0 3 0]
    auto up2 = conv_general_dilated<conv_config{.padding_low = {1}, .padding_high = {1}, .lhs_dilation = {2}}>(x3, w11);
    CHECK(equal(up2, f32<1, 1, 6>{{{1, 1, 2, 2, 3, 3}}}));
    f32<1, 1, 2> w110{{{1, 10}}};
    auto atrous = conv_general_dilated<conv_config{.rhs_dilation = {2}}>(x, w110);
    CHECK(equal(atrous, f32<1, 1, 3>{{{31, 42, 53}}}));
    // padding larger than the window's reach gives zeros at the ends
    auto wide = conv_with_general_padding<conv_config{.padding_low = {2}, .padding_high = {0}}>(x3, w11);
    CHECK(equal(wide, f32<1, 1, 4>{{{0, 1, 3, 5}}}));
}

TEST_CASE("window_reversal flips the kernel's spatial dimensions") {
    f32<1, 1, 5> x{{{1, 2, 3, 4, 5}}};
    f32<1, 1, 3> w{{{1, 10, 100}}};
    auto r = conv_general_dilated<conv_config{.window_reversal = {1}}>(x, w);
    CHECK(equal(r, f32<1, 1, 3>{{{123, 234, 345}}}));
    auto n = conv_general_dilated<conv_config{.window_reversal = {0}}>(x, w);
    CHECK(equal(n, f32<1, 1, 3>{{{321, 432, 543}}}));
}

TEST_CASE("2-D: a 3x3 kernel over a 4x4 image, VALID and SAME, by hand") {
    f32<1, 1, 4, 4> x{{{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}}};
    f32<1, 1, 3, 3> w{{{{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}}}; // a plus-shaped stencil
    auto v = conv<conv_config{.mode = pad_mode::valid}>(x, w);
    CHECK(equal(v, f32<1, 1, 2, 2>{{{{30, 35}, {50, 55}}}}));
    auto s = conv<conv_config{.mode = pad_mode::same}>(x, w);
    CHECK(equal(s, f32<1, 1, 4, 4>{{{{8, 12, 16, 15}, {21, 30, 35, 31}, {37, 50, 55, 47}, {36, 52, 56, 43}}}}));
    // stride (2, 1) with explicit padding (1, 1) x (0, 0)
    auto st =
        conv_with_general_padding<conv_config{.window_strides = {2, 1}, .padding_low = {1, 0}, .padding_high = {1, 0}}>(
            x, w);
    CHECK(equal(st, f32<1, 1, 2, 2>{{{{12, 16}, {50, 55}}}}));
}

TEST_CASE("feature groups: each group convolves its own input features (grouped and depthwise)") {
    // lhs [1, 4 features, 3], two groups of 2 input features; kernel [4 out, 2 in, 1]
    f32<1, 4, 3> x{{{1, 2, 3}, {10, 20, 30}, {100, 200, 300}, {1000, 2000, 3000}}};
    f32<4, 2, 1> w{{{1}, {0}}, {{0}, {1}}, {{1}, {1}}, {{2}, {0}}};
    auto y = conv_general_dilated<conv_config{.feature_group_count = 2}>(x, w);
    // out 0, 1 read features 0, 1; out 2, 3 read features 2, 3
    CHECK(equal(y, f32<1, 4, 3>{{{1, 2, 3}, {10, 20, 30}, {1100, 2200, 3300}, {200, 400, 600}}}));
    // depthwise: 4 groups of one feature, multiplier 1, NHWC layout
    f32<1, 3, 4> xn{{{1, 10, 100, 1000}, {2, 20, 200, 2000}, {3, 30, 300, 3000}}};
    f32<2, 1, 4> wd{{{1, 2, 3, 4}}, {{1, 1, 1, 1}}};
    auto d = conv_general_dilated<conv_config{.dimension_numbers = conv_layout("NWC", "WIO", "NWC"),
                                              .feature_group_count = 4}>(xn, wd);
    CHECK(equal(d, f32<1, 2, 4>{{{3, 40, 500, 6000}, {5, 70, 900, 11000}}}));
}

TEST_CASE("batch groups: lhs batch slice g feeds output feature group g (filter gradients)") {
    f32<2, 1, 3> x{{{1, 2, 3}}, {{10, 20, 30}}};
    f32<2, 1, 2> w{{{1, 1}}, {{1, -1}}};
    auto y = conv_general_dilated<conv_config{.batch_group_count = 2}>(x, w);
    static_assert(std::is_same_v<decltype(y), f32<1, 2, 2>>);
    // feature 0 from batch 0 with kernel 0: [3, 5]; feature 1 from batch 1 with kernel 1: [-10, -10]
    CHECK(equal(y, f32<1, 2, 2>{{{3, 5}, {-10, -10}}}));
}

TEST_CASE("dimension numbers: NHWC / HWIO and NCHW / OIHW give the same values, transposed") {
    auto x = pattern<f32<2, 3, 7, 6>>(13, 0.25f, 1.0f); // NCHW
    auto w = pattern<f32<5, 3, 3, 2>>(11, 0.5f, 2.0f);  // OIHW
    constexpr conv_config nchw{
        .window_strides = {2, 1}, .padding_low = {1, 0}, .padding_high = {1, 1}, .rhs_dilation = {1, 2}};
    auto a = conv_general_dilated<nchw>(x, w);
    f32<2, 7, 6, 3> xh = transpose(x, dims<0, 2, 3, 1>);
    f32<3, 2, 3, 5> wh = transpose(w, dims<2, 3, 1, 0>);
    constexpr conv_config nhwc{.window_strides = {2, 1},
                               .padding_low = {1, 0},
                               .padding_high = {1, 1},
                               .rhs_dilation = {1, 2},
                               .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    auto b = conv_general_dilated<nhwc>(xh, wh);
    static_assert(std::is_same_v<decltype(a), f32<2, 5, 4, 5>>);
    static_assert(std::is_same_v<decltype(b), f32<2, 4, 5, 5>>);
    f32<2, 5, 4, 5> bt = transpose(b, dims<0, 3, 1, 2>);
    CHECK(same_values(a, bt)); // same k order, same arithmetic
    // the explicit conv_dims spelling of the same layout
    constexpr conv_config spelled{.window_strides = {2, 1},
                                  .padding_low = {1, 0},
                                  .padding_high = {1, 1},
                                  .rhs_dilation = {1, 2},
                                  .dimension_numbers = conv_dims{.input_batch_dimension = 0,
                                                                 .input_feature_dimension = 3,
                                                                 .input_spatial_dimensions = {1, 2},
                                                                 .kernel_input_feature_dimension = 2,
                                                                 .kernel_output_feature_dimension = 3,
                                                                 .kernel_spatial_dimensions = {0, 1},
                                                                 .output_batch_dimension = 0,
                                                                 .output_feature_dimension = 3,
                                                                 .output_spatial_dimensions = {1, 2}}};
    CHECK(same_values(conv_general_dilated<spelled>(xh, wh), b));
    // a result layout different from the input's: NHWC in, NCHW out
    auto c = conv_general_dilated<conv_config{.window_strides = {2, 1},
                                              .padding_low = {1, 0},
                                              .padding_high = {1, 1},
                                              .rhs_dilation = {1, 2},
                                              .dimension_numbers = conv_layout("NHWC", "HWIO", "NCHW")}>(xh, wh);
    CHECK(same_values(c, a));
}

TEST_CASE("element types: s8 with preferred s32, wrap-around in s32, f16 and bf16 through f32, c64") {
    s8<1, 1, 4> x{{{100, 100, -100, 7}}};
    s8<1, 1, 2> w{{{100, 2}}};
    auto y = conv_general_dilated<conv_config{}, std::int32_t>(x, w);
    static_assert(std::is_same_v<decltype(y), s32<1, 1, 3>>);
    CHECK(equal(y, s32<1, 1, 3>{{{10200, 9800, -9986}}}));
    s32<1, 1, 2> big{{{2147483647, 1}}};
    s32<1, 1, 2> two{{{1, 1}}};
    auto wrap = conv_general_dilated<conv_config{}>(big, two);
    CHECK(wrap(0, 0, 0) == -2147483647 - 1);
    auto xf = pattern<f32<1, 2, 6, 5>>(9, 0.5f, 2.0f);
    auto wf = pattern<f32<3, 2, 2, 2>>(5, 0.25f, 0.5f);
    f16<1, 2, 6, 5> xh = convert_element_type<half>(xf);
    f16<3, 2, 2, 2> wh = convert_element_type<half>(wf);
    auto rh = conv_general_dilated<conv_config{}>(xh, wh);
    auto rf = conv_general_dilated<conv_config{}>(xf, wf); // the values are exact in f16: same sums
    f16<1, 3, 5, 4> rf16 = convert_element_type<half>(rf);
    CHECK(same_values(rh, rf16));
    bf16<1, 2, 6, 5> xb = convert_element_type<bfloat16>(xf);
    bf16<3, 2, 2, 2> wb = convert_element_type<bfloat16>(wf);
    auto rb = conv_general_dilated<conv_config{}, float>(xb, wb);
    static_assert(std::is_same_v<decltype(rb), f32<1, 3, 5, 4>>);
    CHECK(same_values(rb, rf));
    c64<1, 1, 3> xc{{{{1, 1}, {0, 2}, {3, 0}}}};
    c64<1, 1, 2> wc{{{{0, 1}, {2, 0}}}};
    auto rc = conv_general_dilated<conv_config{}>(xc, wc);
    // (1+i) i + 2 (2i) = -1 + 5i;  (2i) i + 2 * 3 = 4
    CHECK(rc(0, 0, 0) == std::complex<float>(-1, 5));
    CHECK(rc(0, 0, 1) == std::complex<float>(4, 0));
}

TEST_CASE("operands are expressions: conv(relu(x + b), w) equals the conv of the evaluated operand") {
    auto x = pattern<f32<2, 9, 9, 8>>(17, 0.125f, 1.0f);
    auto b = pattern<f32<8>>(5, 0.25f, 0.5f);
    auto w = pattern<f32<3, 3, 8, 16>>(7, 0.1f, 0.3f);
    constexpr conv_config cfg{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    auto fused = conv_general_dilated<cfg>(max(add(x, b, dims<3>), 0.0f), w);
    f32<2, 9, 9, 8> e = max(add(x, b, dims<3>), 0.0f);
    CHECK(same_values(fused, conv_general_dilated<cfg>(e, w)));
    // and the result composes with element-wise ops
    f32<2, 9, 9, 16> act = max(conv_general_dilated<cfg>(e, w) + 1.0f, 0.0f);
    auto plain = conv_general_dilated<cfg>(e, w);
    CHECK(act(1, 4, 4, 3) == std::max(plain(1, 4, 4, 3) + 1.0f, 0.0f));
}

TEST_CASE("an epilogue (bias + activation) run in the kernel gives the two passes' values") {
    auto x = pattern<f32<2, 21, 19, 24>>(17, 0.125f, 1.0f);
    auto w = pattern<f32<3, 3, 24, 40>>(7, 0.1f, 0.3f);
    auto b = pattern<f32<40>>(5, 0.25f, 0.5f);
    constexpr conv_config cfg{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    auto relu = [&](auto y) { return max(add(y, b, dims<3>), 0.0f); };
    f32<2, 21, 19, 40> two = relu(conv_general_dilated<cfg>(x, w));
    auto one = conv_general_dilated<cfg>(x, w, relu);
    static_assert(std::is_same_v<decltype(one), f32<2, 21, 19, 40>>);
    CHECK(same_values(one, two));
    CHECK(one(1, 0, 0, 3) == std::max(conv_general_dilated<cfg>(x, w)(1, 0, 0, 3) + b(3), 0.0f));
    // a transcendental epilogue (vector and scalar paths must fall alike), on the depthwise kernel
    auto xd = pattern<f32<2, 9, 13, 40>>(11, 0.05f, 0.2f);
    auto wd = pattern<f32<3, 3, 1, 40>>(5, 0.1f, 0.2f);
    constexpr conv_config dw{.padding_low = {1, 1},
                             .padding_high = {1, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 40};
    auto act = [&](const auto& y) { return tanh(add(y, b, dims<3>)) * 0.5f; };
    f32<2, 9, 13, 40> d2 = act(conv_general_dilated<dw>(xd, wd));
    CHECK(same_values(conv_general_dilated<dw>(xd, wd, act), d2));
    // 1 and 2 threads alike
    f32<2, 21, 19, 40> t1, t2;
    tbb::task_arena(1).execute([&] { t1 = conv_general_dilated<cfg>(x, w, relu); });
    tbb::task_arena(2).execute([&] { t2 = conv_general_dilated<cfg>(x, w, relu); });
    CHECK(same_values(t1, t2));
    CHECK(same_values(t1, two));
}

TEST_CASE("a per-feature epilogue on the depthwise and direct kernels' registers: the two passes' bits") {
    // Features a whole number of vectors (the kernel applies the tree to its accumulators) and not
    // (it applies it to each range written); NaN, infinities and both zeros in the input, so that
    // the result has them too (NaN payloads and the sign of zero must match the two passes').
    auto run = [](auto xd, const auto& wd, const auto& b, const auto& s, auto cfg) {
        constexpr std::size_t C = std::remove_cvref_t<decltype(b)>::size();
        using Y = decltype(conv_general_dilated<decltype(cfg)::value>(xd, wd));
        xd(0, 0, 0, 1) = std::numeric_limits<float>::quiet_NaN();
        xd(0, 3, 4, 2) = -std::numeric_limits<float>::infinity();
        xd(1, 2, 2, 3) = std::numeric_limits<float>::infinity();
        for (std::size_t c = 0; c < C; ++c) {
            xd(1, 5, 5, c) = c % 2 ? -0.0f : 0.0f;
            xd(1, 5, 6, c) = c % 2 ? -0.0f : 0.0f;
        }
        const Y y = conv_general_dilated<decltype(cfg)::value>(xd, wd);
        auto check = [&](const auto& f) {
            Y two = f(y);
            Y one = conv_general_dilated<decltype(cfg)::value>(xd, wd, f);
            CHECK(std::memcmp(one.data(), two.data(), sizeof(float) * one.size()) == 0);
        };
        check([&](const auto& v) { return max(add(v, b, dims<3>), 0.0f); });
        check([&](const auto& v) { return add(mul(v, s, dims<3>), b, dims<3>); });
        check([&](const auto& v) { return select(v > 0.0f, v, v * 0.125f); });
        check([&](const auto& v) { return clamp(0.0f, v, 6.0f); });
        check([&](const auto& v) { return min(v, -0.0f); });
        // not per feature: another array of the result's shape (the ranges, after each position)
        check([&](const auto& v) { return v + y; });
    };
    constexpr conv_config dw32{.padding_low = {1, 1},
                               .padding_high = {1, 1},
                               .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                               .feature_group_count = 32};
    constexpr conv_config dw20{.padding_low = {1, 1},
                               .padding_high = {1, 1},
                               .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                               .feature_group_count = 20};
    run(pattern<f32<2, 9, 13, 32>>(11, 0.05f, 0.2f), pattern<f32<3, 3, 1, 32>>(5, 0.1f, 0.2f),
        pattern<f32<32>>(5, 0.25f, 0.5f), pattern<f32<32>>(7, 0.5f, 1.0f), std::integral_constant<conv_config, dw32>{});
    run(pattern<f32<2, 9, 13, 20>>(11, 0.05f, 0.2f), pattern<f32<3, 3, 1, 20>>(5, 0.1f, 0.2f),
        pattern<f32<20>>(5, 0.25f, 0.5f), pattern<f32<20>>(7, 0.5f, 1.0f), std::integral_constant<conv_config, dw20>{});
    // The direct kernel: 64 output features (whole register tiles on every ISA: on the registers),
    // k = 9 x 128 in several passes (the epilogue on the last one's sums), and 40 features (a
    // partial tile: on each line written).
    constexpr conv_config dense{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    static_assert(detail::conv_direct_register_epilogue_ok<
                  detail::conv_plan<dense, f32<2, 9, 13, 128>, f32<3, 3, 128, 64>, void>::geom, float>);
    run(pattern<f32<2, 9, 13, 128>>(11, 0.05f, 0.2f), pattern<f32<3, 3, 128, 64>>(5, 0.1f, 0.2f),
        pattern<f32<64>>(5, 0.25f, 0.5f), pattern<f32<64>>(7, 0.5f, 1.0f),
        std::integral_constant<conv_config, dense>{});
    run(pattern<f32<2, 9, 13, 24>>(11, 0.05f, 0.2f), pattern<f32<3, 3, 24, 40>>(5, 0.1f, 0.2f),
        pattern<f32<40>>(5, 0.25f, 0.5f), pattern<f32<40>>(7, 0.5f, 1.0f),
        std::integral_constant<conv_config, dense>{});
    // The tree the kernel takes on its registers: leaves the result, feature vectors, scalars.
    using yt = tensor_map<float, 2, 9, 13, 32>;
    f32<32> b;
    using relu_t = decltype(detail::as_node(max(add(std::declval<yt>(), b, dims<3>), 0.0f)));
    static_assert(detail::feature_epilogue_node<std::remove_cvref_t<relu_t>, 4>);
    using along_w_t = decltype(detail::as_node(add(std::declval<yt>(), pattern<f32<13>>(3), dims<2>)));
    static_assert(!detail::feature_epilogue_node<std::remove_cvref_t<along_w_t>, 4>); // not the features
}

TEST_CASE("an epilogue that is not element-wise on the result runs after the convolution") {
    auto x = pattern<f32<1, 6, 7, 8>>(13, 0.25f, 1.0f);
    auto w = pattern<f32<3, 3, 8, 4>>(7, 0.1f, 0.3f);
    constexpr conv_config cfg{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    const auto y = conv_general_dilated<cfg>(x, w);
    // reads the result elsewhere than it writes: reversed along the width
    auto r = conv_general_dilated<cfg>(x, w, [](auto v) { return rev(v, dims<2>) + 1.0f; });
    CHECK(r(0, 2, 0, 1) == y(0, 2, 6, 1) + 1.0f);
    CHECK(r(0, 5, 6, 3) == y(0, 5, 0, 3) + 1.0f);
    // another shape and type: a sum over everything but the features, as f64
    auto s = conv_general_dilated<cfg>(
        x, w, [](auto v) { return reduce(convert_element_type<double>(v), 0.0, std::plus<>{}, dims<0, 1, 2>); });
    static_assert(std::is_same_v<decltype(s), f64<4>>);
    double want = 0;
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 7; ++j)
            want += double(y(0, i, j, 2));
    CHECK(s(2) == doctest::Approx(want));
    // a result layout the kernel does not write in canonical order (NCHW)
    auto xc = pattern<f32<1, 8, 6, 7>>(13, 0.25f, 1.0f);
    auto wc = pattern<f32<4, 8, 3, 3>>(7, 0.1f, 0.3f);
    constexpr conv_config nchw{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NCHW", "OIHW", "NCHW")};
    f32<1, 4, 6, 7> two = abs(conv_general_dilated<nchw>(xc, wc));
    CHECK(same_values(conv_general_dilated<nchw>(xc, wc, [](auto v) { return abs(v); }), two));
}

TEST_CASE("results are bitwise identical for 1 and 2 threads (direct, depthwise, several k passes)") {
    auto x = pattern<f32<4, 20, 30, 96>>(29, 0.01f, 0.1f);
    auto w = pattern<f32<3, 3, 96, 40>>(23, 0.02f, 0.2f);
    constexpr conv_config cfg{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    auto w1 = pattern<f32<3, 3, 1, 96>>(11, 0.1f, 0.5f);
    constexpr conv_config dw{.padding_low = {1, 1},
                             .padding_high = {1, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 96};
    f32<4, 20, 30, 40> one, two;
    f32<4, 20, 30, 96> d1, d2;
    tbb::task_arena(1).execute([&] {
        one = conv_general_dilated<cfg>(x, w);
        d1 = conv_general_dilated<dw>(x, w1);
    });
    tbb::task_arena(2).execute([&] {
        two = conv_general_dilated<cfg>(x, w);
        d2 = conv_general_dilated<dw>(x, w1);
    });
    CHECK(same_values(one, two));
    CHECK(same_values(d1, d2));
    // a spot value against a plain double sum
    double s = 0;
    for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx)
            for (int c = 0; c < 96; ++c) {
                const int iy = 7 + ky - 1, ix = 0 + kx - 1;
                if (ix < 0) continue;
                s += double(x(2, iy, ix, c)) * double(w(ky, kx, c, 17));
            }
    CHECK(one(2, 7, 0, 17) == doctest::Approx(s).epsilon(1e-5));
}

TEST_CASE("padding and holes are zeros that are multiplied: an infinite kernel tap meeting padding gives NaN") {
    f32<1, 1, 3> x{{{1, 2, 3}}};
    const float inf = std::numeric_limits<float>::infinity();
    f32<1, 1, 2> w{{{inf, 1}}};
    auto y = conv_with_general_padding<conv_config{.padding_low = {1}, .padding_high = {0}}>(x, w);
    CHECK(std::isnan(y(0, 0, 0))); // 0 * inf + 1 * 1
    CHECK(y(0, 0, 1) == inf);      // 1 * inf + 2
    auto d = conv_general_dilated<conv_config{.lhs_dilation = {2}}>(x, w);
    CHECK(d(0, 0, 0) == inf);      // 1 * inf + 0 * 1
    CHECK(std::isnan(d(0, 0, 1))); // hole: 0 * inf + 2 * 1
}

TEST_CASE("depthwise: a padding tap meeting an infinite weight gives NaN on every feature path") {
    // 168 features: blocks of feature batches, single batches and single features (conv_depthwise)
    auto x = pattern<f32<1, 3, 20, 168>>(13, 0.5f, 1.0f);
    auto w = pattern<f32<3, 3, 1, 168>>(7, 0.25f);
    for (std::size_t c = 0; c < 168; ++c)
        w(0, 0, 0, c) = std::numeric_limits<float>::infinity(); // tap (0, 0): the padding above and left
    constexpr conv_config dw{.padding_low = {1, 1},
                             .padding_high = {1, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 168};
    auto y = conv_general_dilated<dw>(x, w);
    for (std::size_t c : {0, 100, 127, 128, 150, 165}) {
        CHECK(std::isnan(y(0, 0, 5, c))); // row 0: tap (0, 0) reads the padding row
        CHECK(std::isnan(y(0, 1, 0, c))); // column 0: the padding column
        // interior: inf * x(0, 1, 6, c) + finite sums
        const float v = x(0, 1, 6, c);
        if (v == 0.0f)
            CHECK(std::isnan(y(0, 2, 7, c)));
        else
            CHECK(y(0, 2, 7, c) == (v > 0 ? 1.0f : -1.0f) * std::numeric_limits<float>::infinity());
    }
}

TEST_CASE("empty results and empty windows") {
    f32<0, 1, 5> none;
    f32<1, 1, 3> w{{{1, 2, 3}}};
    auto y = conv_general_dilated<conv_config{}>(none, w);
    static_assert(std::is_same_v<decltype(y), f32<0, 1, 3>>);
    f32<1, 0, 5> nofeat;
    f32<2, 0, 3> w0;
    auto z = conv_general_dilated<conv_config{}>(nofeat, w0);
    CHECK(equal(z, f32<1, 2, 3>{}));
}

// conv_direct leaves out the runs of kernel rows that read only the top or bottom padding (or
// lhs-dilation holes) of a line when every weight is finite (kernels/conv.hpp). From an array it
// packs per task and skips; from an expression the op makes the whole padded buffer and the kernel
// computes every run: both must give the same bits.
template<conv_config Cf, class X, class W>
void check_skipped_rows_same_bits(const X& x, const W& w) {
    auto skipped = conv_general_dilated<Cf>(x, w);      // array: packed per task, rows skipped
    auto whole = conv_general_dilated<Cf>(x * 1.0f, w); // expression: the whole buffer, every run
    REQUIRE(skipped.size() == whole.size());
    CHECK(std::memcmp(skipped.data(), whole.data(), sizeof(float) * skipped.size()) == 0);
}

TEST_CASE("padding rows left out of the direct kernel: the same bits as the whole sum") {
    auto x = pattern<f32<2, 9, 11, 5>>(13, 0.25f, -1.0f); // NHWC, values of both signs and zeros
    auto w = pattern<f32<3, 3, 5, 7>>(11, 0.5f, -2.5f);   // HWIO
    constexpr auto nhwc = conv_layout("NHWC", "HWIO", "NHWC");
    check_skipped_rows_same_bits<conv_config{.padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = nhwc}>(
        x, w);
    check_skipped_rows_same_bits<conv_config{
        .window_strides = {2, 1}, .padding_low = {2, 0}, .padding_high = {3, 1}, .dimension_numbers = nhwc}>(x, w);
    check_skipped_rows_same_bits<conv_config{
        .padding_low = {2, 1}, .padding_high = {2, 1}, .lhs_dilation = {2, 1}, .dimension_numbers = nhwc}>(x, w);
    check_skipped_rows_same_bits<conv_config{
        .padding_low = {3, 1}, .padding_high = {1, 1}, .rhs_dilation = {2, 1}, .dimension_numbers = nhwc}>(x, w);
    // Two feature groups: each group's runs start at its first feature.
    auto wg = pattern<f32<3, 3, 1, 10>>(7, 0.5f, -1.0f);
    auto xg = pattern<f32<2, 9, 11, 2>>(5, 0.5f, -1.0f);
    check_skipped_rows_same_bits<conv_config{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = nhwc, .feature_group_count = 2}>(xg, wg);
}

TEST_CASE("padding rows left out of the direct kernel: not with an infinite weight (0 * inf is NaN)") {
    f32<1, 4, 5, 3> x;
    for (std::size_t i = 0; i < x.size(); ++i)
        x.data()[i] = 1.0f;
    f32<3, 3, 3, 16> w;
    for (std::size_t i = 0; i < w.size(); ++i)
        w.data()[i] = 0.5f;
    for (std::size_t o = 0; o < 16; ++o)
        w(0, 1, 0, o) = std::numeric_limits<float>::infinity(); // kernel row 0: the padding row above row 0
    auto y = conv_general_dilated<conv_config{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")}>(x, w);
    for (std::size_t c = 0; c < 5; ++c)
        for (std::size_t o : {0, 15}) {
            CHECK(std::isnan(y(0, 0, c, o)));                               // 0 * inf from the padding row
            CHECK(y(0, 1, c, o) == std::numeric_limits<float>::infinity()); // 1 * inf + finite
        }
}
