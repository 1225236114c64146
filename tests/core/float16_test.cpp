// Tests for xlet/core/float16.hpp and xlet/core/reduce_precision.hpp.
//
// Every conversion is checked against a slow reference that knows nothing about bit tricks: it
// lists all finite values of the 16-bit format from the textbook formula, brackets the input
// between two neighbours and picks the nearer one (ties: even encoding), in long double, where all
// the values involved (floats, doubles, 64-bit integers, sums of two neighbours) are exact.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "xlet/core/float16.hpp"
#include "xlet/core/reduce_precision.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using xlet::bfloat16;
using xlet::half;

static_assert(std::numeric_limits<long double>::digits >= 64,
              "the reference needs an exact long double for doubles and 64-bit integers");

namespace {

std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t bits_of(double d) { return std::bit_cast<std::uint64_t>(d); }
float float_from(std::uint32_t u) { return std::bit_cast<float>(u); }
double double_from(std::uint64_t u) { return std::bit_cast<double>(u); }

std::string hex(std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

// Counts failures of a big loop and keeps the first few for the report.
struct Failures {
    std::size_t count = 0;
    std::string first;
    template <class... Ts>
    void add(Ts const&... parts) {
        if (count++ < 8) {
            std::ostringstream s;
            ((s << parts << ' '), ...);
            first += s.str() + '\n';
        }
    }
};
#define CHECK_NO_FAILURES(f)                                                                                           \
    do {                                                                                                               \
        INFO((f).first);                                                                                               \
        CHECK((f).count == 0u);                                                                                        \
    } while (false)

// ------------------------------------------------------------------ reference 16-bit rounding
struct Format16 {
    std::uint16_t inf_bits;
    std::vector<long double> values; // all non-negative finite values, then 2^(emax+1)
};

Format16 make_format(int exponent_bits, int mantissa_bits) {
    Format16 f;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    f.inf_bits = std::uint16_t(((1u << exponent_bits) - 1) << mantissa_bits);
    for (unsigned b = 0; b < f.inf_bits; ++b) {
        const int e = int(b >> mantissa_bits);
        const long double m = (long double)(b & ((1u << mantissa_bits) - 1));
        const long double v = e == 0 ? std::ldexp(m, 1 - bias - mantissa_bits)
                                     : std::ldexp((long double)(1u << mantissa_bits) + m, e - bias - mantissa_bits);
        f.values.push_back(v);
    }
    // The first value beyond the range, as if the exponent were unbounded; it encodes as inf,
    // whose encoding is even, so exact ties with the maximum go to inf as IEEE 754 requires.
    f.values.push_back(std::ldexp(1.0L, bias + 1));
    return f;
}

const Format16& half_format() {
    static const Format16 f = make_format(5, 10);
    return f;
}
const Format16& bf16_format() {
    static const Format16 f = make_format(8, 7);
    return f;
}

// Correctly rounded encoding of a non-NaN x.
std::uint16_t ref_round(const Format16& f, long double x) {
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const long double ax = std::fabs(x);
    if (ax >= f.values.back()) return std::uint16_t(sign | f.inf_bits);
    const std::size_t hi = std::size_t(std::upper_bound(f.values.begin(), f.values.end(), ax) - f.values.begin());
    const std::size_t lo = hi - 1; // values[lo] <= ax < values[hi]
    if (ax == f.values[lo]) return std::uint16_t(sign | lo);
    const long double twice = 2 * ax, mid = f.values[lo] + f.values[hi];
    std::size_t pick = twice < mid ? lo : twice > mid ? hi : (lo % 2 == 0 ? lo : hi);
    return std::uint16_t(sign | (pick == f.values.size() - 1 ? f.inf_bits : pick));
}

// ------------------------------------------------------------------ samples
std::vector<float> make_float_samples() {
    std::vector<float> v;
    std::mt19937 gen(20240607u);
    // Random bit patterns: every exponent, NaNs and infinities included.
    for (int i = 0; i < 4'000'000; ++i)
        v.push_back(float_from(std::uint32_t(gen())));
    // Random values where binary16 is interesting: 2^-37 .. 2^22 (subnormals to overflow).
    for (int i = 0; i < 2'000'000; ++i) {
        const std::uint32_t r = std::uint32_t(gen());
        const std::uint32_t exp = 90u + std::uint32_t(gen() % 60u);
        v.push_back(float_from((r & 0x807FFFFFu) | (exp << 23)));
    }
    // Every binary16 value, every halfway point between neighbours, and one float ulp either side.
    const auto& hf = half_format();
    for (std::size_t b = 0; b + 1 < hf.values.size(); ++b) {
        const float lo = float(hf.values[b]);
        const float mid = float((hf.values[b] + hf.values[b + 1]) / 2); // exact: 12 bits
        for (float s : {1.0f, -1.0f}) {
            v.push_back(s * lo);
            v.push_back(s * mid);
            v.push_back(s * std::nextafter(mid, 0.0f));
            v.push_back(s * std::nextafter(mid, INFINITY));
        }
    }
    // Same for bfloat16, whose halfway points are the bit patterns ending in 0x8000.
    for (std::uint32_t b = 0; b < 0x7F80u; ++b) {
        for (std::uint32_t s : {0u, 0x80000000u}) {
            const std::uint32_t mid = s | (b << 16) | 0x8000u;
            v.push_back(float_from(s | (b << 16)));
            v.push_back(float_from(mid));
            v.push_back(float_from(mid - 1));
            v.push_back(float_from(mid + 1));
        }
    }
    // Hand-picked boundaries.
    const float specials[] = {0.0f,
                              -0.0f,
                              1.0f,
                              -1.0f,
                              65504.0f,
                              65519.996f,
                              65520.0f,
                              -65520.0f,
                              65536.0f,
                              0x1p-24f,
                              0x1p-25f,
                              0x1.8p-25f,
                              0x1.000002p-25f,
                              0x1p-26f,
                              0x1p-14f,
                              0x1p-14f - 0x1p-25f,
                              0x1p-15f,
                              0x1.ffcp-15f,
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::min(),
                              std::numeric_limits<float>::denorm_min(),
                              3.38953139e38f,
                              float_from(0x7F7F8000u),
                              float_from(0x7F7F7FFFu),
                              INFINITY,
                              -INFINITY,
                              float_from(0x7FC00000u),
                              float_from(0xFFC00000u),
                              float_from(0x7F800001u),
                              float_from(0xFF800001u),
                              float_from(0x7FBFFFFFu),
                              float_from(0x7F801FFFu)};
    v.insert(v.end(), std::begin(specials), std::end(specials));
    while (v.size() % 64 != 0)
        v.push_back(0.0f); // whole batches for every architecture
    return v;
}

const std::vector<float>& float_samples() {
    static const std::vector<float> v = make_float_samples();
    return v;
}

std::vector<double> make_double_samples() {
    std::vector<double> v;
    std::mt19937_64 gen(77u);
    for (int i = 0; i < 1'000'000; ++i)
        v.push_back(double_from(gen()));
    for (int i = 0; i < 1'000'000; ++i) { // 2^-150 .. 2^130: both 16-bit formats' ranges
        const std::uint64_t exp = 1023u - 150u + gen() % 281u;
        v.push_back(double_from((gen() & 0x800FFFFFFFFFFFFFull) | (exp << 52)));
    }
    // Halfway points of both formats, nudged by far less than a float ulp: going through float
    // would turn these into exact ties and round the wrong way.
    for (const Format16* f : {&half_format(), &bf16_format()}) {
        for (std::size_t b = 0; b + 1 < f->values.size(); b += 3) {
            const double mid = double((f->values[b] + f->values[b + 1]) / 2);
            const double tiny = std::ldexp(mid, -40);
            for (double s : {1.0, -1.0}) {
                v.push_back(s * mid);
                v.push_back(s * (mid + tiny));
                v.push_back(s * (mid - tiny));
            }
        }
    }
    const double specials[] = {0.0,
                               -0.0,
                               65504.0,
                               65520.0,
                               std::nextafter(65520.0, 0.0),
                               0x1p-24,
                               0x1p-25,
                               std::nextafter(0x1p-25, 1.0),
                               0x1.8p-25,
                               1e300,
                               -1e300,
                               std::numeric_limits<double>::denorm_min(),
                               INFINITY,
                               -INFINITY,
                               double_from(0x7FF8000000000000ull),
                               double_from(0x7FF0000000000001ull),
                               double_from(0xFFF0000000000001ull)};
    v.insert(v.end(), std::begin(specials), std::end(specials));
    while (v.size() % 64 != 0)
        v.push_back(0.0);
    return v;
}

const std::vector<double>& double_samples() {
    static const std::vector<double> v = make_double_samples();
    return v;
}

// ------------------------------------------------------------------ architectures
using archs = std::tuple<xsimd::default_arch
#if XSIMD_WITH_SSE2
                         ,
                         xsimd::sse2
#endif
#if XSIMD_WITH_SSE4_2
                         ,
                         xsimd::sse4_2
#endif
#if XSIMD_WITH_AVX
                         ,
                         xsimd::avx
#endif
#if XSIMD_WITH_AVX2
                         ,
                         xsimd::avx2
#endif
#if XSIMD_WITH_AVX512BW
                         ,
                         xsimd::avx512bw
#endif
                         >;

template <class F>
void for_each_arch(F&& f) {
    std::apply([&](auto... a) { (f(a), ...); }, archs{});
}

// Checks a 16-bit conversion result against the reference; NaN must give NaN of the same sign.
template <class T, class Src>
void check_rounding(Failures& fails, const Format16& fmt, Src x, T got, const char* what) {
    if (std::isnan(x)) {
        if (!isnan(got) || signbit(got) != std::signbit(x)) fails.add(what, "NaN", hex(bits_of(x)), hex(got.bits()));
        return;
    }
    const std::uint16_t want = ref_round(fmt, (long double)x);
    if (got.bits() != want) fails.add(what, hex(bits_of(x)), x, "got", hex(got.bits()), "want", hex(want));
}

} // namespace

// ================================================================== type properties
TEST_CASE("layout and constexpr") {
    static_assert(sizeof(half) == 2 && alignof(half) == 2 && sizeof(bfloat16) == 2);
    static_assert(std::is_trivially_copyable_v<half> && std::is_standard_layout_v<bfloat16>);
    static_assert(half().bits() == 0 && bfloat16{}.bits() == 0);
    static_assert(half(1.0f).bits() == 0x3C00 && half(-2.0).bits() == 0xC000);
    static_assert(half(65520.0f).bits() == 0x7C00 && half(65519.0).bits() == 0x7BFF);
    static_assert(bfloat16(1.0f).bits() == 0x3F80 && bfloat16(3).bits() == 0x4040);
    static_assert(float(half::from_bits(0x0001)) == 0x1p-24f);
    static_assert(double(bfloat16::from_bits(0x7F7F)) == 0x1.FEp127);
    static_assert(half(2.0f) + half(3.0f) == half(5.0f));
    static_assert(xlet::reduce_precision<5, 10>(1.0f + 0x1p-11f) == 1.0f);
    static_assert(xlet::round_to_half(0x1.8p-25f) == 0x1p-24f);

    std::initializer_list<half> list{1.0f, 2.5, 3};
    std::vector<half> v(list);
    REQUIRE(v.size() == 3);
    CHECK(float(v[0]) == 1.0f);
    CHECK(float(v[1]) == 2.5f);
    CHECK(float(v[2]) == 3.0f);
    std::initializer_list<bfloat16> blist{1.0f, 2.5, -7};
    CHECK(float(*(blist.begin() + 2)) == -7.0f);

    std::ostringstream os;
    os << half(1.5f) << ' ' << bfloat16(-0.25) << ' ' << half(65504);
    CHECK(os.str() == "1.5 -0.25 65504");
}

// ================================================================== exhaustive round trips
TEST_CASE("half: all 65536 bit patterns survive half -> float/double -> half") {
    const auto& fmt = half_format();
    Failures fails;
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        const half h = half::from_bits(std::uint16_t(b));
        const float f = float(h);
        const double d = double(h);
        if (isnan(h)) {
            if (!std::isnan(f) || !isnan(half(f)) || !isnan(half(d)) || std::signbit(f) != signbit(h))
                fails.add("nan", hex(b));
            continue;
        }
        // The widened value is exactly the textbook value of the encoding.
        const long double want = (b & 0x7FFFu) == 0x7C00u ? INFINITY : fmt.values[b & 0x7FFFu];
        if ((long double)f != ((b & 0x8000u) ? -want : want) || (double)f != d) fails.add("value", hex(b));
        if (half(f).bits() != b || half(d).bits() != b) fails.add("roundtrip", hex(b));
        if (std::signbit(f) != signbit(h)) fails.add("sign", hex(b));
    }
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("bfloat16: all 65536 bit patterns survive bfloat16 -> float/double -> bfloat16") {
    const auto& fmt = bf16_format();
    Failures fails;
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        const bfloat16 h = bfloat16::from_bits(std::uint16_t(b));
        const float f = float(h);
        if (isnan(h)) {
            if (!std::isnan(f) || !isnan(bfloat16(f)) || !isnan(bfloat16(double(h))) || std::signbit(f) != signbit(h))
                fails.add("nan", hex(b));
            continue;
        }
        const long double want = (b & 0x7FFFu) == 0x7F80u ? INFINITY : fmt.values[b & 0x7FFFu];
        if ((long double)f != ((b & 0x8000u) ? -want : want)) fails.add("value", hex(b));
        if (bits_of(f) != b << 16) fails.add("layout", hex(b));
        if (bfloat16(f).bits() != b || bfloat16(double(h)).bits() != b) fails.add("roundtrip", hex(b));
    }
    CHECK_NO_FAILURES(fails);
}

