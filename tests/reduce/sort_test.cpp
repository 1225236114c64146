// Sort and TopK: the spec's examples verbatim, the total order (NaN, -0) of sort_less /
// sort_greater, stability on data with many ties (radix and general paths), variadic sorts of
// different element types, zero-size and length-1 dimensions, and top_k against the reference.
// Differential tests on random shapes, long slices and thread-count independence:
// sort_diff_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "layout_common.hpp"
#include "reference/reference_sort.hpp"

#include <bit>
#include <cmath>

using lt::rf;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float qnan = std::numeric_limits<float>::quiet_NaN();

template<class T>
auto bits_of(T x) {
    if constexpr (std::is_same_v<T, half>)
        return x.bits();
    else
        return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(x);
}
template<class Tn>
bool same_bits(const Tn& a, const Tn& b) {
    for (std::size_t i = 0; i < Tn::size(); ++i)
        if (bits_of(a.data()[i]) != bits_of(b.data()[i])) return false;
    return true;
}
} // namespace

TEST_CASE("spec: 1-D ascending with a less-than comparator") {
    f32<6> v{3, -1, 2.5f, 0, 7, -4};
    CHECK(equal(sort(v, [](float a, float b) { return a < b; }), f32<6>{-4, -1, 0, 2.5f, 3, 7}));
    CHECK(equal(sort(v, sort_less{}), f32<6>{-4, -1, 0, 2.5f, 3, 7}));
    CHECK(equal(sort(v), f32<6>{-4, -1, 0, 2.5f, 3, 7})); // sort_less by default
    CHECK(equal(sort(v, sort_greater{}), f32<6>{7, 3, 2.5f, 0, -1, -4}));
}

TEST_CASE("spec: a matrix, dimension 0 sorts every column, 1 every row (the default)") {
    s32<3, 3> m{{5, 1, 9}, {2, 8, 3}, {7, 4, 6}};
    CHECK(equal(sort<sort_config{.dimension = 0}>(m, sort_less{}), s32<3, 3>{{2, 1, 3}, {5, 4, 6}, {7, 8, 9}}));
    CHECK(equal(sort<sort_config{.dimension = 1}>(m, sort_less{}), s32<3, 3>{{1, 5, 9}, {2, 3, 8}, {4, 6, 7}}));
    CHECK(equal(sort(m, sort_less{}), s32<3, 3>{{1, 5, 9}, {2, 3, 8}, {4, 6, 7}}));
    CHECK(equal(sort<sort_config{.dimension = -2}>(m, [](int a, int b) { return a < b; }),
                s32<3, 3>{{2, 1, 3}, {5, 4, 6}, {7, 8, 9}}));
}

TEST_CASE("spec: three operands sorted together by operand0 with less-than") {
    // operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1] -> ([1, 3], [50, 42], [1.1, -3.0])
    s32<2> op0{3, 1};
    s32<2> op1{42, 50};
    f32<2> op2{-3.0f, 1.1f};
    auto cmp = [](std::int32_t a, std::int32_t b, std::int32_t, std::int32_t, float, float) { return a < b; };
    auto [r0, r1, r2] = sort(std::forward_as_tuple(op0, op1, op2), cmp);
    CHECK(equal(r0, s32<2>{1, 3}));
    CHECK(equal(r1, s32<2>{50, 42}));
    CHECK(equal(r2, f32<2>{1.1f, -3.0f}));
    auto [q0, q1, q2] = sort(std::forward_as_tuple(op0, op1, op2), sort_less{}); // radix path
    CHECK(equal(q0, s32<2>{1, 3}));
    CHECK(equal(q1, s32<2>{50, 42}));
    CHECK(equal(q2, f32<2>{1.1f, -3.0f}));
}

TEST_CASE("spec: is_stable keeps the order of elements the comparator finds equal") {
    // Sort pairs by the key only: equal keys keep their original order.
    s32<8> key{2, 1, 2, 0, 1, 2, 0, 1};
    s32<8> pos{0, 1, 2, 3, 4, 5, 6, 7};
    auto by_key = [](std::int32_t a, std::int32_t b, std::int32_t, std::int32_t) { return a < b; };
    auto [k, p] = sort<sort_config{.is_stable = true}>(std::forward_as_tuple(key, pos), by_key);
    CHECK(equal(k, s32<8>{0, 0, 1, 1, 1, 2, 2, 2}));
    CHECK(equal(p, s32<8>{3, 6, 1, 4, 7, 0, 2, 5}));
    auto [k2, p2] = sort<sort_config{.is_stable = true}>(std::forward_as_tuple(key, pos), sort_greater{});
    CHECK(equal(k2, s32<8>{2, 2, 2, 1, 1, 1, 0, 0}));
    CHECK(equal(p2, s32<8>{0, 2, 5, 1, 4, 7, 3, 6}));
}

