// Self-test of the reference evaluator (tests/reference/reference.hpp) against hand-computed values.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "reference/reference.hpp"
#include "reference/reference_conv.hpp"

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace r = xlet_ref;
using r::binop;
using r::cmpop;
using r::unop;
using dims = std::vector<std::int64_t>;

template <class T>
r::array<T> vec(std::vector<T> v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return r::array<T>({n}, std::move(v));
}
template <class T>
r::array<T> sc(T v) {
    return r::scalar<T>(v);
}

template <class T>
T bin1(binop op, T a, T b) {
    return r::binary(op, sc(a), sc(b)).data[0];
}
template <class T>
T un1(unop op, T a) {
    return r::unary(op, sc(a)).data[0];
}
template <class T>
bool cmp1(cmpop op, T a, T b) {
    return r::compare(op, sc(a), sc(b)).data[0];
}

constexpr float nanf_ = std::numeric_limits<float>::quiet_NaN();
constexpr float inff = std::numeric_limits<float>::infinity();

TEST_CASE("array basics") {
    r::array<int> a({2, 3}, {0, 1, 2, 3, 4, 5});
    CHECK(a.size() == 6);
    CHECK(a.rank() == 2);
    CHECK(a.at({1, 2}) == 5);
    CHECK(a.at({0, 1}) == 1);
    a.at({1, 0}) = 30;
    CHECK(a.data[3] == 30);
    CHECK_THROWS_AS(a.at({2, 0}), std::invalid_argument);
    CHECK_THROWS_AS(r::array<int>({2, 2}, {1, 2, 3}), std::invalid_argument);
    CHECK(r::array<int>({0, 3}, {}).size() == 0);
    CHECK(sc(7).rank() == 0);
    CHECK(r::array<float>({1}, {nanf_}) != r::array<float>({1}, {nanf_}));
    CHECK(r::identical(r::array<float>({1}, {nanf_}), r::array<float>({1}, {nanf_})));
    CHECK(r::array<float>({1}, {-0.0f}) == r::array<float>({1}, {0.0f}));
    CHECK(!r::identical(r::array<float>({1}, {-0.0f}), r::array<float>({1}, {0.0f})));
    CHECK(r::array<int>({2}, {1, 2}) != r::array<int>({2, 1}, {1, 2}));
}

TEST_CASE("spec: Clamp and Select examples") {
    const auto x = vec<std::int32_t>({-1, 5, 9});
    CHECK(r::clamp<std::int32_t>(0, x, 6) == vec<std::int32_t>({0, 5, 6}));
    CHECK(r::clamp(vec<std::int32_t>({0, 6, 0}), x, vec<std::int32_t>({1, 7, 8})) == vec<std::int32_t>({0, 6, 8}));
    CHECK(r::clamp(sc<std::int32_t>(0), x, vec<std::int32_t>({1, 2, 3})) == vec<std::int32_t>({0, 2, 3}));
    CHECK_THROWS_AS(r::clamp(vec<std::int32_t>({0, 1}), x, sc(6)), std::invalid_argument);
    // clamp = min(max(lo, x), hi) with the NaN-propagating max/min
    CHECK(std::isnan(r::clamp<float>(0.0f, vec<float>({nanf_}), 1.0f).data[0]));
    CHECK(r::clamp<float>(-1.0f, vec<float>({-5.0f, 0.25f, 3.0f}), 1.0f) == vec<float>({-1.0f, 0.25f, 1.0f}));

    const auto v1 = vec<std::int32_t>({1, 2, 3, 4}), v2 = vec<std::int32_t>({100, 200, 300, 400});
    CHECK(r::select(vec<bool>({true, false, false, true}), v1, v2) == vec<std::int32_t>({1, 200, 300, 4}));
    CHECK(r::select(true, v1, v2) == v1);
    CHECK(r::select(sc(false), v1, v2) == v2);
    CHECK_THROWS_AS(r::select(vec<bool>({true, false}), v1, v2), std::invalid_argument);
    CHECK_THROWS_AS(r::select(true, v1, vec<std::int32_t>({1})), std::invalid_argument);
}

TEST_CASE("spec: ConvertElementType example and conversions") {
    CHECK(r::convert<float>(vec<std::int32_t>({0, 1, 2})) == vec<float>({0.0f, 1.0f, 2.0f}));
    // float -> int truncates, saturates, NaN -> 0
    const auto f = vec<float>({3e9f, -3e9f, nanf_, 2.9f, -2.9f, inff, -inff, 2147483520.0f});
    CHECK(r::convert<std::int32_t>(f) ==
          vec<std::int32_t>({INT32_MAX, INT32_MIN, 0, 2, -2, INT32_MAX, INT32_MIN, 2147483520}));
    CHECK(r::convert<std::uint8_t>(vec<float>({-1.5f, 300.0f, 255.9f, 0.99f, nanf_})) ==
          vec<std::uint8_t>({0, 255, 255, 0, 0}));
    CHECK(r::convert<std::int64_t>(vec<double>({1e19, -1e19})) == vec<std::int64_t>({INT64_MAX, INT64_MIN}));
    CHECK(r::convert<std::uint64_t>(vec<float>({2e19f, 0x1p63f})) ==
          vec<std::uint64_t>({UINT64_MAX, 9223372036854775808ull}));
    // int -> int wraps
    CHECK(r::convert<std::int8_t>(vec<std::int32_t>({300, -129, 127})) == vec<std::int8_t>({44, 127, 127}));
    CHECK(r::convert<std::uint8_t>(vec<std::int32_t>({-1, 256})) == vec<std::uint8_t>({255, 0}));
    // int -> float rounds to nearest even
    CHECK(r::convert<float>(vec<std::int32_t>({16777217, 16777219})) == vec<float>({16777216.0f, 16777220.0f}));
    // pred
    CHECK(r::convert<bool>(vec<float>({0.0f, -0.0f, nanf_, 0.5f})) == vec<bool>({false, false, true, true}));
    CHECK(r::convert<std::int32_t>(vec<bool>({true, false})) == vec<std::int32_t>({1, 0}));
    CHECK(r::convert<bool>(vec<std::int8_t>({0, -3})) == vec<bool>({false, true}));
    // real -> complex
    CHECK(r::convert<std::complex<float>>(vec<double>({1.5})).data[0] == std::complex<float>(1.5f, 0.0f));
    CHECK(r::convert<std::complex<double>>(vec<std::complex<float>>({{1.0f, -2.0f}})).data[0] ==
          std::complex<double>(1.0, -2.0));
    // double -> float rounds once
    CHECK(r::convert<float>(vec<double>({1.0 + 0x1p-24 + 0x1p-40})).data[0] == 1.0f + 0x1p-23f);
}

