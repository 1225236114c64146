// Differential tests of the layout ops against the reference evaluator
// (tests/reference/reference_layout.hpp): a table of static configurations, generated once at random
// (ranks 1-4, odd sizes, sizes above 16, zero-size dimensions, and a few arrays above 300x300 so the
// multi-threaded path runs) and spread over f32, s32, u8, f16 and c64 data with special values mixed
// in (NaN, +-0, +-inf, subnormals: layout ops must move every bit unchanged). For each configuration
// (shape, permutation, slice start/limit/stride, pad low/high/interior, reversed dimensions,
// concatenation dimension, broadcast_in_dim target) the test checks transpose, rev, slice, pad,
// concatenate, broadcast_in_dim, reshape with a dimension order, and three compositions (a view of a
// view of a slice, a pad of a view, a view of a pad).
// Spec examples, edge cases, fusion and aliasing: tests/layout_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "layout_common.hpp"

using lt::rf;
using lt::vec;

namespace {

template<class Tn, class Perm, class St, class Li, class Sd, class Lo, class Hi, class In, class Rv, class K, class BSz, class BD>
void diff_case(const char* what, Perm perm, St st, Li li, Sd sd, Lo lo, Hi hi, In in, Rv rv, K, BSz bsz, BD bd) {
    using T = typename Tn::value_type;
    constexpr std::int64_t k = K::value[0];
    constexpr auto n = static_cast<std::int64_t>(Tn::size());
    INFO(std::string(what));
    const auto a = lt::random_tensor<Tn>();
    const T v = lt::random_elem<T>();
    const auto ra = rf(a);
    CHECK_SAME(transpose(a, perm), r::transpose(ra, vec(perm)));
    CHECK_SAME(rev(a, rv), r::rev(ra, vec(rv)));
    CHECK_SAME(slice(a, st, li, sd), r::slice(ra, vec(st), vec(li), vec(sd)));
    CHECK_SAME(pad(a, v, lo, hi, in), r::pad(ra, v, vec(lo), vec(hi), vec(in)));
    CHECK_SAME(concatenate<k>(a, rev(a, rv)), r::concatenate<T>({ra, r::rev(ra, vec(rv))}, k));
    CHECK_SAME(broadcast_in_dim(a, bsz, bd), r::broadcast_in_dim(ra, vec(bsz), vec(bd)));
    CHECK_SAME(reshape(a, perm, sizes<n>), r::reshape(ra, vec(perm), {n}));
    CHECK_SAME(transpose(rev(slice(a, st, li, sd), rv), perm), r::transpose(r::rev(r::slice(ra, vec(st), vec(li), vec(sd)), vec(rv)), vec(perm)));
    CHECK_SAME(pad(rev(a, rv), v, lo, hi, in), r::pad(r::rev(ra, vec(rv)), v, vec(lo), vec(hi), vec(in)));
    CHECK_SAME(rev(pad(a, v, lo, hi, in), rv), r::rev(r::pad(ra, v, vec(lo), vec(hi), vec(in)), vec(rv)));
}

} // namespace

#define LT_UNPAREN(...) __VA_ARGS__
#define LT_DIFF(T, D, P, ST, LI, SD, LO, HI, IN, RV, K, BSZ, BD)                                                         \
    diff_case<T<LT_UNPAREN D>>(#T #D " perm " #P " slice " #ST #LI #SD " pad " #LO #HI #IN " rev " #RV " concat " #K, \
                               dims<LT_UNPAREN P>, dims<LT_UNPAREN ST>, dims<LT_UNPAREN LI>, dims<LT_UNPAREN SD>,     \
                               dims<LT_UNPAREN LO>, dims<LT_UNPAREN HI>, dims<LT_UNPAREN IN>, dims<LT_UNPAREN RV>,    \
                               dims<K>, sizes<LT_UNPAREN BSZ>, dims<LT_UNPAREN BD>)

