// Differential tests against the reference evaluator (tests/reference/) of the element-wise binary
// ops: every op on every element type it accepts (real atan2 apart: elementwise_math_test.cpp),
// random data with special values, one static shape per (op, type) by rotation over ranks 0-3
// with SIMD bodies and padded tails; and the broadcasting forms (a scalar on either side,
// degenerate dimensions, broadcast_dimensions) on every element type, binary ops and comparisons
// in rotation. Split from elementwise_test.cpp to keep each file's compile time reasonable;
// helpers in elementwise_common.hpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "elementwise_common.hpp"

TEST_CASE("differential: binary ops on every element type they accept") {
    rng g(102);
    run_binary<bop_add>(g);
    run_binary<bop_sub>(g);
    run_binary<bop_mul>(g);
    run_binary<bop_div>(g);
    run_binary<bop_rem>(g);
    run_binary<bop_max>(g);
    run_binary<bop_min>(g);
    run_binary<bop_pow>(g);
    run_binary<bop_atan2, complex_types>(g); // real atan2: within ULPs in elementwise_math_test.cpp
    run_binary<bop_complex>(g);
    run_binary<bop_and_>(g);
    run_binary<bop_or_>(g);
    run_binary<bop_xor_>(g);
    run_binary<bop_shift_left>(g);
    run_binary<bop_shift_right_arithmetic>(g);
    run_binary<bop_shift_right_logical>(g);
}

TEST_CASE("differential: every broadcasting form on every element type") {
    rng g(104);
    for_each_type([&]<class T, std::size_t I>() { run_broadcasts<T, I>(g); });
}
