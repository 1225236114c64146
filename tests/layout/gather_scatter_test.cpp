// Gather and Scatter (include/xlet/ops/gather.hpp, scatter.hpp) against the spec and the reference
// evaluator (tests/reference/reference_layout.hpp):
//   1. the spec's worked examples: the batch dynamic slice of 5 [8,6] slices from a [16,11] array
//      (and its [4,5,2]-indices form), tf.gather_nd, index_vector_dim in every position including the
//      implicit trailing 1, and StableHLO's gather/scatter examples with and without batching
//      dimensions (the spec's "Scatter - Example 1" is StableHLO's batching example);
//   2. out-of-bounds starts: gather clamps them to [0, size - slice size]; scatter skips an update
//      window that does not fit inside the operand, whole (XLA; the spec's text says "if O is a valid
//      index for output", element by element - see the reference's scatter_oob);
//   3. scatter's computation: (current, update) argument order, a non-commutative computation with
//      duplicate indices (updates applied window after window in scatter index order, as scatter.hpp
//      documents), variadic operands of different element types;
//   4. differential tests on a table of random valid dimension numbers (generated once with a fixed
//      seed): operand types f32/s32/u8/f16/c64, index types s8..u64, random starts partly out of range.
// Compile-fail tests of the rules: tests/compile_fail/gather_c*.cpp, scatter_c*.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "layout_common.hpp"

#include <algorithm>
#include <functional>
#include <tuple>

#include <tbb/global_control.h>

using lt::rf;

namespace {

template<class T>
r::array<T> arr(r::dims_t d, std::vector<T> v) {
    return r::array<T>(std::move(d), std::move(v));
}
r::dims_t v(const dim_list& l) {
    r::dims_t d;
    for (std::size_t i = 0; i < l.size(); ++i)
        d.push_back(l[i]);
    return d;
}
template<gather_dims G, class In>
std::int64_t ivd_of() {
    return G.index_vector_dim < 0 ? static_cast<std::int64_t>(In::rank) : G.index_vector_dim;
}
template<gather_dims G, class T, class I>
r::array<T> ref_gather(const r::array<T>& op, const r::array<I>& idx) {
    const std::int64_t ivd = G.index_vector_dim < 0 ? idx.rank() : G.index_vector_dim;
    return r::gather(op, idx, v(G.offset_dims), v(G.collapsed_slice_dims), v(G.start_index_map), ivd, v(G.slice_sizes),
                     v(G.operand_batching_dims), v(G.start_indices_batching_dims));
}
template<scatter_dims S>
r::scatter_dnums dnums_of(std::int64_t indices_rank) {
    return r::scatter_dnums{
        v(S.update_window_dims),           v(S.inserted_window_dims),
        v(S.scatter_dims_to_operand_dims), S.index_vector_dim < 0 ? indices_rank : S.index_vector_dim,
        v(S.input_batching_dims),          v(S.scatter_indices_batching_dims)};
}

// Random indices in [lo, hi] (negative values of unsigned types wrap to large ones).
template<class In>
In random_indices(std::int64_t lo, std::int64_t hi) {
    In t;
    for (std::size_t i = 0; i < In::size(); ++i)
        t.data()[i] =
            static_cast<typename In::value_type>(std::uniform_int_distribution<std::int64_t>(lo, hi)(lt::rng()));
    return t;
}

// c + c - u, wrapping for integers: not commutative, and the order of two updates matters.
template<class T>
T twice_minus(T c, T u) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(c) + static_cast<U>(c) - static_cast<U>(u)));
    } else {
        return static_cast<T>(c + c - u);
    }
}
std::int32_t thrice_minus(std::int32_t c, std::int32_t u) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(c) * 3u - static_cast<std::uint32_t>(u));
}

// The spec's [16,11] operand: element (i, j) = 100 i + j.
f32<16, 11> operand_16x11() {
    f32<16, 11> a;
    for (std::size_t i = 0; i < 16; ++i)
        for (std::size_t j = 0; j < 11; ++j)
            a(i, j) = static_cast<float>(100 * i + j);
    return a;
}

std::int64_t clamp_start(std::int64_t s, std::int64_t size, std::int64_t slice) {
    return std::clamp<std::int64_t>(s, 0, size - slice);
}

} // namespace

// =================================================================================================
// 1. The spec's examples
// =================================================================================================
TEST_CASE("spec: Gather, 5 slices of shape [8,6] from a [16,11] array (batch dynamic slice)") {
    // "The element in the output array at index [G,O0,O1] is then the element in the input array
    // at index [X+O0,Y+O1]"; starts are clamped like DynamicSlice's. Rows 3 and 4 are out of range.
    const auto a = operand_16x11();
    s64<5, 2> idx{{0, 0}, {2, 3}, {8, 5}, {15, 10}, {-4, 7}};
    constexpr gather_dims G{.offset_dims = {1, 2},
                            .collapsed_slice_dims = {},
                            .start_index_map = {0, 1},
                            .index_vector_dim = 1,
                            .slice_sizes = {8, 6}};
    auto out = gather<G>(a, idx);
    static_assert(std::is_same_v<decltype(out), f32<5, 8, 6>>);
    std::size_t bad = 0;
    for (std::size_t g = 0; g < 5; ++g) {
        const auto x = clamp_start(idx(g, 0), 16, 8), y = clamp_start(idx(g, 1), 11, 6);
        for (std::size_t o0 = 0; o0 < 8; ++o0)
            for (std::size_t o1 = 0; o1 < 6; ++o1)
                bad += out(g, o0, o1) != a(static_cast<std::size_t>(x) + o0, static_cast<std::size_t>(y) + o1);
    }
    CHECK(bad == 0);
    CHECK(out(3, 0, 0) == 805.0f); // (15, 10) clamped to (8, 5)
    CHECK(out(4, 7, 5) == 710.0f); // (-4, 7) clamped to (0, 5): operand[7][10]
    CHECK_SAME(out, ref_gather<G>(rf(a), rf(idx)));
    // The same with index_vector_dim = 0 (the indices transposed), and the offset dimensions first.
    s64<2, 5> idx_t = transpose(idx, dims<1, 0>);
    constexpr gather_dims G0{.offset_dims = {1, 2},
                             .collapsed_slice_dims = {},
                             .start_index_map = {0, 1},
                             .index_vector_dim = 0,
                             .slice_sizes = {8, 6}};
    CHECK_SAME(gather<G0>(a, idx_t), rf(out));
    constexpr gather_dims Gf{.offset_dims = {0, 1},
                             .collapsed_slice_dims = {},
                             .start_index_map = {0, 1},
                             .index_vector_dim = 1,
                             .slice_sizes = {8, 6}};
    auto outf = gather<Gf>(a, idx);
    static_assert(std::is_same_v<decltype(outf), f32<8, 6, 5>>);
    CHECK_SAME(outf, r::transpose(rf(out), {1, 2, 0}));
    // start_index_map {1, 0}: the index vector is (Y, X)
    constexpr gather_dims Gs{.offset_dims = {1, 2},
                             .collapsed_slice_dims = {},
                             .start_index_map = {1, 0},
                             .index_vector_dim = 1,
                             .slice_sizes = {8, 6}};
    s64<5, 2> idx_s = rev(idx, dims<1>);
    CHECK_SAME(gather<Gs>(a, idx_s), rf(out));
}

