// Differential tests against the reference evaluator (tests/reference/) of the element-wise unary
// ops and the comparisons (IEEE and total order): every op on every element type it
// accepts, random data with special values (NaNs of both signs, infinities, signed zeros,
// subnormals, INT_MIN, -1, ...), one static shape per (op, type) by rotation over ranks 0-3 with
// SIMD bodies and padded tails. The transcendentals are compared with the reference in
// elementwise_math_test.cpp (within ULP bounds, on 131101-element arrays). Split from
// elementwise_test.cpp to keep each file's compile time reasonable; helpers in
// elementwise_common.hpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "elementwise_common.hpp"

TEST_CASE("differential: unary ops on every element type they accept") {
    rng g(101);
    run_unary<uop_abs>(g);
    run_unary<uop_neg>(g);
    run_unary<uop_sign>(g);
    run_unary<uop_not_>(g);
    run_unary<uop_clz>(g);
    run_unary<uop_popcnt>(g);
    run_unary<uop_real>(g);
    run_unary<uop_imag>(g);
    run_unary<uop_is_finite>(g);
    run_unary<uop_sqrt>(g);
    run_unary<uop_ceil>(g);
    run_unary<uop_floor>(g);
    run_unary<uop_round>(g);
    run_unary<uop_round_nearest_even>(g);
    run_unary<uop_round_nearest_afz>(g);
}

TEST_CASE("differential: comparisons on every element type they accept") {
    rng g(103);
    run_binary<bop_eq>(g);
    run_binary<bop_ne>(g);
    run_binary<bop_lt>(g);
    run_binary<bop_le>(g);
    run_binary<bop_gt>(g);
    run_binary<bop_ge>(g);
    run_binary<bop_eq_total>(g);
    run_binary<bop_ne_total>(g);
    run_binary<bop_lt_total>(g);
    run_binary<bop_le_total>(g);
    run_binary<bop_gt_total>(g);
    run_binary<bop_ge_total>(g);
}
