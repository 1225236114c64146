// convert_element_type (convert.hpp). Semantics: docs/semantics.md ("convert_element_type"). The
// spec's example; hand-checked special values for every pair of element kinds (saturation at both
// ends, NaN, truncation, rounding to nearest even, double-rounding traps, wrap-around, pred,
// complex); and a differential test against the reference evaluator (tests/reference/) for every
// pair of element types. bitcast_convert_type, reduce_precision and iota are tested in
// convert_bitcast_test.cpp (split for compile time). Helpers: elementwise_common.hpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "elementwise_common.hpp"

namespace {


// One static shape per (source, destination) pair, shared by the hand-checked conversions and the
// differential test, so that each pair instantiates the evaluator once. All six have more than 32
// elements and no multiple of 4: SIMD bodies and padded tails for every lane count.
using type_list = std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t,
                             std::uint64_t, half, bfloat16, float, double, c64_t, c128_t>;
template<class T> consteval std::size_t type_no() {
    return []<class... Ts>(std::tuple<Ts...>*) {
        std::size_t i = 0;
        bool seen = false;
        ((seen = seen || std::is_same_v<T, Ts>, i += seen ? 0 : 1), ...);
        return i;
    }(static_cast<type_list*>(nullptr));
}
template<class T, class U> using pair_shape = shape_no<(type_no<T>() * 5 + type_no<U>()) % 6>;

// convert_element_type<U> on a pattern tiled over the pair's shape.
template<class U, class T> void conv(const std::vector<T>& in, const std::vector<U>& want) {
    REQUIRE(in.size() == want.size());
    typename pair_shape<T, U>::template tensor_t<T> a;
    REQUIRE(in.size() <= a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        a.data()[i] = in[i % in.size()];
    auto got = eval(convert_element_type<U>(a));
    expect_tiled_n<U>("convert_element_type to " + std::string(xla_name<U>) + " from " + std::string(xla_name<T>),
                      got.data(), a.size(), want, [&](std::size_t j) { return "x = " + show(in[j]); });
}

// Float to integer: truncation toward zero, saturation at both ends, NaN to 0.
template<class F, class I> void float_to_int() {
    using L = lim<I>;
    const F nan = lim<F>::quiet_NaN(), inf = lim<F>::infinity();
    // The largest finite values saturate unless the integer type holds them (f16's 65504).
    auto sat = [](F v) {
        const double d = to_double(v);
        return d >= static_cast<double>(L::max()) ? L::max() : d <= static_cast<double>(L::min()) ? L::min() : static_cast<I>(d);
    };
    std::vector<F> in = {nan, -nan, inf, -inf, lim<F>::max(), lim<F>::lowest(), F(0.0), -F(0.0), F(0.99), F(-0.99), F(-0.5),
                         F(1.5), F(-1.5), F(100.25), F(-100.25), lim<F>::denorm_min()};
    std::vector<I> want = {0, 0, L::max(), L::min(), sat(lim<F>::max()), sat(lim<F>::lowest()), 0, 0, 0, 0, 0, 1,
                           static_cast<I>(L::is_signed ? -1 : 0), 100, static_cast<I>(L::is_signed ? -100 : 0), 0};
    conv<I, F>(in, want);
}

} // namespace

// ================================================================================================
// The spec's examples
// ================================================================================================
TEST_CASE("spec: ConvertElementType s32 {0, 1, 2} to f32") {
    s32<3> a{0, 1, 2};
    auto b = eval(convert_element_type<float>(a));
    static_assert(std::is_same_v<decltype(b), f32<3>>);
    CHECK(equal(b, f32<3>{0.0f, 1.0f, 2.0f}));
}

// ================================================================================================
// convert_element_type: hand-checked values
// ================================================================================================
TEST_CASE("float to integer: truncation, saturation at both ends, NaN -> 0, -0.5 -> 0 for unsigned") {
    for_each_float([]<class F>() {
        float_to_int<F, std::int8_t>();
        float_to_int<F, std::int16_t>();
        float_to_int<F, std::int32_t>();
        float_to_int<F, std::int64_t>();
        float_to_int<F, std::uint8_t>();
        float_to_int<F, std::uint16_t>();
        float_to_int<F, std::uint32_t>();
        float_to_int<F, std::uint64_t>();
    });
    // At the edges of each range: 2^31 exactly saturates s32; -2^31 is INT_MIN exactly; the float
    // below 2^31 converts exactly.
    conv<std::int32_t, float>({2147483648.0f, -2147483648.0f, 2147483520.0f, -2147483904.0f, 1e10f},
                              {2147483647, lim<std::int32_t>::min(), 2147483520, lim<std::int32_t>::min(), 2147483647});
    conv<std::int32_t, double>({2147483647.0, 2147483647.75, 2147483648.0, -2147483648.75, -2147483649.0},
                               {2147483647, 2147483647, 2147483647, lim<std::int32_t>::min(), lim<std::int32_t>::min()});
    conv<std::uint32_t, double>({4294967295.0, 4294967295.5, 4294967296.0, -0.75, -1.0},
                                {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0});
    conv<std::int8_t, float>({127.9f, 128.0f, -128.9f, -129.0f, 300.0f}, {127, 127, -128, -128, 127});
    conv<std::uint8_t, float>({255.9f, 256.0f, -0.5f, -1.0f, 1000.0f}, {255, 255, 0, 0, 255});
    conv<std::int64_t, double>({9223372036854775808.0, 9223372036854774784.0, -9223372036854775808.0, -1e19},
                               {lim<std::int64_t>::max(), 9223372036854774784LL, lim<std::int64_t>::min(), lim<std::int64_t>::min()});
    conv<std::uint64_t, double>({18446744073709551616.0, 18446744073709549568.0, -0.999, 1e300},
                                {~std::uint64_t{0}, 18446744073709549568ULL, 0, ~std::uint64_t{0}});
    conv<std::int64_t, float>({9223372036854775808.0f, 9223371487098961920.0f, -9223372036854775808.0f},
                              {lim<std::int64_t>::max(), 9223371487098961920LL, lim<std::int64_t>::min()});
    conv<std::int16_t, half>({half(65504.0f), half(-32768.0f), half(-32800.0f), half(32767.0f), half(1000.5f)},
                             {32767, -32768, -32768, 32767, 1000}); // half(32767) is 32768
    conv<std::int32_t, bfloat16>({bfloat16(3e38f), bfloat16(-2147483648.0f), bfloat16(2147483648.0f), bfloat16(-0.75f)},
                                 {2147483647, lim<std::int32_t>::min(), 2147483647, 0});
}

TEST_CASE("integer to float: round to nearest even, once") {
    conv<float, std::int32_t>({16777217, 16777219, 16777218, -16777217, lim<std::int32_t>::max(), lim<std::int32_t>::min(), 0, -1},
                              {16777216.0f, 16777220.0f, 16777218.0f, -16777216.0f, 2147483648.0f, -2147483648.0f, 0.0f, -1.0f});
    conv<float, std::uint32_t>({0xFFFFFFFFu, 16777217u, 0x80000080u, 0x80000081u}, {4294967296.0f, 16777216.0f, 2147483648.0f, 2147483904.0f});
    conv<float, std::uint64_t>({~std::uint64_t{0}, (std::uint64_t{1} << 63) + (std::uint64_t{1} << 39)},
                               {18446744073709551616.0f, 9223372036854775808.0f});
    conv<double, std::int64_t>({(std::int64_t{1} << 53) + 1, (std::int64_t{1} << 53) + 3, lim<std::int64_t>::max(), -(std::int64_t{1} << 53) - 1},
                               {9007199254740992.0, 9007199254740996.0, 9223372036854775808.0, -9007199254740992.0});
    conv<double, std::uint64_t>({~std::uint64_t{0}, (std::uint64_t{1} << 53) + 1}, {18446744073709551616.0, 9007199254740992.0});
    // f16: 65519 is the largest integer that rounds to the maximum 65504; 65520 ties to inf.
    conv<half, std::int32_t>({65519, 65520, -65520, 2049, 2051, 2050, lim<std::int32_t>::max(), -1},
                             {half(65504.0f), half(INFINITY), half(-INFINITY), half(2048.0f), half(2052.0f), half(2050.0f), half(INFINITY), half(-1.0f)});
    conv<half, std::int64_t>({std::int64_t{1} << 40, 2049, -65519, lim<std::int64_t>::min()},
                             {half(INFINITY), half(2048.0f), half(-65504.0f), half(-INFINITY)});
    conv<half, std::uint16_t>({65535, 65504, 65519, 1}, {half(INFINITY), half(65504.0f), half(65504.0f), half(1.0f)});
    conv<half, std::uint8_t>({255, 200}, {half(255.0f), half(200.0f)});
    // bf16 keeps 8 significant bits. Through f32 first, 2^24 + 2^16 + 1 would become the tie
    // 2^24 + 2^16 and then round to even, 2^24; rounded once it is 2^24 + 2^17.
    conv<bfloat16, std::int32_t>({(1 << 24) + (1 << 16) + 1, (1 << 24) + (1 << 16), 257, 259, -((1 << 24) + (1 << 16) + 1)},
                                 {bfloat16(16908288.0f), bfloat16(16777216.0f), bfloat16(256.0f), bfloat16(260.0f), bfloat16(-16908288.0f)});
    conv<bfloat16, std::int64_t>({(std::int64_t{1} << 40) + (std::int64_t{1} << 32) + 1, (std::int64_t{1} << 40) + (std::int64_t{1} << 32)},
                                 {bfloat16(0x1.02p40f), bfloat16(0x1p40f)});
    conv<bfloat16, std::uint32_t>({0xFFFFFFFFu, (1u << 24) + (1u << 16) + 1}, {bfloat16(4294967296.0f), bfloat16(16908288.0f)});
}

TEST_CASE("float to float: one rounding to nearest even, straight from the source (f64 -> f16 double-rounding trap)") {
    // 1 + 2^-11 + 2^-40 is just above the f16 midpoint between 1 and 1 + 2^-10: it rounds up. Via
    // f32 it would first become the midpoint itself and then round to even, 1.
    conv<half, double>({1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 65519.99, 65520.0, 0x1p-25, 0x1.0000000001p-25, -0x1p-24, 1e300, -0.0},
                       {half::from_bits(0x3C01), half(1.0f), half::from_bits(0x3C02), half(65504.0f), half(INFINITY), half(0.0f),
                        half::from_bits(0x0001), half::from_bits(0x8001), half(INFINITY), half::from_bits(0x8000)});
    conv<bfloat16, double>({1.0 + 0x1p-8 + 0x1p-40, 1.0 + 0x1p-8, 0x1.ff8p127, 1e-40},
                           {bfloat16::from_bits(0x3F81), bfloat16(1.0f), bfloat16(INFINITY), bfloat16::from_bits(0x0001)});
    conv<half, float>({65519.996f, 65520.0f, 0x1p-25f, 0x1.8p-25f, 0x1p-14f, 0x1.ff8p-15f, 0x1.ffcp-15f, -0.0f, NAN},
                      {half(65504.0f), half(INFINITY), half(0.0f), half::from_bits(0x0001), half::from_bits(0x0400), half::from_bits(0x03FF),
                       half::from_bits(0x0400), half::from_bits(0x8000), half(NAN)});
    conv<bfloat16, float>({std::bit_cast<float>(0x7F7F8000u), std::bit_cast<float>(0x3F808000u), std::bit_cast<float>(0x3F818000u), 1e-45f},
                          {bfloat16(INFINITY), bfloat16(1.0f), bfloat16::from_bits(0x3F82), bfloat16(0.0f)});
    conv<float, double>({1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-50, 1.7976931348623157e308, 1e-46, 1e-45, -0.0, NAN},
                        {1.0f, 1.0f + 0x1p-23f, INFINITY, 0.0f, 0x1p-149f, -0.0f, NAN});
    // Widening is exact, subnormals included.
    conv<float, half>({half::from_bits(0x0001), half::from_bits(0x83FF), half(65504.0f), half(-INFINITY)},
                      {0x1p-24f, -0x1.ff8p-15f, 65504.0f, -INFINITY});
    conv<double, bfloat16>({bfloat16::from_bits(0x0001), bfloat16::from_bits(0x7F7F)}, {0x1p-133, 0x1.fep127});
    conv<bfloat16, half>({half(65504.0f), half::from_bits(0x0001), half(1.5f)}, {bfloat16(65536.0f), bfloat16(0x1p-24f), bfloat16(1.5f)});
    conv<half, bfloat16>({bfloat16(1e5f), bfloat16(0x1p-20f), bfloat16::from_bits(0x3F81), bfloat16(0x1p-30f)},
                         {half(INFINITY), half::from_bits(0x0010), half(1.0078125f), half(0.0f)});
}

TEST_CASE("pred conversions: x != 0 (NaN -> true, -0 -> false); pred -> 0 or 1") {
    conv<bool, float>({0.0f, -0.0f, NAN, 0.5f, -INFINITY, 1e-45f}, {false, false, true, true, true, true});
    conv<bool, half>({half(0.0f), half::from_bits(0x8000), half(NAN), half::from_bits(0x0001)}, {false, false, true, true});
    conv<bool, std::int32_t>({0, 1, -1, lim<std::int32_t>::min()}, {false, true, true, true});
    conv<bool, std::uint64_t>({0, std::uint64_t{1} << 63}, {false, true});
    conv<bool, std::int8_t>({0, -128}, {false, true});
    const std::vector<bool> p = {false, true};
    conv<std::int8_t, bool>(p, {0, 1});
    conv<std::uint64_t, bool>(p, {0, 1});
    conv<float, bool>(p, {0.0f, 1.0f});
    conv<half, bool>(p, {half(0.0f), half(1.0f)});
    conv<bfloat16, bool>(p, {bfloat16(0.0f), bfloat16(1.0f)});
    conv<double, bool>(p, {0.0, 1.0});
    conv<c64_t, bool>(p, {c64_t(0, 0), c64_t(1, 0)});
    conv<bool, bool>(p, {false, true});
}

TEST_CASE("integer to integer wraps modulo 2^bits") {
    conv<std::int8_t, std::int32_t>({300, -129, 127, -1}, {44, 127, 127, -1});
    conv<std::uint32_t, std::int32_t>({-1, lim<std::int32_t>::min()}, {0xFFFFFFFFu, 0x80000000u});
    conv<std::int32_t, std::uint32_t>({0xFFFFFFFFu, 0x80000000u}, {-1, lim<std::int32_t>::min()});
    conv<std::int32_t, std::int64_t>({(std::int64_t{1} << 40) + 5, -(std::int64_t{1} << 32) - 1}, {5, -1});
    conv<std::int8_t, std::uint8_t>({200, 128, 127}, {-56, -128, 127});
    conv<std::uint64_t, std::int8_t>({-1, -128}, {~std::uint64_t{0}, ~std::uint64_t{0} - 127}); // sign extension
    conv<std::int16_t, std::uint16_t>({65535, 32768}, {-1, -32768});
    conv<std::uint8_t, std::int16_t>({-2, 256, 511}, {254, 0, 255});
    conv<std::int64_t, std::uint32_t>({0xFFFFFFFFu}, {4294967295LL}); // zero extension
}

TEST_CASE("real to complex: imaginary part 0; complex to complex rounds each part") {
    conv<c64_t, float>({1.5f, -0.0f, NAN, INFINITY}, {c64_t(1.5f, 0), c64_t(-0.0f, 0), c64_t(NAN, 0), c64_t(INFINITY, 0)});
    conv<c64_t, double>({1.0 + 0x1p-30, 1e300}, {c64_t(1.0f, 0), c64_t(INFINITY, 0)});
    conv<c128_t, std::int32_t>({lim<std::int32_t>::min(), 7}, {c128_t(-2147483648.0, 0), c128_t(7, 0)});
    conv<c64_t, std::int64_t>({16777217}, {c64_t(16777216.0f, 0)});
    conv<c64_t, half>({half(0.5f), half::from_bits(0x0001)}, {c64_t(0.5f, 0), c64_t(0x1p-24f, 0)});
    conv<c64_t, c128_t>({c128_t(1.0 + 0x1p-30, -1e300), c128_t(-0.0, 0x1p-200)}, {c64_t(1.0f, -INFINITY), c64_t(-0.0f, 0.0f)});
    conv<c128_t, c64_t>({c64_t(0.1f, -0.2f)}, {c128_t(static_cast<double>(0.1f), static_cast<double>(-0.2f))});
}

TEST_CASE("complex to non-complex drops the imaginary part (StableHLO, XLA); complex to pred is z != 0") {
    conv<float, c64_t>({c64_t(1.5f, 2), c64_t(-0.0f, 1), c64_t(NAN, 0), c64_t(INFINITY, NAN)},
                       {1.5f, -0.0f, NAN, INFINITY});
    conv<float, c128_t>({c128_t(1.0 + 0x1p-30, 5), c128_t(1e300, -1)}, {1.0f, INFINITY}); // the real part rounds once
    conv<double, c64_t>({c64_t(0.1f, -3)}, {static_cast<double>(0.1f)});
    conv<half, c64_t>({c64_t(0.5f, 9), c64_t(65520.0f, 0)}, {half(0.5f), half::from_bits(0x7C00)});
    conv<std::int32_t, c64_t>({c64_t(-2.75f, 100), c64_t(3e9f, 0), c64_t(NAN, 1)}, {-2, lim<std::int32_t>::max(), 0});
    conv<std::uint8_t, c128_t>({c128_t(255.9, -1), c128_t(-1, 0)},
                               {255, 0}); // truncate, saturate as from the real type
    conv<bool, c64_t>({c64_t(0, 0), c64_t(-0.0f, 0), c64_t(0, 1), c64_t(2, 0), c64_t(NAN, 0)},
                      {false, false, true, true, true});
}

// ================================================================================================
// convert_element_type: differential test for every pair of element types
// ================================================================================================
namespace {
template<class T, class U>
[[gnu::noinline]] void check_convert(const T* x, const U* got, const r::dims_t& d) {
    auto ra = ref_of(x, d);
    auto want = r::convert<U>(ra);
    expect_match_n<U>("convert_element_type " + std::string(xla_name<T>) + dims_str(d) + " to " + std::string(xla_name<U>), got, d,
                      want, nullptr, [&](std::size_t i) { return "x = " + show(ra.data[i]); });
}
template<class T, class U, class S> [[gnu::noinline]] void diff_convert(rng& g) {
    typename S::template tensor_t<T> a;
    fill(a, g);
    auto got = eval(convert_element_type<U>(a));
    static_assert(std::is_same_v<typename decltype(got)::value_type, U>);
    check_convert(a.data(), got.data(), S::dims());
}
} // namespace

TEST_CASE("differential: convert_element_type between every pair of element types") {
    rng g(201);
    for_each_type([&]<class T, std::size_t>() {
        for_each_type([&]<class U, std::size_t>() { diff_convert<T, U, pair_shape<T, U>>(g); });
    });
}
