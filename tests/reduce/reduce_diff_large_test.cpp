// Differential tests of reduce against the reference: rank 4 and sizes that take the
// multi-threaded and chunked paths (cases: reduce_diff_cases.hpp).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "reduce_diff_cases.hpp"

using rdiff::shape_case;

TEST_CASE("differential: rank 4") {
    shape_case<f32<2, 3, 4, 5>>();
}
TEST_CASE("differential: large (threads, chunks)") {
    shape_case<f32<70000, 3>>();
    shape_case<f32<3, 70000>>();
    shape_case<f32<400, 600>>();
}