TEST_CASE("spec: Gather with [4,5,2] gather indices (two batch dimensions)") {
    const auto a = operand_16x11();
    auto idx = random_indices<s32<4, 5, 2>>(-2, 17);
    constexpr gather_dims G{.offset_dims = {2, 3},
                            .collapsed_slice_dims = {},
                            .start_index_map = {0, 1},
                            .index_vector_dim = 2,
                            .slice_sizes = {8, 6}};
    auto out = gather<G>(a, idx);
    static_assert(std::is_same_v<decltype(out), f32<4, 5, 8, 6>>);
    std::size_t bad = 0;
    for (std::size_t g0 = 0; g0 < 4; ++g0)
        for (std::size_t g1 = 0; g1 < 5; ++g1) {
            const auto x = static_cast<std::size_t>(clamp_start(idx(g0, g1, 0), 16, 8));
            const auto y = static_cast<std::size_t>(clamp_start(idx(g0, g1, 1), 11, 6));
            for (std::size_t o0 = 0; o0 < 8; ++o0)
                for (std::size_t o1 = 0; o1 < 6; ++o1)
                    bad += out(g0, g1, o0, o1) != a(x + o0, y + o1);
        }
    CHECK(bad == 0);
    CHECK_SAME(out, ref_gather<G>(rf(a), rf(idx)));
    // index_vector_dim in the middle: indices [4,2,5]
    s32<4, 2, 5> idx_m = transpose(idx, dims<0, 2, 1>);
    constexpr gather_dims Gm{.offset_dims = {2, 3},
                             .collapsed_slice_dims = {},
                             .start_index_map = {0, 1},
                             .index_vector_dim = 1,
                             .slice_sizes = {8, 6}};
    CHECK_SAME(gather<Gm>(a, idx_m), rf(out));
    // offset dims between the batch dims
    constexpr gather_dims Gx{.offset_dims = {0, 2},
                             .collapsed_slice_dims = {},
                             .start_index_map = {0, 1},
                             .index_vector_dim = 2,
                             .slice_sizes = {8, 6}};
    auto outx = gather<Gx>(a, idx);
    static_assert(std::is_same_v<decltype(outx), f32<8, 4, 6, 5>>);
    CHECK_SAME(outx, r::transpose(rf(out), {2, 0, 3, 1}));
}

