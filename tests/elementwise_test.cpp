// Element-wise ops: unary.hpp, binary.hpp, compare.hpp, select.hpp, operators.hpp (rules C1-C4 in
// elementwise.hpp). Semantics: docs/semantics.md. Four kinds of test:
//   1. the spec's own examples, verbatim;
//   2. hand-checked edge cases for every op (values tiled to 41 elements, so each value goes through
//      a full SIMD register and through the padded tail for every lane count: 41 = 32+9 = 16*2+9 ...);
//   3. f16/bf16: every op equals the f32 op rounded once, and a fused chain rounds after each op;
//   4. differential tests against the naive reference evaluator (tests/reference/) for every op and
//      every element type it accepts, on random data with special values, on static shapes of
//      several ranks (SIMD body + padded tail, rank 0) and in every broadcasting form.
//
// Transcendentals run xsimd's vectorised code in the library and <cmath> in the reference, so they
// are compared within a bound in ULPs of the result type (complex: a relative error bound). The
// table below states the bounds; "seen" is the largest error measured by the test "ULP bounds of
// the transcendentals" (>= 100k random inputs per type over the domain column; every f16 and bf16
// value in the domain), rerun it with XLET_ULP_REPORT=1 to print the measurements.
//
//   function   domain (f32 | f64)                    f16      bf16     f32      f64      complex (rel.)
//                                                    bound    bound    bound    bound    bound
//                                                    /seen    /seen    /seen    /seen    /seen
//   (filled from ulp_table below)
//
// Outside these domains the library departs from <cmath>; those inputs are tested strictly in
// "transcendentals: boundary and special inputs" and the departures are reported to the owner.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <xlet/xlet.hpp>

#include "reference/reference.hpp"

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace xlet;
namespace r = xlet_ref;
using c64_t = std::complex<float>;
using c128_t = std::complex<double>;
template<class T> using lim = std::numeric_limits<T>;

// ================================================================================================
// ULP bounds of the transcendentals (see the header comment). -1: the op does not take that type.
// ================================================================================================
struct ulp_row {
    const char* fn;
    double lo32, hi32, lo64, hi64; // domain of the random inputs (f16/bf16 use the f32 domain)
    long f16, bf16, f32, f64;      // bounds in ULPs of the result type
    double crel;                   // complex: bound on |got - want| / |want|
};
// clang-format off
constexpr ulp_row ulp_table[] = {
    // fn          lo32     hi32     lo64     hi64    f16 bf16 f32 f64  complex
    {"exp",       -87.3,   88.3,  -708.3,  709.4,     1,  1,  1,  1,   1e-6},
    {"expm1",     -100,    88.3,  -800,    709.4,     1,  1,  1,  2,   1e-6},
    {"log",        0,      3e38,   2.3e-308, 1e308,   1,  1,  1,  1,   1e-6},
    {"log1p",     -1,      3e38,  -1,      1e308,     1,  1,  1,  1,   1e-6},
    {"logistic",  -87,     1e30,  -708,    1e300,     1,  1,  2,  2,   1e-6},
    {"sin",       -1e30,   1e30,  -1e300,  1e300,     1,  1,  1,  2,   1e-6},
    {"cos",       -1e30,   1e30,  -1e300,  1e300,     1,  1,  2,  2,   1e-6},
    {"tan",       -1e30,   1e30,  -1e300,  1e300,     1,  1,  4,  2,   1e-6},
    {"tanh",      -1e30,   1e30,  -1e300,  1e300,     1,  1,  2,  2,   1e-6},
    {"cosh",      -88.7,   88.7,  -710,    710,       1,  1,  4,  2,   1e-6},
    {"rsqrt",      0,      3e38,   2.3e-308, 1e308,   0,  0,  0,  0,   1e-6},
    {"cbrt",      -3e38,   3e38,  -1e308,  1e308,     1,  1,  2,  1,   -1},
    {"erf",       -3e38,   3e38,  -9e61,   9e61,      1,  1,  2,  128, -1},
    {"pow",        0,      0,      0,      0,         0,  0,  0,  0,   1e-6},
    {"atan2",      0,      0,      0,      0,         1,  1,  2,  2,   1e-6},
};
// clang-format on
constexpr const ulp_row& ulp_of(std::string_view fn) {
    for (const auto& row : ulp_table)
        if (fn == row.fn) return row;
    throw "no such function in ulp_table";
}

