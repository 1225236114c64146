// Differential tests of conv_general_dilated against the reference (tests/reference/reference_conv.hpp):
// 40 seeded random configurations (gen_conv_diff_cases.py -> conv_diff_cases.hpp) over 1-D, 2-D and
// 3-D convolutions with random layouts (dimension numbers as any permutation), strides, padding
// (negative included), lhs dilation (transposed convolutions), rhs dilation, window reversal,
// feature groups (grouped and depthwise), batch groups (filter gradients), f32 / f64 / s32 and bf16
// with a preferred f32 result; the last four are larger 2-D cases whose k runs take several passes
// of the kernel and whose rows leave a partial register tile.
// Floating results must lie within (K + 1) * 2u * sum |lhs||rhs| of the exact sum (dot_common.hpp),
// K the number of products per output; integers are exact modulo 2^32.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"
#include "conv_common.hpp"

namespace {

template<class T, class Out, class L, class R, xlet::conv_config C>
void run_case() {
    const auto lhs = dt::random<L>();
    const auto rhs = dt::random<R>();
    const auto got = xlet::conv_general_dilated<C, Out>(lhs, rhs);
    const auto desc = ct::ref_desc<C, L, R>();
    const auto rl = lt::ref_of_array(lhs), rr = lt::ref_of_array(rhs);
    const std::size_t k = static_cast<std::size_t>(
        R::size() / std::max<std::size_t>(
                        1, R::extents[static_cast<std::size_t>(C.dimension_numbers.kernel_output_feature_dimension)]));
    using G = typename decltype(got)::value_type;
    if constexpr (std::is_integral_v<T>) {
        const auto want = xlet_ref::conv<std::uint64_t>(rl, rr, desc);
        r::dims_t d;
        for (auto e : decltype(got)::extents)
            d.push_back(static_cast<std::int64_t>(e));
        REQUIRE(d == want.dims);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
            bad += got.data()[i] != static_cast<G>(static_cast<std::uint32_t>(want.data[i]));
        CHECK(bad == 0);
    } else {
        const auto want = xlet_ref::conv<double>(rl, rr, desc);
        const auto abs = xlet_ref::conv_abs(rl, rr, desc);
        dt::check_close(got, want, abs, k);
    }
}

} // namespace

#define XLET_CONV_CASE(ID, T, OUT, L, R, CFG)                                                                          \
    TEST_CASE("random convolution " #ID) {                                                                             \
        constexpr xlet::conv_config cfg = CFG;                                                                         \
        run_case<T, OUT, L, R, cfg>();                                                                                 \
    }
#include "conv_diff_cases.hpp"

// Depthwise on the SIMD kernel's paths: more features than an edge position's block of feature
// batches (8 x lanes: 128 on AVX-512, 32 on AVX2) plus whole batches and single features past it,
// interiors whose rest after the 8-position steps is each of 4, 2 and 1 positions, a stride and a
// dilation (inputs shared by several taps), and padding rows.
namespace {
template<std::size_t H, std::size_t W, std::size_t C, std::int64_t S, std::int64_t D>
void depthwise_case() {
    constexpr xlet::conv_config cfg{.window_strides = {S, S},
                                    .padding_low = {1, 1},
                                    .padding_high = {1, 2},
                                    .rhs_dilation = {D, D},
                                    .dimension_numbers = xlet::conv_layout("NHWC", "HWIO", "NHWC"),
                                    .feature_group_count = static_cast<std::int64_t>(C)};
    run_case<float, void, xlet::tensor<float, 2, H, W, C>, xlet::tensor<float, 3, 3, 1, C>, cfg>();
}
} // namespace

TEST_CASE("depthwise: wide features, every interior rest, strides and dilations") {
    depthwise_case<5, 20, 168, 1, 1>(); // interior 1..18: 16 + 2
    depthwise_case<4, 17, 168, 1, 1>(); // 1..15: 8 + 4 + 2 + 1
    depthwise_case<3, 16, 136, 1, 1>(); // 1..14: 8 + 4 + 2
    depthwise_case<4, 23, 168, 2, 1>(); // stride 2
    depthwise_case<4, 25, 168, 1, 2>(); // dilation 2
    depthwise_case<3, 40, 40, 2, 2>();  // both, fewer features than a block
}

// The padded input of an array packed per task (kernels/conv.hpp, conv_source): inputs whose rows
// overflow a task's 192 KiB slab (it starts again, rows shared with the previous run of lines
// packed anew), a batch boundary inside a slab, feature groups (the rows go back at each group),
// a layout packed by transposes (NCHW, f64, stride 2), and a single row larger than the slab.
TEST_CASE("the padded input packed per task: slabs that start again, groups, NCHW, a row past the slab") {
    using xlet::conv_config;
    using xlet::conv_layout;
    using xlet::tensor;
    constexpr conv_config nhwc{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    run_case<float, void, tensor<float, 2, 48, 48, 32>, tensor<float, 3, 3, 32, 32>, nhwc>();
    constexpr conv_config grouped{.padding_low = {1, 0},
                                  .padding_high = {2, 1},
                                  .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                                  .feature_group_count = 2};
    run_case<float, void, tensor<float, 1, 40, 40, 64>, tensor<float, 3, 3, 32, 64>, grouped>();
    constexpr conv_config nchw{.window_strides = {2, 2},
                               .padding_low = {2, 2},
                               .padding_high = {2, 2},
                               .dimension_numbers = conv_layout("NCHW", "OIHW", "NCHW")};
    run_case<double, void, tensor<double, 2, 16, 70, 70>, tensor<double, 8, 16, 5, 5>, nchw>();
    constexpr conv_config wide{.padding_low = {1}, .padding_high = {1}};
    run_case<float, void, tensor<float, 1, 3, 70000>, tensor<float, 8, 3, 3>, wide>();
}