// ================================================================== correct rounding
TEST_CASE("half(float) and bfloat16(float) are correctly rounded") {
    const auto& xs = float_samples();
    Failures fh, fb;
    for (float x : xs) {
        check_rounding(fh, half_format(), x, half(x), "half");
        check_rounding(fb, bf16_format(), x, bfloat16(x), "bf16");
    }
    MESSAGE("float samples checked: " << xs.size());
    CHECK_NO_FAILURES(fh);
    CHECK_NO_FAILURES(fb);
}

TEST_CASE("hand-checked boundaries") {
    CHECK(half(65504.0f).bits() == 0x7BFF);
    CHECK(half(65519.996f).bits() == 0x7BFF);
    CHECK(half(65520.0f).bits() == 0x7C00); // tie between max (odd) and 2^16: to even = inf
    CHECK(half(-65520.0f).bits() == 0xFC00);
    CHECK(half(1e10f).bits() == 0x7C00);
    CHECK(half(0x1p-24f).bits() == 0x0001);  // smallest subnormal
    CHECK(half(0x1p-25f).bits() == 0x0000);  // tie with 0: to even
    CHECK(half(-0x1p-25f).bits() == 0x8000); // ... keeping the sign
    CHECK(half(0x1.000002p-25f).bits() == 0x0001);
    CHECK(half(0x1.8p-25f).bits() == 0x0001);          // 0.75 quanta: up to 1
    CHECK(half(0x1.8p-24f).bits() == 0x0002);          // 1.5 quanta: tie, to even (2)
    CHECK(half(0x1.4p-23f).bits() == 0x0002);          // 2.5 quanta: tie, to even (2)
    CHECK(half(0x1.ff8p-15f).bits() == 0x03FF);        // largest subnormal, 1023 quanta
    CHECK(half(0x1.ffcp-15f).bits() == 0x0400);        // 1023.5 quanta: tie, to even (1024)
    CHECK(half(0x1p-14f - 0x1p-25f).bits() == 0x0400); // rounds up into the normals
    CHECK(half(-0.0f).bits() == 0x8000);
    CHECK(half(1.0f + 0x1p-11f).bits() == 0x3C00); // tie, to even
    CHECK(half(1.0f + 0x1.8p-10f).bits() == 0x3C02);
    CHECK(half(float_from(0x7F800001u)).bits() == 0x7E00); // sNaN with low payload stays NaN
    CHECK(half(float_from(0xFFC00000u)).bits() == 0xFE00);
    CHECK(bfloat16(3.38953139e38f).bits() == 0x7F7F);
    CHECK(bfloat16(float_from(0x7F7F8000u)).bits() == 0x7F80); // tie at the top: inf
    CHECK(bfloat16(std::numeric_limits<float>::max()).bits() == 0x7F80);
    CHECK(bfloat16(std::numeric_limits<float>::denorm_min()).bits() == 0x0000);
    CHECK(bfloat16(float_from(0x00008001u)).bits() == 0x0001);
    CHECK(bfloat16(float_from(0x00018000u)).bits() == 0x0002); // subnormal tie to even
    CHECK(bfloat16(float_from(0x7F800001u)).bits() == 0x7FC0);
}