TEST_CASE("broadcasting") {
    const r::array<int> m({2, 3}, {1, 2, 3, 4, 5, 6});
    // matrix + vector along dimension 1 (each row) and dimension 0 (each column)
    CHECK(r::binary(binop::add, m, vec<int>({7, 8, 9}), {1}) == r::array<int>({2, 3}, {8, 10, 12, 11, 13, 15}));
    CHECK(r::binary(binop::add, m, vec<int>({7, 8}), {0}) == r::array<int>({2, 3}, {8, 9, 10, 12, 13, 14}));
    CHECK(r::binary(binop::sub, vec<int>({7, 8}), m, {0}) == r::array<int>({2, 3}, {6, 5, 4, 4, 3, 2}));
    // scalar
    CHECK(r::binary(binop::add, m, sc(10)) == r::array<int>({2, 3}, {11, 12, 13, 14, 15, 16}));
    CHECK(r::binary(binop::sub, sc(10), m) == r::array<int>({2, 3}, {9, 8, 7, 6, 5, 4}));
    // degenerate: [2,1] + [1,3] -> [2,3]
    const r::array<int> col({2, 1}, {1, 2}), row({1, 3}, {10, 20, 30});
    CHECK(r::binary(binop::add, col, row) == r::array<int>({2, 3}, {11, 21, 31, 12, 22, 32}));
    CHECK(r::binary(binop::add, m, row) == r::array<int>({2, 3}, {11, 22, 33, 14, 25, 36}));
    CHECK(r::binary(binop::add, r::array<int>({2, 1, 2}, {1, 2, 3, 4}), r::array<int>({1, 2, 1}, {10, 20})) ==
          r::array<int>({2, 2, 2}, {11, 12, 21, 22, 13, 14, 23, 24}));
    // broadcast_dimensions on a degenerate operand: [1] along dim 1
    CHECK(r::binary(binop::mul, m, vec<int>({2}), {1}) == r::array<int>({2, 3}, {2, 4, 6, 8, 10, 12}));
    // rank 3 with a matrix mapped to dims {0, 2}
    CHECK(r::binary(binop::add, r::array<int>({2, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0}), r::array<int>({2, 2}, {1, 2, 3, 4}),
                    {0, 2}) == r::array<int>({2, 2, 2}, {1, 2, 1, 2, 3, 4, 3, 4}));
    // comparisons broadcast the same way
    CHECK(r::compare(cmpop::gt, m, vec<int>({2, 5}), {0}) ==
          r::array<bool>({2, 3}, {false, false, true, false, false, true}));
    CHECK(r::compare(cmpop::eq, col, row) == r::array<bool>({2, 3}, {false, false, false, false, false, false}));
    // invalid
    CHECK_THROWS_AS(r::binary(binop::add, m, vec<int>({1, 2, 3})), std::invalid_argument);
    CHECK_THROWS_AS(r::binary(binop::add, m, vec<int>({1, 2}), {1}), std::invalid_argument);
    CHECK_THROWS_AS(r::binary(binop::add, m, vec<int>({1, 2}), {2}), std::invalid_argument);
    CHECK_THROWS_AS(r::binary(binop::add, m, r::array<int>({3, 2}, {1, 2, 3, 4, 5, 6})), std::invalid_argument);
    CHECK_THROWS_AS(r::binary(binop::add, m, m, {1, 0}), std::invalid_argument);
    CHECK(r::binary(binop::add, m, m, {0, 1}) == r::binary(binop::add, m, m));

    // broadcast_in_dim
    CHECK(r::broadcast_in_dim(vec<int>({1, 2, 3}), {2, 3}, {1}) == r::array<int>({2, 3}, {1, 2, 3, 1, 2, 3}));
    CHECK(r::broadcast_in_dim(vec<int>({1, 2}), {2, 3}, {0}) == r::array<int>({2, 3}, {1, 1, 1, 2, 2, 2}));
    CHECK(r::broadcast_in_dim(col, {2, 3}, {0, 1}) == r::array<int>({2, 3}, {1, 1, 1, 2, 2, 2}));
    CHECK(r::broadcast_in_dim(sc(4), {2, 2}, {}) == r::array<int>({2, 2}, {4, 4, 4, 4}));
    CHECK(r::broadcast_in_dim(m, {3, 2}, {1, 0}) == r::array<int>({3, 2}, {1, 4, 2, 5, 3, 6}));
    CHECK_THROWS_AS(r::broadcast_in_dim(vec<int>({1, 2}), {2, 3}, {1}), std::invalid_argument);
    CHECK_THROWS_AS(r::broadcast_in_dim(vec<int>({1, 2}), {2, 3}, {}), std::invalid_argument);
    CHECK_THROWS_AS(r::broadcast_in_dim(m, {2, 3}, {0, 0}), std::invalid_argument);
    CHECK_THROWS_AS(r::broadcast_in_dim(m, {2, 3}, {0, 2}), std::invalid_argument);
}

TEST_CASE("integer div/rem by zero and INT_MIN / -1") {
    using s8 = std::int8_t;
    using u8 = std::uint8_t;
    CHECK(bin1<s8>(binop::div, 7, 0) == -1);
    CHECK(bin1<s8>(binop::div, -128, -1) == -128);
    CHECK(bin1<s8>(binop::rem, 7, 0) == 7);
    CHECK(bin1<s8>(binop::rem, -128, -1) == 0);
    CHECK(bin1<s8>(binop::div, -7, 2) == -3);
    CHECK(bin1<s8>(binop::rem, -7, 2) == -1);
    CHECK(bin1<s8>(binop::rem, 7, -2) == 1);
    CHECK(bin1<std::int32_t>(binop::div, 5, 0) == -1);
    CHECK(bin1<std::int32_t>(binop::div, INT32_MIN, -1) == INT32_MIN);
    CHECK(bin1<std::int32_t>(binop::rem, -5, 0) == -5);
    CHECK(bin1<std::int32_t>(binop::rem, INT32_MIN, -1) == 0);
    CHECK(bin1<std::int32_t>(binop::div, INT32_MIN, 1) == INT32_MIN);
    CHECK(bin1<std::int64_t>(binop::div, INT64_MIN, -1) == INT64_MIN);
    CHECK(bin1<u8>(binop::div, 7, 0) == 255);
    CHECK(bin1<u8>(binop::rem, 7, 0) == 7);
    CHECK(bin1<u8>(binop::div, 200, 3) == 66);
    CHECK(bin1<u8>(binop::rem, 200, 3) == 2);
    CHECK(bin1<std::uint32_t>(binop::div, 1, 0) == UINT32_MAX);
}

TEST_CASE("integer wrap-around, pow, bit counts, sign") {
    using s8 = std::int8_t;
    CHECK(bin1<s8>(binop::add, 127, 1) == -128);
    CHECK(bin1<s8>(binop::sub, -128, 1) == 127);
    CHECK(bin1<s8>(binop::mul, 16, 16) == 0);
    CHECK(bin1<std::uint16_t>(binop::mul, 65535, 65535) == 1);
    CHECK(bin1<std::int32_t>(binop::mul, INT32_MAX, 2) == -2);
    CHECK(bin1<std::int64_t>(binop::add, INT64_MAX, 1) == INT64_MIN);
    CHECK(un1<s8>(unop::neg, -128) == -128);
    CHECK(r::abs(vec<s8>({-128, -5, 5})) == vec<s8>({-128, 5, 5}));
    CHECK(r::abs(vec<std::int32_t>({INT32_MIN})) == vec<std::int32_t>({INT32_MIN}));
    CHECK(bin1<std::int32_t>(binop::pow, 2, 10) == 1024);
    CHECK(bin1<std::int32_t>(binop::pow, 0, 0) == 1);
    CHECK(bin1<std::int32_t>(binop::pow, 1, -5) == 1);
    CHECK(bin1<std::int32_t>(binop::pow, -1, -3) == -1);
    CHECK(bin1<std::int32_t>(binop::pow, -1, -4) == 1);
    CHECK(bin1<std::int32_t>(binop::pow, 2, -1) == 0);
    CHECK(bin1<std::int32_t>(binop::pow, -3, 3) == -27);
    CHECK(bin1<s8>(binop::pow, 3, 5) == -13); // 243 mod 256
    CHECK(bin1<std::uint8_t>(binop::pow, 2, 8) == 0);
    CHECK(bin1<std::int64_t>(binop::pow, 3, 40) == -6289078614652622815LL); // 3^40 - 2^64
    CHECK(bin1<std::uint64_t>(binop::pow, 3, 40) == 12157665459056928801ull);
    CHECK(r::unary(unop::clz, vec<s8>({-1, 1, 0, 64})) == vec<s8>({0, 7, 8, 1}));
    CHECK(r::unary(unop::popcnt, vec<s8>({-1, 1, 0, -128})) == vec<s8>({8, 1, 0, 1}));
    CHECK(un1<std::int32_t>(unop::clz, 0) == 32);
    CHECK(un1<std::uint8_t>(unop::popcnt, 0x0F) == 4);
    CHECK(r::unary(unop::sign, vec<s8>({-128, 0, 5})) == vec<s8>({-1, 0, 1}));
    CHECK(r::unary(unop::sign, vec<std::uint8_t>({0, 200})) == vec<std::uint8_t>({0, 1}));
    CHECK(r::unary(unop::not_, vec<std::uint8_t>({0x0F})) == vec<std::uint8_t>({0xF0}));
    CHECK(r::unary(unop::not_, vec<s8>({0})) == vec<s8>({-1}));
    CHECK(bin1<std::uint8_t>(binop::xor_, 0xFF, 0x0F) == 0xF0);
    CHECK(bin1<s8>(binop::max, -3, 2) == 2);
    CHECK(bin1<s8>(binop::min, -3, 2) == -3);
    CHECK_THROWS_AS(un1<std::int32_t>(unop::cos, 1), std::invalid_argument);
    CHECK_THROWS_AS(bin1<std::int32_t>(binop::atan2, 1, 1), std::invalid_argument);
}

