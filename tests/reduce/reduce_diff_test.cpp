// Differential tests of reduce against the reference, ranks 1-3 (cases: reduce_diff_cases.hpp;
// rank 4 and the multi-threaded sizes: reduce_diff_large_test.cpp, split for compile time).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_diff_cases.hpp"

using rdiff::shape_case;

TEST_CASE("differential: rank 1") {
    shape_case<f32<37>>();
}
TEST_CASE("differential: rank 2") {
    shape_case<f32<5, 300>>();
    shape_case<f32<300, 5>>();
    shape_case<f32<0, 5>>();
}
TEST_CASE("differential: rank 3") {
    shape_case<f32<3, 17, 33>>();
    shape_case<f32<64, 1, 129>>();
}