TEST_CASE("half(double) and bfloat16(double) round once, directly") {
    // 1 + 2^-11 + 2^-40: above the halfway point 1 + 2^-11, so 1 + 2^-10. Through float it would
    // first become the exact tie 1 + 2^-11 and then round to even, 1.0.
    const double x = 1.0 + 0x1p-11 + 0x1p-40;
    CHECK(half(float(x)).bits() == 0x3C00); // the double-rounded (wrong) answer
    CHECK(half(x).bits() == 0x3C01);
    CHECK(half(-x).bits() == 0xBC01);
    const double y = 1.0 + 0x1p-8 + 0x1p-40;
    CHECK(bfloat16(float(y)).bits() == 0x3F80);
    CHECK(bfloat16(y).bits() == 0x3F81);
    // Same effect at the bottom of the subnormals: 2^-25 (+) tiny.
    CHECK(half(0x1p-25 + 0x1p-60).bits() == 0x0001);
    CHECK(half(float(0x1p-25 + 0x1p-60)).bits() == 0x0000);
    CHECK(half(65520.0 - 0x1p-30).bits() == 0x7BFF);
    CHECK(half(1e300).bits() == 0x7C00);
    CHECK(bfloat16(1e300).bits() == 0x7F80);
    CHECK(bfloat16(-1e-300).bits() == 0x8000);

    const auto& xs = double_samples();
    Failures fh, fb;
    for (double d : xs) {
        check_rounding(fh, half_format(), d, half(d), "half");
        check_rounding(fb, bf16_format(), d, bfloat16(d), "bf16");
    }
    MESSAGE("double samples checked: " << xs.size());
    CHECK_NO_FAILURES(fh);
    CHECK_NO_FAILURES(fb);
}

