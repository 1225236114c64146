// dot_general, dot and convolution on quantized operands (include/xlet/quant/dot.hpp,
// quant/conv.hpp, kernels/gemm_q.hpp; issue #26):
//   1. hand-checked values: per-tensor and per-axis weights, ties (acc * M exactly .5), saturation
//      at the storage bounds (a narrow range too), 32-bit result storage (the exact acc + zr path,
//      its wrap, and the f32 path's clamp below 2^31);
//   2. differential tests against tests/reference/reference_quant.hpp: equal stored integers with
//      the exact sum requantized as docs/semantics.md says, and at most one unit from the spec's
//      formula on real values (dequantize, the op in double, quantize): s8 / u8 / i4 / u4 / i16
//      storage, zero points at the storage bounds, per-axis rhs along a free and a batch
//      dimension, batch dimensions, transposed operands, odd sizes (k not a multiple of 4), the
//      parallel paths;
//   3. hybrid forms (float lhs): the same bits as the float op on the dequantized weights;
//   4. convolution: NHWC 3x3 with padding and stride, per-axis kernels with nonzero zero points,
//      feature and batch groups, NCHW results, dilations and window reversal, rank 2, and a
//      1x1 convolution over several blocks of output positions against the quantized dot;
//   5. convolution by both evaluations (quant_conv_path: im2col and the direct 8-bit kernel): the
//      same stored integers as each other and the references, on 1 and 2 threads.
// Compile-fail tests of the rules: tests/compile_fail/dot_general_{i1,c14_*,c15..c20,c25}.cpp,
// dot_{c4,c16}_quantized.cpp, conv_general_dilated_{i1,c28_*,c29..c34}.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "conv_common.hpp"
#include "quant_common.hpp"

#include <tbb/global_control.h>

namespace {

using quant::scale;
using quant::scales;
using quant::zero_points;

// Q's parameters with the scales rounded to its expressed type (what the type computes with).
template<class Q>
r::qtype qref() {
    auto q = qt::qtype_of<Q>();
    for (auto& s : q.scales)
        s = static_cast<double>(static_cast<float>(expressed_t<Q>(s)));
    return q;
}

r::dims_t ref_list(const dim_list& l) {
    r::dims_t v;
    for (std::size_t i = 0; i < l.size(); ++i)
        v.push_back(l[i]);
    return v;
}
r::dot_dims_t ref_dims(const dot_dims& d) {
    return {ref_list(d.lhs_batch), ref_list(d.rhs_batch), ref_list(d.lhs_contracting), ref_list(d.rhs_contracting)};
}

template<class A>
std::vector<std::int64_t> ints(const A& a) {
    return qt::stored(a).data;
}

// dot_general<D, QO>(a, b) against both references; spec_tol < 0: no comparison with the spec's
// formula (32-bit results, whose f32 arithmetic is coarser than a unit).
template<dot_dims D, class QO, class A, class B>
void check_dot(const A& a, const B& b, std::int64_t spec_tol = 1) {
    const auto got = dot_general<D, QO>(a, b);
    using QL = typename A::value_type;
    using QR = typename B::value_type;
    const auto ref = r::quant_dot_general(qt::stored(a), qref<QL>(), qt::stored(b), qref<QR>(), qref<QO>(),
                                          sizeof(storage_t<QO>) == 4, ref_dims(D));
    const auto g = qt::stored(got);
    REQUIRE(g.dims == ref.exact.dims);
    CHECK(qt::int_mismatches(g, ref.exact) == 0);
    if (spec_tol >= 0) CHECK(qt::int_mismatches(g, ref.spec, spec_tol) == 0);
}

template<conv_config Cf, class QO, class A, class B>
void check_conv(const A& a, const B& b) {
    const auto got = conv_general_dilated<Cf, QO>(a, b);
    using QL = typename A::value_type;
    using QR = typename B::value_type;
    const auto ref = r::quant_conv(qt::stored(a), qref<QL>(), qt::stored(b), qref<QR>(), qref<QO>(),
                                   sizeof(storage_t<QO>) == 4, ct::ref_desc<Cf, A, B>());
    const auto g = qt::stored(got);
    REQUIRE(g.dims == ref.exact.dims);
    CHECK(qt::int_mismatches(g, ref.exact) == 0);
    CHECK(qt::int_mismatches(g, ref.spec, 1) == 0);
}

// check_conv, and the same stored integers from every quant_conv_path on 1 and 2 threads. direct:
// whether the direct kernel exists for the operands (8-bit storage, spatial dimensions).
template<conv_config Cf, class QO, class A, class B>
void check_conv_paths(const A& a, const B& b, bool direct = true) {
    using detail::quant_conv_path_kind;
    using P = detail::conv_plan<Cf, const A&, const B&, QO>;
    CHECK(detail::quant_conv_direct_exists<P, storage_t<typename A::value_type>>() == direct);
    struct restore {
        ~restore() { detail::quant_conv_path = quant_conv_path_kind::automatic; }
    } back;
    detail::quant_conv_path = quant_conv_path_kind::im2col;
    check_conv<Cf, QO>(a, b);
    const auto want = ints(conv_general_dilated<Cf, QO>(a, b));
    for (const int threads : {1, 2}) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        for (const auto p :
             {quant_conv_path_kind::direct, quant_conv_path_kind::im2col, quant_conv_path_kind::automatic}) {
            detail::quant_conv_path = p;
            CAPTURE(threads);
            CAPTURE(static_cast<int>(p));
            CHECK(ints(conv_general_dilated<Cf, QO>(a, b)) == want);
        }
    }
}

template<class Q, std::size_t... D>
tensor<Q, D...> rnd(std::uint32_t seed) {
    return qt::random_stored<Q, tensor<Q, D...>>(seed);
}

// Stored integers in a narrower band (so that sums stay inside the result's range more often).
template<class Q, std::size_t... D>
tensor<Q, D...> rnd_band(std::uint32_t seed, std::int64_t lo, std::int64_t hi) {
    std::mt19937_64 g(seed);
    std::uniform_int_distribution<std::int64_t> d(lo, hi);
    tensor<Q, D...> a;
    for (auto& e : a)
        e.stored = static_cast<decltype(e.stored)>(d(g));
    return a;
}

constexpr dot_dims mk{.lhs_contracting = {1}, .rhs_contracting = {0}}; // [m, k] x [k, n]