TEST_CASE("shifts") {
    using s8 = std::int8_t;
    using u8 = std::uint8_t;
    CHECK(bin1<s8>(binop::shift_left, 1, 7) == -128);
    CHECK(bin1<s8>(binop::shift_left, 1, 8) == 0);
    CHECK(bin1<s8>(binop::shift_left, 1, 9) == 0);
    CHECK(bin1<s8>(binop::shift_left, 1, -1) == 0);
    CHECK(bin1<s8>(binop::shift_right_logical, -128, 1) == 64);
    CHECK(bin1<s8>(binop::shift_right_logical, -128, 7) == 1);
    CHECK(bin1<s8>(binop::shift_right_logical, -128, 8) == 0);
    CHECK(bin1<s8>(binop::shift_right_logical, -1, -1) == 0);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, -128, 1) == -64);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, -128, 7) == -1);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, -128, 8) == -1);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, -128, 9) == -1);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, -128, -1) == -1);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, 64, 8) == 0);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, 64, -1) == 0);
    CHECK(bin1<s8>(binop::shift_right_arithmetic, 64, 3) == 8);
    CHECK(bin1<u8>(binop::shift_left, 1, 8) == 0);
    CHECK(bin1<u8>(binop::shift_left, 0x81, 1) == 0x02);
    CHECK(bin1<u8>(binop::shift_left, 1, 9) == 0);
    CHECK(bin1<u8>(binop::shift_right_logical, 0x80, 7) == 1);
    CHECK(bin1<u8>(binop::shift_right_logical, 0x80, 8) == 0);
    CHECK(bin1<u8>(binop::shift_right_arithmetic, 0x80, 1) == 0xC0);
    CHECK(bin1<u8>(binop::shift_right_arithmetic, 0x80, 8) == 0xFF);
    CHECK(bin1<u8>(binop::shift_right_arithmetic, 0x80, 9) == 0xFF);
    CHECK(bin1<u8>(binop::shift_right_arithmetic, 0x40, 9) == 0);
    CHECK(bin1<u8>(binop::shift_right_arithmetic, 0x40, 1) == 0x20);
    CHECK(bin1<std::int32_t>(binop::shift_left, 1, 31) == INT32_MIN);
    CHECK(bin1<std::int32_t>(binop::shift_left, 1, 32) == 0);
    CHECK(bin1<std::int32_t>(binop::shift_right_arithmetic, INT32_MIN, 40) == -1);
    CHECK(bin1<std::uint64_t>(binop::shift_left, 1, 63) == (1ull << 63));
    CHECK(bin1<std::uint64_t>(binop::shift_left, 1, 64) == 0);
    CHECK(bin1<std::int64_t>(binop::shift_right_logical, -1, 60) == 15);
}

TEST_CASE("float rem, max/min, round, sign") {
    CHECK(bin1(binop::rem, -7.5f, 2.0f) == -1.5f);
    CHECK(bin1(binop::rem, 7.5f, -2.0f) == 1.5f);
    CHECK(std::signbit(bin1(binop::rem, -4.0f, 2.0f)));
    CHECK(std::isnan(bin1(binop::rem, 1.0f, 0.0f)));
    CHECK(bin1(binop::rem, -7.0, 3.0) == -1.0);

    for (binop op : {binop::max, binop::min}) {
        CHECK(std::isnan(bin1(op, nanf_, 1.0f)));
        CHECK(std::isnan(bin1(op, 1.0f, nanf_)));
        CHECK(std::isnan(bin1(op, nanf_, nanf_)));
        CHECK(std::isnan(bin1(op, -inff, nanf_)));
    }
    CHECK(!std::signbit(bin1(binop::max, -0.0f, 0.0f)));
    CHECK(!std::signbit(bin1(binop::max, 0.0f, -0.0f)));
    CHECK(std::signbit(bin1(binop::min, -0.0f, 0.0f)));
    CHECK(std::signbit(bin1(binop::min, 0.0f, -0.0f)));
    CHECK(std::signbit(bin1(binop::max, -0.0, -0.0)));
    CHECK(bin1(binop::max, -1.0f, 2.0f) == 2.0f);
    CHECK(bin1(binop::min, -1.0f, 2.0f) == -1.0f);
    CHECK(bin1(binop::max, -inff, -1.0f) == -1.0f);

    const auto x = vec<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.4f, 2.6f, 1e30f, inff});
    CHECK(r::unary(unop::round, x) == vec<float>({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, -3.0f, 0.0f, 3.0f, 1e30f, inff}));
    CHECK(r::unary(unop::round_nearest_even, x) ==
          vec<float>({0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 0.0f, 3.0f, 1e30f, inff}));
    CHECK(std::signbit(un1(unop::round_nearest_even, -0.5f)));
    CHECK(std::signbit(un1(unop::round, -0.4f)));
    CHECK(std::signbit(un1(unop::round_nearest_even, -0.0)));
    CHECK(un1(unop::round_nearest_even, 4503599627370495.5) == 4503599627370496.0);
    CHECK(un1(unop::round_nearest_even, 8388609.0f) == 8388609.0f);
    CHECK(std::isnan(un1(unop::round_nearest_even, nanf_)));
    CHECK(un1(unop::ceil, -0.5f) == 0.0f);
    CHECK(un1(unop::floor, -0.5f) == -1.0f);

    CHECK(r::unary(unop::sign, vec<float>({-3.0f, 5.0f, 0.0f, -inff})) == vec<float>({-1.0f, 1.0f, 0.0f, -1.0f}));
    CHECK(std::signbit(un1(unop::sign, -0.0f)));
    CHECK(un1(unop::sign, -0.0f) == 0.0f);
    CHECK(!std::signbit(un1(unop::sign, 0.0f)));
    CHECK(std::isnan(un1(unop::sign, nanf_)));
    CHECK(std::isnan(un1(unop::sign, std::numeric_limits<double>::quiet_NaN())));
    CHECK_THROWS_AS(un1(unop::popcnt, 1.0f), std::invalid_argument);
    CHECK_THROWS_AS(bin1(binop::and_, 1.0f, 1.0f), std::invalid_argument);
}

TEST_CASE("float math") {
    CHECK(un1(unop::logistic, 0.0f) == 0.5f);
    CHECK(un1(unop::logistic, -1000.0f) == 0.0f);
    CHECK(un1(unop::logistic, 1000.0f) == 1.0f);
    CHECK(un1(unop::rsqrt, 4.0f) == 0.5f);
    CHECK(un1(unop::sqrt, 2.0) == doctest::Approx(std::numbers::sqrt2));
    CHECK(un1(unop::cbrt, -27.0) == doctest::Approx(-3.0));
    CHECK(un1(unop::exp, 1.0) == doctest::Approx(std::numbers::e));
    CHECK(un1(unop::expm1, 1e-10) == doctest::Approx(1e-10).epsilon(1e-9).scale(0));
    CHECK(un1(unop::log1p, 1e-10) == doctest::Approx(1e-10).epsilon(1e-9).scale(0));
    CHECK(un1(unop::erf, 0.0) == 0.0);
    CHECK(un1(unop::tanh, 0.5) == doctest::Approx(std::tanh(0.5)));
    CHECK(un1(unop::neg, 0.0f) == 0.0f);
    CHECK(std::signbit(un1(unop::neg, 0.0f)));
    CHECK(bin1(binop::atan2, 1.0, -1.0) == doctest::Approx(3 * std::numbers::pi / 4));
    CHECK(bin1(binop::pow, 2.0f, 10.0f) == 1024.0f);
    CHECK(bin1(binop::pow, nanf_, 0.0f) == 1.0f);
    CHECK(r::abs(vec<float>({-0.0f, -2.0f})) == vec<float>({0.0f, 2.0f}));
    CHECK(!std::signbit(r::abs(vec<float>({-0.0f})).data[0]));
    CHECK(r::is_finite(vec<float>({1.0f, inff, -inff, nanf_, -0.0f})) == vec<bool>({true, false, false, false, true}));
    CHECK(r::real(vec<double>({2.5})) == vec<double>({2.5}));
    CHECK(r::imag(vec<double>({2.5})) == vec<double>({0.0}));
}

