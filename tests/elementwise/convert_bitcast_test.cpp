// bitcast_convert_type, reduce_precision (convert.hpp) and iota (iota.hpp). Semantics:
// docs/semantics.md ("reduce_precision", "convert_element_type" for iota's conversion). The spec's
// examples; bit-exact differential tests against the reference evaluator (tests/reference/) for
// every pair of same-width types (random bits with signalling and quiet NaNs), width-changing
// bitcasts; reduce_precision by hand and against the reference on f32, f64, bf16 and normal-range
// f16; iota along each dimension of a rank-3 shape. Split from convert_test.cpp for compile time.
// Helpers: elementwise_common.hpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "elementwise_common.hpp"

namespace {
template<class F> F from_bits_of(std::uint64_t b) {
    if constexpr (is_narrow<F>) return F::from_bits(static_cast<std::uint16_t>(b));
    else if constexpr (sizeof(F) == 4) return std::bit_cast<F>(static_cast<std::uint32_t>(b));
    else return std::bit_cast<F>(b);
}
} // namespace

// ================================================================================================
// The spec's examples
// ================================================================================================
// Width-changing bitcast_convert_type does not compile at present (convert.hpp: the lambda that
// computes out_extents reads the enclosing constexpr E without capturing it; GCC 12 and Clang 14
// both reject it). Its tests are kept but compiled only with -DXLET_TEST_BITCAST_WIDTH=1, and a
// failing test case stands in for them until then (reported to the owner).
#ifndef XLET_TEST_BITCAST_WIDTH
#define XLET_TEST_BITCAST_WIDTH 1
#endif
#if XLET_TEST_BITCAST_WIDTH
TEST_CASE("spec: BitcastConvertType shapes: f32[10] -> f16[10,2], f32[] -> f16[2], f16[10,2] -> f32[10]") {
    f32<10> x;
    for (std::size_t i = 0; i < 10; ++i) x(i) = 1.0f + static_cast<float>(i) * 0.25f - (i == 3 ? 100.0f : 0.0f);
    auto h = bitcast_convert_type<half>(x);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(h)>, f16<10, 2>>);
    for (std::size_t i = 0; i < 10; ++i) {
        const auto bits = std::bit_cast<std::uint32_t>(x(i));
        CHECK(h(i, 0).bits() == (bits & 0xFFFFu)); // little-endian: the low half first
        CHECK(h(i, 1).bits() == (bits >> 16));
    }
    f32<> s{-2.5f};
    auto hs = bitcast_convert_type<half>(s);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(hs)>, f16<2>>);
    CHECK(hs(1).bits() == (std::bit_cast<std::uint32_t>(-2.5f) >> 16));
    auto back = bitcast_convert_type<float>(h);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(back)>, f32<10>>);
    for (std::size_t i = 0; i < 10; ++i) CHECK(std::bit_cast<std::uint32_t>(back(i)) == std::bit_cast<std::uint32_t>(x(i)));
}
#else
TEST_CASE("bitcast_convert_type to a type of another width compiles") {
    FAIL_CHECK("bitcast_convert_type<U>(x) with sizeof(U) != sizeof(T) does not compile: in convert.hpp the lambda computing "
               "out_extents uses the enclosing constexpr E without capturing it ('E' is not captured). Its tests are disabled; "
               "build with -DXLET_TEST_BITCAST_WIDTH=1 once fixed.");
}
#endif

TEST_CASE("spec: Iota(s32[4, 8], 0) and Iota(s32[4, 8], 1)") {
    auto a = eval(iota<s32<4, 8>, 0>());
    auto b = eval(iota<s32<4, 8>, 1>());
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 8; ++j) {
            CHECK(a(i, j) == static_cast<std::int32_t>(i));
            CHECK(b(i, j) == static_cast<std::int32_t>(j));
        }
    // For floating types: ConvertElementType(Iota(integer)), fused into an expression.
    f32<4, 8> m = f32<4, 8>::filled(0.5f);
    auto c = eval(iota<f32<4, 8>, 1>() * 2.0f + m);
    CHECK(c(3, 7) == 14.5f);
    CHECK(c(0, 0) == 0.5f);
}

