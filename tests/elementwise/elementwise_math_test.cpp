// The transcendentals (exp, expm1, log, log1p, logistic, sin, cos, tan, tanh, cosh, rsqrt, cbrt,
// erf, atan2, pow). The library computes real ones with xsimd's vectorised functions (pow: <cmath>)
// and complex ones with <complex>; the reference evaluator uses <cmath>/<complex>. Results are
// therefore compared within a bound: ULPs of the result type for real types, a relative error
// |got - want| / |want| in units of the part type's epsilon for complex types.
//
// The bounds (ulp_table below) are the next power of two above the largest error measured by
// "ULP bounds of the transcendentals" (every f16 and bf16 value of the domain; 131101 random values
// of the domain for f32, f64, c64 and c128, fixed seeds); 0 where the library and the reference do
// the same correctly rounded or <cmath> computation. Set XLET_ULP_REPORT=1 to print the
// measurements. Largest errors seen (GCC 12, AVX2, xsimd 8.1, glibc 2.36):
//
//   function  f16 bf16 f32 f64 | c64 c128 (eps)   domain of the random inputs (f32 | f64)
//   exp        0   0    2   1  |  0   0           [-87.3, 88.3]     | [-708.3, 709.4]
//   expm1      0   0    2   1  |  0   0           [-100, 88.3]      | [-800, 709.4]
//   log        0   0    1   1  |  0   0           [0, max]          | [2^-1022, max] and 0
//   log1p      0   0    1   1  |  *   *           [-1, max]         | [-1, max]
//   logistic   0   0    2   2  |  0   0           [-87, max]        | [-708, max]
//   sin        0   0    1   2  |  0   0           whole range       | whole range
//   cos        0   0    1   2  |  0   0           whole range       | whole range
//   tan        1   1    2   2  |  0   0           whole range       | whole range
//   tanh       0   0    2   2  |  0   0           whole range       | whole range
//   cosh       0   0    2   1  |  0   0           [-88.7, 88.7]     | [-710, 710]
//   rsqrt      0   0    0   0  |  0   0           [0, max]          | [0, max]
//   cbrt       0   0    2   3  |  -   -           whole range       | whole range but subnormals
//   erf        1   0    2  67  |  -   -           whole range       | [-9e61, 9e61]
//   atan2      1   0    2   2  |  -   -           whole range but zeros and infinities
//   pow        -   -    0   0  |  -   -           x in (0, 100], y in [-20, 20]; x in [-10, 0), y integer
//   (complex parts uniform in [-4, 4]; * log1p: 1.5 eps since it uses log(1 + z) away from 0;
//   before, 1.7e5 eps for c64 and 2.4e4 eps for c128, see below.
//   f16/bf16 pow and complex pow/atan2 use the same <cmath>/<complex> formula as the reference and
//   are compared exactly in elementwise_diff_binary_test.cpp.)
//
// xsimd 8.1's departures from <cmath>, which the library now patches lane by lane (ops/elementwise/unary.hpp
// patch_lanes: those lanes take <cmath>; f64 erf is scalar) and which stay tested strictly below:
//   * exp, expm1 overflow to inf early: f32 for x > 88.3763 (true limit 88.7228), f64 for
//     x > 709.4361 (true limit 709.7827). logistic inherits it at the low end.
//   * exp and logistic flush subnormal results to 0: f32 for x < -87.68, f64 for x < -708.40.
//   * log and cbrt of f64 subnormals are wrong (log(2^-1023) = -746.1 instead of -709.09).
//   * erf(f64) is NaN for |x| >= 9.555e61 (should be +-1), and is off by up to 67 ULPs near
//     |x| = 2.2 (and 24 ULPs near 0.01).
//   * expm1(-0) and log1p(-0) give +0 (all float types).
//   * atan2(+-0, +-0) and atan2(+-inf, +-inf) give NaN.
//   * complex log1p overflows to inf for large |z| (x*(2+x) + y*y overflows: c64 z = 1e20) and
//     loses accuracy near z = -1 (c64: 2% relative error at z = -1.0002; c128: 5e-12 at
//     z = -1.00057); complex expm1(x + 0i) has a NaN imaginary part once exp(x) overflows
//     (inf * sin(0)).
// Outside the domains above the tests "overflow, underflow and subnormal boundaries" and "special
// inputs" hold the library to <cmath>.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "elementwise_common.hpp"

