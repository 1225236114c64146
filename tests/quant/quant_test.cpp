// Uniform quantized types and their ops (include/xlet/quant/, issue #26):
//   1. the types: layout, traits, names, the per-axis helpers;
//   2. the spec's examples verbatim (uniform_quantize, uniform_dequantize, StableHLO's interpreter
//      examples of them and of a quantized add, the seed passes' examples);
//   3. hand-checked values: ties to even, saturation at the storage bounds, NaN, zero points at the
//      storage bounds, i4 / u4 / u8 / i16 / u16 / i32 storage, bf16 / f16 / f64 expressed types
//      (rounding after every step), requantization;
//   4. differential tests of quantize / dequantize against the reference evaluator's literal
//      formulas (tests/reference/reference_quant.hpp), per-tensor and per-axis along each axis;
//   5. element-wise ops on quantized operands (dequantize_op_quantize) against the reference;
//   6. fusion: uniform_quantize<Q2>(exp(uniform_dequantize(q)) + 1.0f) is one pass that makes no
//      float array (its type, and no allocation).
// Data movement of quantized arrays: quant_layout_test.cpp. Compile-fail tests of the rules:
// tests/compile_fail/quant_uniform*_c*.cpp, uniform_(de)quantize_c2.cpp, <op>_c5..c8.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "alloc_counter.hpp"
#include "quant_common.hpp"

#include <functional>
#include <sstream>

namespace {

using quant::scale;
using quant::scales;
using quant::zero_points;

// The types under test.
using QI8 = quant::uniform<std::int8_t, float, scale(0.5), 2>;
using QI8b = quant::uniform<std::int8_t, float, scale(0.1), -30>;
using QI8c = quant::uniform<std::int8_t, float, scale(0.5), -20>;
using QI8zmin = quant::uniform<std::int8_t, float, scale(0.25), -128>;
using QI8zmax = quant::uniform<std::int8_t, float, scale(0.25), 127>;
using QI8narrow = quant::uniform<std::int8_t, float, scale(0.02), 0, -127, 127>;
using QI4 = quant::uniform<quant::i4, float, scale(0.5), -1>;
using QU4 = quant::uniform<quant::u4, float, scale(0.125), 8>;
using QU8 = quant::uniform<std::uint8_t, float, scale(34.0), 16>;
using QU8z255 = quant::uniform<std::uint8_t, float, scale(0.5), 255>;
using QI16 = quant::uniform<std::int16_t, float, scale(0.001), -300>;
using QU16 = quant::uniform<std::uint16_t, float, scale(0.01), 32768>;
using QI32 = quant::uniform<std::int32_t, float, scale(1e-3), 12345>;
using QBF = quant::uniform<std::int8_t, bfloat16, scale(0.1), 3>;
using QBF16 = quant::uniform<std::int16_t, bfloat16, scale(0.5), 1>;
using QF16 = quant::uniform<std::int8_t, half, scale(0.03), -7>;
using QF16s = quant::uniform<std::int16_t, half, scale(1.0), 1>;
using QF64 = quant::uniform<std::int32_t, double, scale(0.25), -5>;
// Per-axis, one along each dimension of [2, 3, 4].
using PA0 = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.1, 0.5), zero_points(-30, -20)>;
using PA1 = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.25, 0.03, 2.0), zero_points(0, 127, -128)>;
using PA2 = quant::uniform_per_axis<std::int8_t, float, 2, scales(0.1, 0.2, 0.3, 0.4), zero_points(1, -1, 5, -5)>;
using PA1bf = quant::uniform_per_axis<std::int16_t, bfloat16, 1, scales(0.5, 1.0, 0.01), zero_points(1, -3, 0)>;
using PA2i4 = quant::uniform_per_axis<quant::i4, float, 2, scales(0.5, 1.0, 0.25, 2.0), zero_points(-8, 7, 0, 1)>;
using PA0u8 = quant::uniform_per_axis<std::uint8_t, half, 0, scales(0.5, 0.125), zero_points(0, 255)>;

template<class Q, std::size_t... D>
using qt_t = tensor<Q, D...>;

template<class A>
std::vector<std::int64_t> ints(const A& a) {
    return qt::stored(a).data;
}
template<class A>
std::vector<double> reals(const A& a) {
    std::vector<double> v;
    for (auto e : a)
        v.push_back(static_cast<double>(e));
    return v;
}

} // namespace