// ================================================================================================
// Element helpers: printing, bitwise and NaN-tolerant equality, ULP distance
// ================================================================================================
template<class T> inline constexpr bool is_cplx = is_complex<T>;
template<class T> inline constexpr bool is_narrow = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template<class T> inline constexpr bool is_real_float = is_float<T>;

template<class T> bool isnan_(T x) {
    if constexpr (is_narrow<T>) return xlet::isnan(x);
    else if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
    else return false;
}
template<class T> bool signbit_(T x) {
    if constexpr (is_narrow<T>) return xlet::signbit(x);
    else return std::signbit(x);
}
template<class T> auto raw_bits(T x) {
    if constexpr (is_narrow<T>) return x.bits();
    else if constexpr (sizeof(T) == 4) return std::bit_cast<std::uint32_t>(x);
    else return std::bit_cast<std::uint64_t>(x);
}

template<class T> std::string show(T x) {
    char buf[96];
    if constexpr (std::is_same_v<T, bool>) {
        return x ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
        return std::to_string(+x);
    } else if constexpr (is_narrow<T>) {
        std::snprintf(buf, sizeof buf, "%a (%g, bits 0x%04x)", static_cast<double>(static_cast<float>(x)),
                      static_cast<double>(static_cast<float>(x)), unsigned(x.bits()));
        return buf;
    } else if constexpr (std::is_floating_point_v<T>) {
        std::snprintf(buf, sizeof buf, "%a (%.17g)", static_cast<double>(x), static_cast<double>(x));
        return buf;
    } else {
        return "(" + show(x.real()) + ", " + show(x.imag()) + ")";
    }
}

// Same value: bitwise for floats (-0 and +0 differ) except that all NaNs are alike.
template<class T> bool same_value(T a, T b) {
    if constexpr (is_cplx<T>) return same_value(a.real(), b.real()) && same_value(a.imag(), b.imag());
    else if constexpr (is_real_float<T>) return (isnan_(a) && isnan_(b)) || raw_bits(a) == raw_bits(b);
    else return a == b;
}
// Bitwise identical (NaN payloads too): for bitcasts.
template<class T> bool same_bits(T a, T b) {
    if constexpr (is_cplx<T>) return same_bits(a.real(), b.real()) && same_bits(a.imag(), b.imag());
    else if constexpr (is_real_float<T>) return raw_bits(a) == raw_bits(b);
    else return a == b;
}