TEST_CASE("construction from integers is correctly rounded") {
    Failures fails;
    auto check_int = [&](auto i) {
        const long double x = (long double)i; // exact for 64-bit integers
        if (half(i).bits() != ref_round(half_format(), x)) fails.add("half", x);
        if (bfloat16(i).bits() != ref_round(bf16_format(), x)) fails.add("bf16", x);
    };
    for (int i = -70000; i <= 70000; ++i)
        check_int(i);
    for (int i = 0; i < 65536; ++i)
        check_int(std::uint16_t(i));
    for (int i = -128; i < 128; ++i)
        check_int(std::int8_t(i));
    std::mt19937_64 gen(5u);
    for (int k = 0; k < 300'000; ++k) {
        const int width = int(gen() % 65u);
        std::uint64_t u = width == 64 ? gen() : gen() & ((std::uint64_t(1) << width) - 1);
        if (k % 3 == 0) u |= std::uint64_t(1) << (width == 0 ? 0 : width - 1);
        if (k % 5 == 0) { // exact ties and near-ties for bf16 (8 significant bits)
            const int w = std::bit_width(u);
            if (w > 9) u = (u & ~((std::uint64_t(1) << (w - 9)) - 1)) | (std::uint64_t(1) << (w - 10)) | (k % 2);
        }
        check_int(u);
        check_int(std::int64_t(u));
        check_int(std::int32_t(std::uint32_t(u)));
    }
    for (auto i :
         {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), std::int64_t(1) << 53,
          (std::int64_t(1) << 53) + 1, (std::int64_t(1) << 62) + (std::int64_t(1) << 54) + 1})
        check_int(i);
    check_int(std::numeric_limits<std::uint64_t>::max());
    check_int(true);
    CHECK_NO_FAILURES(fails);
    // 2^62 + 2^54 is a tie for bf16 (8 bits): to even gives 2^62. One more unit breaks the tie,
    // which a plain int -> double conversion would lose (2^62 + 2^54 + 1 is not a double).
    CHECK(float(bfloat16((std::int64_t(1) << 62) + (std::int64_t(1) << 54))) == 0x1p62f);
    CHECK(float(bfloat16((std::int64_t(1) << 62) + (std::int64_t(1) << 54) + 1)) == 0x1.02p62f);
    CHECK(half(65519).bits() == 0x7BFF);
    CHECK(half(65520).bits() == 0x7C00);
    CHECK(half(std::numeric_limits<std::int64_t>::min()).bits() == 0xFC00);
}

// ================================================================== f32-compute helpers
TEST_CASE("round_to_half / round_to_bfloat16: scalar and every batch equal float(T(x)) bit for bit") {
    const auto& xs = float_samples();
    Failures fails;
    for (float x : xs) {
        if (bits_of(xlet::round_to_half(x)) != bits_of(float(half(x)))) fails.add("scalar half", hex(bits_of(x)));
        if (bits_of(xlet::round_to_bfloat16(x)) != bits_of(float(bfloat16(x))))
            fails.add("scalar bf16", hex(bits_of(x)));
    }
    for_each_arch([&](auto arch) {
        using A = decltype(arch);
        using B = xsimd::batch<float, A>;
        for (std::size_t i = 0; i < xs.size(); i += B::size) {
            const B x = B::load_unaligned(&xs[i]);
            alignas(64) float rh[B::size], rb[B::size];
            xlet::round_to_half(x).store_unaligned(rh);
            xlet::round_to_bfloat16(x).store_unaligned(rb);
            for (std::size_t j = 0; j < B::size; ++j) {
                if (bits_of(rh[j]) != bits_of(float(half(xs[i + j]))))
                    fails.add(A::name(), "half", hex(bits_of(xs[i + j])), hex(bits_of(rh[j])));
                if (bits_of(rb[j]) != bits_of(float(bfloat16(xs[i + j]))))
                    fails.add(A::name(), "bf16", hex(bits_of(xs[i + j])), hex(bits_of(rb[j])));
            }
        }
        MESSAGE("round_to_* checked on " << std::string(A::name()) << ", " << B::size << " lanes");
    });
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("load_half / store_half and load_bfloat16 / store_bfloat16") {
    std::vector<half> all_h(0x10000);
    std::vector<bfloat16> all_b(0x10000);
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        all_h[b] = half::from_bits(std::uint16_t(b));
        all_b[b] = bfloat16::from_bits(std::uint16_t(b));
    }
    const auto& xs = float_samples();
    Failures fails;
    for_each_arch([&](auto arch) {
        using A = decltype(arch);
        using B = xsimd::batch<float, A>;
        constexpr std::size_t n = B::size;
        // Loads: every pattern, at every offset (unaligned pointers included).
        for (std::size_t i = 0; i + n <= all_h.size(); i += (i % 97 == 0 ? 1 : n)) {
            alignas(64) float f1[n], f2[n], f3[n];
            xlet::load_half<A>(&all_h[i]).store_unaligned(f1);
            xlet::detail::load_half_generic<A>(&all_h[i]).store_unaligned(f2);
            xlet::load_bfloat16<A>(&all_b[i]).store_unaligned(f3);
            for (std::size_t j = 0; j < n; ++j) {
                const float want = float(all_h[i + j]);
                if (std::isnan(want)) {
                    if (!std::isnan(f1[j]) || std::signbit(f1[j]) != std::signbit(want))
                        fails.add(A::name(), "load nan", i + j);
                } else if (bits_of(f1[j]) != bits_of(want)) {
                    fails.add(A::name(), "load_half", hex(i + j), f1[j]);
                }
                if (bits_of(f2[j]) != bits_of(want)) fails.add(A::name(), "load_half_generic", hex(i + j), f2[j]);
                if (bits_of(f3[j]) != bits_of(float(all_b[i + j]))) fails.add(A::name(), "load_bf16", hex(i + j));
            }
        }
        // Stores of rounded values give exactly the scalar conversion.
        std::vector<half> out1(n), out2(n);
        std::vector<bfloat16> out3(n);
        for (std::size_t i = 0; i < xs.size(); i += n) {
            const B x = B::load_unaligned(&xs[i]);
            xlet::store_half(out1.data(), xlet::round_to_half(x));
            xlet::detail::store_half_generic(out2.data(), xlet::round_to_half(x));
            xlet::store_bfloat16(out3.data(), xlet::round_to_bfloat16(x));
            for (std::size_t j = 0; j < n; ++j) {
                const half want = half(xs[i + j]);
                if (isnan(want)) {
                    if (!isnan(out1[j]) || signbit(out1[j]) != signbit(want))
                        fails.add(A::name(), "store nan", hex(bits_of(xs[i + j])));
                } else if (out1[j].bits() != want.bits()) {
                    fails.add(A::name(), "store_half", hex(bits_of(xs[i + j])), hex(out1[j].bits()));
                }
                if (out2[j].bits() != want.bits())
                    fails.add(A::name(), "store_half_generic", hex(bits_of(xs[i + j])), hex(out2[j].bits()));
                if (out3[j].bits() != bfloat16(xs[i + j]).bits())
                    fails.add(A::name(), "store_bf16", hex(bits_of(xs[i + j])));
            }
        }
        // A NaN whose payload sits only in bits that do not fit still stores as a NaN.
        for (std::uint32_t nan_bits : {0x7F800001u, 0xFF800100u, 0x7F801FFFu}) {
            const B x(float_from(nan_bits));
            xlet::store_half(out1.data(), x);
            xlet::detail::store_half_generic(out2.data(), x);
            xlet::store_bfloat16(out3.data(), x);
            const bool neg = (nan_bits >> 31) != 0;
            for (std::size_t j = 0; j < n; ++j)
                if (!isnan(out1[j]) || !isnan(out2[j]) || !isnan(out3[j]) || signbit(out1[j]) != neg ||
                    signbit(out2[j]) != neg || signbit(out3[j]) != neg)
                    fails.add(A::name(), "store low-payload nan", hex(nan_bits));
        }
        // Round trip of every pattern through a batch (NaN: stays NaN with its sign).
        for (std::size_t i = 0; i < all_h.size(); i += n) {
            xlet::store_half(out1.data(), xlet::load_half<A>(&all_h[i]));
            xlet::detail::store_half_generic(out2.data(), xlet::detail::load_half_generic<A>(&all_h[i]));
            xlet::store_bfloat16(out3.data(), xlet::load_bfloat16<A>(&all_b[i]));
            for (std::size_t j = 0; j < n; ++j) {
                const half h = all_h[i + j];
                const bfloat16 b = all_b[i + j];
                if (isnan(h)) {
                    if (!isnan(out1[j]) || !isnan(out2[j]) || signbit(out1[j]) != signbit(h) ||
                        signbit(out2[j]) != signbit(h))
                        fails.add(A::name(), "roundtrip nan", hex(h.bits()));
                } else if (out1[j].bits() != h.bits() || out2[j].bits() != h.bits()) {
                    fails.add(A::name(), "roundtrip", hex(h.bits()));
                }
                if (isnan(b)) {
                    if (!isnan(out3[j]) || signbit(out3[j]) != signbit(b))
                        fails.add(A::name(), "bf16 roundtrip nan", hex(b.bits()));
                } else if (out3[j].bits() != b.bits()) {
                    fails.add(A::name(), "bf16 roundtrip", hex(b.bits()));
                }
            }
        }
    });
    CHECK_NO_FAILURES(fails);
}