TEST_CASE("attributes at their default are accepted: empty batching dimension lists, false hints") {
    const auto a = operand_16x11();
    auto idx = random_indices<s32<4, 1>>(-3, 18);
    constexpr gather_dims G{.offset_dims = {1},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 1,
                            .slice_sizes = {1, 11}};
    constexpr gather_dims Gs{.offset_dims = {1},
                             .collapsed_slice_dims = {0},
                             .start_index_map = {0},
                             .index_vector_dim = 1,
                             .operand_batching_dims = {},
                             .start_indices_batching_dims = {},
                             .slice_sizes = {1, 11},
                             .indices_are_sorted = false};
    CHECK(equal(gather<G>(a, idx), gather<Gs>(a, idx)));
    f32<4, 11> upd;
    for (std::size_t k = 0; k < upd.size(); ++k)
        upd.data()[k] = static_cast<float>(k);
    constexpr scatter_dims S{.update_window_dims = {1},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
    constexpr scatter_dims Ss{.update_window_dims = {1},
                              .inserted_window_dims = {0},
                              .scatter_dims_to_operand_dims = {0},
                              .index_vector_dim = 1,
                              .input_batching_dims = {},
                              .scatter_indices_batching_dims = {},
                              .indices_are_sorted = false,
                              .unique_indices = false};
    CHECK(equal(scatter<S>(a, idx, upd, add_fn{}), scatter<Ss>(a, idx, upd, add_fn{})));
}

TEST_CASE("spec: Gather as tf.gather_nd, and index_vector_dim == rank(start_indices)") {
    // "the output index [G0,G1,O0] maps to the input index [GatherIndices[G0,G1,0],O0]";
    // slice_sizes [1,11]: "each index X in the gather indices array picks an entire row".
    const auto a = operand_16x11();
    auto idx = random_indices<s32<4, 5, 1>>(-3, 18);
    constexpr gather_dims G{.offset_dims = {2},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 2,
                            .slice_sizes = {1, 11}};
    auto out = gather<G>(a, idx);
    static_assert(std::is_same_v<decltype(out), f32<4, 5, 11>>);
    std::size_t bad = 0;
    for (std::size_t g0 = 0; g0 < 4; ++g0)
        for (std::size_t g1 = 0; g1 < 5; ++g1)
            for (std::size_t o = 0; o < 11; ++o)
                bad += out(g0, g1, o) != a(static_cast<std::size_t>(clamp_start(idx(g0, g1, 0), 16, 1)), o);
    CHECK(bad == 0);
    CHECK_SAME(out, ref_gather<G>(rf(a), rf(idx)));
    // "If index_vector_dim is equal to start_indices.rank we implicitly consider start_indices to
    // have a trailing 1 dimension": [4,5] indices with index_vector_dim 2, or the default (-1).
    s32<4, 5> idx2 = reshape(idx, sizes<4, 5>);
    constexpr gather_dims G2{.offset_dims = {2},
                             .collapsed_slice_dims = {0},
                             .start_index_map = {0},
                             .index_vector_dim = 2,
                             .slice_sizes = {1, 11}};
    constexpr gather_dims Gd{
        .offset_dims = {2}, .collapsed_slice_dims = {0}, .start_index_map = {0}, .slice_sizes = {1, 11}};
    CHECK_SAME(gather<G2>(a, idx2), rf(out));
    CHECK_SAME(gather<Gd>(a, idx2), rf(out));
    // scalar start_indices: one row, as a rank-1 result
    s32<> row{7};
    constexpr gather_dims Gs{
        .offset_dims = {0}, .collapsed_slice_dims = {0}, .start_index_map = {0}, .slice_sizes = {1, 11}};
    auto one = gather<Gs>(a, row);
    static_assert(std::is_same_v<decltype(one), f32<11>>);
    CHECK_SAME(one, r::slice(r::reshape(rf(a), {176}), {77}, {88}));
    // a column instead of a row (start_index_map {1}), not collapsed: [4,5,16,1]
    constexpr gather_dims Gc{
        .offset_dims = {2, 3}, .collapsed_slice_dims = {}, .start_index_map = {1}, .slice_sizes = {16, 1}};
    auto cols = gather<Gc>(a, idx2);
    static_assert(std::is_same_v<decltype(cols), f32<4, 5, 16, 1>>);
    CHECK_SAME(cols, ref_gather<Gc>(rf(a), rf(idx2)));
}

TEST_CASE("spec: StableHLO gather examples (with and without batching dimensions)") {
    s64<3, 4, 2> operand{{{1, 2}, {3, 4}, {5, 6}, {7, 8}},
                         {{9, 10}, {11, 12}, {13, 14}, {15, 16}},
                         {{17, 18}, {19, 20}, {21, 22}, {23, 24}}};
    s64<2, 3, 2> start{{{0, 0}, {1, 0}, {2, 1}}, {{0, 1}, {1, 1}, {0, 9}}};
    constexpr gather_dims G{.offset_dims = {2, 3},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {1, 0},
                            .index_vector_dim = 2,
                            .slice_sizes = {1, 2, 2}};
    auto out = gather<G>(operand, start);
    static_assert(std::is_same_v<decltype(out), s64<2, 3, 2, 2>>);
    const auto want = arr<std::int64_t>(
        {2, 3, 2, 2}, {1, 2, 3, 4, 3, 4, 5, 6, 13, 14, 15, 16, 9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20});
    CHECK_SAME(out, want);
    CHECK(ref_gather<G>(rf(operand), rf(start)) == want);

    s64<2, 3, 4, 2> operand_b = lt::iota_tensor<s64<2, 3, 4, 2>>(1);
    s64<2, 2, 3, 2> start_b{{{{0, 0}, {1, 0}, {2, 1}}, {{0, 1}, {1, 1}, {0, 9}}},
                            {{{0, 0}, {2, 1}, {2, 2}}, {{1, 2}, {0, 1}, {1, 0}}}};
    constexpr gather_dims Gb{.offset_dims = {3, 4},
                             .collapsed_slice_dims = {1},
                             .start_index_map = {2, 1},
                             .index_vector_dim = 3,
                             .operand_batching_dims = {0},
                             .start_indices_batching_dims = {1},
                             .slice_sizes = {1, 1, 2, 2}};
    auto out_b = gather<Gb>(operand_b, start_b);
    static_assert(std::is_same_v<decltype(out_b), s64<2, 2, 3, 2, 2>>);
    const auto want_b = arr<std::int64_t>(
        {2, 2, 3, 2, 2}, {1, 2, 3, 4, 3,  4,  5,  6,  13, 14, 15, 16, 33, 34, 35, 36, 35, 36, 37, 38, 41, 42, 43, 44,
                          1, 2, 3, 4, 13, 14, 15, 16, 21, 22, 23, 24, 43, 44, 45, 46, 33, 34, 35, 36, 27, 28, 29, 30});
    CHECK_SAME(out_b, want_b);
    CHECK(ref_gather<Gb>(rf(operand_b), rf(start_b)) == want_b);
}

TEST_CASE("spec: StableHLO scatter examples (with and without batching dimensions)") {
    const auto add = [](auto c, auto u) { return c + u; };
    const std::function<std::int64_t(std::int64_t, std::int64_t)> radd = add;
    s64<3, 4, 2> input{{{1, 2}, {3, 4}, {5, 6}, {7, 8}},
                       {{9, 10}, {11, 12}, {13, 14}, {15, 16}},
                       {{17, 18}, {19, 20}, {21, 22}, {23, 24}}};
    s64<2, 3, 2> idx{{{0, 2}, {1, 0}, {2, 1}}, {{0, 1}, {1, 0}, {0, 9}}};
    auto ones = s64<2, 3, 2, 2>::filled(1);
    constexpr scatter_dims S{.update_window_dims = {2, 3},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {1, 0},
                             .index_vector_dim = 2};
    auto out = scatter<S>(input, idx, ones, add);
    static_assert(std::is_same_v<decltype(out), s64<3, 4, 2>>);
    const auto want = arr<std::int64_t>(
        {3, 4, 2}, {1, 2, 5, 6, 7, 8, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 21, 22, 23, 24});
    CHECK_SAME(out, want);
    CHECK(r::scatter(rf(input), rf(idx), rf(ones), radd, dnums_of<S>(3)) == want);
    // The spec's "Scatter - Example 1": input S32[2,3,4,2], scatter_indices S64[2,2,3,2],
    // update_window_dims [3,4], scatter_dims_to_operand_dims [2,1], a batching dimension; the
    // window that lies outside the operand ([0, 9]) is skipped.
    s64<2, 3, 4, 2> input_b = lt::iota_tensor<s64<2, 3, 4, 2>>(1);
    s64<2, 2, 3, 2> idx_b{{{{0, 0}, {1, 0}, {2, 1}}, {{0, 1}, {1, 1}, {0, 9}}},
                          {{{0, 0}, {2, 1}, {2, 2}}, {{1, 2}, {0, 1}, {1, 0}}}};
    auto ones_b = s64<2, 2, 3, 2, 2>::filled(1);
    constexpr scatter_dims Sb{.update_window_dims = {3, 4},
                              .inserted_window_dims = {1},
                              .scatter_dims_to_operand_dims = {2, 1},
                              .index_vector_dim = 3,
                              .input_batching_dims = {0},
                              .scatter_indices_batching_dims = {1}};
    auto out_b = scatter<Sb>(input_b, idx_b, ones_b, add);
    const auto want_b = arr<std::int64_t>(
        {2, 3, 4, 2}, {3,  4,  6,  7,  6,  7,  7,  8,  9,  10, 11, 12, 15, 16, 17, 18, 17, 18, 19, 20, 22, 23, 24, 25,
                       25, 26, 28, 29, 30, 31, 31, 32, 35, 36, 38, 39, 38, 39, 39, 40, 41, 42, 44, 45, 46, 47, 47, 48});
    CHECK_SAME(out_b, want_b);
    CHECK(r::scatter(rf(input_b), rf(idx_b), rf(ones_b), radd, dnums_of<Sb>(4)) == want_b);
}

TEST_CASE("scatter is the inverse of gather (unique indices, replacing computation)") {
    auto a = lt::random_tensor<f32<9, 7>>(false);
    s32<3, 2> idx{{0, 0}, {3, 4}, {6, 1}};
    auto up = lt::random_tensor<f32<3, 3, 3>>(false);
    constexpr scatter_dims S{.update_window_dims = {1, 2},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {0, 1},
                             .index_vector_dim = 1};
    constexpr gather_dims G{.offset_dims = {1, 2},
                            .collapsed_slice_dims = {},
                            .start_index_map = {0, 1},
                            .index_vector_dim = 1,
                            .slice_sizes = {3, 3}};
    auto s = scatter<S>(a, idx, up, [](float, float u) { return u; });
    CHECK_SAME(gather<G>(s, idx), rf(up));
}

// =================================================================================================
// 2. Out-of-bounds starts
// =================================================================================================
TEST_CASE("gather clamps out-of-range starts, of every index type") {
    f32<6, 4> a = lt::iota_tensor<f32<6, 4>>();
    constexpr gather_dims G{.offset_dims = {1, 2},
                            .collapsed_slice_dims = {},
                            .start_index_map = {0, 1},
                            .index_vector_dim = 1,
                            .slice_sizes = {2, 3}};
    s64<4, 2> i64{{-1, -100}, {5, 2}, {INT64_MAX, INT64_MIN}, {INT64_MIN, INT64_MAX}};
    CHECK_SAME(gather<G>(a, i64), ref_gather<G>(rf(a), rf(i64)));
    CHECK_SAME(gather<G>(a, i64), arr<float>({4, 2, 3}, {0,       1,  2,  4,  5,  6,  /**/ 17, 18, 19, 21, 22, 23,
                                                         /**/ 16, 17, 18, 20, 21, 22, /**/ 1,  2,  3,  5,  6,  7}));
    u64<2, 2> iu64{{UINT64_MAX, 1}, {0, (std::uint64_t{1} << 63) + 5}};
    CHECK_SAME(gather<G>(a, iu64), arr<float>({2, 2, 3}, {17, 18, 19, 21, 22, 23, /**/ 1, 2, 3, 5, 6, 7}));
    u8<1, 2> iu8{{255, 254}};
    CHECK_SAME(gather<G>(a, iu8), arr<float>({1, 2, 3}, {17, 18, 19, 21, 22, 23}));
    s8<1, 2> is8{{-128, 127}};
    CHECK_SAME(gather<G>(a, is8), arr<float>({1, 2, 3}, {1, 2, 3, 5, 6, 7}));
    u32<1, 2> iu32{{4294967295u, 3}};
    CHECK_SAME(gather<G>(a, iu32), arr<float>({1, 2, 3}, {17, 18, 19, 21, 22, 23}));
    // slices as large as the operand: every start clamps to 0
    constexpr gather_dims Gall{.offset_dims = {1, 2},
                               .collapsed_slice_dims = {},
                               .start_index_map = {0, 1},
                               .index_vector_dim = 1,
                               .slice_sizes = {6, 4}};
    CHECK_SAME(gather<Gall>(a, i64), r::broadcast(rf(a), {4}));
    // empty slices: any start
    constexpr gather_dims Gz{.offset_dims = {1, 2},
                             .collapsed_slice_dims = {},
                             .start_index_map = {0, 1},
                             .index_vector_dim = 1,
                             .slice_sizes = {0, 3}};
    auto z = gather<Gz>(a, i64);
    static_assert(std::is_same_v<decltype(z), f32<4, 0, 3>>);
    // no index vector at all: indices [3, 0], every slice starts at 0
    s32<3, 0> none;
    constexpr gather_dims Gn{.offset_dims = {1, 2},
                             .collapsed_slice_dims = {},
                             .start_index_map = {},
                             .index_vector_dim = 1,
                             .slice_sizes = {2, 2}};
    CHECK_SAME(gather<Gn>(a, none), r::broadcast(r::slice(rf(a), {0, 0}, {2, 2}), {3}));
    // no batch dimension: a single slice
    s32<2> one{3, 3};
    constexpr gather_dims G1{.offset_dims = {0, 1},
                             .collapsed_slice_dims = {},
                             .start_index_map = {0, 1},
                             .index_vector_dim = 0,
                             .slice_sizes = {2, 3}};
    auto single = gather<G1>(a, one);
    static_assert(std::is_same_v<decltype(single), f32<2, 3>>);
    CHECK_SAME(single, arr<float>({2, 3}, {13, 14, 15, 17, 18, 19}));
    // an expression as operand and as indices
    CHECK_SAME(gather<G1>(transpose(a, dims<1, 0>) * 2.0f, one - 2), arr<float>({2, 3}, {10, 18, 26, 12, 20, 28}));
}

TEST_CASE("scatter skips a window that does not fit inside the operand, whole") {
    // Windows of 3 along a [6] operand at starts -1, 4, 3, 1: the first two stick out and are
    // dropped entirely (XLA); the spec's per-element reading would still apply their in-bounds parts.
    s32<6> op{0, 0, 0, 0, 0, 0};
    s32<4, 1> idx{{-1}, {4}, {3}, {1}};
    s32<4, 3> up{{1, 2, 3}, {10, 20, 30}, {100, 200, 300}, {1000, 2000, 3000}};
    constexpr scatter_dims S{.update_window_dims = {1},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
    const auto add = [](std::int32_t c, std::int32_t u) { return c + u; };
    const std::function<std::int32_t(std::int32_t, std::int32_t)> radd = add;
    auto out = scatter<S>(op, idx, up, add);
    CHECK_SAME(out, arr<std::int32_t>({6}, {0, 1000, 2000, 3100, 200, 300}));
    CHECK(r::scatter(rf(op), rf(idx), rf(up), radd, dnums_of<S>(2)) == rf(out));
    CHECK(r::scatter(rf(op), rf(idx), rf(up), radd, dnums_of<S>(2), r::scatter_oob::skip_element) ==
          arr<std::int32_t>({6}, {2, 1003, 2000, 3100, 210, 320}));
    // extreme start values of several index types
    s64<3, 1> i64{{INT64_MIN}, {INT64_MAX}, {2}};
    u64<3, 1> iu64{{UINT64_MAX}, {std::uint64_t{1} << 63}, {2}};
    u8<3, 1> iu8{{255}, {4}, {2}};
    s32<3, 3> up3{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    for (const auto& got :
         {rf(scatter<S>(op, i64, up3, add)), rf(scatter<S>(op, iu64, up3, add)), rf(scatter<S>(op, iu8, up3, add))})
        CHECK(got == arr<std::int32_t>({6}, {0, 0, 7, 8, 9, 0}));
    // 2-D: a window partly outside in one dimension only
    f32<4, 5> a = lt::iota_tensor<f32<4, 5>>();
    s32<3, 2> idx2{{3, 0}, {0, 4}, {2, 2}}; // rows 3-4 and columns 4-5 stick out
    auto up2 = f32<3, 2, 2>::filled(1000.0f);
    constexpr scatter_dims S2{.update_window_dims = {1, 2},
                              .inserted_window_dims = {},
                              .scatter_dims_to_operand_dims = {0, 1},
                              .index_vector_dim = 1};
    const std::function<float(float, float)> fadd = [](float c, float u) { return c + u; };
    auto out2 = scatter<S2>(a, idx2, up2, [](float c, float u) { return c + u; });
    auto want2 = rf(a);
    for (std::size_t i = 2; i < 4; ++i)
        for (std::size_t j = 2; j < 4; ++j)
            want2.at({static_cast<std::int64_t>(i), static_cast<std::int64_t>(j)}) += 1000.0f;
    CHECK_SAME(out2, want2);
    CHECK(r::scatter(rf(a), rf(idx2), rf(up2), fadd, dnums_of<S2>(2)) == want2);
    // an empty update window: nothing happens
    f32<3, 0, 2> up_empty;
    auto same = scatter<S2>(a, idx2, up_empty, [](float, float u) { return u; });
    CHECK_SAME(same, rf(a));
}

// =================================================================================================
// 3. The update computation
// =================================================================================================
TEST_CASE("scatter: (current, update) argument order and the order of duplicate updates") {
    // "the first parameter passed into the update_computation will always be the current value from
    // the output array and the second parameter will always be the value from the updates array"
    s32<3> op{1, 2, 3};
    s32<1, 1> idx{{1}};
    s32<1> up{7};
    constexpr scatter_dims S{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
    auto out = scatter<S>(op, idx, up, [](std::int32_t cur, std::int32_t upd) { return cur * 10 + upd; });
    CHECK_SAME(out, arr<std::int32_t>({3}, {1, 27, 3}));
    // duplicates, non-commutative: applied in scatter index order
    s32<4, 1> dup{{0}, {2}, {0}, {0}};
    s32<4> up4{5, 6, 7, 8};
    const auto f = [](std::int32_t cur, std::int32_t upd) { return cur * 10 + upd; };
    const std::function<std::int32_t(std::int32_t, std::int32_t)> rfn = f;
    auto out4 = scatter<S>(op, dup, up4, f);
    CHECK_SAME(out4, arr<std::int32_t>({3}, {1578, 2, 36}));
    CHECK(r::scatter(rf(op), rf(dup), rf(up4), rfn, dnums_of<S>(2)) == rf(out4));
    // Windows that overlap, with the window dimension first in the updates: xlet applies updates
    // window after window (scatter index order), each window in row-major order (scatter.hpp), so
    // the second window (start 1) overwrites element 1. The row-major order of the update index
    // U = (w, b) would interleave the windows instead ({10, 11, 21}); the spec leaves the order
    // implementation-defined and the reference walks xlet's order.
    s32<3> zeros{0, 0, 0};
    s32<2, 1> starts{{0}, {1}};
    s32<2, 2> upw{{10, 20}, {11, 21}}; // upw[w][b]
    constexpr scatter_dims Sw{.update_window_dims = {0},
                              .inserted_window_dims = {},
                              .scatter_dims_to_operand_dims = {0},
                              .index_vector_dim = 1};
    const auto replace = [](std::int32_t, std::int32_t u) { return u; };
    const std::function<std::int32_t(std::int32_t, std::int32_t)> rreplace = replace;
    CHECK(r::scatter(rf(zeros), rf(starts), rf(upw), rreplace, dnums_of<Sw>(2)) ==
          arr<std::int32_t>({3}, {10, 20, 21}));
    CHECK_SAME(scatter<Sw>(zeros, starts, upw, replace), arr<std::int32_t>({3}, {10, 20, 21}));
    // the same updates with the window dimension last: batch-major is row-major
    s32<2, 2> upb = transpose(upw, dims<1, 0>); // upb[b][w]
    constexpr scatter_dims Sb{.update_window_dims = {1},
                              .inserted_window_dims = {},
                              .scatter_dims_to_operand_dims = {0},
                              .index_vector_dim = 1};
    CHECK_SAME(scatter<Sb>(zeros, starts, upb, replace), arr<std::int32_t>({3}, {10, 20, 21}));
}

TEST_CASE("scatter: variadic operands") {
    // Two operands of different element types; the computation takes (current0, current1, update0,
    // update1) and returns both new values.
    f32<5> a{1, 2, 3, 4, 5};
    s32<5> b{10, 20, 30, 40, 50};
    s32<3, 1> idx{{4}, {1}, {4}};
    f32<3> ua{0.5f, 0.25f, 2.0f};
    s32<3> ub{1, 2, 3};
    constexpr scatter_dims S{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
    const auto f = [](float c0, std::int32_t c1, float u0, std::int32_t u1) {
        return std::tuple<float, std::int32_t>(c0 * u0 + static_cast<float>(c1), c1 * 2 - u1);
    };
    auto [ra, rb] = scatter<S>(std::tuple(a, b), idx, std::tuple(ua, ub), f);
    static_assert(std::is_same_v<decltype(ra), f32<5>>);
    static_assert(std::is_same_v<decltype(rb), s32<5>>);
    const std::function<std::pair<float, std::int32_t>(float, std::int32_t, float, std::int32_t)> rfn =
        [&](float c0, std::int32_t c1, float u0, std::int32_t u1) {
            auto t = f(c0, c1, u0, u1);
            return std::pair(std::get<0>(t), std::get<1>(t));
        };
    const auto [wa, wb] = r::scatter(rf(a), rf(b), rf(idx), rf(ua), rf(ub), rfn, dnums_of<S>(2));
    CHECK_SAME(ra, wa);
    CHECK_SAME(rb, wb);
    // by hand: element 4 gets (5 * 0.5 + 50, 50 * 2 - 1) = (52.5, 99), then (52.5 * 2 + 99, 99 * 2 - 3)
    CHECK(ra(4) == 204.0f);
    CHECK(rb(4) == 195);
    CHECK(ra(1) == 20.5f);
    CHECK(rb(1) == 38);
    // three operands of one type against the reference's vector form
    f32<5> c{-1, -2, -3, -4, -5};
    f32<3> uc{7, 8, 9};
    const auto g = [](float c0, float c1, float c2, float u0, float u1, float u2) {
        return std::tuple(c0 - u2, c1 + c2 * u1, c2 - u0);
    };
    auto [x, y, z] = scatter<S>(std::tuple(a, a, c), idx, std::tuple(ua, ua, uc), g);
    const std::function<std::vector<float>(const std::vector<float>&, const std::vector<float>&)> rg =
        [](const std::vector<float>& cv, const std::vector<float>& uv) {
            return std::vector<float>{cv[0] - uv[2], cv[1] + cv[2] * uv[1], cv[2] - uv[0]};
        };
    const auto w3 = r::scatter<float>({rf(a), rf(a), rf(c)}, rf(idx), {rf(ua), rf(ua), rf(uc)}, rg, dnums_of<S>(2));
    CHECK_SAME(x, w3[0]);
    CHECK_SAME(y, w3[1]);
    CHECK_SAME(z, w3[2]);
    // operands and updates given as expressions
    auto [e0, e1] = scatter<S>(std::tuple(a * 2.0f, rev(b, dims<0>)), idx, std::tuple(ua + 1.0f, ub), f);
    const auto [we0, we1] =
        r::scatter(rf(a * 2.0f), rf(rev(b, dims<0>)), rf(idx), rf(ua + 1.0f), rf(ub), rfn, dnums_of<S>(2));
    CHECK_SAME(e0, we0);
    CHECK_SAME(e1, we1);
}

TEST_CASE("gather and scatter: large (the multi-threaded gather path)") {
    auto a = lt::random_tensor<f32<1000, 64>>();
    auto idx = random_indices<s32<3000, 1>>(-10, 1010);
    constexpr gather_dims G{.offset_dims = {1},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 1,
                            .slice_sizes = {1, 64}};
    auto out = gather<G>(a, idx);
    static_assert(std::is_same_v<decltype(out), f32<3000, 64>>);
    CHECK_SAME(out, ref_gather<G>(rf(a), rf(idx)));
    // slices of 7 x 33 from a c64 array, with a batching dimension
    auto c = lt::random_tensor<c64<4, 50, 70>>();
    auto ci = random_indices<s64<200, 4, 2>>(-5, 75);
    constexpr gather_dims Gc{.offset_dims = {2, 3},
                             .collapsed_slice_dims = {},
                             .start_index_map = {1, 2},
                             .index_vector_dim = 2,
                             .operand_batching_dims = {0},
                             .start_indices_batching_dims = {1},
                             .slice_sizes = {1, 7, 33}};
    auto outc = gather<Gc>(c, ci);
    static_assert(std::is_same_v<decltype(outc), c64<200, 4, 7, 33>>);
    CHECK_SAME(outc, ref_gather<Gc>(rf(c), rf(ci)));
    // scatter-add of many rows with duplicates
    auto up = lt::random_tensor<f32<3000, 64>>(false);
    auto a2 = lt::random_tensor<f32<1000, 64>>(false);
    constexpr scatter_dims S{.update_window_dims = {1},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
    const std::function<float(float, float)> radd = [](float x, float y) { return x + y; };
    CHECK_SAME(scatter<S>(a2, idx, up, [](float x, float y) { return x + y; }),
               r::scatter(rf(a2), rf(idx), rf(up), radd, dnums_of<S>(2)));
}

TEST_CASE("scatter: the same result on 1 and 2 threads; an rvalue operand is updated in place only when no "
          "update shares its storage") {
    constexpr scatter_dims S{.update_window_dims = {1},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
    auto up = lt::random_tensor<f32<3000, 64>>(false);
    auto a = lt::random_tensor<f32<1000, 64>>(false);
    auto idx = random_indices<s32<3000, 1>>(-10, 1010);
    const auto f = [](auto c, auto u) { return twice_minus(c, u); }; // order-dependent
    const auto on_threads = [](std::size_t n, auto run) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, n);
        return run();
    };
    const auto one_thread = on_threads(1, [&] { return scatter<S>(a, idx, up, f); });
    const auto two_threads = on_threads(2, [&] { return scatter<S>(a, idx, up, f); });
    CHECK(std::equal(one_thread.begin(), one_thread.end(), two_threads.begin()));
    CHECK_SAME(one_thread, r::scatter(rf(a), rf(idx), rf(up), std::function<float(float, float)>(f), dnums_of<S>(2)));
    // windows of 4 KiB: the operand's rows are split between the threads (scatter.hpp)
    auto bup = lt::random_tensor<f32<300, 1024>>(false);
    auto ba = lt::random_tensor<f32<64, 1024>>(false);
    auto bidx = random_indices<s32<300, 1>>(-2, 66);
    const auto b_one = on_threads(1, [&] { return scatter<S>(ba, bidx, bup, f); });
    const auto b_two = on_threads(2, [&] { return scatter<S>(ba, bidx, bup, f); });
    CHECK(std::equal(b_one.begin(), b_one.end(), b_two.begin()));
    CHECK_SAME(b_two, r::scatter(rf(ba), rf(bidx), rf(bup), std::function<float(float, float)>(f), dnums_of<S>(2)));

    // One window covering the whole operand: update = the operand itself, or an expression of it.
    constexpr scatter_dims W{.update_window_dims = {0}, .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 0};
    const s32<1> at{0};
    const auto add = [](auto c, auto u) { return c + u; };
    f32<4> b{1, 2, 3, 4};
    CHECK_SAME(scatter<W>(std::move(b), at, b, add), rf(f32<4>{2, 4, 6, 8}));
    f32<4> c{1, 2, 3, 4};
    CHECK_SAME(scatter<W>(std::move(c), at, c * c, add), rf(f32<4>{2, 6, 12, 20}));
    // the same with heap storage, where a move would leave the update reading a moved-from array
    auto hb = lt::random_tensor<f32<2048>>(false);
    const f32<2048> twice = hb + hb;
    auto rb = scatter<W>(std::move(hb), at, hb, add);
    CHECK(std::equal(rb.begin(), rb.end(), twice.begin()));
    auto hc = lt::random_tensor<f32<2048>>(false);
    const f32<2048> square_plus = hc * hc + hc;
    auto rc = scatter<W>(std::move(hc), at, hc * hc, add);
    CHECK(std::equal(rc.begin(), rc.end(), square_plus.begin()));
    // heap storage (more than detail::inline_bytes), so a move hands the block over
    auto d = lt::random_tensor<f32<2048>>(false);
    const auto e = lt::random_tensor<f32<2048>>(false);
    const f32<2048> want = d + e;
    auto* storage = d.data();
    auto moved = scatter<W>(std::move(d), at, e, add); // in place: the result owns d's storage
    CHECK(moved.data() == storage);
    CHECK(std::equal(moved.begin(), moved.end(), want.begin()));
}

// =================================================================================================
// 4. Differential tests on random valid dimension numbers
// =================================================================================================
namespace {

template<class T, class Tn>
struct retype;
template<class T, class U, std::size_t... D>
struct retype<T, tensor<U, D...>> {
    using type = tensor<T, D...>;
};

template<class On, class In, gather_dims G>
void gather_case(const char* what) {
    INFO(std::string(what));
    const auto op = lt::random_tensor<On>();
    std::int64_t hi = 1;
    for (auto e : On::extents)
        hi = std::max<std::int64_t>(hi, static_cast<std::int64_t>(e));
    const auto idx = random_indices<In>(-3, hi + 3);
    CHECK_SAME(gather<G>(op, idx), ref_gather<G>(rf(op), rf(idx)));
}

template<class On, class In, class Un, scatter_dims S>
void scatter_case(const char* what) {
    using T = typename On::value_type;
    INFO(std::string(what));
    const auto op = lt::random_tensor<On>();
    const auto up = lt::random_tensor<Un>();
    std::int64_t hi = 1;
    for (auto e : On::extents)
        hi = std::max<std::int64_t>(hi, static_cast<std::int64_t>(e));
    const auto idx = random_indices<In>(-1, hi);
    const auto dn = dnums_of<S>(static_cast<std::int64_t>(In::rank));
    // non-commutative and order-dependent
    const auto f = [](auto c, auto u) { return twice_minus(c, u); };
    const std::function<T(T, T)> rfn = [](T c, T u) { return twice_minus(c, u); };
    CHECK_SAME(scatter<S>(op, idx, up, f), r::scatter(rf(op), rf(idx), rf(up), rfn, dn));
    // variadic, with an s32 second operand
    const auto op1 = lt::random_tensor<typename retype<std::int32_t, On>::type>();
    const auto up1 = lt::random_tensor<typename retype<std::int32_t, Un>::type>();
    const auto g = [](auto c0, std::int32_t c1, auto u0, std::int32_t u1) {
        return std::tuple(twice_minus(u0, c0), thrice_minus(c1, u1));
    };
    const std::function<std::pair<T, std::int32_t>(T, std::int32_t, T, std::int32_t)> rg = [](T c0, std::int32_t c1,
                                                                                              T u0, std::int32_t u1) {
        return std::pair(twice_minus(u0, c0), thrice_minus(c1, u1));
    };
    auto [g0, g1] = scatter<S>(std::tuple(op, op1), idx, std::tuple(up, up1), g);
    const auto [w0, w1] = r::scatter(rf(op), rf(op1), rf(idx), rf(up), rf(up1), rg, dn);
    CHECK_SAME(g0, w0);
    CHECK_SAME(g1, w1);
}

} // namespace

#define LT_UNPAREN(...) __VA_ARGS__
#define LT_GATHER(T, D, I, DI, G) gather_case<T<LT_UNPAREN D>, I<LT_UNPAREN DI>, LT_UNPAREN G>(#T #D " " #I #DI " " #G)
#define LT_SCATTER(T, D, I, DI, DU, S)                                                                                 \
    scatter_case<T<LT_UNPAREN D>, I<LT_UNPAREN DI>, T<LT_UNPAREN DU>, LT_UNPAREN S>(#T #D " " #I #DI " " #DU " " #S)

// Generated with a fixed seed: LT_GATHER(operand type, shape, index type, shape, (dimension numbers));
// LT_SCATTER(type, operand shape, index type, shape, updates shape, (dimension numbers)).
TEST_CASE("differential: gather") {
    LT_GATHER(f32, (5, 4, 4, 5), s32, (3, 4, 4, 4),
              (gather_dims{.offset_dims = {0, 4},
                           .collapsed_slice_dims = {3},
                           .start_index_map = {0, 3, 2},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {1},
                           .start_indices_batching_dims = {3},
                           .slice_sizes = {1, 1, 1, 1}}));
    LT_GATHER(s32, (1), s64, (2, 3),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = -1,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1}}));
    LT_GATHER(u8, (4, 5, 1), u32, (1, 5),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {0},
                           .start_index_map = {0},
                           .index_vector_dim = 2,
                           .operand_batching_dims = {1},
                           .start_indices_batching_dims = {1},
                           .slice_sizes = {1, 1, 1}}));
    LT_GATHER(f16, (2), s8, (1, 1),
              (gather_dims{.offset_dims = {1},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {2}}));
    LT_GATHER(c64, (1, 3, 3), u8, (4),
              (gather_dims{.offset_dims = {},
                           .collapsed_slice_dims = {0, 1, 2},
                           .start_index_map = {0},
                           .index_vector_dim = 1,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 1, 1}}));
    LT_GATHER(f32, (5, 2, 7, 2), u64, (),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {0, 1, 2},
                           .start_index_map = {2},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 1, 1, 2}}));
    LT_GATHER(s32, (1), s16, (4),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = -1,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1}}));
    LT_GATHER(u8, (1, 5), s32, (2, 2),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {1},
                           .start_index_map = {0, 1},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 1}}));
    LT_GATHER(f16, (7, 7), s64, (7),
              (gather_dims{.offset_dims = {},
                           .collapsed_slice_dims = {1},
                           .start_index_map = {1},
                           .index_vector_dim = 1,
                           .operand_batching_dims = {0},
                           .start_indices_batching_dims = {0},
                           .slice_sizes = {1, 1}}));
    LT_GATHER(c64, (2, 7, 7), u32, (1),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {1, 2},
                           .start_index_map = {2},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 1, 1}}));
    LT_GATHER(f32, (2, 7), s8, (2),
              (gather_dims{.offset_dims = {0, 1},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0, 1},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 5}}));
    LT_GATHER(s32, (3, 7, 7, 7), u8, (2, 7, 3),
              (gather_dims{.offset_dims = {0, 2, 3},
                           .collapsed_slice_dims = {},
                           .start_index_map = {2, 3},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {1},
                           .start_indices_batching_dims = {1},
                           .slice_sizes = {1, 1, 1, 6}}));
    LT_GATHER(u8, (7, 1, 7), u64, (7, 2),
              (gather_dims{.offset_dims = {0, 2},
                           .collapsed_slice_dims = {},
                           .start_index_map = {1, 0},
                           .index_vector_dim = 1,
                           .operand_batching_dims = {2},
                           .start_indices_batching_dims = {0},
                           .slice_sizes = {1, 1, 1}}));
    LT_GATHER(f16, (4, 5, 1, 5), s16, (0),
              (gather_dims{.offset_dims = {0, 1, 2, 3},
                           .collapsed_slice_dims = {},
                           .start_index_map = {},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {4, 4, 1, 5}}));
    LT_GATHER(c64, (2), s32, (1, 2),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {2}}));
    LT_GATHER(f32, (7, 4, 4), s64, (2, 2),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {1, 2},
                           .start_index_map = {0, 2},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {5, 1, 1}}));
    LT_GATHER(s32, (3, 1, 7, 1), u32, (3, 1),
              (gather_dims{.offset_dims = {0, 2, 3},
                           .collapsed_slice_dims = {0},
                           .start_index_map = {1, 3, 2},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 1, 6, 1}}));
    LT_GATHER(u8, (5, 3, 3), s8, (2, 3),
              (gather_dims{.offset_dims = {0, 1},
                           .collapsed_slice_dims = {},
                           .start_index_map = {1, 0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {2},
                           .start_indices_batching_dims = {1},
                           .slice_sizes = {2, 1, 1}}));
    LT_GATHER(f16, (1, 7, 2), u8, (3),
              (gather_dims{.offset_dims = {},
                           .collapsed_slice_dims = {0, 1, 2},
                           .start_index_map = {2, 0, 1},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 1, 1}}));
    LT_GATHER(c64, (5, 7, 5), u64, (1, 5),
              (gather_dims{.offset_dims = {1, 2},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {2},
                           .start_indices_batching_dims = {1},
                           .slice_sizes = {4, 4, 1}}));
    LT_GATHER(f32, (3, 7, 2, 1), s16, (3, 1, 1),
              (gather_dims{.offset_dims = {1, 3},
                           .collapsed_slice_dims = {1},
                           .start_index_map = {2},
                           .index_vector_dim = 2,
                           .operand_batching_dims = {0},
                           .start_indices_batching_dims = {0},
                           .slice_sizes = {1, 1, 2, 1}}));
    LT_GATHER(s32, (1, 2, 1, 4), s32, (2),
              (gather_dims{.offset_dims = {0, 1, 2},
                           .collapsed_slice_dims = {2},
                           .start_index_map = {3, 0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 2, 1, 1}}));
    LT_GATHER(u8, (3, 7, 4), s64, (4, 3, 1, 2),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {1},
                           .start_index_map = {2, 1},
                           .index_vector_dim = 3,
                           .operand_batching_dims = {0},
                           .start_indices_batching_dims = {1},
                           .slice_sizes = {1, 1, 1}}));
    LT_GATHER(f16, (1, 7, 2, 1), u32, (4, 1),
              (gather_dims{.offset_dims = {},
                           .collapsed_slice_dims = {0, 1, 2},
                           .start_index_map = {1},
                           .index_vector_dim = -1,
                           .operand_batching_dims = {3},
                           .start_indices_batching_dims = {1},
                           .slice_sizes = {1, 1, 1, 1}}));
    LT_GATHER(c64, (3), s8, (1),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1}}));
    LT_GATHER(f32, (5, 4), u8, (2, 2, 2),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {0},
                           .start_index_map = {0, 1},
                           .index_vector_dim = 2,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1, 3}}));
    LT_GATHER(s32, (2, 7), u64, (7),
              (gather_dims{.offset_dims = {0},
                           .collapsed_slice_dims = {},
                           .start_index_map = {0},
                           .index_vector_dim = -1,
                           .operand_batching_dims = {1},
                           .start_indices_batching_dims = {0},
                           .slice_sizes = {1, 1}}));
    LT_GATHER(u8, (3), s16, (1),
              (gather_dims{.offset_dims = {},
                           .collapsed_slice_dims = {0},
                           .start_index_map = {0},
                           .index_vector_dim = 0,
                           .operand_batching_dims = {},
                           .start_indices_batching_dims = {},
                           .slice_sizes = {1}}));
}