// A signed integer whose order is the order of the non-NaN floats, with -0 and +0 both 0, and inf
// one step beyond the largest finite value: the distance of two keys is the distance in ULPs.
template<class T> std::int64_t ulp_key(T x) {
    auto b = raw_bits(x);
    using B = decltype(b);
    constexpr B sign = B(B(1) << (sizeof(B) * 8 - 1));
    auto mag = static_cast<std::int64_t>(b & B(~sign));
    return (b & sign) ? -mag : mag;
}
// ULPs between got and want; NaN must meet NaN and a nonzero result must have want's sign.
template<class T> std::uint64_t ulp_error(T got, T want) {
    if (isnan_(got) || isnan_(want)) return isnan_(got) && isnan_(want) ? 0 : lim<std::uint64_t>::max();
    bool gz = ulp_key(got) == 0, wz = ulp_key(want) == 0;
    if (!gz && !wz && signbit_(got) != signbit_(want)) return lim<std::uint64_t>::max();
    if (gz && wz && signbit_(got) != signbit_(want)) return lim<std::uint64_t>::max(); // -0 vs +0
    std::int64_t d = ulp_key(got) - ulp_key(want);
    return static_cast<std::uint64_t>(d < 0 ? -d : d);
}
// Relative error of a complex result; a non-finite part must match exactly (class and sign).
template<class C> double rel_error(C got, C want) {
    using F = typename C::value_type;
    auto parts_ok = [](F g, F w) {
        if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
        if (std::isinf(g) || std::isinf(w)) return g == w;
        return true;
    };
    if (!parts_ok(got.real(), want.real()) || !parts_ok(got.imag(), want.imag())) return lim<double>::infinity();
    auto finite = [](F v) { return std::isfinite(v) ? v : F(0); };
    C g(finite(got.real()), finite(got.imag())), w(finite(want.real()), finite(want.imag()));
    double den = std::abs(std::complex<double>(w));
    double num = std::abs(std::complex<double>(g) - std::complex<double>(w));
    if (den == 0) return num == 0 ? 0 : lim<double>::infinity();
    return num / den;
}

template<class T> long ulp_bound(const ulp_row& row) {
    if constexpr (std::is_same_v<T, half>) return row.f16;
    else if constexpr (std::is_same_v<T, bfloat16>) return row.bf16;
    else if constexpr (std::is_same_v<T, float>) return row.f32;
    else return row.f64;
}

// ================================================================================================
// Random data: a fixed-seed generator that mixes special values into every type
// ================================================================================================
struct rng {
    std::mt19937 g;
    explicit rng(unsigned seed) : g(seed) {}
    unsigned below(unsigned n) { return g() % n; }
    std::uint64_t bits64() { return (std::uint64_t(g()) << 32) | g(); }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
    bool coin() { return (g() & 1u) != 0; }
};

template<class T> T from_double(double v) {
    if constexpr (is_narrow<T>) return T(v);
    else return static_cast<T>(v);
}
template<class T> double to_double(T v) {
    if constexpr (is_narrow<T>) return static_cast<double>(static_cast<float>(v));
    else return static_cast<double>(v);
}

// Special values of a real floating type (as T, so -NaN keeps its sign).
template<class T> std::vector<T> float_specials() {
    using L = lim<T>;
    T nan = L::quiet_NaN();
    T mnan = -nan; // negation flips the sign bit only
    std::vector<T> v = {T(0.0),         -T(0.0),      L::infinity(),    -L::infinity(),     nan,     mnan,
                        L::max(),       L::lowest(),  L::min(),         -L::min(),          L::denorm_min(),
                        -L::denorm_min(), T(1.0),     T(-1.0),          T(0.5),             T(-0.5),
                        T(1.5),         T(-1.5),      T(2.5),           T(-2.5)};
    return v;
}

// Any value of a real floating type: specials, small values, halves (rounding ties), and
// log-uniform magnitudes over the whole exponent range (subnormals included).
template<class T> T any_float(rng& g) {
    static const std::vector<T> sp = float_specials<T>();
    unsigned k = g.below(100);
    if (k < 20) return sp[g.below(static_cast<unsigned>(sp.size()))];
    if (k < 50) return from_double<T>(g.uniform(-8, 8));
    if (k < 65) return from_double<T>((static_cast<double>(g.below(33)) - 16) / 2);
    constexpr int emin = lim<T>::min_exponent - lim<T>::digits; // smallest subnormal exponent
    constexpr int emax = lim<T>::max_exponent;
    double m = g.uniform(1, 2);
    int e = emin + static_cast<int>(g.below(static_cast<unsigned>(emax - emin)));
    return from_double<T>((g.coin() ? -1 : 1) * std::ldexp(m, e - 1));
}