// Many ties, both paths, both layouts: within a run of equal keys the positions increase.
template<std::int64_t Dim, class Cmp, std::size_t A, std::size_t B>
void check_stable(const Cmp& cmp, bool descending) {
    s32<A, B> key;
    s32<A, B> pos;
    for (std::size_t i = 0; i < A * B; ++i) {
        key.data()[i] = static_cast<std::int32_t>(lt::rng()() % 5) - 2;
        pos.data()[i] = static_cast<std::int32_t>(i);
    }
    auto [k, p] = sort<sort_config{.dimension = Dim, .is_stable = true}>(std::forward_as_tuple(key, pos), cmp);
    constexpr std::size_t d = Dim < 0 ? 1 : static_cast<std::size_t>(Dim);
    const std::size_t n = d == 0 ? A : B, slices = d == 0 ? B : A;
    std::size_t bad = 0;
    for (std::size_t s = 0; s < slices; ++s)
        for (std::size_t r = 1; r < n; ++r) {
            auto at = [&](std::size_t i) { return d == 0 ? i * B + s : s * B + i; };
            const auto k0 = k.data()[at(r - 1)], k1 = k.data()[at(r)];
            const bool ordered = descending ? k0 >= k1 : k0 <= k1;
            if (!ordered || (k0 == k1 && p.data()[at(r - 1)] >= p.data()[at(r)])) ++bad;
            if (key.data()[static_cast<std::size_t>(p.data()[at(r)])] != k1) ++bad; // the pair moved together
        }
    CHECK(bad == 0);
}

TEST_CASE("stability with many ties: radix and general paths, last dimension and dimension 0") {
    auto lambda_less = [](std::int32_t a, std::int32_t b, std::int32_t, std::int32_t) { return a < b; };
    auto lambda_greater = [](std::int32_t a, std::int32_t b, std::int32_t, std::int32_t) { return a > b; };
    check_stable<-1, sort_less, 7, 500>(sort_less{}, false);
    check_stable<-1, sort_greater, 7, 500>(sort_greater{}, true);
    check_stable<0, sort_less, 500, 37>(sort_less{}, false);
    check_stable<0, sort_greater, 300, 5>(sort_greater{}, true);
    check_stable<1, decltype(lambda_less), 7, 500>(lambda_less, false);
    check_stable<0, decltype(lambda_greater), 500, 37>(lambda_greater, true);
    check_stable<1, sort_less, 40, 20>(sort_less{}, false); // short slices: insertion sort
}

TEST_CASE("total order: NaN and -0 sort deterministically") {
    const float nnan = -qnan;
    const float big_nan = std::bit_cast<float>(0x7FFFFFFFu);
    f32<12> v{1.0f, qnan, -0.0f, -inf, 0.0f, nnan, inf, -1.0f, big_nan, -0.0f, 0.0f, std::bit_cast<float>(0xFFFFFFFFu)};
    f32<12> want{
        std::bit_cast<float>(0xFFFFFFFFu), nnan, -inf, -1.0f, -0.0f, -0.0f, 0.0f, 0.0f, 1.0f, inf, qnan, big_nan};
    auto up = sort(v, sort_less{});
    CHECK(same_bits(up, want));
    f32<12> down;
    for (std::size_t i = 0; i < 12; ++i)
        down(i) = want(11 - i);
    CHECK(same_bits(sort(v, sort_greater{}), down));
    // The general path with the same order as a lambda agrees bit for bit.
    CHECK(same_bits(sort(v, [](float a, float b) { return r::total_less(a, b); }), want));
    // f64 and f16 take the same order.
    f64<6> d{0.0,
             -0.0,
             std::numeric_limits<double>::quiet_NaN(),
             -std::numeric_limits<double>::infinity(),
             -2.0,
             -std::numeric_limits<double>::quiet_NaN()};
    auto ds = sort(d, sort_less{});
    CHECK((std::isnan(ds(0)) && std::signbit(ds(0))));
    CHECK(ds(1) == -std::numeric_limits<double>::infinity());
    CHECK(ds(2) == -2.0);
    CHECK((ds(3) == 0.0 && std::signbit(ds(3))));
    CHECK((ds(4) == 0.0 && !std::signbit(ds(4))));
    CHECK((std::isnan(ds(5)) && !std::signbit(ds(5))));
    f16<5> h{half(1.0f), half(-0.0f), half(qnan), half(0.0f), half(-inf)};
    auto hs = sort(h, sort_less{});
    CHECK(hs(0).bits() == half(-inf).bits());
    CHECK(hs(1).bits() == 0x8000u);
    CHECK(hs(2).bits() == 0x0000u);
    CHECK(float(hs(3)) == 1.0f);
    CHECK(isnan(hs(4)));
    // Integers: signed order (not bitwise), unsigned, pred.
    CHECK(equal(sort(s8<5>{-128, 127, -1, 0, 1}), s8<5>{-128, -1, 0, 1, 127}));
    CHECK(equal(sort(u16<4>{65535, 0, 32768, 1}), u16<4>{0, 1, 32768, 65535}));
    CHECK(equal(sort(s64<3>{INT64_MAX, INT64_MIN, 0}), s64<3>{INT64_MIN, 0, INT64_MAX}));
    CHECK(equal(sort(pred<4>{true, false, true, false}), pred<4>{false, false, true, true}));
    CHECK(equal(sort(pred<4>{true, false, true, false}, sort_greater{}), pred<4>{true, true, false, false}));
}