// clang-format off
constexpr double big32 = 3.4028234663852886e38;  // FLT_MAX: the whole f32 range
constexpr double big64 = 1.7976931348623157e308; // DBL_MAX
constexpr ulp_row ulp_table[] = {
    // bounds in ULPs of the result type (complex: relative error in epsilons of the part type)
    // fn         lo32     hi32     lo64     hi64     tiny64     f16 bf16 f32 f64  complex
    {"exp",       -87.3,   88.3,   -708.3,  709.4,   0,          1,  1,  4,  2,   1},
    {"expm1",     -100,    88.3,   -800,    709.4,   0,          1,  1,  4,  2,   1},
    {"log",       0,       big32,  0,       big64,   0x1p-1022,  1,  1,  2,  2,   1},
    {"log1p",     -1,      big32,  -1,      big64,   0,          1,  1,  2,  2,   2},
    {"logistic",  -87,     big32,  -708,    big64,   0,          1,  1,  4,  4,   1},
    {"sin",       -big32,  big32,  -big64,  big64,   0,          1,  1,  2,  4,   1},
    {"cos",       -big32,  big32,  -big64,  big64,   0,          1,  1,  2,  4,   1},
    {"tan",       -big32,  big32,  -big64,  big64,   0,          2,  2,  4,  4,   1},
    {"tanh",      -big32,  big32,  -big64,  big64,   0,          1,  1,  4,  4,   1},
    {"cosh",      -88.7,   88.7,   -710,    710,     0,          1,  1,  4,  2,   1},
    {"rsqrt",     0,       big32,  0,       big64,   0,          0,  0,  0,  0,   1},
    {"cbrt",      -big32,  big32,  -big64,  big64,   0x1p-1022,  1,  1,  4,  4,   0},
    {"erf",       -big32,  big32,  -9e61,   9e61,    0,          2,  1,  4,  128, 0},
    {"atan2",     0,       0,      0,       0,       0,          2,  1,  4,  4,   1},
    {"pow",       0,       0,      0,       0,       0,          0,  0,  0,  0,   1},
};
// clang-format on
constexpr const ulp_row& ulp_of(std::string_view fn) {
    for (const auto& row : ulp_table)
        if (fn == row.fn) return row;
    throw "no such function in ulp_table";
}
template<class C> double rel_bound(const ulp_row& row) { return row.crel * lim<typename C::value_type>::epsilon(); }

namespace {

constexpr std::size_t big_n = 131101; // > 2^17 and no multiple of any lane count

// Runs Op on the inputs (tiled to big_n elements), and returns the first in.size() results.
// One instantiation per (op, type), shared by every check below.
template<class Op, class T>
[[gnu::noinline]] auto run_big(const std::vector<T>& in) {
    auto a = std::make_unique<tensor<T, big_n>>();
    for (std::size_t i = 0; i < big_n; ++i) (*a)(i) = in[i % in.size()];
    auto got = eval(Op::x(*a));
    using U = typename decltype(got)::value_type;
    return std::vector<U>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(std::min(in.size(), big_n)));
}
template<class Op, class T>
[[gnu::noinline]] auto run_big2(const std::vector<T>& x, const std::vector<T>& y) {
    auto a = std::make_unique<tensor<T, big_n>>();
    auto b = std::make_unique<tensor<T, big_n>>();
    for (std::size_t i = 0; i < big_n; ++i) {
        (*a)(i) = x[i % x.size()];
        (*b)(i) = y[i % y.size()];
    }
    auto got = eval(Op::x(*a, *b));
    using U = typename decltype(got)::value_type;
    return std::vector<U>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(std::min(x.size(), big_n)));
}