// ================================================================================================
// bitcast_convert_type: bits kept exactly (NaN payloads and signalling NaNs included)
// ================================================================================================
namespace {
// Random bit patterns, with signalling and quiet NaNs of both signs, infinities and zeros mixed in
// for the floating types.
template<class T> T random_bits(rng& g) {
    if constexpr (is_cplx<T>) {
        return T(random_bits<typename T::value_type>(g), random_bits<typename T::value_type>(g));
    } else {
        std::uint64_t b = g.bits64();
        if constexpr (is_real_float<T>) {
            using B = decltype(raw_bits(T{}));
            constexpr int bits = sizeof(T) * 8;
            constexpr int mant = is_narrow<T> ? (std::is_same_v<T, half> ? 10 : 7) : lim<T>::digits - 1;
            const B exp_all = static_cast<B>(((B(1) << (bits - 1 - mant)) - 1) << mant);
            const B sign = static_cast<B>(B(1) << (bits - 1));
            switch (g.below(8)) {
            case 0: b = exp_all | 1u; break;                               // signalling NaN, payload 1
            case 1: b = sign | exp_all | (B(1) << (mant - 2)) | 5u; break; // -sNaN with a payload
            case 2: b = exp_all | (B(1) << (mant - 1)) | 3u; break;        // quiet NaN with a payload
            case 3: b = (g.coin() ? sign : B(0)) | exp_all; break;         // +-inf
            default: break;
            }
            return from_bits_of<T>(b);
        } else {
            return static_cast<T>(b);
        }
    }
}
template<class T, class U, class S> [[gnu::noinline]] void diff_bitcast(rng& g) {
    typename S::template tensor_t<T> a;
    for (auto& v : a) v = random_bits<T>(g);
    const auto got = [&] {
        if constexpr (sizeof(T) == sizeof(U)) return eval(bitcast_convert_type<U>(a));
        else return bitcast_convert_type<U>(a);
    }();
    using G = std::remove_cvref_t<decltype(got)>;
    static_assert(std::is_same_v<typename G::value_type, U>);
    auto ra = to_ref(a);
    auto want = r::bitcast_convert<U>(ra);
    const std::string what = "bitcast_convert_type " + std::string(xla_name<T>) + dims_str(ra.dims) + " to " + std::string(xla_name<U>);
    REQUIRE_MESSAGE(want.dims == dims_of(got), what << ": shapes differ");
    std::size_t bad = 0;
    std::string msg;
    for (std::size_t i = 0; i < want.data.size(); ++i) {
        if (same_bits(got.data()[i], static_cast<U>(want.data[i]))) continue;
        if (++bad <= 4) msg += "\n  [" + std::to_string(i) + "] got " + show(got.data()[i]) + ", want " + show(static_cast<U>(want.data[i]));
    }
    CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << want.data.size() << " elements differ" << msg);
}
template<class T, class U> [[gnu::noinline]] void bitcast_round_trip(rng& g) {
    // Same width: U and back to T gives the very bits (NaNs included).
    tensor<T, tile_n> a;
    for (auto& v : a) v = random_bits<T>(g);
    auto b = eval(bitcast_convert_type<T>(bitcast_convert_type<U>(a)));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < tile_n; ++i)
        if (!same_bits(a(i), b(i)) && ++bad <= 3)
            MESSAGE(xla_name<T> << " -> " << xla_name<U> << " -> " << xla_name<T> << ": " << show(a(i)) << " came back as " << show(b(i)));
    CHECK_MESSAGE(bad == 0, xla_name<T> << " -> " << xla_name<U> << " -> back: " << bad << " of " << tile_n << " changed");
}
} // namespace

template<std::size_t K, class T, class... Us, std::size_t... J>
void bitcast_from_impl(rng& g, std::index_sequence<J...>) {
    (diff_bitcast<T, Us, shape_no<K + J>>(g), ...);
}
template<std::size_t K, class T, class... Us> void bitcast_from(rng& g) {
    bitcast_from_impl<K, T, Us...>(g, std::index_sequence_for<Us...>{});
}
// Every ordered pair (identity included) of a group of types of one width.
template<class... Ts> void bitcast_group(rng& g) {
    (bitcast_from<sizeof(Ts) * 3 + xla_name<Ts>.size(), Ts, Ts...>(g), ...);
}

TEST_CASE("differential: bitcast_convert_type between every pair of types of one width") {
    rng g(202);
    bitcast_group<std::int8_t, std::uint8_t>(g);
    bitcast_group<std::int16_t, std::uint16_t, half, bfloat16>(g);
    bitcast_group<std::int32_t, std::uint32_t, float>(g);
    bitcast_group<std::int64_t, std::uint64_t, double>(g);
    bitcast_group<c64_t>(g);
    bitcast_group<c128_t>(g);
    // The round trip through another type keeps signalling NaNs and payloads.
    bitcast_round_trip<half, std::int16_t>(g);
    bitcast_round_trip<bfloat16, std::uint16_t>(g);
    bitcast_round_trip<std::uint16_t, half>(g);
    bitcast_round_trip<std::int16_t, bfloat16>(g);
    bitcast_round_trip<float, std::int32_t>(g);
    bitcast_round_trip<std::uint64_t, double>(g);
    bitcast_round_trip<half, bfloat16>(g);
}