using QA = quant::uniform<std::int8_t, float, scale(0.5), -3>;
using QW = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.25, 0.5, 1.0), zero_points(0, 0, 0)>;

} // namespace

// =================================================================================================
// 1. Hand-checked values
// =================================================================================================
TEST_CASE("quantized dot: hand-checked, per-tensor and per-axis results, ties to even") {
    // x - za = {{4, 5, 6, 7}, {-2, 9, -4, 11}}, real values * 0.5; w's columns * 0.25, 0.5, 1.
    // Real products: {{7.375, 16.75, 37.5}, {-0.625, -3.25, -10.5}}.
    tensor<QA, 2, 4> x{{1, 2, 3, 4}, {-5, 6, -7, 8}};
    tensor<QW, 4, 3> w{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {-1, -2, -3}};
    using R1 = quant::uniform<std::int8_t, float, scale(1.0), 2>;
    // + 2: 9.375 18.75 39.5 1.375 -1.25 -8.5 -> 9 19 40 (tie, even) 1 -1 -8 (tie, even)
    tensor<R1, 2, 3> y = dot_general<mk, R1>(x, w);
    CHECK(ints(y) == std::vector<std::int64_t>{9, 19, 40, 1, -1, -8});
    tensor<R1, 2, 3> yd = dot<R1>(x, w);
    CHECK(ints(yd) == ints(y));
    // per-axis result: / (0.25, 0.5, 1) + (1, 2, 3): 30.5 35.5 40.5 -1.5 -4.5 -7.5, all ties
    using RP = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.25, 0.5, 1.0), zero_points(1, 2, 3)>;
    tensor<RP, 2, 3> yp = dot_general<mk, RP>(x, w);
    CHECK(ints(yp) == std::vector<std::int64_t>{30, 36, 40, -2, -4, -8});
    // hybrid: the float dot of x's real values and w dequantized (all exact here)
    f32<2, 4> xf = uniform_dequantize(x);
    f32<2, 3> h = dot_general<mk>(xf, w);
    CHECK(std::vector<float>(h.begin(), h.end()) == std::vector<float>{7.375f, 16.75f, 37.5f, -0.625f, -3.25f, -10.5f});
}

TEST_CASE("quantized dot: no contracted elements (k = 0) gives the result's zero point") {
    using Q = quant::uniform<std::int8_t, float, scale(0.05), -3>;
    using W = quant::uniform<std::int8_t, float, scale(0.01), 0>;
    using R = quant::uniform<std::int8_t, float, scale(0.5), 7>;
    CHECK(ints(dot_general<mk, R>(tensor<Q, 2, 0>{}, tensor<W, 0, 3>{})) == std::vector<std::int64_t>(6, 7));
    CHECK(dot_general<mk, R>(tensor<Q, 0, 4>{}, tensor<W, 4, 3>{}).size() == 0);
}

TEST_CASE("quantized dot: acc * M exactly .5 rounds half to even") {
    using Q1 = quant::uniform<std::int8_t, float, scale(1.0), 0>;
    using R0 = quant::uniform<std::int8_t, float, scale(2.0), 0>; // M = 0.5
    using R1 = quant::uniform<std::int8_t, float, scale(2.0), 1>;
    tensor<Q1, 6, 1> a{{1}, {3}, {5}, {-1}, {-3}, {-5}};
    tensor<Q1, 1, 1> b{{1}};
    // 0.5 1.5 2.5 -0.5 -1.5 -2.5 -> 0 2 2 0 -2 -2; + 1: 1.5 2.5 3.5 0.5 -0.5 -1.5 -> 2 2 4 0 0 -2
    CHECK(ints(dot_general<mk, R0>(a, b)) == std::vector<std::int64_t>{0, 2, 2, 0, -2, -2});
    CHECK(ints(dot_general<mk, R1>(a, b)) == std::vector<std::int64_t>{2, 2, 4, 0, 0, -2});
}

TEST_CASE("quantized dot: saturation at the storage bounds, a narrow range, u8 results") {
    using Q1 = quant::uniform<std::int8_t, float, scale(1.0), 0>;
    tensor<Q1, 1, 2> a{{127, 127}};
    tensor<Q1, 2, 2> b{{127, -128}, {127, -128}}; // sums 32258, -32512
    using S8 = quant::uniform<std::int8_t, float, scale(1.0), 0>;
    using N8 = quant::uniform<std::int8_t, float, scale(1.0), 0, -127, 127>;
    using U8 = quant::uniform<std::uint8_t, float, scale(1.0), 10>;
    using I16 = quant::uniform<std::int16_t, float, scale(1.0), -300>;
    CHECK(ints(dot_general<mk, S8>(a, b)) == std::vector<std::int64_t>{127, -128});
    CHECK(ints(dot_general<mk, N8>(a, b)) == std::vector<std::int64_t>{127, -127});
    CHECK(ints(dot_general<mk, U8>(a, b)) == std::vector<std::int64_t>{255, 0});
    CHECK(ints(dot_general<mk, I16>(a, b)) == std::vector<std::int64_t>{31958, -32768});
}