// =================================================================================================
// 1. The types
// =================================================================================================
TEST_CASE("quantized element types: layout, traits, names") {
    static_assert(std::is_trivially_copyable_v<QI8> && std::is_standard_layout_v<QI8> && sizeof(QI8) == 1);
    static_assert(sizeof(QI4) == 1 && sizeof(QU4) == 1 && sizeof(QI16) == 2 && sizeof(QU16) == 2 && sizeof(QI32) == 4);
    static_assert(sizeof(PA1) == 1 && alignof(QI32) == alignof(std::int32_t));
    static_assert(is_quantized<QI8> && is_quantized<PA1> && !is_quantized<float> && !is_quantized<std::int8_t>);
    static_assert(!is_per_axis_quantized<QI8> && is_per_axis_quantized<PA1>);
    static_assert(kind_of<QI8> == kind::quantized && element<QI8>);
    static_assert(std::is_same_v<compute_t<QI8>, std::int8_t> && std::is_same_v<compute_t<QI4>, std::int8_t> &&
                  std::is_same_v<compute_t<QU16>, std::uint16_t>);
    static_assert(std::is_same_v<storage_t<QI32>, std::int32_t> && std::is_same_v<expressed_t<QBF>, bfloat16>);
    static_assert(element_traits<QI4>::bits == 4 && element_traits<QI8>::bits == 8 && element_traits<QI32>::bits == 32);
    static_assert(element_traits<QI4>::storage_min == -8 && element_traits<QI4>::storage_max == 7);
    static_assert(element_traits<QU4>::storage_min == 0 && element_traits<QU4>::storage_max == 15);
    static_assert(QI8narrow::storage_min == -127 && QI8narrow::storage_max == 127);
    static_assert(element_traits<PA1>::axis == 1 && element_traits<PA1>::axis_size == 3 &&
                  element_traits<QI8>::axis == -1);
    // The scale is exact: the bits of the double written.
    static_assert(QI8b::scale == 0.1 && PA1::scales[1] == 0.03 && PA1::zero_points[2] == -128);
    // The per-axis type along another dimension, and a size-1 dimension's one scale repeated.
    using PA1at2 = detail::with_quant_axis_t<PA1, 2>;
    static_assert(PA1at2::axis == 2 && PA1at2::scales == PA1::scales);
    using One = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.5), zero_points(3)>;
    using Rep = detail::with_quant_axis_t<One, 1, 3>;
    static_assert(Rep::axis == 1 && Rep::axis_size == 3 && Rep::scales[2] == 0.5 && Rep::zero_points[1] == 3);
    static_assert(std::is_same_v<detail::with_quant_axis_t<QI8, 3>, QI8> &&
                  std::is_same_v<detail::with_quant_axis_t<float, 3>, float>);

    CHECK(xla_name<QI8> == "!quant.uniform<i8:f32, 5.000000e-01:2>");
    CHECK(xla_name<QU8> == "!quant.uniform<u8:f32, 3.400000e+01:16>");
    CHECK(xla_name<QI8narrow> == "!quant.uniform<i8<-127:127>:f32, 2.000000e-02>");
    CHECK(xla_name<QI4> == "!quant.uniform<i4:f32, 5.000000e-01:-1>");
    CHECK(xla_name<QBF> == "!quant.uniform<i8:bf16, 1.000000e-01:3>");
    CHECK(xla_name<QI32> == "!quant.uniform<i32:f32, 1.000000e-03:12345>");
    CHECK(xla_name<PA0> == "!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>");
    std::ostringstream os;
    os << qt_t<QI8, 2>{3, -4};
    CHECK(os.str() == "!quant.uniform<i8:f32, 5.000000e-01:2>[2] {3, -4}");

    // A tensor of them: zero-filled stored integers by default, braces give stored integers.
    qt_t<QI8, 2, 2> t;
    CHECK(ints(t) == std::vector<std::int64_t>{0, 0, 0, 0});
    qt_t<QI8, 2, 2> u{{1, -2}, {127, -128}};
    CHECK(ints(u) == std::vector<std::int64_t>{1, -2, 127, -128});
    CHECK(u(1, 0) == QI8{127});
    CHECK(equal(u, qt_t<QI8, 2, 2>(u)));
    // Large arrays (heap storage) too.
    qt_t<QI16, 64, 64> big;
    CHECK(big(63, 63).stored == 0);
}

// =================================================================================================
// 2. The spec's examples
// =================================================================================================
TEST_CASE("spec: uniform_quantize and uniform_dequantize examples (per-axis, axis 0)") {
    // %operand: [4.0, 15.0] -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>: [10, 10]
    using A = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.1, 0.5), zero_points(-30, -20)>;
    using B = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.1, 0.2), zero_points(-20, -30)>;
    f32<2> x{4.0f, 15.0f};
    qt_t<A, 2> q = uniform_quantize<A>(x);
    CHECK(ints(q) == std::vector<std::int64_t>{10, 10});
    // requantization: [10, 10] -> {0.1:-20, 0.2:-30}: [20, 45]
    qt_t<B, 2> rq = uniform_quantize<B>(q);
    CHECK(ints(rq) == std::vector<std::int64_t>{20, 45});
    // uniform_dequantize [10, 10] -> [4.0, 15.0] (almost equal: (10 + 30) * f32(0.1))
    f32<2> d = uniform_dequantize(q);
    CHECK(d(0) == doctest::Approx(4.0).epsilon(1e-6));
    CHECK(d(1) == 15.0f);
    // the interpreter's qdq example: dequantize(quantize(x)) ~ x
    f32<2> qdq = uniform_dequantize(uniform_quantize<A>(x));
    CHECK(qdq(0) == doctest::Approx(4.0).epsilon(1e-6));
    CHECK(qdq(1) == 15.0f);
}

TEST_CASE("spec: StableHLO interpreter's quantized add") {
    // add(quantize<i8:f32, 0.1:-30>([1, 2]), quantize<i8:f32, 0.5:-20>([3, 4])) -> 0.5:-20: [-12, -8]
    f32<2> a{1.0f, 2.0f}, b{3.0f, 4.0f};
    qt_t<QI8b, 2> qa = uniform_quantize<QI8b>(a);
    qt_t<QI8c, 2> qb = uniform_quantize<QI8c>(b);
    CHECK(ints(qa) == std::vector<std::int64_t>{-20, -10});
    CHECK(ints(qb) == std::vector<std::int64_t>{-14, -12});
    qt_t<QI8c, 2> r = add<QI8c>(qa, qb);
    CHECK(ints(r) == std::vector<std::int64_t>{-12, -8});
}