TEST_CASE("bitcast_convert_type of signalling NaNs and of f16/bf16 bit patterns, by hand") {
    // f16 0x7C01 is a signalling NaN; bitcast must not quiet it (0x7E01).
    f16<3> h{half::from_bits(0x7C01), half::from_bits(0xFD55), half::from_bits(0x0001)};
    auto s = eval(bitcast_convert_type<std::int16_t>(h));
    CHECK(static_cast<std::uint16_t>(s(0)) == 0x7C01u);
    CHECK(static_cast<std::uint16_t>(s(1)) == 0xFD55u);
    CHECK(s(2) == 1);
    u16<3> u{0x7F81u, 0xFF80u, 0x8001u};
    auto b = eval(bitcast_convert_type<bfloat16>(u));
    CHECK(b(0).bits() == 0x7F81u);
    CHECK(b(1).bits() == 0xFF80u);
    CHECK(b(2).bits() == 0x8001u);
    u32<2> w{0x7F800001u, 0xFFBFFFFFu};
    auto f = eval(bitcast_convert_type<float>(w));
    CHECK(std::bit_cast<std::uint32_t>(f(0)) == 0x7F800001u);
    CHECK(std::bit_cast<std::uint32_t>(f(1)) == 0xFFBFFFFFu);
    f32<2> x{-1.0f, 3.0f};
    auto i = eval(bitcast_convert_type<std::int32_t>(x));
    CHECK(i(0) == static_cast<std::int32_t>(0xBF800000u));
    CHECK(i(1) == 0x40400000);
}

#if XLET_TEST_BITCAST_WIDTH
TEST_CASE("differential: width-changing bitcast_convert_type") {
    rng g(203);
    diff_bitcast<float, std::int8_t, shp<3>>(g);             // f32[3] -> s8[3,4]
    diff_bitcast<std::int8_t, float, shp<3, 4>>(g);          // and back
    diff_bitcast<half, float, shp<5, 2>>(g);                 // f16[5,2] -> f32[5]
    diff_bitcast<std::uint64_t, std::uint16_t, shp<>>(g);    // u64[] -> u16[4]
    diff_bitcast<double, float, shp<2, 3>>(g);               // f64[2,3] -> f32[2,3,2]
    diff_bitcast<std::int8_t, std::int64_t, shp<3, 8>>(g);   // s8[3,8] -> s64[3]
    diff_bitcast<std::uint16_t, double, shp<7, 4>>(g);       // u16[7,4] -> f64[7]
    diff_bitcast<bfloat16, std::uint32_t, shp<2>>(g);        // bf16[2] -> u32[]
    diff_bitcast<c128_t, c64_t, shp<3>>(g);                  // c128[3] -> c64[3,2]
    diff_bitcast<c64_t, c128_t, shp<2, 2>>(g);               // c64[2,2] -> c128[2]
    // f32[3] -> s8[3,4] -> f32[3] gives back the bits.
    f32<3> x{1.5f, std::bit_cast<float>(0x7F800001u), -0.0f};
    auto bytes = bitcast_convert_type<std::int8_t>(x);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(bytes)>, s8<3, 4>>);
    CHECK(static_cast<std::uint8_t>(bytes(2, 3)) == 0x80u); // -0: the sign byte last (little-endian)
    auto back = bitcast_convert_type<float>(bytes);
    for (std::size_t i = 0; i < 3; ++i) CHECK(std::bit_cast<std::uint32_t>(back(i)) == std::bit_cast<std::uint32_t>(x(i)));
    // An expression operand is evaluated first.
    u32<2> a{1, 2};
    auto e = bitcast_convert_type<std::uint16_t>(a * 0x10001u);
    CHECK(e(1, 0) == 2);
    CHECK(e(1, 1) == 2);
}
#endif