// ================================================================== reduce_precision
namespace {

// Reference ReducePrecision from the definition: round |x| to (mantissa_bits + 1) significant
// bits relative to its own binade (T's subnormal quantum at the bottom), ties to the even
// encoding, then clamp the result to the reduced exponent range: >= 2^(bias+1) is inf, below the
// smallest reduced normal 2^(1-bias) is zero. NaN stays NaN.
// "Even encoding": the lowest kept bit of the pattern is 0. With mantissa bits that is the
// significand's parity; with mantissa_bits == 0 it is the exponent's parity (3.0 -> 2.0 but
// 1.5 -> 2.0), exactly as IEEE ties-to-even behaves in a format without mantissa bits.
template <class T>
T ref_reduce_precision(T x, int e_bits, int m_bits) {
    if (std::isnan(x) || std::isinf(x) || x == 0) return x;
    constexpr int SE = std::is_same_v<T, float> ? 8 : 11;
    constexpr int SM = std::numeric_limits<T>::digits - 1;
    const int m = std::min(m_bits, SM);
    const int q = std::max(std::ilogb(x), std::numeric_limits<T>::min_exponent - 1) - m;
    const long double scaled = std::ldexp((long double)std::fabs(x), -q); // exact
    const long double fl = std::floor(scaled), frac = scaled - fl;
    const T lo = T(std::ldexp(fl, q));
    const bool lo_odd = ((bits_of(lo) >> (SM - m)) & 1u) != 0;
    const bool up = frac > 0.5L || (frac == 0.5L && lo_odd);
    long double r = std::ldexp(fl + (up ? 1 : 0), q);
    if (e_bits < SE) {
        const int bias = (1 << (e_bits - 1)) - 1;
        if (r >= std::ldexp(1.0L, bias + 1)) r = INFINITY;
        if (r < std::ldexp(1.0L, 1 - bias)) r = 0;
    }
    if (r > (long double)std::numeric_limits<T>::max()) r = INFINITY;
    return std::copysign(T(r), x);
}

template <class T>
std::vector<T> rp_samples(std::size_t random_count) {
    using U = std::conditional_t<std::is_same_v<T, float>, std::uint32_t, std::uint64_t>;
    std::vector<T> v;
    std::mt19937_64 gen(99u);
    for (std::size_t i = 0; i < random_count; ++i)
        v.push_back(std::bit_cast<T>(U(gen())));
    // Around every power of two (all reduced-range edges) and at mantissa halfway points.
    for (int e = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits - 1;
         e <= std::numeric_limits<T>::max_exponent; ++e) {
        const T p = std::ldexp(T(1), e);
        for (T y : {p, std::nextafter(p, T(0)), std::nextafter(p, T(INFINITY)), T(p * T(1.5)), T(p * T(1.25)),
                    T(p * T(1.75)), std::nextafter(T(p * T(1.5)), T(0))}) {
            v.push_back(y);
            v.push_back(-y);
        }
    }
    for (T y : {T(0), T(-0.0), T(INFINITY), T(-INFINITY), std::numeric_limits<T>::quiet_NaN(),
                -std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::signaling_NaN(),
                std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min()})
        v.push_back(y);
    v.push_back(std::bit_cast<T>(U(std::bit_cast<U>(T(INFINITY)) | 1u))); // NaN, payload bit 0
    v.push_back(std::bit_cast<T>(U(~U(0))));                              // -NaN, all ones
    v.push_back(std::bit_cast<T>(U(~U(0) >> 1)));                         // +NaN, all ones
    while (v.size() % 64 != 0)
        v.push_back(T(1));
    return v;
}

// Bit-identical, NaN payloads included (reduce_precision returns a NaN input unchanged).
template <class T>
bool same_result(T a, T b) {
    return bits_of(a) == bits_of(b);
}

template <int E, int M, class T>
void check_rp_template_and_batch(const std::vector<T>& xs, Failures& fails) {
    for (T x : xs)
        if (!same_result(xlet::reduce_precision<E, M>(x), xlet::reduce_precision(x, E, M)))
            fails.add("template", E, M, hex(bits_of(x)));
    for_each_arch([&](auto arch) {
        using A = decltype(arch);
        using B = xsimd::batch<T, A>;
        alignas(64) T out[B::size];
        for (std::size_t i = 0; i < xs.size(); i += B::size) {
            xlet::reduce_precision<E, M>(B::load_unaligned(&xs[i])).store_unaligned(out);
            for (std::size_t j = 0; j < B::size; ++j)
                if (!same_result(out[j], xlet::reduce_precision<E, M>(xs[i + j])))
                    fails.add(A::name(), "batch", E, M, hex(bits_of(xs[i + j])), hex(bits_of(out[j])));
        }
    });
}

} // namespace