TEST_CASE("spec: the seed passes' quantized examples") {
    // stablehlo-legalize-qdq-to-quantized-op: dequantize -> abs -> quantize on ui8:f32, 34.0:16,
    // and the fused abs of the quantized tensor, agree.
    qt_t<QU8, 16, 16> x;
    for (std::size_t i = 0; i < x.size(); ++i)
        x.data()[i] = QU8{i % 256};
    qt_t<QU8, 16, 16> qdq = uniform_quantize<QU8>(abs(uniform_dequantize(x)));
    qt_t<QU8, 16, 16> fused = abs(x);
    CHECK(equal(qdq, fused));
    // stored 0 is -544, |.| = 544 = (32 - 16) * 34; 16 is 0; 255 is 8126 = (255 - 16) * 34
    CHECK(fused(0, 0).stored == 32);
    CHECK(fused(0, 16).stored == 16);
    CHECK(fused(15, 15).stored == 255);
    CHECK(fused(0, 1).stored == 31); // (1 - 16) * 34 = -510: 510 / 34 + 16
    // stablehlo-legalize-quant-to-math / quantized-op-to-qdq: add of i8:f32 1.0:0 and 2.0:1 into
    // 3.0:2: (a + 2 (b - 1)) / 3 + 2, rounded half to even.
    using L = quant::uniform<std::int8_t, float, scale(1.0), 0>;
    using R = quant::uniform<std::int8_t, float, scale(2.0), 1>;
    using O = quant::uniform<std::int8_t, float, scale(3.0), 2>;
    qt_t<L, 5> l{0, 3, -7, 100, 127};
    qt_t<R, 5> rr{1, 2, -3, 100, 127};
    qt_t<O, 5> o = add<O>(l, rr);
    // 0 + 0 = 0 -> 2; 3 + 2 = 5 -> 1.67 + 2 -> 4; -7 - 8 = -15 -> -5 + 2 = -3; 100 + 198 = 298 ->
    // 99.33 + 2 -> 101; 127 + 252 = 379 -> 126.33 + 2 = 128.33 -> saturates at 127
    CHECK(ints(o) == std::vector<std::int64_t>{2, 4, -3, 101, 127});
}

// =================================================================================================
// 3. Hand-checked values
// =================================================================================================
TEST_CASE("quantize: round half to even, saturation at the storage bounds, NaN") {
    using Q = quant::uniform<std::int8_t, float, scale(0.5), 0>;
    constexpr float inf = std::numeric_limits<float>::infinity();
    f32<14> x{0.25f, 0.75f, -0.25f, 1.25f, -1.25f, 1.75f, 63.25f, 63.75f, -64.25f, 1e30f, -1e30f, inf, -inf, NAN};
    qt_t<Q, 14> q = uniform_quantize<Q>(x);
    // 0.5 -> 0, 1.5 -> 2, -0.5 -> 0, 2.5 -> 2, -2.5 -> -2, 3.5 -> 4, 126.5 -> 126, 127.5 -> 127
    // (clamped first), -128.5 -> -128, beyond the range -> the bounds, NaN -> 0
    CHECK(ints(q) == std::vector<std::int64_t>{0, 2, 0, 2, -2, 4, 126, 127, -128, 127, -128, 127, -128, 0});
    // A zero point: ties are on the stored side (x / s + zp).
    f32<4> y{0.25f, 0.75f, 1e9f, NAN};
    qt_t<QI8, 4> qy = uniform_quantize<QI8>(y); // scale 0.5, zp 2: 2.5 -> 2, 3.5 -> 4
    CHECK(ints(qy) == std::vector<std::int64_t>{2, 4, 127, 0});
    // A narrow storage range saturates at its own bounds.
    f32<3> z{10.0f, -10.0f, 0.03f};
    qt_t<QI8narrow, 3> qz = uniform_quantize<QI8narrow>(z);
    CHECK(ints(qz) == std::vector<std::int64_t>{127, -127, 2}); // 0.03 / 0.02 = 1.5 -> 2
}

TEST_CASE("zero points at the storage bounds: no wrap in stored - zero_point") {
    // zp = -128: 127 is (127 + 128) * 0.25 = 63.75 (the spec's subtraction in i8 would wrap to -1)
    qt_t<QI8zmin, 3> a{127, -128, 0};
    f32<3> da = uniform_dequantize(a);
    CHECK(reals(da) == std::vector<double>{63.75, 0.0, 32.0});
    f32<3> xa{63.75f, -1.0f, 0.0f};
    CHECK(ints(qt_t<QI8zmin, 3>(uniform_quantize<QI8zmin>(xa))) == std::vector<std::int64_t>{127, -128, -128});
    // zp = 127
    qt_t<QI8zmax, 3> b{-128, 127, 0};
    f32<3> db = uniform_dequantize(b);
    CHECK(reals(db) == std::vector<double>{-63.75, 0.0, -31.75});
    // u8, zp = 255
    qt_t<QU8z255, 2> c{0, 255};
    f32<2> dc = uniform_dequantize(c);
    CHECK(reals(dc) == std::vector<double>{-127.5, 0.0});
    f32<2> xc{1.0f, -200.0f};
    CHECK(ints(qt_t<QU8z255, 2>(uniform_quantize<QU8z255>(xc))) == std::vector<std::int64_t>{255, 0});
}