// Inputs of a ULP measurement: for f16 and bf16 every value inside the domain, else big_n random
// values of the domain (ulp_table) from a fixed seed.
template<class T> std::vector<T> domain_inputs(const ulp_row& row, unsigned seed) {
    std::vector<T> v;
    if constexpr (is_narrow<T>) {
        for (unsigned b = 0; b < 0x10000u; ++b) {
            T x = T::from_bits(static_cast<std::uint16_t>(b));
            double d = to_double(x);
            if (!std::isnan(d) && d >= row.lo32 && d <= row.hi32 && !(row.lo32 == 0 && std::signbit(d))) v.push_back(x);
        }
    } else {
        rng g(seed);
        for (std::size_t i = 0; i < big_n; ++i) v.push_back(sample<T>(g, &row));
    }
    return v;
}

bool ulp_report() { return std::getenv("XLET_ULP_REPORT") != nullptr; }

template<class Op, class T> void measure_unary(unsigned seed) {
    const ulp_row& row = ulp_of(Op::name);
    const auto in = domain_inputs<T>(row, seed);
    const auto got = run_big<Op, T>(in);
    const auto want = Op::ref(r::array<T>({static_cast<std::int64_t>(in.size())}, in));
    std::uint64_t worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (to_double(in[i]) == 0) continue; // the sign of a zero result: "special inputs" below
        auto e = ulp_error(got[i], static_cast<T>(want.data[i]));
        if (e > worst) worst = e, at = i;
    }
    const auto bound = static_cast<std::uint64_t>(ulp_bound<T>(row));
    if (ulp_report())
        std::printf("ULP %-9s %-4s n=%-6zu max %llu (bound %llu) at x = %s: got %s, want %s\n", Op::name, std::string(xla_name<T>).c_str(),
                    in.size(), static_cast<unsigned long long>(worst), static_cast<unsigned long long>(bound), show(in[at]).c_str(),
                    show(got[at]).c_str(), show(static_cast<T>(want.data[at])).c_str());
    CHECK_MESSAGE(worst <= bound, std::string(Op::name) << " " << xla_name<T> << ": " << worst << " ULPs at x = " << show(in[at]) << ": got "
                                           << show(got[at]) << ", want " << show(static_cast<T>(want.data[at])) << " (bound " << bound << ")");
}

template<class Op, class C> void measure_complex(unsigned seed) {
    const ulp_row& row = ulp_of(Op::name);
    rng g(seed);
    std::vector<C> in;
    for (std::size_t i = 0; i < big_n; ++i) in.push_back(sample<C>(g, &row));
    const auto got = run_big<Op, C>(in);
    const auto want = Op::ref(r::array<C>({static_cast<std::int64_t>(in.size())}, in));
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        double e = rel_error(got[i], want.data[i]);
        if (e > worst) worst = e, at = i;
    }
    if (ulp_report())
        std::printf("REL %-9s %-4s max %.3g eps (bound %g eps) at z = %s\n", Op::name, std::string(xla_name<C>).c_str(),
                    worst / lim<typename C::value_type>::epsilon(), row.crel,
                    show(in[at]).c_str());
    CHECK_MESSAGE(worst <= rel_bound<C>(row), std::string(Op::name) << " " << xla_name<C> << ": relative error " << worst << " at z = " << show(in[at])
                                              << ": got " << show(got[at]) << ", want " << show(want.data[at]));
}

template<class Op> void measure_all(unsigned seed) {
    measure_unary<Op, half>(seed);
    measure_unary<Op, bfloat16>(seed);
    measure_unary<Op, float>(seed);
    measure_unary<Op, double>(seed);
    if constexpr (Op::template accepts<c64_t>) {
        measure_complex<Op, c64_t>(seed);
        measure_complex<Op, c128_t>(seed);
    }
}