TEST_CASE("comparisons and total order") {
    const float qnan = nanf_;
    const float neg_nan = -nanf_;
    CHECK(!cmp1(cmpop::eq, qnan, qnan));
    CHECK(cmp1(cmpop::ne, qnan, qnan));
    CHECK(!cmp1(cmpop::lt, qnan, 1.0f));
    CHECK(!cmp1(cmpop::ge, qnan, 1.0f));
    CHECK(cmp1(cmpop::eq, -0.0f, 0.0f));
    CHECK(!cmp1(cmpop::lt, -0.0f, 0.0f));

    CHECK(cmp1(cmpop::eq_total, qnan, qnan));
    CHECK(!cmp1(cmpop::ne_total, qnan, qnan));
    CHECK(!cmp1(cmpop::eq_total, -0.0f, 0.0f));
    CHECK(cmp1(cmpop::lt_total, -0.0f, 0.0f));
    CHECK(cmp1(cmpop::gt_total, 0.0f, -0.0f));
    CHECK(cmp1(cmpop::lt_total, neg_nan, -inff));
    CHECK(cmp1(cmpop::lt_total, -inff, -1e38f));
    CHECK(cmp1(cmpop::lt_total, -1.0f, -0.0f));
    CHECK(cmp1(cmpop::lt_total, 0.0f, 1e-45f));
    CHECK(cmp1(cmpop::lt_total, 3e38f, inff));
    CHECK(cmp1(cmpop::lt_total, inff, qnan));
    CHECK(cmp1(cmpop::gt_total, qnan, inff));
    CHECK(cmp1(cmpop::le_total, neg_nan, neg_nan));
    CHECK(cmp1(cmpop::ge_total, qnan, neg_nan));
    CHECK(cmp1(cmpop::lt_total, -2.0, -1.0));
    // NaNs by payload: +NaN with the larger payload is larger, -NaN with the larger payload is smaller
    const float p1 = std::bit_cast<float>(0x7FC00001u), p2 = std::bit_cast<float>(0x7FC00002u);
    const float n1 = std::bit_cast<float>(0xFFC00001u), n2 = std::bit_cast<float>(0xFFC00002u);
    CHECK(cmp1(cmpop::lt_total, p1, p2));
    CHECK(cmp1(cmpop::lt_total, n2, n1));
    CHECK(cmp1(cmpop::ne_total, p1, p2));
    CHECK(cmp1(cmpop::lt_total, std::bit_cast<float>(0x7F800001u), p1)); // signalling below quiet payload
    // integers
    CHECK(cmp1<std::int8_t>(cmpop::lt_total, -128, 127));
    CHECK(cmp1<std::uint8_t>(cmpop::gt, 200, 100));
    // complex: eq, ne only
    using c64 = std::complex<float>;
    CHECK(cmp1(cmpop::eq, c64(1, 2), c64(1, 2)));
    CHECK(cmp1(cmpop::ne, c64(1, 2), c64(1, -2)));
    CHECK(cmp1(cmpop::eq_total, c64(qnan, 0), c64(qnan, 0)));
    CHECK_THROWS_AS(cmp1(cmpop::lt, c64(1, 2), c64(1, 2)), std::invalid_argument);
    // pred
    CHECK(cmp1(cmpop::eq, true, true));
    CHECK(cmp1(cmpop::ne, true, false));
}

TEST_CASE("pred ops") {
    const auto a = vec<bool>({false, false, true, true}), b = vec<bool>({false, true, false, true});
    CHECK(r::binary(binop::and_, a, b) == vec<bool>({false, false, false, true}));
    CHECK(r::binary(binop::or_, a, b) == vec<bool>({false, true, true, true}));
    CHECK(r::binary(binop::xor_, a, b) == vec<bool>({false, true, true, false}));
    CHECK(r::binary(binop::add, a, b) == vec<bool>({false, true, true, true}));
    CHECK(r::binary(binop::mul, a, b) == vec<bool>({false, false, false, true}));
    CHECK(r::binary(binop::max, a, b) == vec<bool>({false, true, true, true}));
    CHECK(r::binary(binop::min, a, b) == vec<bool>({false, false, false, true}));
    CHECK(r::unary(unop::not_, a) == vec<bool>({true, true, false, false}));
    CHECK_THROWS_AS(r::binary(binop::sub, a, b), std::invalid_argument);
    CHECK_THROWS_AS(r::unary(unop::neg, a), std::invalid_argument);
}

TEST_CASE("complex") {
    using c64 = std::complex<float>;
    using c128 = std::complex<double>;
    CHECK(r::abs(vec<c64>({{3, 4}})) == vec<float>({5.0f}));
    CHECK(r::real(vec<c64>({{3, 4}})) == vec<float>({3.0f}));
    CHECK(r::imag(vec<c64>({{3, 4}})) == vec<float>({4.0f}));
    CHECK(r::complex(vec<float>({1, 2}), sc(5.0f)) == vec<c64>({{1, 5}, {2, 5}}));
    CHECK(r::complex(r::array<double>({2, 2}, {1, 2, 3, 4}), vec<double>({7, 8}), {0}) ==
          r::array<c128>({2, 2}, {{1, 7}, {2, 7}, {3, 8}, {4, 8}}));
    const c128 s = un1(unop::sign, c128(3, 4));
    CHECK(s.real() == doctest::Approx(0.6));
    CHECK(s.imag() == doctest::Approx(0.8));
    CHECK(un1(unop::sign, c128(0, 0)) == c128(0, 0));
    CHECK(un1(unop::neg, c64(1, -2)) == c64(-1, 2));
    const c128 e = un1(unop::exp, c128(0, std::numbers::pi));
    CHECK(e.real() == doctest::Approx(-1.0));
    CHECK(e.imag() == doctest::Approx(0.0));
    // expm1 and log1p stay accurate near zero
    const c128 em = un1(unop::expm1, c128(1e-10, 1e-10));
    CHECK(em.real() == doctest::Approx(1e-10).epsilon(1e-9).scale(0));
    CHECK(em.imag() == doctest::Approx(1e-10).epsilon(1e-9).scale(0));
    const c128 lp = un1(unop::log1p, c128(1e-10, 1e-10));
    CHECK(lp.real() == doctest::Approx(1e-10).epsilon(1e-9).scale(0));
    CHECK(lp.imag() == doctest::Approx(1e-10).epsilon(1e-9).scale(0));
    const c128 em2 = un1(unop::expm1, c128(1.0, 2.0)), ex2 = std::exp(c128(1.0, 2.0)) - 1.0;
    CHECK(em2.real() == doctest::Approx(ex2.real()));
    CHECK(em2.imag() == doctest::Approx(ex2.imag()));
    const c128 lp2 = un1(unop::log1p, c128(0.25, -0.3)), lx2 = std::log(c128(1.25, -0.3));
    CHECK(lp2.real() == doctest::Approx(lx2.real()));
    CHECK(lp2.imag() == doctest::Approx(lx2.imag()));
    CHECK(un1(unop::rsqrt, c128(4, 0)) == c128(0.5, 0));
    CHECK(un1(unop::logistic, c128(0, 0)) == c128(0.5, 0));
    // atan2 agrees with the real atan2 on real inputs
    const c128 at = bin1(binop::atan2, c128(1, 0), c128(-1, 0));
    CHECK(at.real() == doctest::Approx(3 * std::numbers::pi / 4));
    CHECK(at.imag() == doctest::Approx(0.0));
    CHECK(bin1(binop::mul, c64(1, 2), c64(3, 4)) == c64(-5, 10));
    const c128 q = bin1(binop::div, c128(-5, 10), c128(3, 4));
    CHECK(q.real() == doctest::Approx(1.0));
    CHECK(q.imag() == doctest::Approx(2.0));
    CHECK_THROWS_AS(bin1(binop::max, c64(1, 2), c64(3, 4)), std::invalid_argument);
    CHECK_THROWS_AS(un1(unop::floor, c64(1, 2)), std::invalid_argument);
}

TEST_CASE("bitcast_convert") {
    // 1.0f = 0x3F800000, bytes in memory (little-endian): 00 00 80 3F
    const auto one = vec<float>({1.0f});
    const auto bytes = r::bitcast_convert<std::int8_t>(one);
    CHECK(bytes == r::array<std::int8_t>({1, 4}, {0, 0, -128, 63}));
    CHECK(r::bitcast_convert<float>(bytes) == one);
    const auto halves = r::bitcast_convert<std::uint16_t>(vec<float>({1.0f, -2.0f}));
    CHECK(halves == r::array<std::uint16_t>({2, 2}, {0x0000, 0x3F80, 0x0000, 0xC000}));
    CHECK(r::bitcast_convert<float>(halves) == vec<float>({1.0f, -2.0f}));
    CHECK(r::bitcast_convert<std::uint16_t>(sc(1.0f)) == vec<std::uint16_t>({0x0000, 0x3F80}));
    CHECK(r::bitcast_convert<float>(vec<std::uint16_t>({0x0000, 0x3F80})) == sc(1.0f));
    CHECK(r::bitcast_convert<std::int32_t>(vec<float>({1.0f, -0.0f})) == vec<std::int32_t>({0x3F800000, INT32_MIN}));
    CHECK(r::bitcast_convert<std::uint64_t>(vec<double>({1.0})) == vec<std::uint64_t>({0x3FF0000000000000ull}));
    CHECK_THROWS_AS(r::bitcast_convert<float>(r::array<std::int8_t>({1, 3}, {0, 0, 0})), std::invalid_argument);
    CHECK_THROWS_AS(r::bitcast_convert<float>(sc<std::int8_t>(0)), std::invalid_argument);
}