TEST_CASE("quantized dot: 32-bit results, the exact path (M = 1) and the f32 path") {
    using Q = quant::uniform<std::int8_t, float, scale(0.5), 0>;
    using W = quant::uniform<std::int8_t, float, scale(0.25), 0>;
    tensor<Q, 1, 3> a{{100, -100, 50}};
    tensor<W, 3, 2> b{{10, -127}, {-10, 127}, {1, 1}}; // sums 2050, -25350
    // M = 0.5 * 0.25 / 0.125 = 1: acc + zr exactly
    using E1 = quant::uniform<std::int32_t, float, scale(0.125), 1000>;
    CHECK(ints(dot_general<mk, E1>(a, b)) == std::vector<std::int64_t>{3050, -24350});
    // ... modulo 2^32: 2147483000 + 2050 wraps
    using E2 = quant::uniform<std::int32_t, float, scale(0.125), 2147483000>;
    CHECK(ints(dot_general<mk, E2>(a, b)) == std::vector<std::int64_t>{2147485050LL - 4294967296LL, 2147457650});
    // ... clamped into a narrow range
    using E3 = quant::uniform<std::int32_t, float, scale(0.125), 0, -3000, 3000>;
    CHECK(ints(dot_general<mk, E3>(a, b)) == std::vector<std::int64_t>{2050, -3000});
    // M = 0.125 / 1e-6 = 125000 (f32): 2050 * 125000 = 256250000 (exact in f32); -25350 *
    // 125000 = -3168750000 clamps to -2^31
    using F1 = quant::uniform<std::int32_t, float, scale(1e-6), 0>;
    const float m = static_cast<float>(0.5 * 0.25 / static_cast<double>(1e-6f));
    CHECK(ints(dot_general<mk, F1>(a, b)) ==
          std::vector<std::int64_t>{static_cast<std::int64_t>(2050.0f * m), -2147483648LL});
    // the largest value below 2^31 that f32 holds: 2147483520
    tensor<Q, 1, 3> c{{-100, 100, 50}};
    CHECK(ints(dot_general<mk, F1>(c, b))[1] == 2147483520LL);
    // per axis: the exact path on the columns whose M is 1 only
    using WP = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.25, 0.5), zero_points(0, 0)>;
    using EP = quant::uniform_per_axis<std::int32_t, float, 1, scales(0.125, 0.1), zero_points(7, -7)>;
    tensor<WP, 3, 2> bp{{10, -127}, {-10, 127}, {1, 1}};
    const float m1 = static_cast<float>(0.5 * 0.5 / static_cast<double>(0.1f));
    const float f1 = static_cast<float>(-25350) * m1 + -7.0f;
    CHECK(ints(dot_general<mk, EP>(a, bp)) ==
          std::vector<std::int64_t>{2057, static_cast<std::int64_t>(std::nearbyint(f1))});
}

// Every column exact (M = 1, i32 result): requantize_row's integer-only form, in int32 batches
// for whole vectors of a row (40 columns: two AVX-512 or five AVX2 batches and a tail), clamped
// into a narrow range on some elements; against acc + zr from 64-bit sums.
TEST_CASE("quantized dot: 32-bit results, every column exact, rows of 40") {
    using Q = quant::uniform<std::int8_t, float, scale(0.5), 0>;
    using W = quant::uniform<std::int8_t, float, scale(0.25), 0>;
    using E = quant::uniform<std::int32_t, float, scale(0.125), 1000, -15000, 15000>;
    tensor<Q, 3, 5> a;
    tensor<W, 5, 40> b;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t p = 0; p < 5; ++p)
            a(i, p).stored = static_cast<std::int8_t>(i == 2 ? 127 : static_cast<int>(i * 31 + p * 7) - 60);
    for (std::size_t p = 0; p < 5; ++p)
        for (std::size_t j = 0; j < 40; ++j)
            b(p, j).stored = static_cast<std::int8_t>(static_cast<int>((p * 40 + j) * 37 % 255) - 127);
    const auto r = dot_general<mk, E>(a, b);
    std::size_t bad = 0, clamped = 0;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 40; ++j) {
            std::int64_t acc = 0;
            for (std::size_t p = 0; p < 5; ++p)
                acc += std::int64_t{a(i, p).stored} * b(p, j).stored;
            const std::int64_t want = std::clamp<std::int64_t>(acc + 1000, -15000, 15000);
            clamped += want != acc + 1000;
            bad += r(i, j).stored != want;
        }
    CHECK(bad == 0);
    CHECK(clamped > 0); // some sums reach past the range (17510, -15510)
    // hand-checked: row 2, column 0: 127 * (-127 + 78 + 28 - 22 - 72) + 1000 = -13605
    CHECK(r(2, 0).stored == -13605);
}

TEST_CASE("the module pass's cases: tests/stablehlo/quant_math.mlir's integers from the library") {
    // --stablehlo-legalize-quant-to-math lowers these dot_generals to integer and f32 ops that
    // requantize as the library does; the runner of quant_math.mlir checks the same integers
    using L1 = quant::uniform<std::int8_t, float, scale(0.5), -1>;
    using R1 = quant::uniform<std::int8_t, float, scale(0.5), 0>;
    using O1 = quant::uniform<std::int8_t, float, scale(1.0), 3>;
    CHECK(
        ints(dot_general<mk, O1>(tensor<L1, 2, 2>{{100, -100}, {127, 127}}, tensor<R1, 2, 2>{{100, 50}, {-100, 50}})) ==
        std::vector<std::int64_t>{127, 28, 3, 127});
    using L2 = quant::uniform<std::int8_t, float, scale(1.0), 0>;
    using L3 = quant::uniform<std::int8_t, float, scale(1.0), 2>;
    using W2 = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25), zero_points(0, 0)>;
    using OP = quant::uniform_per_axis<std::int8_t, float, 1, scales(1.0, 0.5), zero_points(1, -1)>;
    using O32 = quant::uniform_per_axis<std::int32_t, float, 1, scales(0.5, 0.1), zero_points(10, -10)>;
    const tensor<L2, 2, 2> l{{1, 2}, {3, 4}};
    const tensor<W2, 2, 2> w{{1, 2}, {3, -4}};
    CHECK(ints(dot_general<mk, L2>(l, w)) == std::vector<std::int64_t>{4, -2, 8, -2});
    CHECK(ints(dot_general<mk, OP>(l, w)) == std::vector<std::int64_t>{4, -4, 8, -6});
    CHECK(ints(dot_general<mk, O32>(tensor<L3, 2, 2>{{3, 4}, {5, 6}}, w)) ==
          std::vector<std::int64_t>{17, -25, 25, -35});
    using LR = quant::uniform<std::int8_t, float, scale(0.05), -5>;
    using WR = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.01, 0.003, 0.02, 0.007, 0.05),
                                       zero_points(0, 0, 0, 0, 0)>;
    using RR = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.1, 0.05, 0.3, 0.02, 0.9),
                                       zero_points(3, -7, 0, 100, -128)>;
    using RU = quant::uniform<std::uint8_t, float, scale(0.25), 128>;
    const tensor<LR, 4, 7> a{{-72, 68, -23, 118, 122, 118, -106},
                             {53, -6, -123, 124, 31, -78, 74},
                             {105, -54, 14, -110, 72, 66, -51},
                             {33, -27, 45, -53, 10, 100, 94}};
    const tensor<WR, 7, 5> b{{-116, 85, -15, 81, 15},   {-81, -35, -48, 49, -51}, {108, -108, -121, -124, -97},
                             {-94, -69, -109, 36, 111}, {-68, 90, 119, 93, -90},  {49, -116, 15, -8, -120},
                             {46, 121, 97, 42, 46}};
    CHECK(ints(dot_general<mk, RR>(a, b)) == std::vector<std::int64_t>{-92,  -97, -22, 127, -128, -128, 83,
                                                                       34,   127, -28, -1,  21,   52,   127,
                                                                       -128, 83,  2,   42,  79,   -128});
    CHECK(ints(dot_general<mk, RU>(a, b)) == std::vector<std::int64_t>{90,  110, 102, 144, 0, 60,  146, 169, 172, 255,
                                                                       127, 134, 190, 135, 0, 160, 130, 179, 126, 0});
    check_dot<mk, RR>(a, b);
    check_dot<mk, RU>(a, b);
    // convolutions: padding with the zero point (i32, M = 1), a per-axis kernel
    constexpr conv_config nhwc{
        .padding_low = {1, 1}, .padding_high = {0, 0}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    using CL = quant::uniform<std::int8_t, float, scale(1.0), 2>;
    using CK = quant::uniform<std::int8_t, float, scale(1.0), 0>;
    using CO = quant::uniform<std::int32_t, float, scale(1.0), 0>;
    tensor<CL, 1, 3, 3, 1> cl;
    tensor<CK, 2, 2, 1, 1> ck;
    for (std::size_t i = 0; i < 9; ++i)
        cl.data()[i].stored = static_cast<std::int8_t>(i + 2);
    ck.data()[0].stored = ck.data()[3].stored = 1;
    CHECK(ints(conv_general_dilated<nhwc, CO>(cl, ck)) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 6, 6, 10, 12});
    using PK = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.5, 0.25), zero_points(0, 0)>;
    constexpr conv_config plain{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    const tensor<CK, 1, 2, 2, 1> pl{{{{1}, {2}}, {{3}, {4}}}};
    const tensor<PK, 1, 1, 1, 2> pk{{{{2, -3}}}};
    CHECK(ints(conv_general_dilated<plain, CK>(pl, pk)) == std::vector<std::int64_t>{1, -1, 2, -2, 3, -2, 4, -3});
}