// Generated with a fixed seed: LT_DIFF(type, shape, permutation, slice start, limit, stride,
// pad low, high, interior, rev dims, concatenate dim, broadcast_in_dim sizes, its dimensions).
TEST_CASE("differential: rank 1") {
    LT_DIFF(f32, (16), (0), (2), (15), (2), (-13), (-3), (0), (0), 0, (3, 16), (1));
    LT_DIFF(s32, (2), (0), (2), (2), (5), (2), (2), (0), (), 0, (3, 2), (1));
    LT_DIFF(u8, (33), (0), (0), (33), (2), (-3), (-1), (0), (0), 0, (3, 33), (1));
    LT_DIFF(f16, (40), (0), (29), (38), (2), (-1), (-2), (1), (0), 0, (3, 40), (1));
    LT_DIFF(c64, (33), (0), (0), (33), (3), (1), (-2), (0), (0), 0, (3, 33), (1));
    LT_DIFF(f32, (2), (0), (2), (2), (4), (0), (3), (2), (0), 0, (3, 2), (1));
    LT_DIFF(s32, (7), (0), (0), (7), (3), (-2), (-3), (1), (0), 0, (7, 3), (0));
}

TEST_CASE("differential: rank 2") {
    LT_DIFF(u8, (33, 16), (1, 0), (17, 0), (21, 16), (35, 1), (2, -5), (1, -11), (1, 0), (1), 1, (33, 3, 16), (0, 2));
    LT_DIFF(f16, (19, 40), (0, 1), (16, 30), (16, 40), (5, 1), (2, -1), (2, 3), (2, 0), (), 1, (19, 40, 3), (0, 1));
    LT_DIFF(c64, (17, 40), (1, 0), (2, 7), (8, 38), (1, 3), (1, -13), (1, -105), (1, 2), (0), 1, (17, 40, 3), (0, 1));
    LT_DIFF(f32, (7, 19), (1, 0), (5, 5), (5, 10), (1, 21), (-3, -1), (0, -1), (1, 1), (0, 1), 1, (7, 19, 3), (0, 1));
    LT_DIFF(s32, (5, 5), (0, 1), (0, 0), (5, 5), (5, 1), (3, -1), (1, 1), (1, 2), (0, 1), 0, (5, 3, 5), (0, 2));
}

TEST_CASE("differential: rank 3") {
    LT_DIFF(c64, (7, 5, 4), (1, 2, 0), (0, 0, 4), (7, 5, 4), (9, 7, 1), (3, -4, -1), (-2, 1, -1), (0, 0, 0), (1, 2), 0, (7, 5, 4, 3), (0, 1, 2));
    LT_DIFF(f32, (7, 1, 4), (2, 1, 0), (4, 0, 1), (7, 1, 3), (3, 3, 1), (0, -1, -2), (-1, 0, 0), (0, 1, 1), (2, 0), 1, (7, 3, 1, 4), (0, 2, 3));
    LT_DIFF(u8, (4, 2, 4), (0, 2, 1), (0, 0, 3), (4, 2, 3), (5, 2, 6), (2, 0, -3), (-3, -2, -7), (0, 0, 2), (0, 1, 2), 0, (4, 3, 2, 4), (0, 2, 3));
    LT_DIFF(f16, (3, 1, 2), (2, 1, 0), (2, 0, 1), (3, 1, 1), (1, 3, 5), (1, 3, 3), (-4, 2, 2), (1, 0, 2), (2, 0), 1, (3, 3, 1, 2), (0, 2, 3));
    LT_DIFF(c64, (2, 3, 2), (1, 0, 2), (0, 2, 0), (0, 2, 1), (2, 1, 2), (-3, -2, -1), (2, -2, -2), (2, 2, 1), (1, 0, 2), 0, (2, 3, 3, 2), (0, 1, 3));
    LT_DIFF(f32, (5, 1, 5), (2, 0, 1), (0, 1, 0), (5, 1, 5), (1, 1, 5), (2, 3, -4), (-4, 2, 2), (0, 0, 0), (2), 2, (5, 3, 1, 5), (0, 2, 3));
}