TEST_CASE("reduce_precision") {
    // <5,10> = binary16 without subnormals
    const auto x = vec<float>({0x1p-15f, -0x1p-15f, 0x1p-14f, 0x1.ffep-15f, 0x1.ffcp-15f, 70000.0f, -70000.0f, 65504.0f,
                               65519.0f, 65520.0f, inff, -0.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 0.1f});
    const auto y = r::reduce_precision(x, 5, 10);
    CHECK(r::identical(y, vec<float>({0.0f, -0.0f, 0x1p-14f, 0x1p-14f, 0.0f, inff, -inff, 65504.0f, 65504.0f, inff,
                                      inff, -0.0f, 1.0f, 1.0f + 0x1p-9f, 0.0999755859375f})));
    CHECK(std::isnan(r::reduce_precision(vec<float>({nanf_}), 5, 10).data[0]));
    CHECK(std::isnan(r::reduce_precision(vec<float>({-nanf_}), 2, 0).data[0]));
    CHECK(std::isnan(r::reduce_precision(vec<float>({std::bit_cast<float>(0x7F800001u)}), 8, 0).data[0]));
    // <8,7> = bfloat16: 1 + 2^-8 is a tie and rounds to even (down), 1 + 3*2^-8 rounds up; an f32
    // subnormal (exponent not reduced) is rounded at its fixed bit positions: 0x000116C2 -> 0x00010000
    const auto b = r::reduce_precision(
        vec<float>({1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-7f, std::numeric_limits<float>::max(), 1e-40f}), 8,
        7);
    CHECK(r::identical(b, vec<float>({1.0f, 1.0f + 0x1p-6f, 1.0f + 0x1p-7f, inff, 0x1p-133f})));
    // a wider format is a no-op
    CHECK(r::identical(r::reduce_precision(vec<float>({0.1f, 1e-40f}), 8, 23), vec<float>({0.1f, 1e-40f})));
    CHECK(r::identical(r::reduce_precision(vec<float>({0.1f}), 11, 52), vec<float>({0.1f})));
    // double source
    CHECK(r::identical(r::reduce_precision(vec<double>({70000.0, 1.0 + 0x1p-24, 1e-300}), 8, 23),
                       vec<double>({70000.0, 1.0, 0.0})));
    CHECK(r::identical(r::reduce_precision(vec<double>({1e300}), 8, 23), vec<double>({INFINITY})));
    // zero mantissa bits: powers of two only; a tie goes to the even biased exponent (3 -> 2, 6 -> 8)
    CHECK(r::identical(r::reduce_precision(vec<float>({1.5f, 1.4f, 3.0f, 2.9f, 6.0f}), 8, 0),
                       vec<float>({2.0f, 1.0f, 2.0f, 2.0f, 8.0f})));
    // one exponent bit has no normal numbers
    CHECK(r::identical(r::reduce_precision(vec<float>({1.0f, 2.0f, 0.5f, -3.0f}), 1, 4),
                       vec<float>({0.0f, inff, 0.0f, -inff})));
    CHECK_THROWS_AS(r::reduce_precision(vec<float>({1.0f}), 0, 4), std::invalid_argument);
    CHECK_THROWS_AS(r::reduce_precision(vec<float>({1.0f}), 4, -1), std::invalid_argument);
}

TEST_CASE("iota") {
    const auto i0 = r::iota<std::int32_t>({4, 8}, 0), i1 = r::iota<std::int32_t>({4, 8}, 1);
    for (std::int64_t a = 0; a < 4; ++a)
        for (std::int64_t b = 0; b < 8; ++b) {
            CHECK(i0.at({a, b}) == a);
            CHECK(i1.at({a, b}) == b);
        }
    CHECK(r::iota<float>({2, 3}, 1) == r::array<float>({2, 3}, {0, 1, 2, 0, 1, 2}));
    CHECK(r::iota<std::uint8_t>({300}, 0).data[299] == 43); // 299 mod 256
    CHECK_THROWS_AS(r::iota<int>({2, 3}, 2), std::invalid_argument);
}

TEST_CASE("f16 and bf16") {
    using xlet::bfloat16;
    using xlet::half;
    auto hv = [](std::vector<float> v) {
        std::vector<half> h;
        for (float f : v)
            h.push_back(half(f));
        return vec<half>(h);
    };
    auto as_float = [](const auto& a) { return r::convert<float>(a); };
    // every op rounds once to the storage type: 1 + 2^-11 is a tie in f16 -> 1
    CHECK(as_float(r::binary(binop::add, hv({1.0f}), hv({0x1p-11f}))) == vec<float>({1.0f}));
    CHECK(as_float(r::binary(binop::add, hv({1.0f}), hv({0x1.8p-11f}))) == vec<float>({1.0f + 0x1p-10f}));
    CHECK(as_float(r::binary(binop::mul, hv({300.0f}), hv({300.0f}))) == vec<float>({inff}));
    CHECK(as_float(r::binary(binop::div, hv({1.0f}), hv({3.0f}))) == vec<float>({0.333251953125f}));
    CHECK(as_float(r::unary(unop::exp, hv({0.0f, 1.0f}))) == vec<float>({1.0f, 2.71875f}));
    CHECK(as_float(r::unary(unop::round_nearest_even, hv({2.5f, -0.5f}))) == vec<float>({2.0f, -0.0f}));
    CHECK(std::isnan(as_float(r::binary(binop::max, hv({1.0f}), hv({nanf_}))).data[0]));
    CHECK(std::signbit(as_float(r::binary(binop::min, hv({0.0f}), hv({-0.0f}))).data[0]));
    CHECK(r::compare(cmpop::lt_total, hv({-0.0f, -nanf_, 1.0f}), hv({0.0f, -inff, nanf_})) ==
          vec<bool>({true, true, true}));
    CHECK(r::compare(cmpop::eq, hv({-0.0f, nanf_}), hv({0.0f, nanf_})) == vec<bool>({true, false}));
    CHECK(r::is_finite(hv({1.0f, inff, nanf_})) == vec<bool>({true, false, false}));
    CHECK(as_float(r::abs(hv({-2.0f}))) == vec<float>({2.0f}));
    CHECK(as_float(r::imag(hv({-2.0f}))) == vec<float>({0.0f}));
    // conversions
    CHECK(as_float(r::convert<half>(vec<double>({1.0 + 0x1p-11 + 0x1p-40}))) == vec<float>({1.0f + 0x1p-10f}));
    CHECK(as_float(r::convert<half>(vec<std::int32_t>({65504, 65520, 2049}))) == vec<float>({65504.0f, inff, 2048.0f}));
    CHECK(as_float(r::convert<bfloat16>(vec<std::int32_t>({(1 << 25) + (1 << 17) + 1}))) ==
          vec<float>({float((1 << 25) + (1 << 18))}));
    CHECK(r::convert<std::int8_t>(hv({-200.0f, 3.75f, nanf_})) == vec<std::int8_t>({-128, 3, 0}));
    CHECK(as_float(r::convert<bfloat16>(hv({65504.0f}))) == vec<float>({65536.0f}));
    CHECK(r::convert<bool>(hv({0.0f, nanf_})) == vec<bool>({false, true}));
    CHECK(as_float(r::iota<bfloat16>({3}, 0)) == vec<float>({0.0f, 1.0f, 2.0f}));
    // bitcast: f16 1.0 = 0x3C00, bf16 1.0 = 0x3F80
    CHECK(r::bitcast_convert<std::uint16_t>(hv({1.0f, -2.0f})) == vec<std::uint16_t>({0x3C00, 0xC000}));
    CHECK(r::bitcast_convert<std::uint16_t>(vec<bfloat16>({bfloat16(1.0f)})) == vec<std::uint16_t>({0x3F80}));
    CHECK(as_float(r::bitcast_convert<half>(vec<float>({1.0f}))) ==
          r::array<float>({1, 2}, {0.0f, 1.875f})); // 0x0000, 0x3F80
    // reduce_precision on f16 works on the f16 bits: <5,4> and <3,10>
    CHECK(as_float(r::reduce_precision(hv({1.0f + 0x1p-5f, 1.0f + 3 * 0x1p-5f, 1000.0f}), 5, 4)) ==
          vec<float>({1.0f, 1.0f + 0x1p-3f, 992.0f}));
    CHECK(as_float(r::reduce_precision(hv({16.0f, 0.125f, 2.0f}), 3, 10)) == vec<float>({inff, 0.0f, 2.0f}));
    // computed in float: an f16 subnormal is below the <5,10> normal range and is flushed
    // <5,10> is a no-op on f16 (the spec: widths at or above the type's change nothing): subnormals stay
    CHECK(r::identical(as_float(r::reduce_precision(hv({0x1p-20f, -0x1p-24f}), 5, 10)), vec<float>({0x1p-20f, -0x1p-24f})));
}