// =================================================================================================
// 2. Differential tests
// =================================================================================================
TEST_CASE("differential: s8 and u8, zero points at the storage bounds, odd sizes") {
    using A1 = quant::uniform<std::int8_t, float, scale(0.02), -128>;
    using A2 = quant::uniform<std::int8_t, float, scale(0.05), 127>;
    using A3 = quant::uniform<std::int8_t, float, scale(0.1), 5, -127, 127>;
    using B1 = quant::uniform<std::int8_t, float, scale(0.01), 0>;
    using BP = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.01, 0.003, 0.02, 0.5, 0.001),
                                       zero_points(0, 0, 0, 0, 0)>;
    using R1 = quant::uniform<std::int8_t, float, scale(0.3), -128>;
    using R2 = quant::uniform<std::uint8_t, float, scale(0.7), 255>;
    using R3 = quant::uniform<std::int8_t, float, scale(0.15), 127>;
    using RP = quant::uniform_per_axis<std::uint8_t, float, 1, scales(0.2, 0.05, 0.3, 9.0, 0.01),
                                       zero_points(0, 128, 255, 17, 100)>;
    check_dot<mk, R1>(rnd<A1, 7, 13>(1), rnd<B1, 13, 5>(2));
    check_dot<mk, R2>(rnd<A2, 7, 13>(3), rnd<BP, 13, 5>(4));
    check_dot<mk, R3>(rnd<A3, 9, 33>(5), rnd<BP, 33, 5>(6));
    check_dot<mk, RP>(rnd<A1, 3, 7>(7), rnd<BP, 7, 5>(8));
    check_dot<mk, RP>(rnd<A2, 11, 1>(9), rnd<BP, 1, 5>(10));
    // u8 operands (za at both bounds)
    using U1 = quant::uniform<std::uint8_t, float, scale(0.01), 0>;
    using U2 = quant::uniform<std::uint8_t, float, scale(0.02), 255>;
    using U3 = quant::uniform<std::uint8_t, float, scale(0.03), 131>;
    using UW = quant::uniform<std::uint8_t, float, scale(0.004), 0>;
    using UP = quant::uniform_per_axis<std::uint8_t, float, 1, scales(0.004, 0.001, 0.01), zero_points(0, 0, 0)>;
    using S8 = quant::uniform<std::int8_t, float, scale(0.25), -20>;
    check_dot<mk, S8>(rnd<U1, 5, 19>(11), rnd<UW, 19, 3>(12));
    check_dot<mk, R2>(rnd<U2, 6, 21>(13), rnd<UW, 21, 5>(14));
    check_dot<mk, S8>(rnd<U3, 4, 10>(15), rnd<UP, 10, 3>(16));
    // results that mostly stay inside the range (the rounding, not the clamp, decides)
    using Fine = quant::uniform<std::int8_t, float, scale(0.01), 3>;
    check_dot<mk, Fine>(rnd_band<A1, 8, 17>(17, -128, -118), rnd_band<B1, 17, 6>(18, -9, 9));
}

TEST_CASE("differential: i4, u4 and 16-bit storage") {
    using I4 = quant::uniform<quant::i4, float, scale(0.5), -8>;
    using I4w = quant::uniform_per_axis<quant::i4, float, 1, scales(0.25, 0.125, 1.0), zero_points(0, 0, 0)>;
    using U4 = quant::uniform<quant::u4, float, scale(0.5), 15>;
    using U4w = quant::uniform<quant::u4, float, scale(0.125), 0>;
    using R8 = quant::uniform<std::int8_t, float, scale(0.5), 0>;
    check_dot<mk, R8>(rnd<I4, 5, 9>(21), rnd<I4w, 9, 3>(22));
    check_dot<mk, R8>(rnd<U4, 5, 9>(23), rnd<U4w, 9, 4>(24));
    // 16-bit operands: sums within int32 compare with the spec's formula too; over the whole range
    // they wrap modulo 2^32 (xlet's semantics, the exact reference) where the spec's real sum does not
    using A16 = quant::uniform<std::int16_t, float, scale(0.001), -32768>;
    using W16 = quant::uniform_per_axis<std::int16_t, float, 1, scales(1e-4, 3e-4), zero_points(0, 0)>;
    using R16 = quant::uniform<std::int16_t, float, scale(0.05), 1000>;
    check_dot<mk, R16>(rnd_band<A16, 6, 11>(25, -32768, -32768 + 4000), rnd_band<W16, 11, 2>(26, -3000, 3000));
    check_dot<mk, R16>(rnd<A16, 6, 11>(25), rnd<W16, 11, 2>(26), -1);
    using U16 = quant::uniform<std::uint16_t, float, scale(0.002), 65535>;
    using UW16 = quant::uniform<std::uint16_t, float, scale(0.003), 0>;
    using RU16 = quant::uniform<std::uint16_t, float, scale(0.5), 30000>;
    check_dot<mk, RU16>(rnd_band<U16, 4, 7>(27, 60000, 65535), rnd_band<UW16, 7, 3>(28, 0, 9000));
    check_dot<mk, RU16>(rnd<U16, 4, 7>(27), rnd<UW16, 7, 3>(28), -1);
    // 16-bit operands into an i32 result on the f32 path: the documented formula exactly
    using R32 = quant::uniform<std::int32_t, float, scale(1e-3), -5>;
    check_dot<mk, R32>(rnd<A16, 6, 11>(29), rnd<W16, 11, 2>(30), -1);
}