TEST_CASE("storage types: i4, u4, u8, i16, u16, i32") {
    // i4 (a byte, -8..7), scale 0.5, zp -1: 3 -> 5, -5 -> -11 -> -8, 0.25 -> -0.5 -> 0, 100 -> 7
    f32<4> x4{3.0f, -5.0f, 0.25f, 100.0f};
    qt_t<QI4, 4> q4 = uniform_quantize<QI4>(x4);
    CHECK(ints(q4) == std::vector<std::int64_t>{5, -8, 0, 7});
    f32<4> d4 = uniform_dequantize(q4);
    CHECK(reals(d4) == std::vector<double>{3.0, -3.5, 0.5, 4.0});
    // u4 (a byte, 0..15), scale 0.125, zp 8: -1 -> 0, 1 -> 16 -> 15, 0.0625 -> 8.5 -> 8, -0.0625 -> 7.5 -> 8
    f32<4> xu4{-1.0f, 1.0f, 0.0625f, -0.0625f};
    qt_t<QU4, 4> qu4 = uniform_quantize<QU4>(xu4);
    CHECK(ints(qu4) == std::vector<std::int64_t>{0, 15, 8, 8});
    // u8, scale 34, zp 16
    f32<4> xu8{-544.0f, 0.0f, 51.0f, 1e6f};
    qt_t<QU8, 4> qu8 = uniform_quantize<QU8>(xu8);
    CHECK(ints(qu8) == std::vector<std::int64_t>{0, 16, 18, 255}); // 51 / 34 = 1.5 -> 2 (+16)
    // i16, scale 0.001, zp -300: 1 -> 700; -40 -> -40300 -> -32768
    f32<2> x16{1.0f, -40.0f};
    CHECK(ints(qt_t<QI16, 2>(uniform_quantize<QI16>(x16))) == std::vector<std::int64_t>{700, -32768});
    // u16, scale 0.01, zp 32768: -327.68 -> 0, 327.67 -> 65535, 1000 -> 65535
    qt_t<QU16, 3> q16u{0, 65535, 32768};
    f32<3> d16u = uniform_dequantize(q16u);
    CHECK(d16u(0) == doctest::Approx(-327.68));
    CHECK(d16u(1) == doctest::Approx(327.67));
    CHECK(d16u(2) == 0.0f);
    // i32: the range saturates; f32's storage_max is 2^31, clamped back to 2^31 - 1
    using Q32 = quant::uniform<std::int32_t, float, scale(1.0), 0>;
    f32<4> x32{2147483647.0f, -3e9f, 3e9f, 123456789.0f};
    qt_t<Q32, 4> q32 = uniform_quantize<Q32>(x32);
    CHECK(ints(q32) == std::vector<std::int64_t>{2147483647, -2147483648LL, 2147483647, 123456792});
    // dequantize of the extremes of QI32 (zp 12345): exact difference, one rounding to f32
    qt_t<QI32, 2> e32{std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()};
    f32<2> d32 = uniform_dequantize(e32);
    CHECK(d32(0) == static_cast<float>(2147483647.0 - 12345) * 0.001f);
    CHECK(d32(1) == static_cast<float>(-2147483648.0 - 12345) * 0.001f);
}

TEST_CASE("expressed types: bf16 and f16 round after every step, f64") {
    // bf16, i16, scale 0.5, zp 1: 150 / 0.5 = 300, + 1 = 301 rounds (bf16 has 8 bits) to 300.
    bf16<2> x{bfloat16(150.0f), bfloat16(-10.0f)};
    qt_t<QBF16, 2> q = uniform_quantize<QBF16>(x);
    CHECK(ints(q) == std::vector<std::int64_t>{300, -19});
    // dequantize: 302 - 1 = 301 is 300 in bf16 (ties to even), times 0.5 = 150
    qt_t<QBF16, 3> s{302, 301, 1};
    bf16<3> d = uniform_dequantize(s);
    CHECK(static_cast<float>(d(0)) == 150.0f);
    CHECK(static_cast<float>(d(1)) == 150.0f);
    CHECK(static_cast<float>(d(2)) == 0.0f);
    // f16, i16, scale 1, zp 1: 3000 + 1 = 3001 is 3000 in f16 (11 bits)
    f16<2> h{half(3000.0f), half(2.5f)};
    qt_t<QF16s, 2> qh = uniform_quantize<QF16s>(h);
    CHECK(ints(qh) == std::vector<std::int64_t>{3000, 4}); // 2.5 + 1 = 3.5 -> 4
    // The scale is rounded to the expressed type: bf16(0.1) = 0.10009765625.
    qt_t<QBF, 1> one{13};
    bf16<1> d1 = uniform_dequantize(one);
    CHECK(static_cast<float>(d1(0)) == static_cast<float>(bfloat16(10.0f * 0.10009765625f)));
    // f64: scale 0.25, zp -5
    f64<3> xd{1e9, 1.125, -1e300};
    qt_t<QF64, 3> qd = uniform_quantize<QF64>(xd);
    CHECK(ints(qd) == std::vector<std::int64_t>{2147483647, 0, -2147483648LL}); // 4.5 - 5 = -0.5 -> 0
    qt_t<QF64, 1> md{2147483647};
    f64<1> dd = uniform_dequantize(md);
    CHECK(dd(0) == 536870913.0); // (2^31 - 1 + 5) / 4, exact in f64
}

TEST_CASE("requantization: per-tensor and per-axis, to and from each other") {
    // per-tensor -> per-tensor: 0.1:-30 to 0.5:-20: stored -20 (1.0) -> 2 / 1 - 20 = -18
    qt_t<QI8b, 3> a{-20, -10, 127};
    qt_t<QI8c, 3> b = uniform_quantize<QI8c>(a);
    // 1.0 -> 2 - 20; 2.0 -> 4 - 20; 15.7 -> 31.4 - 20 = 11.4 -> 11
    CHECK(ints(b) == std::vector<std::int64_t>{-18, -16, 11});
    // per-axis -> per-axis is the spec's example above; per-axis <-> per-tensor: the next test
}