// A value in [lo, hi] (after rounding to T): small uniform values, log-uniform magnitudes, and the
// exact values 0, -0, 1, -1 when they are inside.
template<class T> T float_in(rng& g, double lo, double hi) {
    hi = std::min(hi, to_double(lim<T>::max()));
    lo = std::max(lo, to_double(lim<T>::lowest()));
    for (;;) {
        unsigned k = g.below(100);
        double v;
        if (k < 6) {
            const double ex[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0};
            v = ex[g.below(6)];
        } else if (k < 50) {
            v = g.uniform(std::max(lo, -10.0), std::min(hi, 10.0));
        } else {
            constexpr int emin = lim<T>::min_exponent - lim<T>::digits;
            double top = std::max(std::fabs(lo), std::fabs(hi));
            int emax = static_cast<int>(std::ceil(std::log2(top))) + 1;
            int e = emin + static_cast<int>(g.below(static_cast<unsigned>(emax - emin)));
            v = (g.coin() ? -1 : 1) * std::ldexp(g.uniform(1, 2), e - 1);
        }
        T t = from_double<T>(v);
        double back = to_double(t);
        if (!std::isnan(back) && back >= lo && back <= hi && !(lo == 0 && std::signbit(back) && back == 0)) return t;
    }
}

// Integers: specials, shift amounts around the bit width, small values, random bits.
template<class T> T any_int(rng& g) {
    constexpr int bits = int(sizeof(T) * 8);
    unsigned k = g.below(100);
    if (k < 20) {
        const T sp[] = {T(0), T(1), static_cast<T>(-1), lim<T>::min(), lim<T>::max(), static_cast<T>(lim<T>::min() + 1),
                        static_cast<T>(lim<T>::max() - 1), T(2), T(bits - 1), T(bits), T(bits + 1)};
        return sp[g.below(11)];
    }
    if (k < 50) return static_cast<T>(static_cast<int>(g.below(bits + 7)) - 3);
    if (k < 70) return static_cast<T>(static_cast<int>(g.below(201)) - 100);
    return static_cast<T>(g.bits64());
}

template<class T> T any_value(rng& g) {
    if constexpr (std::is_same_v<T, bool>) return g.coin();
    else if constexpr (std::is_integral_v<T>) return any_int<T>(g);
    else if constexpr (is_cplx<T>) return T(any_float<typename T::value_type>(g), any_float<typename T::value_type>(g));
    else return any_float<T>(g);
}

// ================================================================================================
// Shapes, xlet <-> reference, comparison of a result with the reference's
// ================================================================================================
template<std::size_t... D> struct shp {
    template<class T> using tensor_t = tensor<T, D...>;
    static r::dims_t dims() { return {static_cast<std::int64_t>(D)...}; }
    static std::string str() {
        std::string s = "[";
        ((s += std::to_string(D) + ","), ...);
        if (s.size() > 1) s.pop_back();
        return s + "]";
    }
};
// Main shapes: more than 32 elements and no multiple of 4, so every lane count (4 f64 ... 32 s8)
// runs full SIMD registers and a padded tail. Small shapes: all tail, ranks 0 to 3.
using main_shapes = std::tuple<shp<67>, shp<3, 5, 7>, shp<2, 3, 13>, shp<5, 13>, shp<1, 9, 5>, shp<37>>;
using small_shapes = std::tuple<shp<7>, shp<3, 5>, shp<1, 9>, shp<2, 3, 4>, shp<>>;
template<std::size_t K> using main_shape = std::tuple_element_t<K % 6, main_shapes>;
template<std::size_t K> using small_shape = std::tuple_element_t<K % 5, small_shapes>;

template<class T, std::size_t... D> r::array<T> to_ref(const tensor<T, D...>& t) {
    return r::array<T>(r::dims_t{static_cast<std::int64_t>(D)...}, std::vector<T>(t.begin(), t.end()));
}
template<class T, std::size_t... D> void fill(tensor<T, D...>& t, rng& g) {
    for (auto& x : t) x = any_value<T>(g);
}