TEST_CASE("differential: batch dimensions, per-axis rhs along a free or a batch dimension") {
    using A = quant::uniform<std::int8_t, float, scale(0.04), 9>;
    using WF = quant::uniform_per_axis<std::int8_t, float, 2, scales(0.01, 0.02, 0.05, 0.002), zero_points(0, 0, 0, 0)>;
    using WB = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.01, 0.03, 0.007), zero_points(0, 0, 0)>;
    using R = quant::uniform<std::int8_t, float, scale(0.2), -1>;
    using RF = quant::uniform_per_axis<std::int8_t, float, 2, scales(0.1, 0.2, 0.3, 0.04), zero_points(1, 2, 3, 4)>;
    using RB = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.1, 0.5, 0.05), zero_points(-5, 0, 5)>;
    constexpr dot_dims bmk{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}};
    check_dot<bmk, R>(rnd<A, 3, 5, 7>(31), rnd<WF, 3, 7, 4>(32));
    check_dot<bmk, RF>(rnd<A, 3, 5, 7>(33), rnd<WF, 3, 7, 4>(34));
    check_dot<bmk, RB>(rnd<A, 3, 5, 7>(35), rnd<WB, 3, 7, 4>(36));
    check_dot<bmk, R>(rnd<A, 3, 5, 7>(37), rnd<WB, 3, 7, 4>(38));
    // transposed sides (evaluated once in a transposed copy) and two contracting dimensions
    constexpr dot_dims tr{.lhs_batch = {1}, .rhs_batch = {2}, .lhs_contracting = {0}, .rhs_contracting = {0}};
    using WT = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.01, 0.02, 0.03, 0.04, 0.05),
                                       zero_points(0, 0, 0, 0, 0)>;
    using RT =
        quant::uniform_per_axis<std::int8_t, float, 2, scales(0.5, 0.4, 0.3, 0.2, 0.1), zero_points(0, -1, 1, -2, 2)>;
    check_dot<tr, RT>(rnd<A, 6, 2, 3>(39), rnd<WT, 6, 5, 2>(40));
    constexpr dot_dims two{.lhs_contracting = {0, 2}, .rhs_contracting = {1, 0}};
    using W2 = quant::uniform_per_axis<std::int8_t, float, 2, scales(0.01, 0.02, 0.03, 0.04, 0.05),
                                       zero_points(0, 0, 0, 0, 0)>;
    check_dot<two, R>(rnd<A, 3, 4, 5>(41), rnd<W2, 5, 3, 5>(42));
}

TEST_CASE("differential: larger products (the parallel GEMM, batches side by side)") {
    using A = quant::uniform<std::int8_t, float, scale(0.03), -7>;
    using W = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007),
                                      zero_points(0, 0, 0, 0, 0, 0, 0)>;
    using R = quant::uniform<std::int8_t, float, scale(0.4), 3>;
    check_dot<mk, R>(rnd<A, 130, 301>(51), rnd<W, 301, 7>(52));
    using U = quant::uniform<std::uint8_t, float, scale(0.01), 128>;
    using UW = quant::uniform<std::uint8_t, float, scale(0.001), 0>;
    using RU = quant::uniform<std::uint8_t, float, scale(2.0), 100>;
    check_dot<mk, RU>(rnd<U, 64, 200>(53), rnd<UW, 200, 90>(54));
    // 256 products of 16 x 16 x 16: whole products on the tasks
    using B = quant::uniform<std::int8_t, float, scale(0.02), 0>;
    constexpr dot_dims bmk{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}};
    using RB = quant::uniform<std::int8_t, float, scale(0.05), 0>;
    check_dot<bmk, RB>(rnd<A, 256, 16, 16>(55), rnd<B, 256, 16, 16>(56));
}

TEST_CASE("dot: vectors and matrices; operands that are expressions") {
    using A = quant::uniform<std::int8_t, float, scale(0.1), 4>;
    using W = quant::uniform<std::int8_t, float, scale(0.05), 0>;
    using R = quant::uniform<std::int8_t, float, scale(1.5), -2>;
    const auto m = rnd<A, 4, 9>(61);
    const auto v = rnd<W, 9>(62);
    const auto got = dot<R>(m, v);
    constexpr dot_dims d1{.lhs_contracting = {1}, .rhs_contracting = {0}};
    CHECK(ints(got) == ints(dot_general<d1, R>(m, v)));
    check_dot<d1, R>(m, v);
    const auto u = rnd<A, 4>(63);
    check_dot<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}, R>(u, rnd<W, 4, 9>(64));
    // a transposed view (not an array) reads as the array it evaluates to
    const auto mt = rnd<A, 9, 4>(65);
    const tensor<A, 4, 9> mte = transpose(mt, dims<1, 0>);
    CHECK(ints(dot<R>(transpose(mt, dims<1, 0>), rnd<W, 9, 3>(66))) == ints(dot<R>(mte, rnd<W, 9, 3>(66))));
    // operands of one type: the result type may be left out
    const auto sq = rnd<W, 3, 3>(67);
    CHECK(ints(dot(sq, sq)) == ints(dot<W>(sq, sq)));
}