// atan2 over the whole range (zeros and infinities apart: see the special inputs), pow over
// positive bases with any exponent and negative bases with integer exponents.
template<class Op, class T> void measure_binary(unsigned seed) {
    const ulp_row& row = ulp_of(Op::name);
    rng g(seed);
    std::vector<T> x, y;
    const bool is_pow = std::string_view(Op::name) == "pow";
    for (std::size_t i = 0; i < big_n; ++i) {
        if (is_pow) {
            if (g.coin()) {
                x.push_back(float_in<T>(g, 0, 100));
                y.push_back(float_in<T>(g, -20, 20));
            } else {
                x.push_back(float_in<T>(g, -10, 0));
                y.push_back(from_double<T>(static_cast<double>(g.below(21)) - 10));
            }
        } else {
            T a, b;
            do a = float_in<T>(g, -to_double(lim<T>::max()), to_double(lim<T>::max())); while (to_double(a) == 0);
            do b = float_in<T>(g, -to_double(lim<T>::max()), to_double(lim<T>::max())); while (to_double(b) == 0);
            x.push_back(a);
            y.push_back(b);
        }
    }
    const auto got = run_big2<Op, T>(x, y);
    const auto want = Op::ref(r::array<T>({static_cast<std::int64_t>(x.size())}, x), r::array<T>({static_cast<std::int64_t>(y.size())}, y));
    std::uint64_t worst = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        auto e = ulp_error(got[i], static_cast<T>(want.data[i]));
        if (e > worst) worst = e, at = i;
    }
    const auto bound = static_cast<std::uint64_t>(ulp_bound<T>(row));
    if (ulp_report())
        std::printf("ULP %-9s %-4s n=%-6zu max %llu (bound %llu) at (%s, %s)\n", Op::name, std::string(xla_name<T>).c_str(), x.size(),
                    static_cast<unsigned long long>(worst), static_cast<unsigned long long>(bound), show(x[at]).c_str(), show(y[at]).c_str());
    CHECK_MESSAGE(worst <= bound, std::string(Op::name) << " " << xla_name<T> << ": " << worst << " ULPs at (" << show(x[at]) << ", " << show(y[at])
                                           << "): got " << show(got[at]) << ", want " << show(static_cast<T>(want.data[at])));
}

} // namespace

TEST_CASE("ULP bounds of the transcendentals (ulp_table above)") {
    measure_all<uop_exp>(1);
    measure_all<uop_expm1>(2);
    measure_all<uop_log>(3);
    measure_all<uop_log1p>(4);
    measure_all<uop_logistic>(5);
    measure_all<uop_sin>(6);
    measure_all<uop_cos>(7);
    measure_all<uop_tan>(8);
    measure_all<uop_tanh>(9);
    measure_all<uop_cosh>(10);
    measure_all<uop_rsqrt>(11);
    measure_all<uop_cbrt>(12);
    measure_all<uop_erf>(13);
    measure_binary<bop_atan2, half>(18);
    measure_binary<bop_atan2, bfloat16>(19);
    measure_binary<bop_atan2, float>(14);
    measure_binary<bop_atan2, double>(15);
    measure_binary<bop_pow, float>(16);
    measure_binary<bop_pow, double>(17);
}

namespace {
// Op on each input, compared with the reference within the op's ULP bound (NaN must meet NaN, and
// signs must agree, zeros included).
template<class Op, class T> void expect_near_ref(const std::vector<T>& in) {
    const auto got = run_big<Op, T>(in);
    const auto want = Op::ref(r::array<T>({static_cast<std::int64_t>(in.size())}, in));
    const auto bound = static_cast<std::uint64_t>(ulp_bound<T>(ulp_of(Op::name)));
    for (std::size_t i = 0; i < in.size(); ++i) {
        const T w = static_cast<T>(want.data[i]);
        CHECK_MESSAGE(ulp_error(got[i], w) <= bound, std::string(Op::name) << " " << xla_name<T> << "(" << show(in[i]) << ") = " << show(got[i]) << ", <cmath> gives "
                                                              << show(w) << " (" << ulp_error(got[i], w) << " ULPs, bound " << bound << ")");
    }
}
template<class T> std::vector<T> doubles_as(std::initializer_list<double> v) {
    std::vector<T> out;
    for (double d : v) out.push_back(from_double<T>(d));
    return out;
}
} // namespace