TEST_CASE("reduce_precision agrees with the f16/bf16/f32 conversions on normal results") {
    // <8,7> is bf16 (same exponent range, subnormals at the same bit positions): equal for every non-NaN.
    // <5,10> is f16 for |x| >= 2^-14 (f16 subnormals are flushed by reduce_precision).
    // <8,23> on doubles is f32 for |x| >= 2^-126.
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return state;
    };
    for (int i = 0; i < 20000; ++i) {
        const float f = std::bit_cast<float>(static_cast<std::uint32_t>(next() >> 32));
        if (std::isnan(f)) continue;
        const float bf = r::reduce_precision(sc(f), 8, 7).data[0];
        REQUIRE(std::bit_cast<std::uint32_t>(bf) ==
                std::bit_cast<std::uint32_t>(static_cast<float>(xlet::bfloat16(f))));
        const int scale = static_cast<int>(next() % 40) - 20;
        const float g = (std::isfinite(f) && f != 0) ? std::ldexp(f, scale - std::ilogb(f)) : f; // |g| ~ 2^scale
        if (std::isfinite(g) && std::fabs(g) >= 0x1p-14f) {
            const float h = r::reduce_precision(sc(g), 5, 10).data[0];
            REQUIRE(std::bit_cast<std::uint32_t>(h) == std::bit_cast<std::uint32_t>(static_cast<float>(xlet::half(g))));
        }
        const double d = std::bit_cast<double>(next());
        if (!std::isnan(d) && std::fabs(d) >= 0x1p-126) {
            const double rd = r::reduce_precision(sc(d), 8, 23).data[0];
            REQUIRE(std::bit_cast<std::uint64_t>(rd) == std::bit_cast<std::uint64_t>(double(static_cast<float>(d))));
        }
    }
}

// ---- convolution (reference_conv.hpp) ---------------------------------------------------------------

namespace {

using ad = r::array<double>;

// A 1-D convolution NCW x OIW -> NCW (N = C = O = 1 unless the arrays say otherwise).
r::conv_desc conv1d() { return r::conv_layout("NCW", "OIW", "NCW"); }

// x (row-major over dims) with the spatial dimensions zero-interleaved by `d` (d - 1 zeros between
// neighbours): an explicit lhs-dilated array, for comparison with lhs_dilation.
ad zero_insert(const ad& x, const dims& spatial, const dims& d) {
    dims od = x.dims;
    for (std::size_t s = 0; s < spatial.size(); ++s) {
        auto& n = od[static_cast<std::size_t>(spatial[s])];
        n = n == 0 ? 0 : (n - 1) * d[s] + 1;
    }
    ad out(od, std::vector<double>(static_cast<std::size_t>(r::element_count(od))));
    for (std::int64_t i = 0; i < x.size(); ++i) {
        dims idx = r::unflatten(i, x.dims);
        for (std::size_t s = 0; s < spatial.size(); ++s)
            idx[static_cast<std::size_t>(spatial[s])] *= d[s];
        out.at(idx) = x.data[static_cast<std::size_t>(i)];
    }
    return out;
}

// Small integers (exact in double): every comparison below is exact.
ad ints(dims d, std::int64_t seed) {
    const auto n = static_cast<std::size_t>(r::element_count(d));
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<double>(static_cast<std::int64_t>((i * 7 + static_cast<std::size_t>(seed) * 13) % 11) - 5);
    return ad(std::move(d), std::move(v));
}

// out[perm-index] = x[index]: out.dims[k] = x.dims[perm[k]].
ad permute(const ad& x, const dims& perm) {
    dims od(perm.size());
    for (std::size_t k = 0; k < perm.size(); ++k)
        od[k] = x.dims[static_cast<std::size_t>(perm[k])];
    ad out(od, std::vector<double>(x.data.size()));
    for (std::int64_t i = 0; i < out.size(); ++i) {
        const dims oi = r::unflatten(i, od);
        dims xi(perm.size());
        for (std::size_t k = 0; k < perm.size(); ++k)
            xi[static_cast<std::size_t>(perm[k])] = oi[k];
        out.data[static_cast<std::size_t>(i)] = x.at(xi);
    }
    return out;
}

double inner(const ad& a, const ad& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        s += a.data[i] * b.data[i];
    return s;
}

} // namespace

TEST_CASE("conv: conv_layout reads JAX-style layout strings") {
    const auto nhwc = r::conv_layout("NHWC", "HWIO", "NHWC");
    CHECK(nhwc.input_batch_dimension == 0);
    CHECK(nhwc.input_feature_dimension == 3);
    CHECK(nhwc.input_spatial_dimensions == dims{1, 2});
    CHECK(nhwc.kernel_input_feature_dimension == 2);
    CHECK(nhwc.kernel_output_feature_dimension == 3);
    CHECK(nhwc.kernel_spatial_dimensions == dims{0, 1});
    CHECK(nhwc.output_feature_dimension == 3);
    CHECK(nhwc.output_spatial_dimensions == dims{1, 2});
    const auto nchw = r::conv_layout("NCHW", "OIHW", "NCHW");
    CHECK(nchw.input_feature_dimension == 1);
    CHECK(nchw.input_spatial_dimensions == dims{2, 3});
    CHECK(nchw.kernel_output_feature_dimension == 0);
    CHECK(nchw.kernel_input_feature_dimension == 1);
    CHECK(nchw.kernel_spatial_dimensions == dims{2, 3});
    // Spatial dimensions follow the kernel string's order; lhs/out letters are matched by name.
    const auto mixed = r::conv_layout("NWHC", "OIHW", "NCHW");
    CHECK(mixed.input_spatial_dimensions == dims{2, 1});
    CHECK(mixed.output_spatial_dimensions == dims{2, 3});
    CHECK_THROWS_AS(r::conv_layout("NHW", "HWIO", "NHWC"), std::invalid_argument);
    CHECK_THROWS_AS(r::conv_layout("NHWC", "HWII", "NHWC"), std::invalid_argument);
}

TEST_CASE("conv: output shape (StableHLO C25)") {
    auto d = conv1d();
    CHECK(r::conv_output_shape({1, 1, 5}, {1, 1, 3}, d) == dims{1, 1, 3});
    d.window_strides = {2};
    d.padding_low = {1};
    d.padding_high = {1};
    CHECK(r::conv_output_shape({1, 1, 5}, {1, 1, 3}, d) == dims{1, 1, 3}); // (7 - 3) / 2 + 1
    CHECK(r::conv_output_shape({1, 1, 6}, {1, 1, 3}, d) == dims{1, 1, 3}); // floor(5 / 2) + 1
    d = conv1d();
    CHECK(r::conv_output_shape({1, 1, 2}, {1, 1, 3}, d) == dims{1, 1, 0}); // window larger than input
    CHECK(r::conv_output_shape({1, 1, 0}, {1, 1, 1}, d) == dims{1, 1, 0}); // empty input
    CHECK(r::conv_output_shape({1, 1, 4}, {1, 1, 0}, d) == dims{1, 1, 5}); // empty kernel: 4 - 0 + 1 windows
    d.padding_low = {-3};
    d.padding_high = {-2};
    CHECK(r::conv_output_shape({1, 1, 4}, {1, 1, 1}, d) == dims{1, 1, 0}); // padded size -1
    d = conv1d();
    d.lhs_dilation = {3};
    d.rhs_dilation = {2};
    CHECK(r::conv_output_shape({1, 1, 4}, {1, 1, 3}, d) == dims{1, 1, 6}); // 10 - 5 + 1
    d = conv1d();
    d.batch_group_count = 2;
    CHECK(r::conv_output_shape({6, 1, 4}, {4, 1, 1}, d) == dims{3, 4, 4});
    // NHWC, 3x3 stride 2 pad 3 on 224x224 -> 112x112 features 64
    auto n = r::conv_layout("NHWC", "HWIO", "NHWC");
    n.window_strides = {2, 2};
    n.padding_low = n.padding_high = {3, 3};
    CHECK(r::conv_output_shape({1, 224, 224, 3}, {7, 7, 3, 64}, n) == dims{1, 112, 112, 64});
}

