// Sort against the reference (std::stable_sort of each slice, tests/reference/reference_sort.hpp) on
// random f32 data with special values and ties: several shapes and dimensions, both comparator tags
// (radix path) and an equivalent comparator (general path), variadic payloads; long slices (the
// chunk-parallel radix sort and merge sort); bit-identical results for 1 and 2 threads.
// Other element types: sort_types_test.cpp (split for compile time).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "sort_common.hpp"

#include <tbb/global_control.h>

#include <optional>

using lt::rf;
using st::diff_case;
using st::sample_data;

TEST_CASE("differential: f32 over shapes and dimensions") {
    for (bool ties : {false, true}) {
        diff_case<0, f32<1>>(ties);
        diff_case<0, f32<37>>(ties);
        diff_case<-1, f32<300>>(ties);
        diff_case<0, f32<5, 200>>(ties);
        diff_case<1, f32<5, 200>>(ties);
        diff_case<0, f32<33, 17>>(ties); // groups of 16 neighbouring slices, one partial
        diff_case<1, f32<3, 50, 7>>(ties);
        diff_case<-1, f32<2, 3, 64>>(ties);
        diff_case<0, f32<64, 2, 3>>(ties);
    }
}

TEST_CASE("differential: long slices (chunk-parallel radix and merge sorts)") {
    diff_case<0, f32<(1 << 18) + 3>>(false);
    diff_case<-1, s32<2, (1 << 17)>>(true);
    diff_case<0, f32<(1 << 17), 2>>(true); // a long strided slice, parallel inside
}

TEST_CASE("results do not depend on the thread count") {
    const auto big = sample_data<f32<(1 << 19)>>(false);
    const auto rows = sample_data<f32<64, 4096>>(true);
    const auto cols = sample_data<s32<2048, 40>>(true);
    auto pos = lt::iota_tensor<s32<(1 << 19)>>();
    auto run = [&] {
        auto [k, p] = sort(std::forward_as_tuple(big, pos), sort_greater{});
        auto [gk, gp] =
            sort(std::forward_as_tuple(big, pos), [](float a, float b, std::int32_t, std::int32_t) { return a < b; });
        auto [tv, ti] = top_k<8>(rows);
        return std::tuple{sort(big, sort_less{}),
                          k,
                          p,
                          gk,
                          gp,
                          sort(rows, sort_less{}),
                          sort<sort_config{.dimension = 0}>(cols, [](std::int32_t a, std::int32_t b) { return a < b; }),
                          tv,
                          ti};
    };
    std::optional<decltype(run())> one;
    {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
        one = run();
    }
    decltype(run()) two;
    {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 2);
        two = run();
    }
    auto same = [](const auto& a, const auto& b) { CHECK_SAME(a, rf(b)); };
    [&]<std::size_t... I>(std::index_sequence<I...>) { (same(std::get<I>(two), std::get<I>(*one)), ...); }
    (std::make_index_sequence<std::tuple_size_v<decltype(two)>>{});
}