TEST_CASE("reduce_precision: hand-checked values") {
    using xlet::reduce_precision;
    CHECK(reduce_precision<5, 10>(1.0f) == 1.0f);
    CHECK(reduce_precision<5, 10>(1.0f + 0x1p-11f) == 1.0f);                      // tie, to even
    CHECK(reduce_precision<5, 10>(1.0f + 0x1.8p-11f) == 1.0f + 0x1p-10f);         // above the tie
    CHECK(reduce_precision<5, 10>(1.0f + 0x1p-10f + 0x1p-11f) == 1.0f + 0x1p-9f); // tie, to even
    CHECK(reduce_precision<5, 10>(65504.0f) == 65504.0f);
    CHECK(reduce_precision<5, 10>(65519.0f) == 65504.0f);
    CHECK(reduce_precision<5, 10>(65520.0f) == INFINITY);
    CHECK(reduce_precision<5, 10>(1e6f) == INFINITY);
    CHECK(reduce_precision<5, 10>(-1e6f) == -INFINITY);
    CHECK(reduce_precision<5, 10>(0x1p-14f) == 0x1p-14f);              // smallest f16 normal survives
    CHECK(reduce_precision<5, 10>(0x1p-14f - 0x1p-30f) == 0x1p-14f);   // rounds up into range
    CHECK(bits_of(reduce_precision<5, 10>(0x1.ff8p-15f)) == 0u);       // an f16 subnormal: flushed
    CHECK(bits_of(reduce_precision<5, 10>(-0x1p-20f)) == 0x80000000u); // signed zero
    CHECK(bits_of(reduce_precision<5, 10>(0x1p-24f)) == 0u);
    CHECK(bits_of(reduce_precision<5, 10>(-0.0f)) == 0x80000000u);
    CHECK(reduce_precision<5, 10>(INFINITY) == INFINITY);
    CHECK(reduce_precision<5, 10>(-INFINITY) == -INFINITY);
    CHECK(std::isnan(reduce_precision<5, 10>(NAN)));
    // NaN stays NaN even when the reduced format has no mantissa bit, including a NaN whose only
    // payload bit would be rounded away and one that would carry into the sign bit.
    for (std::uint32_t nan_bits : {0x7FC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FFFFFFFu}) {
        CHECK(bits_of(reduce_precision<5, 0>(float_from(nan_bits))) == nan_bits);
        CHECK(bits_of(reduce_precision<8, 0>(float_from(nan_bits))) == nan_bits);
        CHECK(bits_of(reduce_precision<1, 0>(float_from(nan_bits))) == nan_bits);
        CHECK(bits_of(reduce_precision(float_from(nan_bits), 3, 0)) == nan_bits);
    }
    CHECK(std::isnan(reduce_precision<11, 0>(std::numeric_limits<double>::quiet_NaN())));
    // Mantissa 0: only powers of two; 1.5 is a tie between 1 and 2 (2 is "even": mantissa 0 after
    // the carry), 1.25 goes down, 1.75 up.
    CHECK(reduce_precision<8, 0>(1.5f) == 2.0f);
    CHECK(reduce_precision<8, 0>(1.25f) == 1.0f);
    CHECK(reduce_precision<8, 0>(-1.75f) == -2.0f);
    CHECK(reduce_precision<8, 0>(3.0f) == 2.0f); // tie: 2 has the even exponent field
    CHECK(reduce_precision<8, 0>(6.0f) == 8.0f);
    // One exponent bit: nothing but zero and infinity.
    CHECK(bits_of(reduce_precision<1, 23>(1.0f)) == 0u);
    CHECK(reduce_precision<1, 23>(2.0f) == INFINITY);
    // Widths at or above the type's: identity (subnormals included).
    CHECK(bits_of(reduce_precision<8, 23>(0x1.234566p-140f)) == bits_of(0x1.234566p-140f));
    CHECK(bits_of(reduce_precision<11, 60>(0x1.234566p-140f)) == bits_of(0x1.234566p-140f));
    // <8,7> is bfloat16 rounding for normal values; <5,10> is f16 rounding in the normal range.
    CHECK(reduce_precision<8, 7>(3.14159265f) == float(bfloat16(3.14159265f)));
    CHECK(reduce_precision<8, 7>(std::numeric_limits<float>::max()) == INFINITY);
    // double
    CHECK(reduce_precision<5, 10>(1.0 + 0x1p-11 + 0x1p-40) == 1.0 + 0x1p-10);
    CHECK(reduce_precision<8, 23>(1.0 + 0x1p-24) == 1.0); // tie, to even
    CHECK(reduce_precision<8, 23>(1.0 + 0x1p-24 + 0x1p-50) == 1.0 + 0x1p-23);
    CHECK(reduce_precision<8, 23>(1e39) == INFINITY);
    CHECK(bits_of(reduce_precision<8, 23>(-1e-39)) == bits_of(-0.0)); // a float subnormal: flushed
    CHECK(reduce_precision<11, 52>(0x1.23456789abcdp-1070) == 0x1.23456789abcdp-1070);
}