TEST_CASE("variadic: operands of different element types, keys of several types") {
    f32<5> key{0.5f, -2.0f, 0.5f, qnan, -0.0f};
    s64<5> a{10, 20, 30, 40, 50};
    u8<5> b{1, 2, 3, 4, 5};
    f16<5> c{half(1.0f), half(2.0f), half(3.0f), half(4.0f), half(5.0f)};
    c64<5> z{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}};
    auto [k, ra, rb, rc, rz] = sort(std::forward_as_tuple(key, a, b, c, z), sort_less{});
    CHECK(equal(ra, s64<5>{20, 50, 10, 30, 40}));
    CHECK(equal(rb, u8<5>{2, 5, 1, 3, 4}));
    CHECK(float(rc(0)) == 2.0f);
    CHECK(float(rc(4)) == 4.0f);
    CHECK(rz(1) == std::complex<float>(5, 5));
    CHECK(std::isnan(k(4)));
    // Keys of type u8 and s64 with payloads, descending.
    auto [kb, pa] = sort(std::forward_as_tuple(b, a), sort_greater{});
    CHECK(equal(kb, u8<5>{5, 4, 3, 2, 1}));
    CHECK(equal(pa, s64<5>{50, 40, 30, 20, 10}));
    // A complex operand sorted with a general comparator (by |z|, then the payload as tie-break).
    c64<4> zz{{3, 4}, {0, 1}, {1, 0}, {-2, 0}};
    s32<4> ii{0, 1, 2, 3};
    auto [sz, si] = sort(std::forward_as_tuple(zz, ii),
                         [](std::complex<float> x, std::complex<float> y, std::int32_t i, std::int32_t j) {
                             return std::abs(x) < std::abs(y) || (std::abs(x) == std::abs(y) && j < i);
                         });
    CHECK(equal(si, s32<4>{2, 1, 3, 0}));
    CHECK(sz(3) == std::complex<float>(3, 4));
    // An expression operand is evaluated once; a tensor_map works as an operand.
    std::array<float, 5> raw{5, 4, 3, 2, 1};
    tensor_map<const float, 5> m(raw.data());
    CHECK(equal(sort(m * 2.0f), f32<5>{2, 4, 6, 8, 10}));
    auto [mk, mv] = sort(std::forward_as_tuple(m, a + std::int64_t{1}), sort_less{});
    CHECK(equal(mk, f32<5>{1, 2, 3, 4, 5}));
    CHECK(equal(mv, s64<5>{51, 41, 31, 21, 11}));
}