// ================================================================================================
// reduce_precision
// ================================================================================================
TEST_CASE("reduce_precision: hand values") {
    // <5, 10> on f32 is the f16 round trip for normal-range values ...
    f32<8> x{1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 3.14159265f, -65504.0f, 0x1p-14f, 1000.1f, -0.3f, 65519.0f};
    auto r = eval(reduce_precision<5, 10>(x));
    for (std::size_t i = 0; i < 8; ++i) CHECK_MESSAGE(r(i) == static_cast<float>(half(x(i))), "x = " << show(x(i)));
    // ... but values below 2^-14 (the smallest f16 normal) flush to +-0 instead of becoming f16
    // subnormals; overflow gives +-inf; NaN stays NaN (also with 0 mantissa bits); -0 stays -0.
    f32<8> y{0x1p-15f, -0x1.ffcp-15f, 70000.0f, -65520.0f, NAN, -0.0f, INFINITY, 1e-30f};
    auto s = eval(reduce_precision<5, 10>(y));
    CHECK(std::bit_cast<std::uint32_t>(s(0)) == 0u);
    CHECK(std::bit_cast<std::uint32_t>(s(1)) == 0x80000000u);
    CHECK(s(2) == INFINITY);
    CHECK(s(3) == -INFINITY);
    CHECK(std::isnan(s(4)));
    CHECK(std::bit_cast<std::uint32_t>(s(5)) == 0x80000000u);
    CHECK(s(6) == INFINITY);
    CHECK(std::bit_cast<std::uint32_t>(s(7)) == 0u);
    f32<3> n{NAN, -NAN, std::bit_cast<float>(0x7F800001u)};
    auto n0 = eval(reduce_precision<5, 0>(n));
    auto n1 = eval(reduce_precision<8, 0>(n));
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(std::isnan(n0(i)));
        CHECK(std::isnan(n1(i)));
        // that very NaN: sign and payload kept, a signalling NaN not quietened, never +-inf
        CHECK(std::bit_cast<std::uint32_t>(n0(i)) == std::bit_cast<std::uint32_t>(n(i)));
        CHECK(std::bit_cast<std::uint32_t>(n1(i)) == std::bit_cast<std::uint32_t>(n(i)));
    }
    // <8, 7> (bfloat16's format) rounds ties to even.
    f32<5> t{1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-8f + 0x1p-20f, -(1.0f + 3 * 0x1p-8f), 255.5f};
    auto u = eval(reduce_precision<8, 7>(t));
    CHECK(u(0) == 1.0f);
    CHECK(u(1) == 1.0f + 0x1p-6f);
    CHECK(u(2) == 1.0f + 0x1p-7f);
    CHECK(u(3) == -(1.0f + 0x1p-6f));
    CHECK(u(4) == 256.0f);
    // Widths at or above the type's are no-ops.
    f64<4> d{0.1, 1e300, 4.9e-324, -0.0};
    auto dd = eval(reduce_precision<11, 52>(d));
    auto dm = eval(reduce_precision<15, 60>(d));
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(std::bit_cast<std::uint64_t>(dd(i)) == std::bit_cast<std::uint64_t>(d(i)));
        CHECK(std::bit_cast<std::uint64_t>(dm(i)) == std::bit_cast<std::uint64_t>(d(i)));
    }
    // <8, 23> on f64 is the f32 round trip for values in f32's normal range.
    f64<3> e{0.1, 1.0 + 0x1p-24, -3e38};
    auto ee = eval(reduce_precision<8, 23>(e));
    for (std::size_t i = 0; i < 3; ++i) CHECK(ee(i) == static_cast<double>(static_cast<float>(e(i))));
    auto e5 = eval(reduce_precision<5, 10>(f64<2>{1e-5, 65520.0}));
    CHECK(e5(0) == 0.0);
    CHECK(e5(1) == INFINITY); // rounds to 65536, beyond the f16 range
    // f16 input, normal range: <5, 10> is a no-op, <4, 3> keeps 4 significant bits.
    f16<3> h{half(1.0f + 0x1p-10f), half(-1000.0f), half(0.1f)};
    auto hh = eval(reduce_precision<5, 10>(h));
    for (std::size_t i = 0; i < 3; ++i) CHECK(hh(i).bits() == h(i).bits());
    auto h4 = eval(reduce_precision<4, 3>(f16<3>{half(1.0f + 0x1p-4f), half(1.0f + 3 * 0x1p-4f), half(300.0f)}));
    CHECK(static_cast<float>(h4(0)) == 1.0f);
    CHECK(static_cast<float>(h4(1)) == 1.25f);
    CHECK(xlet::isinf(h4(2))); // 2^8 > 2^7, the largest exponent of a 4-bit-exponent format
}