// =================================================================================================
// 3. Hybrid forms
// =================================================================================================
TEST_CASE("hybrid dot: the float dot on the dequantized weights") {
    using W = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.01, 0.02, 0.5), zero_points(0, 0, 0)>;
    f32<5, 37> x;
    std::mt19937 g(71);
    std::uniform_real_distribution<float> d(-2, 2);
    for (auto& e : x)
        e = d(g);
    const auto w = rnd<W, 37, 3>(72);
    const f32<37, 3> wf = uniform_dequantize(w);
    const f32<5, 3> h = dot_general<mk>(x, w);
    const f32<5, 3> want = dot_general<mk>(x, wf);
    CHECK(std::memcmp(h.data(), want.data(), sizeof(float) * h.size()) == 0);
    const auto wd = qt::ref_of(wf);
    const auto ref = r::dot_general<double>(qt::ref_of(x), wd, ref_dims(mk));
    for (std::size_t i = 0; i < h.size(); ++i)
        CHECK(std::fabs(h.data()[i] - ref.data[i]) <= 1e-4 * (1 + std::fabs(ref.data[i])));
    // bf16 activations with bf16-expressed weights: the result bf16, as dot_general(x, wf)
    using WB = quant::uniform<std::int8_t, bfloat16, scale(0.125), 0>;
    bf16<3, 8> xb;
    for (auto& e : xb)
        e = bfloat16(d(g));
    const auto wb = rnd<WB, 8, 2>(73);
    const bf16<8, 2> wbf = uniform_dequantize(wb);
    const bf16<3, 2> hb = dot(xb, wb);
    const bf16<3, 2> wantb = dot(xb, wbf);
    CHECK(std::memcmp(hb.data(), wantb.data(), sizeof(bfloat16) * hb.size()) == 0);
}

// =================================================================================================
// 4. Convolution
// =================================================================================================
TEST_CASE("quantized convolution: NHWC 3x3, padding and stride, per-axis kernels") {
    using X = quant::uniform<std::int8_t, float, scale(0.05), -4>;
    using K = quant::uniform<std::int8_t, float, scale(0.01), 0>;
    using KP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.01, 0.02, 0.005, 0.04, 0.03),
                                       zero_points(0, 3, -2, 127, -128)>;
    using R = quant::uniform<std::int8_t, float, scale(0.25), 1>;
    using RP =
        quant::uniform_per_axis<std::int8_t, float, 3, scales(0.2, 0.3, 0.1, 0.5, 0.6), zero_points(0, -3, 4, 10, -10)>;
    constexpr conv_config c1{.window_strides = {1, 1},
                             .padding_low = {1, 1},
                             .padding_high = {1, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    constexpr conv_config c2{.window_strides = {2, 2},
                             .padding_low = {1, 2},
                             .padding_high = {2, 0},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    check_conv<c1, R>(rnd<X, 2, 6, 5, 3>(81), rnd<K, 3, 3, 3, 5>(82));
    check_conv<c1, RP>(rnd<X, 2, 6, 5, 3>(83), rnd<KP, 3, 3, 3, 5>(84));
    check_conv<c2, R>(rnd<X, 1, 7, 9, 3>(85), rnd<KP, 3, 3, 3, 5>(86));
    check_conv<c2, RP>(rnd<X, 1, 7, 9, 3>(87), rnd<KP, 3, 3, 3, 5>(88));
    // u8 images with the zero point at the top of the range (the padding holds it), i16
    using XU = quant::uniform<std::uint8_t, float, scale(0.02), 255>;
    using KU = quant::uniform<std::uint8_t, float, scale(0.01), 128>;
    using RU = quant::uniform<std::uint8_t, float, scale(0.5), 0>;
    check_conv<c2, RU>(rnd<XU, 1, 5, 6, 2>(89), rnd<KU, 3, 3, 2, 4>(90));
    using X16 = quant::uniform<std::int16_t, float, scale(0.001), 100>;
    using K16 = quant::uniform<std::int16_t, float, scale(0.0003), -7>;
    using R16 = quant::uniform<std::int16_t, float, scale(0.02), 0>;
    check_conv<c1, R16>(rnd_band<X16, 1, 4, 4, 3>(91, -2000, 2000), rnd_band<K16, 3, 3, 3, 2>(92, -1000, 1000));
}

TEST_CASE("quantized convolution: groups, other layouts, dilations, reversal, rank 2") {
    using X = quant::uniform<std::int8_t, float, scale(0.05), 7>;
    using KP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.01, 0.02, 0.03, 0.04), zero_points(1, 0, -1, 2)>;
    using R = quant::uniform<std::int8_t, float, scale(0.1), -3>;
    using RP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.1, 0.2, 0.3, 0.4), zero_points(0, 1, 2, 3)>;
    constexpr conv_config fg{.padding_low = {1, 0},
                             .padding_high = {0, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 2};
    check_conv<fg, RP>(rnd<X, 2, 5, 4, 6>(101), rnd<KP, 2, 3, 3, 4>(102));
    constexpr conv_config bg{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"), .batch_group_count = 2};
    check_conv<bg, R>(rnd<X, 4, 5, 4, 3>(103), rnd<KP, 2, 2, 3, 4>(104));
    // depthwise: one input feature per group
    constexpr conv_config dw{.padding_low = {1, 1},
                             .padding_high = {1, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 4};
    check_conv<dw, RP>(rnd<X, 1, 5, 5, 4>(105), rnd<KP, 3, 3, 1, 4>(106));
    // NCHW in and out (the result's features not contiguous), OIHW kernel quantized on O
    using KO = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.01, 0.02, 0.03), zero_points(0, 5, -5)>;
    using RO = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.1, 0.2, 0.3), zero_points(0, 1, 2)>;
    constexpr conv_config nchw{.window_strides = {2, 1}, .padding_low = {1, 1}, .padding_high = {1, 1}};
    check_conv<nchw, RO>(rnd<X, 2, 3, 7, 5>(107), rnd<KO, 3, 3, 3, 2>(108));
    // lhs dilation (its holes hold the zero point), rhs dilation, window reversal
    constexpr conv_config dil{.padding_low = {2, 1},
                              .padding_high = {1, 2},
                              .lhs_dilation = {2, 1},
                              .rhs_dilation = {1, 2},
                              .dimension_numbers = conv_layout("NHWC", "HWIO", "NCHW"),
                              .window_reversal = {1, 0}};
    using RN = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.1, 0.2, 0.3, 0.4), zero_points(0, 1, 2, 3)>;
    check_conv<dil, RN>(rnd<X, 1, 4, 5, 3>(109), rnd<KP, 3, 2, 3, 4>(110));
    // rank 2: no spatial dimensions ([b, f] x [o, i] -> [b, o]), two feature groups
    using K2 = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.01, 0.02, 0.03, 0.04), zero_points(0, 0, 1, 1)>;
    using R2 = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.1, 0.2, 0.3, 0.4), zero_points(0, 1, 2, 3)>;
    constexpr conv_config r2{.feature_group_count = 2};
    check_conv<r2, R2>(rnd<X, 3, 6>(111), rnd<K2, 4, 3>(112));
}