TEST_CASE("reduce_precision: normal-range agreement with half and bfloat16 rounding") {
    const auto& xs = float_samples();
    Failures fails;
    for (float x : xs) {
        if (std::isnan(x)) continue;
        const float ax = std::fabs(x);
        // f16 normals (and anything that rounds to inf): XLA's <5,10> is the real conversion.
        if (ax >= 0x1p-14f && bits_of(xlet::reduce_precision<5, 10>(x)) != bits_of(float(half(x))))
            fails.add("<5,10>", hex(bits_of(x)));
        if (ax < 0x1p-14f - 0x1p-26f && bits_of(xlet::reduce_precision<5, 10>(x)) != (bits_of(x) & 0x80000000u))
            fails.add("<5,10> flush", hex(bits_of(x)));
        if (ax >= std::numeric_limits<float>::min() &&
            bits_of(xlet::reduce_precision<8, 7>(x)) != bits_of(float(bfloat16(x))))
            fails.add("<8,7>", hex(bits_of(x)));
    }
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("reduce_precision: float against the reference for every width") {
    const auto xs = rp_samples<float>(20'000);
    Failures fails;
    std::size_t checks = 0;
    for (int e = 1; e <= 9; ++e)
        for (int m = 0; m <= 24; ++m)
            for (float x : xs) {
                ++checks;
                const float got = xlet::reduce_precision(x, e, m);
                const float want = ref_reduce_precision(x, e, m);
                if (std::isnan(x) ? bits_of(got) != bits_of(x) : bits_of(got) != bits_of(want))
                    fails.add("e", e, "m", m, hex(bits_of(x)), "got", hex(bits_of(got)), "want", hex(bits_of(want)));
            }
    MESSAGE("float reduce_precision reference checks: " << checks);
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("reduce_precision: double against the reference for every width") {
    const auto xs = rp_samples<double>(4'000);
    Failures fails;
    std::size_t checks = 0;
    for (int e = 1; e <= 12; ++e)
        for (int m = 0; m <= 53; ++m)
            for (double x : xs) {
                ++checks;
                const double got = xlet::reduce_precision(x, e, m);
                const double want = ref_reduce_precision(x, e, m);
                if (std::isnan(x) ? bits_of(got) != bits_of(x) : bits_of(got) != bits_of(want))
                    fails.add("e", e, "m", m, hex(bits_of(x)), "got", hex(bits_of(got)), "want", hex(bits_of(want)));
            }
    MESSAGE("double reduce_precision reference checks: " << checks);
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("reduce_precision: template and batch versions equal the run-time scalar") {
    Failures fails;
    {
        auto xs = rp_samples<float>(200'000);
        check_rp_template_and_batch<5, 10>(xs, fails);
        check_rp_template_and_batch<8, 7>(xs, fails);
        check_rp_template_and_batch<1, 0>(xs, fails);
        check_rp_template_and_batch<2, 1>(xs, fails);
        check_rp_template_and_batch<4, 3>(xs, fails);
        check_rp_template_and_batch<5, 2>(xs, fails);
        check_rp_template_and_batch<8, 0>(xs, fails);
        check_rp_template_and_batch<7, 22>(xs, fails);
        check_rp_template_and_batch<8, 23>(xs, fails);
        check_rp_template_and_batch<9, 30>(xs, fails);
    }
    {
        auto xs = rp_samples<double>(100'000);
        check_rp_template_and_batch<5, 10>(xs, fails);
        check_rp_template_and_batch<8, 7>(xs, fails);
        check_rp_template_and_batch<8, 23>(xs, fails);
        check_rp_template_and_batch<1, 0>(xs, fails);
        check_rp_template_and_batch<11, 0>(xs, fails);
        check_rp_template_and_batch<10, 51>(xs, fails);
        check_rp_template_and_batch<11, 52>(xs, fails);
        check_rp_template_and_batch<12, 60>(xs, fails);
    }
    CHECK_NO_FAILURES(fails);
}

// ================================================================== arithmetic and comparisons
TEST_CASE("half and bfloat16 arithmetic") {
    CHECK(float(half(1.5f) + half(2.25f)) == 3.75f);
    CHECK(float(half(1.0f) / half(3.0f)) == float(half::from_bits(0x3555)));
    CHECK(half(1.0f) / half(3.0f) == half(1.0 / 3.0));
    CHECK((half(65504.0f) + half(16.0f)).bits() == 0x7C00); // 65520: tie, to inf
    CHECK((half(65504.0f) + half(8.0f)).bits() == 0x7BFF);
    CHECK((half(0x1p-24f) * half(0.5f)).bits() == 0x0000);   // tie with 0, to even
    CHECK((half(0x1.8p-23f) * half(0.5f)).bits() == 0x0002); // 1.5 quanta, to even
    CHECK(isinf(half(1.0f) / half(0.0f)));
    CHECK(isnan(half(0.0f) / half(0.0f)));
    CHECK((-half(0.0f)).bits() == 0x8000);
    CHECK((-half(2.0f)).bits() == 0xC000);
    CHECK((+half(2.0f)).bits() == 0x4000);
    CHECK(float(half(2.0f) - half(3.0f)) == -1.0f);
    CHECK(float(half(3.0f) * 2) == 6.0f); // int -> half, then half * half
    CHECK(float(half(3.0f) + 1.0f) == 4.0f);
    half h = 1.0f;
    h += half(2.0f);
    h *= half(4.0f);
    h -= 2;
    h /= half(5.0f);
    CHECK(float(h) == 2.0f);
    bfloat16 b = 1.0f;
    b += bfloat16(0x1p-8f); // tie, to even
    CHECK(float(b) == 1.0f);
    b += bfloat16(0x1p-7f);
    CHECK(float(b) == 1.0f + 0x1p-7f);
    CHECK(float(bfloat16(3.0f) * bfloat16(7.0f)) == 21.0f);
    CHECK(float(bfloat16(1.0f) / bfloat16(3.0f)) == float(bfloat16(1.0 / 3.0)));

    // Computing in float and rounding is the correctly rounded result: compare with computing in
    // long double and rounding with the reference. Long double is exact for half + - * and
    // otherwise has 64 >= 2p+2 bits, so its own rounding cannot change the final answer.
    std::mt19937 gen(11u);
    Failures fails;
    auto check_ops = [&](auto a, auto b, const Format16& fmt) {
        using T = decltype(a);
        const long double x = (long double)float(a), y = (long double)float(b);
        const std::pair<T, long double> results[] = {{a + b, x + y}, {a - b, x - y}, {a * b, x * y}, {a / b, x / y}};
        for (auto [got, exact] : results) {
            if (std::isnan(exact)) {
                if (!isnan(got)) fails.add("nan", hex(a.bits()), hex(b.bits()));
            } else if (got.bits() != ref_round(fmt, exact)) {
                fails.add("op", hex(a.bits()), hex(b.bits()), hex(got.bits()), hex(ref_round(fmt, exact)));
            }
        }
    };
    for (int i = 0; i < 300'000; ++i) {
        const std::uint16_t r1 = std::uint16_t(gen()), r2 = std::uint16_t(gen());
        // Bias half the pairs to nearby exponents so sums cancel and products land in subnormals.
        const std::uint16_t r2n = i % 2 ? r2 : std::uint16_t((r1 & 0x7C00u) ^ (r2 & 0x83FFu));
        check_ops(half::from_bits(r1), half::from_bits(r2n), half_format());
        const std::uint16_t s2 = i % 2 ? r2 : std::uint16_t((r1 & 0x7F80u) ^ (r2 & 0x807Fu) ^ ((gen() % 16u) << 7));
        check_ops(bfloat16::from_bits(r1), bfloat16::from_bits(s2), bf16_format());
    }
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("comparisons follow IEEE 754") {
    const half nan = std::numeric_limits<half>::quiet_NaN();
    CHECK_FALSE(nan == nan);
    CHECK(nan != nan);
    CHECK_FALSE(nan < half(1.0f));
    CHECK_FALSE(nan >= half(1.0f));
    CHECK_FALSE(half(1.0f) <= nan);
    CHECK(half(0.0f) == half(-0.0f));
    CHECK_FALSE(half(-0.0f) < half(0.0f));
    CHECK(half(1.0f) < half(1.5f));
    CHECK(half(-2.0f) < half(-1.0f));
    CHECK(half(3.0f) >= half(3.0f));
    CHECK(half(3.0f) > half(0x1p-24f));
    CHECK(half(1.0f) == 1.0f);
    CHECK(2 > half(1.5f));
    CHECK(bfloat16(0.0f) == bfloat16(-0.0f));
    CHECK(std::numeric_limits<bfloat16>::quiet_NaN() != std::numeric_limits<bfloat16>::quiet_NaN());
    CHECK(bfloat16(-1.0f) < bfloat16(1.0f));
    // Random pairs: same answers as float.
    std::mt19937 gen(3u);
    Failures fails;
    for (int i = 0; i < 200'000; ++i) {
        const half a = half::from_bits(std::uint16_t(gen())), b = half::from_bits(std::uint16_t(gen()));
        const float x = float(a), y = float(b);
        if ((a == b) != (x == y) || (a != b) != (x != y) || (a < b) != (x < y) || (a <= b) != (x <= y) ||
            (a > b) != (x > y) || (a >= b) != (x >= y))
            fails.add(hex(a.bits()), hex(b.bits()));
        const bfloat16 c = bfloat16::from_bits(a.bits()), d = bfloat16::from_bits(b.bits());
        const float u = float(c), v = float(d);
        if ((c == d) != (u == v) || (c < d) != (u < v) || (c >= d) != (u >= v)) fails.add("bf16", hex(c.bits()));
    }
    CHECK_NO_FAILURES(fails);
}

TEST_CASE("classification") {
    CHECK(xlet::isnan(half::from_bits(0x7C01)));
    CHECK(xlet::isnan(half::from_bits(0xFE00)));
    CHECK_FALSE(xlet::isnan(half::from_bits(0x7C00)));
    CHECK(xlet::isinf(half::from_bits(0xFC00)));
    CHECK_FALSE(xlet::isinf(half::from_bits(0x7BFF)));
    CHECK(xlet::isfinite(half::from_bits(0x7BFF)));
    CHECK_FALSE(xlet::isfinite(half::from_bits(0x7C00)));
    CHECK_FALSE(xlet::isfinite(half::from_bits(0x7E00)));
    CHECK(xlet::signbit(half(-0.0f)));
    CHECK_FALSE(xlet::signbit(half(0.0f)));
    CHECK(xlet::isnan(bfloat16::from_bits(0x7F81)));
    CHECK(xlet::isinf(bfloat16::from_bits(0xFF80)));
    CHECK(xlet::isfinite(bfloat16::from_bits(0x7F7F)));
    CHECK(xlet::signbit(bfloat16(-1.0f)));
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        const half h = half::from_bits(std::uint16_t(b));
        const bfloat16 c = bfloat16::from_bits(std::uint16_t(b));
        const float f = float(h), g = float(c);
        if (xlet::isnan(h) != std::isnan(f) || xlet::isinf(h) != std::isinf(f) ||
            xlet::isfinite(h) != std::isfinite(f) || xlet::signbit(h) != std::signbit(f) ||
            xlet::isnan(c) != std::isnan(g) || xlet::isinf(c) != std::isinf(g) ||
            xlet::isfinite(c) != std::isfinite(g) || xlet::signbit(c) != std::signbit(g)) {
            FAIL_CHECK("classification mismatch at " << hex(b));
            break;
        }
    }
}

TEST_CASE("numeric_limits") {
    using LH = std::numeric_limits<half>;
    using LB = std::numeric_limits<bfloat16>;
    static_assert(LH::is_specialized && LB::is_specialized);
    static_assert(LH::digits == 11 && LB::digits == 8);
    static_assert(LH::has_infinity && LH::has_quiet_NaN && LB::has_infinity && LB::has_quiet_NaN);
    static_assert(LH::is_signed && !LH::is_integer && !LH::is_exact && LH::radix == 2);
    static_assert(LH::has_denorm == std::denorm_present && LB::has_denorm == std::denorm_present);
    static_assert(LH::round_style == std::round_to_nearest);
    CHECK(float(LH::max()) == 65504.0f);
    CHECK(float(LH::lowest()) == -65504.0f);
    CHECK(float(LH::min()) == 0x1p-14f);
    CHECK(float(LH::denorm_min()) == 0x1p-24f);
    CHECK(float(LH::epsilon()) == 0x1p-10f);
    CHECK(float(LH::epsilon()) == float(half::from_bits(0x3C01)) - 1.0f);
    CHECK(float(LH::round_error()) == 0.5f);
    CHECK(float(LH::infinity()) == INFINITY);
    CHECK(std::isnan(float(LH::quiet_NaN())));
    CHECK(std::isnan(float(LH::signaling_NaN())));
    CHECK((LH::signaling_NaN().bits() & 0x0200u) == 0);
    CHECK(float(LB::max()) == 3.38953139e38f);
    CHECK(float(LB::lowest()) == -3.38953139e38f);
    CHECK(float(LB::min()) == std::numeric_limits<float>::min());
    CHECK(float(LB::denorm_min()) == 0x1p-133f);
    CHECK(float(LB::epsilon()) == 0x1p-7f);
    CHECK(float(LB::infinity()) == INFINITY);
    CHECK(std::isnan(float(LB::quiet_NaN())));
    CHECK(std::isnan(float(LB::signaling_NaN())));
    CHECK((LB::signaling_NaN().bits() & 0x0040u) == 0);
    // The documented exponent limits match the values.
    CHECK(std::ldexp(1.0f, LH::min_exponent - 1) == float(LH::min()));
    CHECK(std::ldexp(1.0f, LH::max_exponent - 1) * (2 - float(LH::epsilon())) == float(LH::max()));
    CHECK(std::ldexp(1.0f, LB::min_exponent - 1) == float(LB::min()));
    CHECK(std::ldexp(1.0, LB::max_exponent - 1) * (2 - double(LB::epsilon())) == double(LB::max()));
}