namespace {
// f16 inputs are drawn from its normal range only: the reference reduces f16 through f32, which
// for exponent_bits >= 5 flushes f16 subnormals that XLA rounds on the f16 bits (a known open
// point of the reference; the library works on the 16 bits).
template<class T> T reduce_sample(rng& g) {
    if constexpr (std::is_same_v<T, half>) {
        for (;;) {
            T x = any_float<T>(g);
            double d = std::fabs(to_double(x));
            if (std::isnan(d) || d == 0 || d >= 0x1p-14) return x;
        }
    } else {
        return any_float<T>(g);
    }
}
template<class T, int E, int M, class S> [[gnu::noinline]] void diff_reduce(rng& g) {
    typename S::template tensor_t<T> a;
    for (auto& v : a) v = reduce_sample<T>(g);
    auto got = eval(reduce_precision<E, M>(a));
    auto ra = to_ref(a);
    auto want = r::reduce_precision(ra, E, M);
    expect_match_n<T>("reduce_precision<" + std::to_string(E) + ", " + std::to_string(M) + "> " + std::string(xla_name<T>) + dims_str(ra.dims),
                      got.data(), ra.dims, want, nullptr, [&](std::size_t i) { return "x = " + show(ra.data[i]); });
}
} // namespace

TEST_CASE("differential: reduce_precision on f32, f64, bf16 and (normal-range) f16") {
    rng g(204);
    diff_reduce<float, 5, 10, shp<67>>(g);
    diff_reduce<float, 8, 7, shp<3, 5, 7>>(g);
    diff_reduce<float, 4, 3, shp<37>>(g);
    diff_reduce<float, 1, 0, shp<2, 3, 13>>(g);
    diff_reduce<float, 2, 1, shp<5, 13>>(g);
    diff_reduce<float, 10, 30, shp<7>>(g);
    diff_reduce<double, 5, 10, shp<67>>(g);
    diff_reduce<double, 8, 23, shp<1, 9, 5>>(g);
    diff_reduce<double, 11, 52, shp<3, 5>>(g);
    diff_reduce<double, 3, 1, shp<37>>(g);
    diff_reduce<bfloat16, 5, 10, shp<67>>(g);
    diff_reduce<bfloat16, 8, 7, shp<2, 3, 13>>(g);
    diff_reduce<bfloat16, 4, 3, shp<37>>(g);
    diff_reduce<bfloat16, 1, 0, shp<>>(g);
    diff_reduce<half, 5, 10, shp<67>>(g);
    diff_reduce<half, 4, 3, shp<3, 5, 7>>(g);
    diff_reduce<half, 5, 2, shp<37>>(g);
    diff_reduce<half, 8, 7, shp<2, 3, 4>>(g);
}

// ================================================================================================
// iota
// ================================================================================================
namespace {
template<class T, std::int64_t Dim> [[gnu::noinline]] void diff_iota() {
    using shape = tensor<T, 3, 18, 5>;
    auto got = eval(iota<shape, Dim>());
    auto want = r::iota<T>({3, 18, 5}, Dim);
    expect_match_n<T>("iota " + std::string(xla_name<T>) + "[3,18,5] dimension " + std::to_string(Dim), got.data(), want.dims, want, nullptr,
                      [](std::size_t i) { return "flat index " + std::to_string(i); });
}
template<class T> void diff_iota_all() {
    diff_iota<T, 0>();
    diff_iota<T, 1>();
    diff_iota<T, 2>();
}
} // namespace

TEST_CASE("differential: iota along each dimension of a rank-3 shape") {
    diff_iota_all<std::int32_t>();
    diff_iota_all<std::uint8_t>();
    diff_iota_all<float>();
    diff_iota_all<half>();
    diff_iota_all<c64_t>();
}

TEST_CASE("iota converts as convert_element_type does: wrap, rounding, pred") {
    auto u = eval(iota<u8<300>, 0>());
    CHECK(u(255) == 255);
    CHECK(u(256) == 0); // s64 -> u8 wraps
    CHECK(u(299) == 43);
    auto h = eval(iota<f16<2100>, 0>());
    CHECK(static_cast<float>(h(2049)) == 2048.0f); // 2049 ties to even in f16
    CHECK(static_cast<float>(h(2051)) == 2052.0f);
    auto b = eval(iota<bf16<300>, 0>());
    CHECK(static_cast<float>(b(257)) == 256.0f);
    CHECK(static_cast<float>(b(259)) == 260.0f);
    auto p = eval(iota<pred<3>, 0>());
    CHECK_FALSE(p(0));
    CHECK(p(1));
    CHECK(p(2));
    auto c = eval(iota<c128<2, 3>, 1>());
    CHECK(c(1, 2) == c128_t(2, 0));
}