TEST_CASE("differential: scatter") {
    LT_SCATTER(f32, (2), s8, (2, 1), (2, 1),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = -1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(s32, (2, 2, 2, 1), u8, (3), (2, 2, 1),
               (scatter_dims{.update_window_dims = {0, 1, 2},
                             .inserted_window_dims = {1},
                             .scatter_dims_to_operand_dims = {0, 2, 3},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(u8, (6), u64, (4), (4, 2),
               (scatter_dims{.update_window_dims = {1},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f16, (5), s16, (4, 1, 2), (4, 2, 2),
               (scatter_dims{.update_window_dims = {1},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(c64, (2, 3, 5, 6), s32, (2, 4), (5, 4),
               (scatter_dims{.update_window_dims = {0},
                             .inserted_window_dims = {0, 1, 3},
                             .scatter_dims_to_operand_dims = {0, 1},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f32, (2), s64, (2, 4), (2, 4),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 2,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(s32, (6, 1), u32, (1, 4), (4),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(u8, (6, 4), s8, (2, 4), (4, 1, 1),
               (scatter_dims{.update_window_dims = {1, 2},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {1, 0},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f16, (2, 4, 4, 2), u8, (3, 3), (3),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1, 2, 3},
                             .scatter_dims_to_operand_dims = {3, 2, 1},
                             .index_vector_dim = 1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(c64, (5, 3, 6), u64, (1, 6, 2), (1, 6, 1, 2),
               (scatter_dims{.update_window_dims = {2},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 3,
                             .input_batching_dims = {2},
                             .scatter_indices_batching_dims = {1}}));
    LT_SCATTER(f32, (1, 2, 4), s16, (2, 2, 4), (2, 2, 4, 2),
               (scatter_dims{.update_window_dims = {3},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 3,
                             .input_batching_dims = {1},
                             .scatter_indices_batching_dims = {1}}));
    LT_SCATTER(s32, (5, 2, 1), s32, (3, 3, 2), (3, 2),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1, 2},
                             .scatter_dims_to_operand_dims = {1, 2, 0},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(u8, (1, 5, 3, 5), s64, (3, 3), (1, 3),
               (scatter_dims{.update_window_dims = {0},
                             .inserted_window_dims = {0, 1},
                             .scatter_dims_to_operand_dims = {1, 0, 3},
                             .index_vector_dim = 0,
                             .input_batching_dims = {2},
                             .scatter_indices_batching_dims = {1}}));
    LT_SCATTER(f16, (3, 4, 1), u32, (1, 3), (3, 3, 1),
               (scatter_dims{.update_window_dims = {0, 2},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {2},
                             .index_vector_dim = 0,
                             .input_batching_dims = {0},
                             .scatter_indices_batching_dims = {1}}));
    LT_SCATTER(c64, (3, 3), s8, (2, 1, 4), (2, 4),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1},
                             .scatter_dims_to_operand_dims = {1},
                             .index_vector_dim = 1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f32, (3, 2), u8, (2, 1, 4, 1), (2, 1, 4),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 3,
                             .input_batching_dims = {1},
                             .scatter_indices_batching_dims = {0}}));
    LT_SCATTER(s32, (6, 4, 3, 1), u64, (3), (6, 3, 1),
               (scatter_dims{.update_window_dims = {0, 2},
                             .inserted_window_dims = {1, 2},
                             .scatter_dims_to_operand_dims = {2},
                             .index_vector_dim = -1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(u8, (5, 5, 6, 3), s16, (4), (),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1, 2, 3},
                             .scatter_dims_to_operand_dims = {1, 0, 3, 2},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f16, (5, 4, 2, 6), s32, (2, 3), (2, 3),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1, 3},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = -1,
                             .input_batching_dims = {2},
                             .scatter_indices_batching_dims = {0}}));
    LT_SCATTER(c64, (5, 3), s64, (2), (),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0, 1},
                             .scatter_dims_to_operand_dims = {0, 1},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f32, (3), u32, (1), (2),
               (scatter_dims{.update_window_dims = {0},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(s32, (4, 4, 3), s8, (2, 1, 4), (1, 4, 4),
               (scatter_dims{.update_window_dims = {1},
                             .inserted_window_dims = {0, 2},
                             .scatter_dims_to_operand_dims = {1, 0},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(u8, (5), u8, (2), (2),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = -1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f16, (6, 2, 3, 2), u64, (2, 4, 2), (1, 2, 2),
               (scatter_dims{.update_window_dims = {0},
                             .inserted_window_dims = {0, 1, 2},
                             .scatter_dims_to_operand_dims = {2, 3, 0, 1},
                             .index_vector_dim = 1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(c64, (1, 2, 2), s16, (4, 2), (4, 1, 2, 2),
               (scatter_dims{.update_window_dims = {1, 2},
                             .inserted_window_dims = {2},
                             .scatter_dims_to_operand_dims = {2},
                             .index_vector_dim = 2,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(f32, (4, 3, 6, 5), s32, (2, 1, 3), (1, 4, 3),
               (scatter_dims{.update_window_dims = {1},
                             .inserted_window_dims = {0, 1, 3},
                             .scatter_dims_to_operand_dims = {1, 3},
                             .index_vector_dim = 0,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
    LT_SCATTER(s32, (6, 4), s64, (1, 2, 6), (2, 6),
               (scatter_dims{.update_window_dims = {},
                             .inserted_window_dims = {1},
                             .scatter_dims_to_operand_dims = {1},
                             .index_vector_dim = 0,
                             .input_batching_dims = {0},
                             .scatter_indices_batching_dims = {2}}));
    LT_SCATTER(u8, (5, 2), u32, (), (1, 2),
               (scatter_dims{.update_window_dims = {0, 1},
                             .inserted_window_dims = {},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = -1,
                             .input_batching_dims = {},
                             .scatter_indices_batching_dims = {}}));
}