// Compares every element; one assertion per array, naming the first few mismatches and their inputs.
template<class T, std::size_t... D, class Ok, class Inputs>
void expect_match(const std::string& what, const tensor<T, D...>& got, const r::array<T>& want, Ok ok, Inputs inputs) {
    const r::dims_t dims{static_cast<std::int64_t>(D)...};
    REQUIRE_MESSAGE(want.dims == dims, what << ": reference shape differs");
    std::size_t bad = 0;
    std::string msg;
    for (std::size_t i = 0; i < got.size; ++i) {
        if (ok(got.data()[i], want.data[i])) continue;
        if (++bad <= 3) msg += "\n  [" + std::to_string(i) + "] " + inputs(i) + ": got " + show(got.data()[i]) + ", want " + show(want.data[i]);
    }
    CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << got.size << " elements differ" << msg);
}

template<class T> struct exact_cmp {
    bool operator()(T a, T b) const { return same_value(a, b); }
};

// The comparison an op's results get: exact, or within the ULP / relative bound of the table.
template<class U> auto tolerance(const ulp_row* row) {
    return [row](U got, U want) {
        if (row == nullptr) return same_value(got, want);
        if constexpr (is_cplx<U>) return rel_error(got, want) <= row->crel;
        else if constexpr (is_real_float<U>) return ulp_error(got, want) <= static_cast<std::uint64_t>(ulp_bound<U>(*row));
        else return same_value(got, want);
    };
}

// Iterate over the 15 element types; I numbers them so each (op, type) pair gets its own shape.
template<class F> void for_each_type(F&& f) {
    f.template operator()<bool, 0>();
    f.template operator()<std::int8_t, 1>();
    f.template operator()<std::int16_t, 2>();
    f.template operator()<std::int32_t, 3>();
    f.template operator()<std::int64_t, 4>();
    f.template operator()<std::uint8_t, 5>();
    f.template operator()<std::uint16_t, 6>();
    f.template operator()<std::uint32_t, 7>();
    f.template operator()<std::uint64_t, 8>();
    f.template operator()<half, 9>();
    f.template operator()<bfloat16, 10>();
    f.template operator()<float, 11>();
    f.template operator()<double, 12>();
    f.template operator()<c64_t, 13>();
    f.template operator()<c128_t, 14>();
}

// ================================================================================================
// Op descriptors for the differential tests: the xlet call, the reference call, the element types
// the op accepts (docs/semantics.md), and how results are compared (exact unless a ulp_table row).
// ================================================================================================
template<class T> inline constexpr bool acc_any = true;
template<class T> inline constexpr bool acc_floating = is_float<T>;
template<class T> inline constexpr bool acc_float_or_complex = is_float<T> || is_complex<T>;
template<class T> inline constexpr bool acc_integer = is_integer<T>;
template<class T> inline constexpr bool acc_signed_numeric = is_signed_int<T> || is_float<T> || is_complex<T>;
template<class T> inline constexpr bool acc_numeric = is_integer<T> || is_float<T> || is_complex<T>;
template<class T> inline constexpr bool acc_pred_or_integer = is_pred<T> || is_integer<T>;
template<class T> inline constexpr bool acc_arith = is_pred<T> || acc_numeric<T>;
template<class T> inline constexpr bool acc_real_numeric = is_integer<T> || is_float<T>;
template<class T> inline constexpr bool acc_ordered = is_pred<T> || is_integer<T> || is_float<T>;
template<class T> inline constexpr bool acc_f32_f64 = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Inputs of an op: inside the ulp_table domain for transcendentals, anything otherwise.
template<class T> T sample(rng& g, const ulp_row* row) {
    if (row != nullptr && row->lo32 != row->hi32) {
        if constexpr (is_real_float<T>) {
            if constexpr (std::is_same_v<T, double>) return float_in<T>(g, row->lo64, row->hi64);
            else return float_in<T>(g, row->lo32, row->hi32);
        } else if constexpr (is_cplx<T>) {
            using F = typename T::value_type;
            auto part = [&] { return g.below(8) == 0 ? F(0) : static_cast<F>(g.uniform(-4, 4)); };
            return T(part(), part());
        }
    }
    return any_value<T>(g);
}