// =================================================================================================
// 4. Differential: quantize / dequantize against the reference's literal formulas
// =================================================================================================
namespace {
template<class Q, class A>
void check_quantize(std::uint32_t seed) {
    using E = typename A::value_type;
    const auto x = qt::quantize_inputs<Q, A>(seed);
    using QA = typename detail::tensor_of_impl<Q, A::extents, std::make_index_sequence<A::rank>>::type;
    QA q = uniform_quantize<Q>(x);
    const auto want = r::quantize<E>(qt::ref_of(x), qt::qtype_of<Q>());
    INFO(xla_name<Q>, " quantize");
    CHECK(qt::int_mismatches(qt::stored(q), want) == 0);
    // dequantize of every stored value of the range met, and of random ones
    const auto s = qt::random_stored<Q, QA>(seed + 1);
    A d = uniform_dequantize(s);
    const auto dwant = r::dequantize<E>(qt::stored(s), qt::qtype_of<Q>());
    INFO(xla_name<Q>, " dequantize");
    CHECK(qt::bit_mismatches(d, dwant) == 0);
    // dequantize(quantize(x)) and quantize(dequantize(s)) fused, against the composition
    A dq = uniform_dequantize(uniform_quantize<Q>(x));
    CHECK(qt::bit_mismatches(dq, r::dequantize<E>(want, qt::qtype_of<Q>())) == 0);
    QA qd = uniform_quantize<Q>(uniform_dequantize(s));
    CHECK(qt::int_mismatches(qt::stored(qd), r::quantize<E>(dwant, qt::qtype_of<Q>())) == 0);
}
} // namespace

TEST_CASE("differential: per-tensor quantize and dequantize of every storage and expressed type") {
    check_quantize<QI8, f32<7, 37>>(1);
    check_quantize<QI8b, f32<300>>(2);
    check_quantize<QI8zmin, f32<5, 13>>(3);
    check_quantize<QI8zmax, f32<5, 13>>(4);
    check_quantize<QI8narrow, f32<129>>(5);
    check_quantize<QI4, f32<3, 41>>(6);
    check_quantize<QU4, f32<3, 41>>(7);
    check_quantize<QU8, f32<16, 16>>(8);
    check_quantize<QU8z255, f32<100>>(9);
    check_quantize<QI16, f32<64, 65>>(10);
    check_quantize<QU16, f32<1000>>(11);
    check_quantize<QI32, f32<1000>>(12);
    check_quantize<QBF, bf16<4, 50>>(13);
    check_quantize<QBF16, bf16<1000>>(14);
    check_quantize<QF16, f16<4, 50>>(15);
    check_quantize<QF16s, f16<1000>>(16);
    check_quantize<QF64, f64<500>>(17);
    // large enough for several TBB tasks (quantize costs 4 units an element)
    check_quantize<QI8, f32<256, 300>>(18);
}

TEST_CASE("differential: per-axis quantize and dequantize along each axis") {
    check_quantize<PA0, f32<2, 3, 4>>(21);
    check_quantize<PA1, f32<2, 3, 4>>(22);
    check_quantize<PA2, f32<2, 3, 4>>(23);
    check_quantize<PA2, f32<5, 7, 4>>(24);
    check_quantize<PA1bf, bf16<4, 3, 9>>(25);
    check_quantize<PA2i4, f32<3, 2, 4>>(26);
    check_quantize<PA0u8, f16<2, 33>>(27);
    check_quantize<PA1, f32<64, 3, 40>>(28);
}

TEST_CASE("differential: requantization between per-tensor and per-axis types") {
    using PT = quant::uniform<std::int8_t, float, scale(0.2), 7>;
    using PX = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.3, 0.05, 0.7), zero_points(-3, 0, 9)>;
    const auto s = qt::random_stored<PA1, qt_t<PA1, 2, 3, 4>>(31);
    const auto sd = r::dequantize<float>(qt::stored(s), qt::qtype_of<PA1>());
    qt_t<PT, 2, 3, 4> a = uniform_quantize<PT>(s);
    CHECK(qt::int_mismatches(qt::stored(a), r::quantize<float>(sd, qt::qtype_of<PT>())) == 0);
    qt_t<PX, 2, 3, 4> b = uniform_quantize<PX>(s);
    CHECK(qt::int_mismatches(qt::stored(b), r::quantize<float>(sd, qt::qtype_of<PX>())) == 0);
    qt_t<PA1, 2, 3, 4> c = uniform_quantize<PA1>(a);
    const auto ad = r::dequantize<float>(qt::stored(a), qt::qtype_of<PT>());
    CHECK(qt::int_mismatches(qt::stored(c), r::quantize<float>(ad, qt::qtype_of<PA1>())) == 0);
    // to its own type: the stored integers come back (i8 with f32: the round trip is exact)
    qt_t<PA1, 2, 3, 4> same = uniform_quantize<PA1>(s);
    CHECK(equal(same, s));
}

// =================================================================================================
// 5. Element-wise ops on quantized operands
// =================================================================================================
namespace {
// The reference of dequantize_op_quantize: dequantize each operand, op on the expressed type (one
// rounding to it), quantize to Out.
template<class Out, class E, class F, class... A>
r::array<std::int64_t> ref_dqd(F f, const A&... a) {
    const auto deq = [](const auto& x) {
        using Q = typename std::remove_cvref_t<decltype(x)>::value_type;
        return r::dequantize<E>(qt::stored(x), qt::qtype_of<Q>());
    };
    const std::tuple in{deq(a)...};
    const auto& first = std::get<0>(in);
    r::array<E> out(first.dims, std::vector<E>(first.data.size()));
    for (std::size_t i = 0; i < out.data.size(); ++i)
        out.data[i] = std::apply([&](const auto&... x) { return E(f(static_cast<float>(x.data[i])...)); }, in);
    return r::quantize<E>(out, qt::qtype_of<Out>());
}
} // namespace