TEST_CASE("conv: constraint violations throw") {
    auto d = conv1d();
    CHECK_THROWS_AS(r::conv_output_shape({1, 1, 5, 1}, {1, 1, 3}, d), std::invalid_argument); // C1 / C12
    d.window_strides = {0};
    CHECK_THROWS_AS(r::conv_output_shape({1, 1, 5}, {1, 1, 3}, d), std::invalid_argument); // C3
    d = conv1d();
    d.lhs_dilation = {1, 1};
    CHECK_THROWS_AS(r::conv_output_shape({1, 1, 5}, {1, 1, 3}, d), std::invalid_argument); // C5
    d = conv1d();
    d.batch_group_count = 2;
    CHECK_THROWS_AS(r::conv_output_shape({3, 1, 5}, {2, 1, 3}, d), std::invalid_argument); // C10
    CHECK_THROWS_AS(r::conv_output_shape({4, 1, 5}, {3, 1, 3}, d), std::invalid_argument); // C15
    d = conv1d();
    d.feature_group_count = 2;
    CHECK_THROWS_AS(r::conv_output_shape({1, 3, 5}, {2, 1, 3}, d), std::invalid_argument); // C11
    CHECK_THROWS_AS(r::conv_output_shape({1, 4, 5}, {2, 1, 3}, d), std::invalid_argument); // C14
    CHECK_THROWS_AS(r::conv_output_shape({1, 4, 5}, {3, 2, 3}, d), std::invalid_argument); // C16
    d.batch_group_count = 2;
    CHECK_THROWS_AS(r::conv_output_shape({2, 4, 5}, {4, 2, 3}, d), std::invalid_argument); // C23
    d = conv1d();
    d.input_feature_dimension = 0;
    CHECK_THROWS_AS(r::conv_output_shape({1, 1, 5}, {1, 1, 3}, d), std::invalid_argument); // C13
}

TEST_CASE("conv: 1-D with padding and stride (the spec's pseudo-code)") {
    // padded [0 1 2 3 4 5 0], windows at 0, 2, 4 of w = [1 10 100]
    auto d = conv1d();
    d.window_strides = {2};
    d.padding_low = {1};
    d.padding_high = {1};
    const ad x({1, 1, 5}, {1, 2, 3, 4, 5}), w({1, 1, 3}, {1, 10, 100});
    CHECK(r::conv(x, w, d) == ad({1, 1, 3}, {210, 432, 54}));
    CHECK(r::conv<long double>(x, w, d) == r::array<long double>({1, 1, 3}, {210, 432, 54}));
    // Integer operands, accumulated in an integer Acc.
    const r::array<std::int32_t> xi({1, 1, 5}, {1, 2, 3, 4, -5}), wi({1, 1, 3}, {1, 10, 100});
    CHECK(r::conv<std::int64_t>(xi, wi, d) == r::array<std::int64_t>({1, 1, 3}, {210, 432, -46}));
    // conv_abs: |x| . |w| over the same taps
    const ad xn({1, 1, 5}, {1, -2, 3, -4, 5}), wn({1, 1, 3}, {-1, 10, 100});
    CHECK(r::conv(xn, wn, d) == ad({1, 1, 3}, {-190, -368, 54}));
    CHECK(r::conv_abs(xn, wn, d) == ad({1, 1, 3}, {210, 432, 54}));
}

TEST_CASE("conv: 2-D 3x3 kernel, VALID and SAME") {
    // x[r][c] = 4 r + c + 1 (4x4), kernel diag(1, 1, 2): out[i][j] = x[i-1][j-1] + x[i][j] + 2 x[i+1][j+1]
    // (SAME: offsets relative to the centre; VALID: the window's corner).
    std::vector<double> xv(16);
    for (std::size_t i = 0; i < 16; ++i)
        xv[i] = static_cast<double>(i + 1);
    const ad x({1, 1, 4, 4}, xv), w({1, 1, 3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 2});
    auto d = r::conv_layout("NCHW", "OIHW", "NCHW");
    CHECK(r::conv(x, w, d) == ad({1, 1, 2, 2}, {29, 33, 45, 49}));
    d.padding_low = d.padding_high = {1, 1};
    CHECK(r::conv(x, w, d) == ad({1, 1, 4, 4}, {13, 16, 19, 4, 25, 29, 33, 11, 37, 45, 49, 19, 13, 23, 25, 27}));
    d.window_strides = {2, 3};
    CHECK(r::conv(x, w, d) == ad({1, 1, 2, 2}, {13, 4, 37, 19}));
}

TEST_CASE("spec: StableHLO convolution example (lhs_dilation 2, strides 4)") {
    const ad x({1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17});
    const ad w({3, 3, 1, 1}, std::vector<double>(9, 1.0));
    auto d = r::conv_layout("NHWC", "HWIO", "NHWC");
    d.window_strides = {4, 4};
    d.lhs_dilation = {2, 2};
    CHECK(r::conv(x, w, d) == ad({1, 2, 2, 1}, {10, 26, 46, 62}));
}

TEST_CASE("conv: negative padding crops the input") {
    const ad x({1, 1, 5}, {1, 2, 3, 4, 5}), w({1, 1, 2}, {1, 10});
    auto d = conv1d();
    d.padding_low = {-1};
    d.padding_high = {-1}; // [2 3 4]
    CHECK(r::conv(x, w, d) == ad({1, 1, 2}, {32, 43}));
    d.padding_high = {2}; // [2 3 4 5 0 0]
    CHECK(r::conv(x, w, d) == ad({1, 1, 5}, {32, 43, 54, 5, 0}));
    d.padding_low = {-2};
    d.padding_high = {-3}; // nothing left
    CHECK(r::conv(x, w, d) == ad({1, 1, 0}, {}));
}

TEST_CASE("conv: lhs dilation (a transposed convolution) equals an explicitly zero-inserted input") {
    // [1 2 3] dilated by 2 -> [1 0 2 0 3], padded -> [0 1 0 2 0 3 0], w = [1 10 100]
    const ad x({1, 1, 3}, {1, 2, 3}), w({1, 1, 3}, {1, 10, 100});
    auto d = conv1d();
    d.lhs_dilation = {2};
    d.padding_low = d.padding_high = {1};
    const ad expect({1, 1, 5}, {10, 201, 20, 302, 30});
    CHECK(r::conv(x, w, d) == expect);
    auto plain = conv1d();
    plain.padding_low = plain.padding_high = {1};
    CHECK(r::conv(ad({1, 1, 5}, {1, 0, 2, 0, 3}), w, plain) == expect);

    // 2-D, N = 2, C = 2, O = 3, dilations 2 and 3, stride 2 x 1, asymmetric and negative padding.
    auto d2 = r::conv_layout("NCHW", "OIHW", "NCHW");
    d2.lhs_dilation = {2, 3};
    d2.window_strides = {2, 1};
    d2.padding_low = {2, -1};
    d2.padding_high = {1, 2};
    auto p2 = d2;
    p2.lhs_dilation = {};
    const ad x2 = ints({2, 2, 3, 4}, 1), w2 = ints({3, 2, 3, 2}, 2);
    const ad got = r::conv(x2, w2, d2);
    CHECK(got.dims == dims{2, 3, 3, 10}); // H: (2 + 5 + 1 - 3) / 2 + 1; W: -1 + 10 + 2 - 2 + 1
    CHECK(got == r::conv(zero_insert(x2, {2, 3}, {2, 3}), w2, p2));
    double sum_abs = 0;
    for (double v : got.data)
        sum_abs += std::fabs(v);
    CHECK(sum_abs > 0);
}

TEST_CASE("conv: rhs dilation (atrous)") {
    // w = [1 10] dilated by 2 -> window [1 0 10] over [1 2 3 4 5]
    const ad x({1, 1, 5}, {1, 2, 3, 4, 5}), w({1, 1, 2}, {1, 10});
    auto d = conv1d();
    d.rhs_dilation = {2};
    CHECK(r::conv(x, w, d) == ad({1, 1, 3}, {31, 42, 53}));
    d.rhs_dilation = {4}; // window [1 0 0 0 10]
    CHECK(r::conv(x, w, d) == ad({1, 1, 1}, {51}));
    d.rhs_dilation = {3};
    d.window_strides = {2};
    d.padding_low = d.padding_high = {2}; // [0 0 1 2 3 4 5 0 0], windows [a . . b] at 0, 2, 4
    CHECK(r::conv(x, w, d) == ad({1, 1, 3}, {20, 41, 3}));
}