#define XLET_UOP(NAME, ACCEPTS, REF, ULP)                                                                             \
    struct uop_##NAME {                                                                                              \
        static constexpr const char* name = #NAME;                                                                   \
        static constexpr std::size_t id = __LINE__;                                                                  \
        template<class T> static constexpr bool accepts = ACCEPTS<T>;                                                \
        static const ulp_row* ulp() { return ULP; }                                                                  \
        template<class X> static auto x(const X& a) { return xlet::NAME(a); }                                        \
        template<class T> static auto ref(const r::array<T>& a) { return REF; }                                      \
    };
#define UREF(OP) r::unary(r::unop::OP, a)
XLET_UOP(abs, acc_signed_numeric, r::abs(a), nullptr)
XLET_UOP(neg, acc_numeric, UREF(neg), nullptr)
XLET_UOP(sign, acc_signed_numeric, UREF(sign), nullptr)
XLET_UOP(not_, acc_pred_or_integer, UREF(not_), nullptr)
XLET_UOP(clz, acc_integer, UREF(clz), nullptr)
XLET_UOP(popcnt, acc_integer, UREF(popcnt), nullptr)
XLET_UOP(real, acc_float_or_complex, r::real(a), nullptr)
XLET_UOP(imag, acc_float_or_complex, r::imag(a), nullptr)
XLET_UOP(is_finite, acc_floating, r::is_finite(a), nullptr)
XLET_UOP(sqrt, acc_float_or_complex, UREF(sqrt), nullptr)
XLET_UOP(ceil, acc_floating, UREF(ceil), nullptr)
XLET_UOP(floor, acc_floating, UREF(floor), nullptr)
XLET_UOP(round, acc_floating, UREF(round), nullptr)
XLET_UOP(round_nearest_even, acc_floating, UREF(round_nearest_even), nullptr)
XLET_UOP(exp, acc_float_or_complex, UREF(exp), &ulp_of("exp"))
XLET_UOP(expm1, acc_float_or_complex, UREF(expm1), &ulp_of("expm1"))
XLET_UOP(log, acc_float_or_complex, UREF(log), &ulp_of("log"))
XLET_UOP(log1p, acc_float_or_complex, UREF(log1p), &ulp_of("log1p"))
XLET_UOP(logistic, acc_float_or_complex, UREF(logistic), &ulp_of("logistic"))
XLET_UOP(sin, acc_float_or_complex, UREF(sin), &ulp_of("sin"))
XLET_UOP(cos, acc_float_or_complex, UREF(cos), &ulp_of("cos"))
XLET_UOP(tan, acc_float_or_complex, UREF(tan), &ulp_of("tan"))
XLET_UOP(tanh, acc_float_or_complex, UREF(tanh), &ulp_of("tanh"))
XLET_UOP(cosh, acc_float_or_complex, UREF(cosh), &ulp_of("cosh"))
XLET_UOP(rsqrt, acc_float_or_complex, UREF(rsqrt), &ulp_of("rsqrt"))
XLET_UOP(cbrt, acc_floating, UREF(cbrt), &ulp_of("cbrt"))
XLET_UOP(erf, acc_floating, UREF(erf), &ulp_of("erf"))
#undef UREF