TEST_CASE("zero-size and length-1 dimensions") {
    CHECK(f32<0>::size() == decltype(sort(f32<0>{}))::size());
    auto e1 = sort<sort_config{.dimension = 0}>(f32<0, 4>{}, sort_less{});
    CHECK(decltype(e1)::extents == extents_t<2>{0, 4});
    auto e2 = sort(f32<3, 0>{}, [](float a, float b) { return a < b; });
    CHECK(decltype(e2)::extents == extents_t<2>{3, 0});
    auto [e3, e4] = sort(std::forward_as_tuple(s32<2, 0, 3>{}, f32<2, 0, 3>{}), sort_less{});
    CHECK(decltype(e4)::size() == 0);
    f32<4, 1> col{{4}, {3}, {2}, {1}};
    CHECK(equal(sort(col), col)); // length-1 slices: unchanged
    CHECK(equal(sort<sort_config{.dimension = 0}>(col, sort_less{}), f32<4, 1>{{1}, {2}, {3}, {4}}));
    f32<1, 4> row{{4, 3, 2, 1}};
    CHECK(equal(sort<sort_config{.dimension = 0}>(row, sort_less{}), row));
    CHECK(std::isnan(sort(f32<1>{qnan}, sort_less{})(0)));
    // top_k with k = 0 and on an empty batch.
    auto [v0, i0] = top_k<0>(f32<3, 4>{});
    CHECK(decltype(v0)::extents == extents_t<2>{3, 0});
    CHECK(decltype(i0)::extents == extents_t<2>{3, 0});
    auto [v1, i1] = top_k<2>(f32<0, 4>{});
    CHECK(decltype(v1)::size() == 0);
    (void)i1;
}

TEST_CASE("spec: top_k values and indices along the last dimension, ties by lower index") {
    f32<7> v{1, 5, 3, 5, -2, 4, 5};
    auto [val, idx] = top_k<3>(v);
    CHECK(equal(val, f32<3>{5, 5, 5}));
    CHECK(equal(idx, s32<3>{1, 3, 6}));
    auto [sv, si] = top_k<3, false>(v);
    CHECK(equal(sv, f32<3>{-2, 1, 3}));
    CHECK(equal(si, s32<3>{4, 0, 2}));
    f32<2, 4> m{{1, 9, 3, 7}, {-1, -3, -2, -7}};
    auto [mv, mi] = top_k<2>(m);
    CHECK(equal(mv, f32<2, 2>{{9, 7}, {-1, -2}}));
    CHECK(equal(mi, s32<2, 2>{{1, 3}, {0, 2}}));
    // k = n sorts the row (descending, stable).
    auto [fv, fi] = top_k<4>(m);
    CHECK(equal(fv, f32<2, 4>{{9, 7, 3, 1}, {-1, -2, -3, -7}}));
    CHECK(equal(fi, s32<2, 4>{{1, 3, 2, 0}, {0, 2, 1, 3}}));
    // Total order: +NaN ranks above +inf, -NaN below -inf, +0 above -0.
    f32<6> n{-0.0f, qnan, inf, 0.0f, -qnan, -inf};
    auto [nv, ni] = top_k<6>(n);
    CHECK(equal(ni, s32<6>{1, 2, 3, 0, 5, 4}));
    CHECK(std::isnan(nv(0)));
    auto [lv, li] = top_k<2, false>(n);
    CHECK(equal(li, s32<2>{4, 5}));
    (void)lv;
    // Integer element types.
    auto [iv, ii] = top_k<2>(s8<5>{-128, 127, 0, 127, -1});
    CHECK(equal(iv, s8<2>{127, 127}));
    CHECK(equal(ii, s32<2>{1, 3}));
}

template<std::size_t Rows, std::size_t N, std::int64_t K, bool Largest, class T>
void check_top_k(bool ties) {
    tensor<T, Rows, N> x;
    for (std::size_t i = 0; i < Rows * N; ++i) {
        if constexpr (std::is_integral_v<T>)
            x.data()[i] = ties ? static_cast<T>(lt::rng()() % 7) : lt::random_elem<T>();
        else
            x.data()[i] = ties ? static_cast<T>(static_cast<int>(lt::rng()() % 7) - 3) : lt::random_elem<T>();
    }
    auto [v, i] = top_k<K, Largest>(x);
    auto [rv, ri] = r::top_k(rf(x), K, Largest);
    CHECK_SAME(v, rv);
    CHECK_SAME(i, ri);
}

TEST_CASE("top_k against std::partial_sort on random rows (both selection strategies)") {
    check_top_k<1, 100, 5, true, float>(false);
    check_top_k<9, 300, 8, true, float>(false);
    check_top_k<9, 300, 8, false, float>(false);
    check_top_k<9, 300, 8, true, float>(true);
    check_top_k<5, 1000, 1, false, float>(true);
    check_top_k<3, 30, 20, true, float>(false); // nth_element path
    check_top_k<3, 30, 20, false, float>(true);
    check_top_k<4, 64, 64, true, float>(false);
    check_top_k<64, 520, 16, true, std::int32_t>(true); // parallel over rows
    check_top_k<6, 77, 9, false, std::uint8_t>(true);
    check_top_k<6, 200, 4, true, half>(false);
}