TEST_CASE("transcendentals: overflow, underflow and subnormal boundaries") {
    // exp and expm1 are finite up to log(max) = 88.7228 (f32) and 709.7827 (f64).
    expect_near_ref<uop_exp, float>(doubles_as<float>({88.3, 88.38, 88.5, 88.7, 88.72}));
    expect_near_ref<uop_expm1, float>(doubles_as<float>({88.3, 88.38, 88.5, 88.7, 88.72}));
    expect_near_ref<uop_exp, double>(doubles_as<double>({709.4, 709.44, 709.6, 709.78}));
    expect_near_ref<uop_expm1, double>(doubles_as<double>({709.4, 709.44, 709.6, 709.78}));
    expect_near_ref<uop_cosh, float>(doubles_as<float>({88.0, 89.0, 89.41}));
    expect_near_ref<uop_cosh, double>(doubles_as<double>({709.0, 710.0, 710.47}));
    // Results in the subnormal range (ULPs there are units of the smallest subnormal).
    expect_near_ref<uop_exp, float>(doubles_as<float>({-87.3, -87.5, -88.0, -90.0, -95.0, -100.0, -103.0}));
    expect_near_ref<uop_exp, double>(doubles_as<double>({-708.3, -708.5, -710.0, -720.0, -740.0, -744.0}));
    expect_near_ref<uop_logistic, float>(doubles_as<float>({-87.0, -87.5, -88.5, -95.0, -103.0}));
    expect_near_ref<uop_logistic, double>(doubles_as<double>({-708.0, -709.0, -720.0, -740.0}));
    // Subnormal inputs.
    expect_near_ref<uop_log, float>(doubles_as<float>({0x1p-126, 0x1p-127, 0x1.8p-140, 0x1p-149}));
    expect_near_ref<uop_log, double>(doubles_as<double>({0x1p-1022, 0x1p-1023, 0x1.8p-1050, 0x1p-1074}));
    expect_near_ref<uop_cbrt, float>(doubles_as<float>({0x1p-126, -0x1p-127, 0x1.8p-140, 0x1p-149}));
    expect_near_ref<uop_cbrt, double>(doubles_as<double>({0x1p-1022, -0x1p-1023, 0x1.8p-1050, 0x1p-1074}));
    expect_near_ref<uop_rsqrt, double>(doubles_as<double>({0x1p-1023, 0x1p-1074}));
    // erf saturates at +-1.
    expect_near_ref<uop_erf, float>(doubles_as<float>({5.0, 10.0, 1e10, -1e30, 3e38}));
    expect_near_ref<uop_erf, double>(doubles_as<double>({6.0, 30.0, 1e10, 1e61, 1e62, 1e100, -1e300, 1.7e308}));
}

namespace {
template<class T> std::vector<T> special_inputs() {
    std::vector<T> v = {nan_<T>(), -nan_<T>(), inf_<T>(), -inf_<T>(), T(0.0), neg_zero<T>(), lim<T>::max(), lim<T>::lowest(),
                        lim<T>::min(), -lim<T>::min(), lim<T>::denorm_min(), -lim<T>::denorm_min(), T(1.0), T(-1.0)};
    if constexpr (std::is_same_v<T, float>) v.insert(v.end(), {1e30f, -1e30f});
    if constexpr (std::is_same_v<T, double>) v.insert(v.end(), {1e300, -1e300});
    return v;
}
// The class of a result: NaN, +-inf, +-0, or a finite nonzero number of a sign.
template<class T> std::string class_of(T x) {
    if (isnan_(x)) return "NaN";
    double d = to_double(x);
    if (std::isinf(d)) return d > 0 ? "+inf" : "-inf";
    if (d == 0) return std::signbit(d) ? "-0" : "+0";
    return d > 0 ? "+finite" : "-finite";
}
template<class Op, class T> void special_classes() {
    const auto in = special_inputs<T>();
    const auto got = run_big<Op, T>(in);
    const auto want = Op::ref(r::array<T>({static_cast<std::int64_t>(in.size())}, in));
    for (std::size_t i = 0; i < in.size(); ++i) {
        const T w = static_cast<T>(want.data[i]);
        CHECK_MESSAGE(class_of(got[i]) == class_of(w), std::string(Op::name) << " " << xla_name<T> << "(" << show(in[i]) << ") = " << show(got[i])
                                                                << ", <cmath> gives " << show(w));
    }
}
template<class Op> void special_all() {
    special_classes<Op, half>();
    special_classes<Op, bfloat16>();
    special_classes<Op, float>();
    special_classes<Op, double>();
}
template<class T> void atan2_specials() {
    // Every pair of {+-0, +-inf, NaN, +-1, denorm}: class, sign and value (within the bound) as <cmath>.
    const std::vector<T> v = {T(0.0), neg_zero<T>(), inf_<T>(), -inf_<T>(), nan_<T>(), T(1.0), T(-1.0), lim<T>::denorm_min()};
    std::vector<T> y, x;
    for (T a : v)
        for (T b : v) y.push_back(a), x.push_back(b);
    const auto got = run_big2<bop_atan2, T>(y, x);
    const auto bound = static_cast<std::uint64_t>(ulp_bound<T>(ulp_of("atan2")));
    for (std::size_t i = 0; i < y.size(); ++i) {
        const T w = from_double<T>(std::atan2(to_double(y[i]), to_double(x[i])));
        CHECK_MESSAGE(ulp_error(got[i], w) <= bound,
                      "atan2 " << xla_name<T> << "(" << show(y[i]) << ", " << show(x[i]) << ") = " << show(got[i]) << ", <cmath> gives " << show(w));
    }
}
} // namespace