TEST_CASE("quantized convolution: a 1x1 convolution over several blocks equals the quantized dot") {
    // 1024 output positions of 64 features into 1024 features: more than one block of output
    // positions (quant_conv_block_bytes), against dot_general on the reshaped operands
    using X = quant::uniform<std::int8_t, float, scale(0.05), -9>;
    using K = quant::uniform<std::int8_t, float, scale(0.004), 0>;
    using R = quant::uniform<std::int8_t, float, scale(0.3), 5>;
    static_assert(detail::quant_conv_block_bytes / (64 + 4 * 1024) < 1024);
    const auto x = rnd<X, 1, 32, 32, 64>(121);
    const auto k = rnd<K, 1, 1, 64, 1024>(122);
    constexpr conv_config c{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    const auto got = conv_general_dilated<c, R>(x, k);
    const auto want = dot_general<mk, R>(reshape(x, sizes<1024, 64>), reshape(k, sizes<64, 1024>));
    CHECK(ints(got) == ints(want));
}

TEST_CASE("hybrid convolution: the float convolution on the dequantized kernel") {
    using KP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.01, 0.02, 0.03), zero_points(0, 0, 0)>;
    f32<1, 6, 6, 2> x;
    std::mt19937 g(131);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& e : x)
        e = d(g);
    const auto k = rnd<KP, 3, 3, 2, 3>(132);
    constexpr conv_config c{.window_strides = {1, 2},
                            .padding_low = {1, 1},
                            .padding_high = {1, 1},
                            .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    const f32<3, 3, 2, 3> kf = uniform_dequantize(k);
    const auto h = conv_general_dilated<c>(x, k);
    const auto want = conv_general_dilated<c>(x, kf);
    static_assert(std::is_same_v<decltype(h), decltype(want)>);
    CHECK(std::memcmp(h.data(), want.data(), sizeof(float) * h.size()) == 0);
    const auto ref = r::conv<double>(qt::ref_of(x), qt::ref_of(kf), ct::ref_desc<c, decltype(x), decltype(kf)>());
    for (std::size_t i = 0; i < h.size(); ++i)
        CHECK(std::fabs(h.data()[i] - ref.data[i]) <= 1e-5 * (1 + std::fabs(ref.data[i])));
}