TEST_CASE("conv: window reversal") {
    const ad x({1, 1, 5}, {1, 2, 3, 4, 5}), w({1, 1, 3}, {1, 10, 100});
    auto d = conv1d();
    CHECK(r::conv(x, w, d) == ad({1, 1, 3}, {321, 432, 543}));
    d.window_reversal = {true}; // window position k meets tap 2 - k
    CHECK(r::conv(x, w, d) == ad({1, 1, 3}, {123, 234, 345}));
    // 2-D: reversing one dimension only equals convolving with that dimension of the kernel flipped.
    auto d2 = r::conv_layout("NHWC", "HWIO", "NHWC");
    d2.padding_low = {1, 0};
    d2.padding_high = {0, 2};
    d2.rhs_dilation = {1, 2};
    const ad x2 = ints({2, 4, 5, 2}, 3), w2 = ints({3, 2, 2, 3}, 4);
    auto flipped = w2;
    for (std::int64_t i = 0; i < w2.size(); ++i) {
        dims k = r::unflatten(i, w2.dims);
        k[0] = 2 - k[0];
        flipped.at(k) = w2.data[static_cast<std::size_t>(i)];
    }
    const ad plain = r::conv(x2, flipped, d2);
    d2.window_reversal = {true, false};
    CHECK(r::conv(x2, w2, d2) == plain);
    CHECK(r::conv(x2, w2, d2) != r::conv(x2, flipped, d2));
}

TEST_CASE("conv: feature_group_count (grouped and depthwise)") {
    // C = 4, two groups of 2 input features; O = 4, two per group.
    const ad x({1, 4, 1}, {1, 2, 3, 4});
    const ad w({4, 2, 1}, {1, 10, 100, 1000, 2, 20, 200, 2000});
    auto d = conv1d();
    d.feature_group_count = 2;
    // o0 = 1*1 + 2*10, o1 = 1*100 + 2*1000 (features 0, 1); o2 = 3*2 + 4*20, o3 = 3*200 + 4*2000 (2, 3)
    CHECK(r::conv(x, w, d) == ad({1, 4, 1}, {21, 2100, 86, 8600}));
    // depthwise with channel multiplier 2: C = 2 = groups, O = 4, one input feature per group
    const ad xd({1, 2, 3}, {1, 2, 3, 4, 5, 6});
    const ad wd({4, 1, 2}, {1, 1, 1, -1, 10, 0, 0, 10});
    d.feature_group_count = 2;
    CHECK(r::conv(xd, wd, d) == ad({1, 4, 2}, {3, 5, -1, -1, 40, 50, 50, 60}));
}

TEST_CASE("conv: batch_group_count") {
    // N = 4 split in two groups {0, 1}, {2, 3}; O = 4, features {0, 1} from group 0, {2, 3} from group 1.
    const ad x({4, 1, 1}, {1, 2, 3, 4});
    const ad w({4, 1, 1}, {1, 2, 3, 4});
    auto d = conv1d();
    d.batch_group_count = 2;
    // out[b'][o] = x[g(o) * 2 + b'] * w[o]
    CHECK(r::conv(x, w, d) == ad({2, 4, 1}, {1, 2, 9, 12, 2, 4, 12, 16}));
    // With spatial extent and C = 2 (the kernel reads all input features): a weight gradient's shape.
    const ad xs({2, 2, 3}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60});
    const ad ws({2, 2, 2}, {1, 0, 0, 1, 1, 1, 0, 0});
    // o0 (batch 0): x[0][0][q] + x[0][1][q+1] = [1+5, 2+6]; o1 (batch 1): x[1][0][q] + x[1][0][q+1] = [30, 50]
    CHECK(r::conv(xs, ws, d) == ad({1, 2, 2}, {6, 8, 30, 50}));
}

TEST_CASE("conv: NHWC and NCHW give transposed results") {
    // 1x1 kernel: per pixel y = W x with W = [[1 0] [0 1] [1 1]]; pixels (1, 2) and (3, 4).
    const ad xh({1, 1, 2, 2}, {1, 2, 3, 4});       // NHWC
    const ad wh({1, 1, 2, 3}, {1, 0, 1, 0, 1, 1}); // HWIO
    CHECK(r::conv(xh, wh, r::conv_layout("NHWC", "HWIO", "NHWC")) == ad({1, 1, 2, 3}, {1, 2, 3, 3, 4, 7}));
    const ad xc({1, 2, 1, 2}, {1, 3, 2, 4});       // NCHW
    const ad wc({3, 2, 1, 1}, {1, 0, 0, 1, 1, 1}); // OIHW
    CHECK(r::conv(xc, wc, r::conv_layout("NCHW", "OIHW", "NCHW")) == ad({1, 3, 1, 2}, {1, 3, 2, 4, 3, 7}));
    // The NHWC input with an NCHW output: the same numbers in the other order.
    CHECK(r::conv(xh, wh, r::conv_layout("NHWC", "HWIO", "NCHW")) == ad({1, 3, 1, 2}, {1, 3, 2, 4, 3, 7}));

    // 3x3, stride 2, padding 1, N = 2, C = 3, O = 4 on 5x6: conv(NCHW) == transpose(conv(NHWC)).
    const ad x = ints({2, 5, 6, 3}, 5), w = ints({3, 3, 3, 4}, 6);
    auto dh = r::conv_layout("NHWC", "HWIO", "NHWC");
    dh.window_strides = {2, 2};
    dh.padding_low = dh.padding_high = {1, 1};
    auto dc = r::conv_layout("NCHW", "OIHW", "NCHW");
    dc.window_strides = dh.window_strides;
    dc.padding_low = dc.padding_high = dh.padding_low;
    const ad yh = r::conv(x, w, dh);
    CHECK(yh.dims == dims{2, 3, 3, 4});
    const ad yc = r::conv(permute(x, {0, 3, 1, 2}), permute(w, {3, 2, 0, 1}), dc);
    CHECK(yc == permute(yh, {0, 3, 1, 2}));
    // A hand-checked element: y[0][0][0][0] (NHWC) = sum over taps (1..2, 1..2) and c of x[0][kh-1][kw-1][c]
    // w[kh][kw][c][0]
    double e = 0;
    for (std::int64_t kh = 1; kh < 3; ++kh)
        for (std::int64_t kw = 1; kw < 3; ++kw)
            for (std::int64_t c = 0; c < 3; ++c)
                e += x.at({0, kh - 1, kw - 1, c}) * w.at({kh, kw, c, 0});
    CHECK(yh.at({0, 0, 0, 0}) == e);
}

TEST_CASE("conv: the data gradient is the adjoint (lhs dilation + reversal + swapped kernel features)") {
    // y = conv(x, w), NCHW/OIHW, 3x3 stride 2 pad 1 on 6x5 -> 3x3. The transposed convolution
    // dx = conv(dy, w with I and O swapped and both spatial dims reversed, lhs_dilation 2,
    // padding low 3 - 1 - 1 = 1, high chosen so that dx has x's size) satisfies <y, dy> == <x, dx>.
    const ad x = ints({2, 3, 6, 5}, 7), w = ints({4, 3, 3, 3}, 8);
    auto d = r::conv_layout("NCHW", "OIHW", "NCHW");
    d.window_strides = {2, 2};
    d.padding_low = d.padding_high = {1, 1};
    const ad y = r::conv(x, w, d);
    REQUIRE(y.dims == dims{2, 4, 3, 3});
    const ad dy = ints(y.dims, 9);
    auto t = r::conv_layout("NCHW", "IOHW", "NCHW"); // the kernel's dim 0 (O) is now the input feature
    t.lhs_dilation = {2, 2};
    t.window_reversal = {true, true};
    t.padding_low = {1, 1};
    t.padding_high = {6 + 2 - 5 - 1, 5 + 2 - 5 - 1}; // H + K - 1 - dilated(3) - low
    const ad dx = r::conv(dy, w, t);
    REQUIRE(dx.dims == x.dims);
    CHECK(inner(y, dy) == inner(x, dx));
    CHECK(inner(y, dy) != 0);
}