TEST_CASE("element-wise binary ops: dequantize_op_quantize against the reference") {
    const auto a = qt::random_stored<QI8, qt_t<QI8, 6, 37>>(41);
    const auto b = qt::random_stored<QI8, qt_t<QI8, 6, 37>>(42);
    const auto c = qt::random_stored<QI8c, qt_t<QI8c, 6, 37>>(43);
    using T = qt_t<QI8, 6, 37>;
    // one type: the result has it (operators too)
    CHECK(qt::int_mismatches(qt::stored(T(add(a, b))), ref_dqd<QI8, float>(std::plus<float>{}, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(a + b)), ref_dqd<QI8, float>(std::plus<float>{}, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(a - b)), ref_dqd<QI8, float>(std::minus<float>{}, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(sub(a, b))), ref_dqd<QI8, float>(std::minus<float>{}, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(a * b)), ref_dqd<QI8, float>(std::multiplies<float>{}, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(a / b)), ref_dqd<QI8, float>(std::divides<float>{}, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(max(a, b))),
                             ref_dqd<QI8, float>([](float x, float y) { return std::fmax(x, y); }, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(min(a, b))),
                             ref_dqd<QI8, float>([](float x, float y) { return std::fmin(x, y); }, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(rem(a, b))),
                             ref_dqd<QI8, float>([](float x, float y) { return std::fmod(x, y); }, a, b)) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(a % b)),
                             ref_dqd<QI8, float>([](float x, float y) { return std::fmod(x, y); }, a, b)) == 0);
    // transcendental ones: the float op's last-bit differences may move a stored value by 1
    CHECK(qt::int_mismatches(qt::stored(T(pow(a, b))),
                             ref_dqd<QI8, float>([](float x, float y) { return std::pow(x, y); }, a, b), 1) == 0);
    CHECK(qt::int_mismatches(qt::stored(T(atan2(a, b))),
                             ref_dqd<QI8, float>([](float x, float y) { return std::atan2(x, y); }, a, b), 1) == 0);
    // different operand types: the result type given; the same ops in every result type
    using U = qt_t<QI8c, 6, 37>;
    CHECK(qt::int_mismatches(qt::stored(U(add<QI8c>(a, c))), ref_dqd<QI8c, float>(std::plus<float>{}, a, c)) == 0);
    CHECK(qt::int_mismatches(qt::stored(U(mul<QI8c>(a, c))), ref_dqd<QI8c, float>(std::multiplies<float>{}, a, c)) ==
          0);
    CHECK(qt::int_mismatches(qt::stored(T(sub<QI8>(c, a))), ref_dqd<QI8, float>(std::minus<float>{}, c, a)) == 0);
    CHECK(qt::int_mismatches(qt::stored(U(add<QI8c>(a, b))), ref_dqd<QI8c, float>(std::plus<float>{}, a, b)) == 0);
    // add only: operands of other storage ranges (same storage and expressed types)
    const auto n = qt::random_stored<QI8narrow, qt_t<QI8narrow, 6, 37>>(44);
    CHECK(qt::int_mismatches(qt::stored(T(add<QI8>(a, n))), ref_dqd<QI8, float>(std::plus<float>{}, a, n)) == 0);
    // broadcasting: a scalar, and broadcast_dimensions
    qt_t<QI8, 37> row = qt::random_stored<QI8, qt_t<QI8, 37>>(45);
    qt_t<QI8> sc{5};
    T bs = add(a, sc);
    T bd = add(a, row, dims<1>);
    const auto da = r::dequantize<float>(qt::stored(a), qt::qtype_of<QI8>());
    const auto drow = r::dequantize<float>(qt::stored(row), qt::qtype_of<QI8>());
    r::array<float> sum_s = da, sum_d = da;
    for (std::size_t i = 0; i < da.data.size(); ++i) {
        sum_s.data[i] = da.data[i] + 1.5f; // (5 - 2) * 0.5
        sum_d.data[i] = da.data[i] + drow.data[i % 37];
    }
    CHECK(qt::int_mismatches(qt::stored(bs), r::quantize<float>(sum_s, qt::qtype_of<QI8>())) == 0);
    CHECK(qt::int_mismatches(qt::stored(bd), r::quantize<float>(sum_d, qt::qtype_of<QI8>())) == 0);
    // bf16 expressed: the op rounds to bf16 too
    const auto x = qt::random_stored<QBF, qt_t<QBF, 50>>(46);
    const auto y = qt::random_stored<QBF, qt_t<QBF, 50>>(47);
    CHECK(qt::int_mismatches(qt::stored(qt_t<QBF, 50>(x * y)),
                             ref_dqd<QBF, bfloat16>(std::multiplies<float>{}, x, y)) == 0);
    CHECK(qt::int_mismatches(qt::stored(qt_t<QBF, 50>(x + y)), ref_dqd<QBF, bfloat16>(std::plus<float>{}, x, y)) == 0);
}