// =================================================================================================
// 5. Convolution: the im2col and the direct evaluation
// =================================================================================================
TEST_CASE("quantized convolution paths: 3x3 stride 1 padding 1, lines longer than a tile, threads") {
    using X = quant::uniform<std::int8_t, float, scale(0.05), -4>;
    using K = quant::uniform<std::int8_t, float, scale(0.01), 0>;
    using R = quant::uniform<std::int8_t, float, scale(0.7), 3>;
    constexpr conv_config c{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    // 30 positions a line (2 tiles and a tail with MR = 14, 5 tiles with MR = 6), 24 lines: above
    // the thread threshold; 40 features: a partial sliver
    check_conv_paths<c, R>(rnd<X, 1, 24, 30, 16>(201), rnd<K, 3, 3, 16, 40>(202));
    // lines shorter than a tile (5 and 3 positions), k = 9 x 7 = 63 (runs not whole groups)
    check_conv_paths<c, R>(rnd<X, 2, 4, 5, 7>(203), rnd<K, 3, 3, 7, 9>(204));
    check_conv_paths<c, R>(rnd<X, 1, 6, 3, 2>(205), rnd<K, 3, 3, 2, 3>(206));
    // NCHW result: the tile's features are not contiguous in the result
    constexpr conv_config nchw{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NCHW")};
    check_conv_paths<nchw, R>(rnd<X, 1, 5, 17, 4>(207), rnd<K, 3, 3, 4, 6>(208));
}

TEST_CASE("quantized convolution paths: the 7x7 stride 2 stem over 3 features") {
    using X = quant::uniform<std::uint8_t, float, scale(0.02), 128>;
    using K = quant::uniform<std::uint8_t, float, scale(0.01), 120>;
    using R = quant::uniform<std::uint8_t, float, scale(2.0), 100>;
    constexpr conv_config stem{.window_strides = {2, 2},
                               .padding_low = {3, 3},
                               .padding_high = {3, 3},
                               .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    check_conv_paths<stem, R>(rnd<X, 1, 20, 38, 3>(211), rnd<K, 7, 7, 3, 20>(212)); // 19 positions a line
    using XS = quant::uniform<std::int8_t, float, scale(0.02), -10>;
    using KP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.01, 0.02, 0.005, 0.04, 0.03),
                                       zero_points(0, 3, -2, 127, -128)>;
    using RP =
        quant::uniform_per_axis<std::int8_t, float, 3, scales(0.8, 1.5, 0.4, 3.0, 2.0), zero_points(0, -3, 4, 10, -10)>;
    check_conv_paths<stem, RP>(rnd<XS, 2, 9, 33, 3>(213), rnd<KP, 7, 7, 3, 5>(214));
}

TEST_CASE("quantized convolution paths: groups, dilations, reversal, per-axis zero points, storage bounds") {
    using X = quant::uniform<std::int8_t, float, scale(0.05), 127>;
    using KP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.01, 0.02, 0.03, 0.04, 0.01, 0.02),
                                       zero_points(1, 0, -1, 127, -128, 5)>;
    using RP = quant::uniform_per_axis<std::int8_t, float, 3, scales(0.5, 0.6, 0.7, 0.8, 0.5, 0.6),
                                       zero_points(-128, 1, 2, 3, 127, 0)>;
    // feature groups: 3 groups of 5 input and 2 output features
    constexpr conv_config fg{.padding_low = {1, 0},
                             .padding_high = {0, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 3};
    check_conv_paths<fg, RP>(rnd<X, 2, 5, 16, 15>(221), rnd<KP, 2, 3, 5, 6>(222));
    // rhs dilation (runs of one tap), window reversal
    constexpr conv_config rd{.padding_low = {2, 2},
                             .padding_high = {2, 2},
                             .rhs_dilation = {2, 2},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .window_reversal = {1, 1}};
    check_conv_paths<rd, RP>(rnd<X, 1, 6, 20, 5>(223), rnd<KP, 3, 3, 5, 6>(224));
    // lhs dilation (its holes hold the zero point), stride, reversal of one dimension
    constexpr conv_config ld{.window_strides = {1, 2},
                             .padding_low = {1, 2},
                             .padding_high = {2, 1},
                             .lhs_dilation = {2, 2},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .window_reversal = {0, 1}};
    check_conv_paths<ld, RP>(rnd<X, 1, 4, 15, 3>(225), rnd<KP, 3, 2, 3, 6>(226));
    // batch groups
    constexpr conv_config bg{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"), .batch_group_count = 2};
    check_conv_paths<bg, RP>(rnd<X, 4, 3, 17, 3>(227), rnd<KP, 2, 2, 3, 6>(228));
    // u8 with zero points at both bounds (the padding holds 0 or 255)
    using XU0 = quant::uniform<std::uint8_t, float, scale(0.02), 0>;
    using XU1 = quant::uniform<std::uint8_t, float, scale(0.02), 255>;
    using KU = quant::uniform_per_axis<std::uint8_t, float, 3, scales(0.01, 0.02, 0.03), zero_points(0, 255, 128)>;
    using RU = quant::uniform_per_axis<std::uint8_t, float, 3, scales(0.5, 1.0, 1.5), zero_points(0, 255, 128)>;
    constexpr conv_config c{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    check_conv_paths<c, RU>(rnd<XU0, 1, 3, 18, 6>(229), rnd<KU, 3, 3, 6, 3>(230));
    check_conv_paths<c, RU>(rnd<XU1, 1, 3, 18, 6>(231), rnd<KU, 3, 3, 6, 3>(232));
    // s8 with the lhs zero point at the lower bound, a 32-bit result (the exact path for M = 1)
    using XS = quant::uniform<std::int8_t, float, scale(0.5), -128>;
    using KS = quant::uniform<std::int8_t, float, scale(0.25), 0>;
    using R32 = quant::uniform<std::int32_t, float, scale(0.125), 7>;
    check_conv_paths<c, R32>(rnd<XS, 1, 2, 15, 4>(233), rnd<KS, 3, 3, 4, 5>(234));
}

TEST_CASE("quantized convolution paths: no direct kernel for 16-bit storage or without spatial dimensions") {
    using X16 = quant::uniform<std::int16_t, float, scale(0.001), 100>;
    using K16 = quant::uniform<std::int16_t, float, scale(0.0003), -7>;
    using R16 = quant::uniform<std::int16_t, float, scale(0.05), 0>;
    constexpr conv_config c{
        .padding_low = {1, 1}, .padding_high = {1, 1}, .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
    check_conv_paths<c, R16>(rnd_band<X16, 1, 3, 16, 3>(241, -2000, 2000), rnd_band<K16, 3, 3, 3, 2>(242, -1000, 1000),
                             false);
    using X = quant::uniform<std::int8_t, float, scale(0.05), 7>;
    using K2 = quant::uniform<std::int8_t, float, scale(0.01), 0>;
    using R2 = quant::uniform<std::int8_t, float, scale(0.1), -3>;
    constexpr conv_config r2{};
    check_conv_paths<r2, R2>(rnd<X, 3, 6>(243), rnd<K2, 4, 6>(244), false);
}

TEST_CASE("requantize_row / requantize_block: the SIMD forms give requantize_one's bits") {
    // columns with special scales (infinite: NaN where acc + off is 0; huge; 0; ties), sums
    // at the int32 bounds, ranges with and without 0 inside; contiguous and strided results
    auto run = [](auto tag, std::int32_t lo, std::int32_t hi) {
        using S = decltype(tag);
        constexpr std::size_t n = 37, rows = 5;
        detail::requant_table t(n);
        const float ms[] = {0.5f, 1e-3f, 3.0f, std::numeric_limits<float>::infinity(), 1e30f, 0.0f, 7.5e-4f, 0.25f};
        std::mt19937 g(301);
        std::uniform_int_distribution<std::int32_t> d(-300, 300);
        for (std::size_t j = 0; j < n; ++j) {
            t.set(j, ms[j % 8], static_cast<std::int32_t>(j % 5) - 2, false);
            t.off[j] = j % 3 == 0 ? 0 : d(g);
        }
        std::vector<std::int32_t> acc(rows * n);
        for (std::size_t i = 0; i < acc.size(); ++i)
            acc[i] = i % 11 == 0 ? 0 : i % 13 == 0 ? INT32_MIN : i % 17 == 0 ? INT32_MAX : i % 7 == 0 ? 3 : d(g) * 1000;
        const detail::requant_range r = detail::make_requant_range(lo, hi);
        for (const std::ptrdiff_t os : {1, 2}) {
            std::vector<S> got(rows * n * 2, S(0)), got_row(rows * n * 2, S(0)), want(rows * n * 2, S(0));
            const auto ors = static_cast<std::ptrdiff_t>(n) * os;
            detail::requantize_block(acc.data(), static_cast<std::ptrdiff_t>(n), rows, n, t.cols(0), r, got.data(), ors,
                                     os);
            for (std::size_t i = 0; i < rows; ++i) {
                detail::requantize_row(acc.data() + i * n, n, t, r,
                                       got_row.data() + static_cast<std::ptrdiff_t>(i) * ors, os);
                for (std::size_t j = 0; j < n; ++j)
                    want[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) * ors +
                                                  static_cast<std::ptrdiff_t>(j) * os)] =
                        detail::requantize_one<S>(acc[i * n + j], j, t.cols(0), r);
            }
            CAPTURE(sizeof(S));
            CAPTURE(lo);
            CAPTURE(os);
            CHECK(got == want);
            CHECK(got_row == want);
        }
    };
    run(std::int8_t{}, -128, 127);
    run(std::int8_t{}, -8, 7);
    run(std::uint8_t{}, 0, 255);
    run(std::uint8_t{}, 1, 200); // 0 outside the range: a NaN becomes 1
    run(std::int16_t{}, -32768, 32767);
    run(std::uint16_t{}, 0, 65535);
}