#define XLET_BOP(NAME, ACCEPTS, REF, ULP)                                                                             \
    struct bop_##NAME {                                                                                              \
        static constexpr const char* name = #NAME;                                                                   \
        static constexpr std::size_t id = __LINE__;                                                                  \
        template<class T> static constexpr bool accepts = ACCEPTS<T>;                                                \
        static const ulp_row* ulp() { return ULP; }                                                                  \
        template<class L, class R> static auto x(const L& l, const R& rr) { return xlet::NAME(l, rr); }              \
        template<class L, class R, std::int64_t... B> static auto x(const L& l, const R& rr, dims_t<B...> d) {       \
            return xlet::NAME(l, rr, d);                                                                             \
        }                                                                                                            \
        template<class T, class... BD> static auto ref(const r::array<T>& l, const r::array<T>& rr, const BD&... bd) { \
            return REF;                                                                                              \
        }                                                                                                            \
    };
#define BREF(OP) r::binary(r::binop::OP, l, rr, bd...)
#define CREF(OP) r::compare(r::cmpop::OP, l, rr, bd...)
XLET_BOP(add, acc_arith, BREF(add), nullptr)
XLET_BOP(sub, acc_numeric, BREF(sub), nullptr)
XLET_BOP(mul, acc_arith, BREF(mul), nullptr)
XLET_BOP(div, acc_numeric, BREF(div), nullptr)
XLET_BOP(rem, acc_real_numeric, BREF(rem), nullptr)
XLET_BOP(max, acc_ordered, BREF(max), nullptr)
XLET_BOP(min, acc_ordered, BREF(min), nullptr)
XLET_BOP(pow, acc_numeric, BREF(pow), &ulp_of("pow"))
XLET_BOP(atan2, acc_float_or_complex, BREF(atan2), &ulp_of("atan2"))
XLET_BOP(complex, acc_f32_f64, r::complex(l, rr, bd...), nullptr)
XLET_BOP(and_, acc_pred_or_integer, BREF(and_), nullptr)
XLET_BOP(or_, acc_pred_or_integer, BREF(or_), nullptr)
XLET_BOP(xor_, acc_pred_or_integer, BREF(xor_), nullptr)
XLET_BOP(shift_left, acc_integer, BREF(shift_left), nullptr)
XLET_BOP(shift_right_arithmetic, acc_integer, BREF(shift_right_arithmetic), nullptr)
XLET_BOP(shift_right_logical, acc_integer, BREF(shift_right_logical), nullptr)
XLET_BOP(eq, acc_any, CREF(eq), nullptr)
XLET_BOP(ne, acc_any, CREF(ne), nullptr)
XLET_BOP(lt, acc_ordered, CREF(lt), nullptr)
XLET_BOP(le, acc_ordered, CREF(le), nullptr)
XLET_BOP(gt, acc_ordered, CREF(gt), nullptr)
XLET_BOP(ge, acc_ordered, CREF(ge), nullptr)
XLET_BOP(eq_total, acc_ordered, CREF(eq_total), nullptr)
XLET_BOP(ne_total, acc_ordered, CREF(ne_total), nullptr)
XLET_BOP(lt_total, acc_ordered, CREF(lt_total), nullptr)
XLET_BOP(le_total, acc_ordered, CREF(le_total), nullptr)
XLET_BOP(gt_total, acc_ordered, CREF(gt_total), nullptr)
XLET_BOP(ge_total, acc_ordered, CREF(ge_total), nullptr)
#undef BREF
#undef CREF

template<class T> std::string type_str() { return std::string(xla_name<T>); }

// ---- drivers -----------------------------------------------------------------------------------
template<class Op, class T, class S>
void diff_unary(rng& g) {
    typename S::template tensor_t<T> a;
    for (auto& v : a) v = sample<T>(g, Op::ulp());
    auto got = eval(Op::x(a));
    using U = typename decltype(got)::value_type;
    auto want = Op::ref(to_ref(a));
    static_assert(std::is_same_v<typename decltype(want.data)::value_type, U>, "result element types differ");
    expect_match(std::string(Op::name) + " " + type_str<T>() + S::str(), got, want, tolerance<U>(Op::ulp()),
                 [&](std::size_t i) { return "x = " + show(a.data()[i]); });
}