TEST_CASE("element-wise unary ops keep the operand's type") {
    using T = qt_t<QI8, 5, 31>;
    const auto a = qt::random_stored<QI8, T>(51);
    auto check_exact = [&](const T& got, auto f) {
        CHECK(qt::int_mismatches(qt::stored(got), ref_dqd<QI8, float>(f, a)) == 0);
    };
    auto check_close = [&](const T& got, auto f) {
        CHECK(qt::int_mismatches(qt::stored(got), ref_dqd<QI8, float>(f, a), 1) == 0);
    };
    check_exact(abs(a), [](float x) { return std::fabs(x); });
    check_exact(neg(a), [](float x) { return -x; });
    check_exact(-a, [](float x) { return -x; });
    check_exact(sign(a), [](float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; });
    check_exact(floor(a), [](float x) { return std::floor(x); });
    check_exact(ceil(a), [](float x) { return std::ceil(x); });
    check_exact(round_nearest_afz(a), [](float x) { return std::round(x); });
    check_exact(round_nearest_even(a), [](float x) { return std::nearbyint(x); });
    check_exact(sqrt(a), [](float x) { return std::sqrt(x); });
    check_close(exp(a), [](float x) { return std::exp(x); });
    check_close(expm1(a), [](float x) { return std::expm1(x); });
    check_close(log(a), [](float x) { return std::log(x); });
    check_close(log1p(a), [](float x) { return std::log1p(x); });
    check_close(logistic(a), [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
    check_close(sin(a), [](float x) { return std::sin(x); });
    check_close(cos(a), [](float x) { return std::cos(x); });
    check_close(tan(a), [](float x) { return std::tan(x); });
    check_close(tanh(a), [](float x) { return std::tanh(x); });
    check_close(rsqrt(a), [](float x) { return 1.0f / std::sqrt(x); });
    check_close(cbrt(a), [](float x) { return std::cbrt(x); });
    // is_finite: all true
    pred<5, 31> f = is_finite(a);
    CHECK(std::all_of(f.begin(), f.end(), [](bool v) { return v; }));
}

TEST_CASE("compare, select and clamp on quantized operands") {
    using T = qt_t<QI8, 4, 9>;
    using U = qt_t<QI8c, 4, 9>;
    const auto a = qt::random_stored<QI8, T>(61);
    const auto b = qt::random_stored<QI8, T>(62);
    const auto c = qt::random_stored<QI8c, U>(63);
    const auto da = r::dequantize<float>(qt::stored(a), qt::qtype_of<QI8>());
    const auto db = r::dequantize<float>(qt::stored(b), qt::qtype_of<QI8>());
    const auto dc = r::dequantize<float>(qt::stored(c), qt::qtype_of<QI8c>());
    // compare: FLOAT on the dequantized values, operands of different scales too
    pred<4, 9> lt_ab = a < b, eq_ac = eq(a, c), ge_ac = compare<comparison_direction::GE>(a, c);
    pred<4, 9> ne_ab = a != b, le_ab = le(a, b), gt_ac = gt(a, c);
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(lt_ab.data()[i] == (da.data[i] < db.data[i]));
        CHECK(ne_ab.data()[i] == (da.data[i] != db.data[i]));
        CHECK(le_ab.data()[i] == (da.data[i] <= db.data[i]));
        CHECK(eq_ac.data()[i] == (da.data[i] == dc.data[i]));
        CHECK(ge_ac.data()[i] == (da.data[i] >= dc.data[i]));
        CHECK(gt_ac.data()[i] == (da.data[i] > dc.data[i]));
    }
    // select: dequantize_select_quantize; one type: the stored integers come back unchanged here
    T s = select(lt_ab, a, b);
    for (std::size_t i = 0; i < a.size(); ++i)
        CHECK(s.data()[i] == (lt_ab.data()[i] ? a.data()[i] : b.data()[i]));
    U s2 = select<QI8c>(lt_ab, a, c);
    r::array<float> sel = da;
    for (std::size_t i = 0; i < a.size(); ++i)
        sel.data[i] = lt_ab.data()[i] ? da.data[i] : dc.data[i];
    CHECK(qt::int_mismatches(qt::stored(s2), r::quantize<float>(sel, qt::qtype_of<QI8c>())) == 0);
    // clamp: min and max of the operand's baseline type, scalars or the operand's shape
    qt_t<QI8c> lo{-24}; // -2.0
    qt_t<QI8> hi{8};    // 3.0
    T k = clamp(lo, a, hi);
    r::array<float> cl = da;
    for (auto& v : cl.data)
        v = std::min(std::max(v, -2.0f), 3.0f);
    CHECK(qt::int_mismatches(qt::stored(k), r::quantize<float>(cl, qt::qtype_of<QI8>())) == 0);
    U k2 = clamp<QI8c>(b, a, c); // elementwise bounds, another result type
    for (std::size_t i = 0; i < a.size(); ++i)
        cl.data[i] = std::min(std::max(da.data[i], db.data[i]), dc.data[i]);
    CHECK(qt::int_mismatches(qt::stored(k2), r::quantize<float>(cl, qt::qtype_of<QI8c>())) == 0);
}

TEST_CASE("per-axis add: the result per-axis on the same dimension") {
    using P = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25, 1.0), zero_points(0, 3, -4)>;
    using PR = quant::uniform_per_axis<std::int8_t, float, 1, scales(1.0, 0.5, 2.0), zero_points(1, 0, 0)>;
    const auto a = qt::random_stored<P, qt_t<P, 4, 3>>(71);
    const auto b = qt::random_stored<QI8, qt_t<QI8, 4, 3>>(72);
    qt_t<P, 4, 3> s = add(a, a);
    CHECK(qt::int_mismatches(qt::stored(s), ref_dqd<P, float>(std::plus<float>{}, a, a)) == 0);
    qt_t<PR, 4, 3> t = add<PR>(a, b); // per-axis and per-tensor operands into a per-axis result
    CHECK(qt::int_mismatches(qt::stored(t), ref_dqd<PR, float>(std::plus<float>{}, a, b)) == 0);
    qt_t<P, 4, 3> u = add<P>(add<P>(a, b), a); // nested: still one pass
    const auto ab = qt::from_stored<qt_t<P, 4, 3>>(ref_dqd<P, float>(std::plus<float>{}, a, b));
    CHECK(qt::int_mismatches(qt::stored(u), ref_dqd<P, float>(std::plus<float>{}, ab, a)) == 0);
}