TEST_CASE("transcendentals: special inputs give the class of result <cmath> gives") {
    special_all<uop_exp>();
    special_all<uop_expm1>();
    special_all<uop_log>();
    special_all<uop_log1p>();
    special_all<uop_logistic>();
    special_all<uop_sin>();
    special_all<uop_cos>();
    special_all<uop_tan>();
    special_all<uop_tanh>();
    special_all<uop_cosh>();
    special_all<uop_rsqrt>();
    special_all<uop_cbrt>();
    special_all<uop_erf>();
    special_all<uop_sqrt>();
    atan2_specials<float>();
    atan2_specials<double>();
    atan2_specials<half>();
}

TEST_CASE("complex transcendentals at large and special arguments") {
    // log1p(z) = log(1 + z) must not overflow for large |z|; expm1(x + 0i) = expm1(x) + 0i.
    const std::vector<c64_t> z = {c64_t(1e20f, 0), c64_t(1e20f, 1e20f), c64_t(-3e19f, 0.5f), c64_t(2e38f, -2e38f), c64_t(1e-3f, 1e-3f)};
    const auto got = run_big<uop_log1p, c64_t>(z);
    const auto want = r::unary(r::unop::log1p, r::array<c64_t>({5}, z));
    for (std::size_t i = 0; i < z.size(); ++i)
        CHECK_MESSAGE(rel_error(got[i], want.data[i]) <= rel_bound<c64_t>(ulp_of("log1p")),
                      "log1p c64" << show(z[i]) << " = " << show(got[i]) << ", want " << show(want.data[i]));
    const std::vector<c128_t> w = {c128_t(1e200, 0), c128_t(-1e300, 1e300), c128_t(1e-9, -1e-9)};
    const auto got2 = run_big<uop_log1p, c128_t>(w);
    const auto want2 = r::unary(r::unop::log1p, r::array<c128_t>({3}, w));
    for (std::size_t i = 0; i < w.size(); ++i)
        CHECK_MESSAGE(rel_error(got2[i], want2.data[i]) <= rel_bound<c128_t>(ulp_of("log1p")),
                      "log1p c128" << show(w[i]) << " = " << show(got2[i]) << ", want " << show(want2.data[i]));
    const std::vector<c64_t> e = {c64_t(100, 0), c64_t(INFINITY, 0), c64_t(-INFINITY, 0), c64_t(89, 0), c64_t(1e-10f, 0)};
    const auto got3 = run_big<uop_expm1, c64_t>(e);
    const auto want3 = r::unary(r::unop::expm1, r::array<c64_t>({5}, e));
    for (std::size_t i = 0; i < e.size(); ++i)
        CHECK_MESSAGE(rel_error(got3[i], want3.data[i]) <= rel_bound<c64_t>(ulp_of("expm1")),
                      "expm1 c64" << show(e[i]) << " = " << show(got3[i]) << ", want " << show(want3.data[i]));
}