TEST_CASE("differential: rank 4") {
    LT_DIFF(s32, (7, 4, 7, 7), (1, 3, 2, 0), (0, 0, 1, 0), (7, 4, 6, 7), (2, 3, 5, 5), (2, -4, 0, -9), (3, 3, -3, -10), (0, 1, 2, 2), (), 0, (7, 4, 7, 7, 3), (0, 1, 2, 3));
    LT_DIFF(c64, (3, 5, 7, 3), (0, 2, 3, 1), (3, 0, 0, 0), (3, 5, 7, 3), (1, 7, 5, 1), (3, -2, 2, -2), (-2, 3, -1, 1), (2, 0, 1, 0), (), 3, (3, 5, 7, 3, 3), (0, 1, 2, 3));
    LT_DIFF(f32, (2, 5, 3, 4), (2, 0, 1, 3), (1, 0, 0, 0), (1, 5, 3, 4), (2, 3, 2, 1), (3, -1, 2, 2), (1, 2, 1, 3), (1, 2, 0, 2), (1, 0, 2, 3), 2, (3, 2, 5, 3, 4), (1, 2, 3, 4));
}

TEST_CASE("differential: large (multi-threaded)") {
    LT_DIFF(f32, (311, 317), (1, 0), (217, 37), (307, 237), (3, 319), (0, 0), (-3, -2), (1, 0), (), 0, (3, 311, 317), (1, 2));
    LT_DIFF(u8, (400, 350), (1, 0), (267, 234), (294, 244), (5, 1), (2, 3), (3, -2), (1, 0), (), 0, (400, 350, 3), (0, 1));
    LT_DIFF(c64, (300, 305), (1, 0), (128, 153), (263, 287), (5, 1), (-3, -1), (-3, -2), (0, 0), (1, 0), 0, (3, 300, 305), (1, 2));
    LT_DIFF(f16, (320, 310), (0, 1), (161, 210), (223, 300), (1, 1), (-2, -2), (-3, 0), (1, 0), (1), 1, (3, 320, 310), (1, 2));
    LT_DIFF(s32, (7, 130, 129), (2, 0, 1), (0, 1, 51), (5, 75, 90), (2, 132, 1), (0, -2, 0), (-2, 0, -2), (1, 0, 0), (1, 0, 2), 1, (7, 130, 3, 129), (0, 1, 3));
    LT_DIFF(f32, (3, 5, 77, 97), (3, 1, 2, 0), (0, 0, 40, 83), (1, 5, 47, 97), (1, 1, 1, 3), (-3, 0, -2, -1), (1, 0, -2, 2), (0, 0, 0, 0), (1, 0, 3, 2), 3, (3, 5, 3, 77, 97), (0, 1, 3, 4));
}

// Last, because at the time of writing some of these crash (the blocked-transpose path divides by
// the size of an empty group, see layout_test.cpp "edge: transposes into an empty shape"), and a
// crash ends the run.
TEST_CASE("differential: zero-size shapes") {
    LT_DIFF(f16, (0, 19), (0, 1), (0, 6), (0, 19), (5, 1), (1, -1), (3, 0), (0, 1), (), 1, (0, 3, 19), (0, 2));
    LT_DIFF(s32, (0, 1, 5), (2, 0, 1), (0, 0, 0), (0, 1, 5), (1, 3, 1), (2, 2, -3), (0, 1, 0), (1, 0, 0), (0), 0, (0, 1, 3, 5), (0, 1, 3));
    LT_DIFF(u8, (0, 0, 2, 1), (0, 2, 3, 1), (0, 0, 0, 0), (0, 0, 1, 0), (5, 1, 4, 1), (1, 2, 0, 1), (3, 0, 2, 0), (0, 0, 2, 1), (1, 0), 2, (3, 0, 0, 2, 1), (1, 2, 3, 4));
    LT_DIFF(f16, (0, 3, 2, 5), (2, 0, 1, 3), (0, 0, 0, 3), (0, 3, 2, 4), (5, 2, 1, 2), (3, -3, 2, -4), (2, -1, -3, 0), (0, 2, 2, 0), (0), 1, (0, 3, 3, 2, 5), (0, 2, 3, 4));
    LT_DIFF(u8, (16, 2), (1, 0), (15, 2), (15, 2), (5, 1), (-3, 2), (2, 1), (1, 0), (0), 0, (16, 2, 3), (0, 1));
}