// =================================================================================================
// 6. Fusion
// =================================================================================================
namespace {
// Does a node own an array of floats (a materialised temporary)?
template<class N>
struct owns_float : std::false_type {};
template<class A>
struct owns_float<detail::array_node<A, true>> : std::bool_constant<!is_quantized<typename A::value_type>> {};
template<class F, class T, class... C>
struct owns_float<detail::map_node<F, T, C...>> : std::bool_constant<(owns_float<C>::value || ...)> {};
template<class C, std::size_t R, extents_t<R> E, auto M, class T>
struct owns_float<detail::view_node<C, R, E, M, T>> : owns_float<C> {};
} // namespace

TEST_CASE("fusion: requantizing exp(dequantize(q)) + 1 is one pass without a float array") {
    using Q2 = quant::uniform<std::int8_t, float, scale(0.25), -100>;
    const auto q = qt::random_stored<QI8, qt_t<QI8, 1000>>(81);
    auto e = uniform_quantize<Q2>(exp(uniform_dequantize(q)) + 1.0f);
    static_assert(std::is_same_v<decltype(e)::value_type, Q2>);
    static_assert(!owns_float<decltype(e)>::value);
    static_assert(sizeof(e) <= 64); // a pointer to q and the constant: no 4000-byte array inside
    qt_t<Q2, 1000> out;
    const long before = allocations.load();
    out = e; // below the threading threshold: the caller's thread, nothing allocated
    CHECK(allocations.load() == before);
    CHECK(qt::int_mismatches(qt::stored(out), ref_dqd<Q2, float>([](float x) { return std::exp(x) + 1.0f; }, q), 1) ==
          0);
    // per-axis operands fuse the same way (their parameters are constant arrays read in place)
    const auto p = qt::random_stored<PA2, qt_t<PA2, 2, 3, 4>>(82);
    auto pe = uniform_quantize<PA2>(tanh(uniform_dequantize(p)) * 2.0f);
    static_assert(!owns_float<decltype(pe)>::value);
    qt_t<PA2, 2, 3, 4> po;
    const long before2 = allocations.load();
    po = pe;
    CHECK(allocations.load() == before2);
    CHECK(qt::int_mismatches(qt::stored(po), ref_dqd<PA2, float>([](float x) { return std::tanh(x) * 2.0f; }, p), 1) ==
          0);
}

namespace {
template<std::size_t N>
consteval quant::scales_t<N> alternating_scales() { // 0.5, 0.25, 0.5, ...
    quant::scales_t<N> s{};
    for (std::size_t j = 0; j < N; ++j)
        s.bits[j] = std::bit_cast<std::uint64_t>(j % 2 == 0 ? 0.5 : 0.25);
    return s;
}
template<std::size_t N>
consteval quant::zero_points_t<N> ones_zero_points() {
    quant::zero_points_t<N> z{};
    for (std::size_t j = 0; j < N; ++j)
        z.v[j] = 1;
    return z;
}
} // namespace

// i32 per-axis storage, f32 expressed, zero points 0 (a quantized dot's exact i32 result): the
// SIMD form converts int32 lanes to f32 directly; the values above 2^24 round there (to nearest,
// ties to even) as the scalar form's int64 -> f32 does. With zero points 1 (the scalar form).
TEST_CASE("per-axis dequantize of i32 storage: rounding of stored values above 2^24") {
    constexpr std::size_t C = 64;
    using Z = quant::uniform_per_axis<std::int32_t, float, 1, alternating_scales<C>(), quant::zero_points_t<C>{}>;
    using O = quant::uniform_per_axis<std::int32_t, float, 1, alternating_scales<C>(), ones_zero_points<C>()>;
    tensor<Z, 3, C> z;
    tensor<O, 3, C> o;
    for (std::size_t j = 0; j < C; ++j) {
        const auto jj = static_cast<std::int32_t>(j);
        z(0, j).stored = o(0, j).stored = 16777217 + 2 * jj;
        z(1, j).stored = o(1, j).stored = 2147483647 - jj;
        z(2, j).stored = o(2, j).stored = -2147483647 - 1 + jj;
    }
    const f32<3, C> dz = uniform_dequantize(z), d_o = uniform_dequantize(o);
    // hand-checked: 2^24 + 1 -> 2^24, times 0.5; 2^24 + 3 ties to 2^24 + 4, times 0.25; 2^31 - 1
    // -> 2^31; -2^31 exact
    CHECK(dz(0, 0) == 8388608.0f);
    CHECK(dz(0, 1) == 4194305.0f);
    CHECK(dz(1, 0) == 1073741824.0f);
    CHECK(dz(2, 1) == -536870912.0f);
    // zero point 1: 2^24 + 1 - 1 = 2^24 exactly; -2^31 - 1 is exact in int64, -2^31 in f32
    CHECK(d_o(0, 0) == 8388608.0f);
    CHECK(d_o(2, 0) == -1073741824.0f);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < C; ++j) {
            const float s = j % 2 == 0 ? 0.5f : 0.25f;
            bad += dz(i, j) != static_cast<float>(static_cast<std::int64_t>(z(i, j).stored)) * s;
            bad += d_o(i, j) != static_cast<float>(static_cast<std::int64_t>(o(i, j).stored) - 1) * s;
        }
    CHECK(bad == 0);
}