template<class Op> void run_unary(rng& g) {
    for_each_type([&]<class T, std::size_t I>() {
        if constexpr (Op::template accepts<T>) {
            diff_unary<Op, T, main_shape<I + Op::id>>(g);
            diff_unary<Op, T, small_shape<I + Op::id>>(g);
        }
    });
}

template<std::int64_t... B> r::dims_t ref_dims(dims_t<B...>) { return {B...}; }

// lhs of shape SL, rhs of shape SR, optionally with broadcast_dimensions BD.
template<class Op, class T, class SL, class SR, class... BD>
void diff_binary(rng& g, BD... bd) {
    typename SL::template tensor_t<T> a;
    typename SR::template tensor_t<T> b;
    for (auto& v : a) v = sample<T>(g, Op::ulp());
    for (auto& v : b) v = sample<T>(g, Op::ulp());
    auto got = eval(Op::x(a, b, bd...));
    using U = typename decltype(got)::value_type;
    auto ra = to_ref(a), rb = to_ref(b);
    auto want = Op::ref(ra, rb, ref_dims(bd)...);
    static_assert(std::is_same_v<typename decltype(want.data)::value_type, U>, "result element types differ");
    auto [fa, fb] = r::broadcast_pair(ra, rb, ref_dims(bd)...); // operands as the output sees them
    std::string what = std::string(Op::name) + " " + type_str<T>() + SL::str() + " " + SR::str();
    ((what += " dims" + [](const r::dims_t& d) {
          std::string s = "{";
          for (auto x : d) s += std::to_string(x) + ",";
          return s + "}";
      }(ref_dims(bd))),
     ...);
    expect_match(what, got, want, tolerance<U>(Op::ulp()), [&, fa = fa, fb = fb](std::size_t i) {
        return "lhs = " + show(fa.data[i]) + ", rhs = " + show(fb.data[i]);
    });
}

// Same shapes (SIMD body + tail, small shapes, rank 0) on every accepted type.
template<class Op> void run_binary(rng& g) {
    for_each_type([&]<class T, std::size_t I>() {
        if constexpr (Op::template accepts<T>) {
            using M = main_shape<I + Op::id>;
            using S = small_shape<I + Op::id>;
            diff_binary<Op, T, M, M>(g);
            diff_binary<Op, T, S, S>(g);
        }
    });
}

// Every broadcasting form: scalar on either side, degenerate dimensions on both sides, and
// broadcast_dimensions (lower rank on the right and on the left, into rank 2 and rank 3).
template<class Op, class T> void run_broadcasts(rng& g) {
    diff_binary<Op, T, shp<3, 5>, shp<>>(g);
    diff_binary<Op, T, shp<>, shp<9, 7>>(g);
    diff_binary<Op, T, shp<3, 1>, shp<3, 5>>(g);
    diff_binary<Op, T, shp<1, 37>, shp<3, 1>>(g);
    diff_binary<Op, T, shp<4, 5>, shp<5>>(g, dims<1>);
    diff_binary<Op, T, shp<4>, shp<4, 5>>(g, dims<0>);
    diff_binary<Op, T, shp<2, 3, 17>, shp<2, 17>>(g, dims<0, 2>);
}

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
    run_unary<uop_exp>(g);
    run_unary<uop_expm1>(g);
    run_unary<uop_log>(g);
    run_unary<uop_log1p>(g);
    run_unary<uop_logistic>(g);
    run_unary<uop_sin>(g);
    run_unary<uop_cos>(g);
    run_unary<uop_tan>(g);
    run_unary<uop_tanh>(g);
    run_unary<uop_cosh>(g);
    run_unary<uop_rsqrt>(g);
    run_unary<uop_cbrt>(g);
    run_unary<uop_erf>(g);
}
