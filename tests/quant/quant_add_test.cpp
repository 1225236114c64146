// add of quantized operands on their stored integers (quant/op_node.hpp, integer_add_fn): when
// lhs, rhs and result share one per-tensor scale s and zero point z (f32 expressed, storage of up
// to 16 bits, s <= 2^100), add(a, b) is clamp(a + b - z) to the storage range, in SIMD
// registers of the stored integers. The spec defines it in f32 (dequantize, add, quantize); this
// test shows both give the same bits:
//   1. every pair of s8 stored integers (65536) at scales from 2^-149 to 2^100 and zero points
//      from -128 to 127, every u8 pair, a storage range narrower than i8's, i4; i16 and u16 on 2^20
//      random pairs and the extremes; the spec's f32 path is the same program through
//      passes::apply<legalize_quantized_op_to_qdq> (and the reference evaluator's formulas);
//   2. why the scale bound: at s = 1e38 the f32 path's sum overflows and saturates where the
//      integers do not, so the op keeps the f32 path there;
//   3. the SIMD loop against the scalar formula: tails, broadcast and transposed operands, in
//      place, above the threading threshold.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "quant_common.hpp"

#include <memory>

namespace {

using passes::legalize_quantized_op_to_qdq;
using quant::scale;

template<class Q>
using grid = tensor<Q, 256, 256>;

// Every pair of stored integers of Q's storage range (at most 256 values each way; the rest of
// the grid repeats the range).
template<class Q>
void every_pair() {
    static_assert(detail::integer_add_exact<Q, Q, Q>());
    using S = storage_t<Q>;
    const std::int64_t lo = Q::storage_min, n = Q::storage_max - Q::storage_min + 1;
    auto a = std::make_unique<grid<Q>>(), b = std::make_unique<grid<Q>>();
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t j = 0; j < 256; ++j) {
            (*a)(i, j).stored = static_cast<S>(lo + static_cast<std::int64_t>(i) % n);
            (*b)(i, j).stored = static_cast<S>(lo + static_cast<std::int64_t>(j) % n);
        }
    auto direct = std::make_unique<grid<Q>>(add(*a, *b));
    auto spec = std::make_unique<grid<Q>>(passes::apply<legalize_quantized_op_to_qdq>(add(*a, *b)));
    INFO(xla_name<Q>);
    CHECK(qt::int_mismatches(qt::stored(*direct), qt::stored(*spec)) == 0);
    // (and the spec's path is the reference's formulas)
    const auto qa = qt::qtype_of<Q>();
    auto da = r::dequantize<float>(qt::stored(*a), qa), db = r::dequantize<float>(qt::stored(*b), qa);
    for (std::size_t i = 0; i < da.data.size(); ++i)
        da.data[i] += db.data[i];
    CHECK(qt::int_mismatches(qt::stored(*spec), r::quantize<float>(da, qa)) == 0);
    // the integer formula itself
    std::size_t off = 0;
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t j = 0; j < 256; ++j) {
            const std::int64_t want = std::clamp<std::int64_t>(static_cast<std::int64_t>((*a)(i, j).stored) +
                                                                   (*b)(i, j).stored - Q::zero_point,
                                                               Q::storage_min, Q::storage_max);
            off += (*direct)(i, j).stored != want;
        }
    CHECK(off == 0);
}

template<class S, quant::scale_t Scale, std::int64_t Z>
using q = quant::uniform<S, float, Scale, Z>;

} // namespace

TEST_CASE("every s8 pair: the integer add gives the spec's f32 bits at scales 2^-149 .. 2^100") {
    every_pair<q<std::int8_t, scale(0x1p-149), 0>>(); // subnormal scales: the products are exact
    every_pair<q<std::int8_t, scale(3e-42), -128>>();
    every_pair<q<std::int8_t, scale(0x1p-126), -128>>();
    every_pair<q<std::int8_t, scale(0x1p-126), 7>>();
    every_pair<q<std::int8_t, scale(1e-30), 0>>();
    every_pair<q<std::int8_t, scale(1e-30), 127>>();
    every_pair<q<std::int8_t, scale(1e-3), -3>>();
    every_pair<q<std::int8_t, scale(0.1), -30>>();
    every_pair<q<std::int8_t, scale(0.1), 127>>();
    every_pair<q<std::int8_t, scale(0.5), -3>>();
    every_pair<q<std::int8_t, scale(0.5), 0>>();
    every_pair<q<std::int8_t, scale(1.0), -128>>();
    every_pair<q<std::int8_t, scale(3.0), 5>>();
    every_pair<q<std::int8_t, scale(34.0), 16>>();
    every_pair<q<std::int8_t, scale(0.0039215686), -1>>();
    every_pair<q<std::int8_t, scale(1e30), -77>>();
    every_pair<q<std::int8_t, scale(0x1p100), 100>>();
    every_pair<q<std::int8_t, scale(0x1p100), -128>>();
}

TEST_CASE("every u8 pair, a narrow storage range, i4 and u4") {
    every_pair<q<std::uint8_t, scale(34.0), 16>>();
    every_pair<q<std::uint8_t, scale(0.25), 0>>();
    every_pair<q<std::uint8_t, scale(1e-20), 255>>();
    every_pair<quant::uniform<std::int8_t, float, scale(0.02), 0, -127, 127>>();
    every_pair<quant::uniform<std::int8_t, float, scale(0.7), -100, -100, 27>>();
    every_pair<quant::uniform<quant::i4, float, scale(0.5), -1>>();
    every_pair<quant::uniform<quant::u4, float, scale(0.125), 8>>();
}

TEST_CASE("i16 and u16: random pairs and the extremes") {
    auto check = [](auto tag, std::uint32_t seed) {
        using Q = decltype(tag);
        static_assert(detail::integer_add_exact<Q, Q, Q>());
        using T = tensor<Q, 1024, 1024>;
        auto a = std::make_unique<T>(qt::random_stored<Q, T>(seed)),
             b = std::make_unique<T>(qt::random_stored<Q, T>(seed + 1));
        // the corners of the range against each other
        const std::int64_t ends[] = {Q::storage_min, Q::storage_min + 1, Q::zero_point, Q::storage_max - 1,
                                     Q::storage_max};
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 5; ++j) {
                (*a)(0, 5 * i + j).stored = static_cast<storage_t<Q>>(ends[i]);
                (*b)(0, 5 * i + j).stored = static_cast<storage_t<Q>>(ends[j]);
            }
        auto direct = std::make_unique<T>(add(*a, *b));
        auto spec = std::make_unique<T>(passes::apply<legalize_quantized_op_to_qdq>(add(*a, *b)));
        INFO(xla_name<Q>);
        CHECK(qt::int_mismatches(qt::stored(*direct), qt::stored(*spec)) == 0);
    };
    check(q<std::int16_t, scale(0.001), -300>{}, 1);
    check(q<std::int16_t, scale(0x1p-126), 32767>{}, 3);
    check(q<std::int16_t, scale(0x1p100), -32768>{}, 5);
    check(q<std::uint16_t, scale(0.01), 32768>{}, 7);
    check(q<std::uint16_t, scale(3e-5), 0>{}, 9);
}

TEST_CASE("where the integer add does not apply, and why the scale range") {
    using QA = q<std::int8_t, scale(0.5), -3>;
    using QB = q<std::int8_t, scale(0.25), -3>;
    using QZ = q<std::int8_t, scale(0.5), 4>;
    static_assert(!detail::integer_add_exact<QB, QA, QA>()); // another result scale
    static_assert(!detail::integer_add_exact<QZ, QA, QA>()); // another result zero point
    static_assert(!detail::integer_add_exact<QA, QA, QZ>());
    static_assert(!detail::integer_add_exact<q<std::int32_t, scale(0.5), 0>, q<std::int32_t, scale(0.5), 0>,
                                             q<std::int32_t, scale(0.5), 0>>());
    static_assert(!detail::integer_add_exact<quant::uniform<std::int8_t, bfloat16, scale(0.5), 0>,
                                             quant::uniform<std::int8_t, bfloat16, scale(0.5), 0>,
                                             quant::uniform<std::int8_t, bfloat16, scale(0.5), 0>>());
    // one f32 scale: two doubles that round to it are one scale
    static_assert(detail::integer_add_exact<q<std::int8_t, scale(0.1), 0>, q<std::int8_t, scale(0.1000000001), 0>,
                                            q<std::int8_t, scale(0.1), 0>>());
    // A scale near f32's largest: (a - z) s + (b - z) s overflows to infinity, which quantizes to
    // the storage maximum, where the integers may sum to anything; the op keeps the f32 path there.
    using QS = q<std::int8_t, scale(1e38), 0>;
    static_assert(!detail::integer_add_exact<QS, QS, QS>());
    static_assert(detail::integer_add_exact<q<std::int8_t, scale(0x1p100), 0>, q<std::int8_t, scale(0x1p100), 0>,
                                            q<std::int8_t, scale(0x1p100), 0>>());
    auto a = std::make_unique<grid<QS>>(), b = std::make_unique<grid<QS>>();
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t j = 0; j < 256; ++j) {
            (*a)(i, j).stored = static_cast<std::int8_t>(static_cast<int>(i) - 128);
            (*b)(i, j).stored = static_cast<std::int8_t>(static_cast<int>(j) - 128);
        }
    auto direct = std::make_unique<grid<QS>>(add(*a, *b));
    auto spec = std::make_unique<grid<QS>>(passes::apply<legalize_quantized_op_to_qdq>(add(*a, *b)));
    CHECK(qt::int_mismatches(qt::stored(*direct), qt::stored(*spec)) == 0);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t j = 0; j < 256; ++j)
            differ += (*spec)(i, j).stored != std::clamp((*a)(i, j).stored + (*b)(i, j).stored, -128, 127);
    CHECK(differ > 0);
    // 4 * 1e38 overflows: (4, -3) sums to inf - 3e38 = inf, stored 127; the integers give 1
    CHECK((*spec)(132, 125).stored == 127);
    CHECK((*direct)(132, 125).stored == 127);
}

TEST_CASE("the SIMD loop against the scalar formula: tails, broadcasts, a transposed operand, in place, threads") {
    using QA = q<std::int8_t, scale(0.5), -3>;
    using QU = q<std::uint8_t, scale(2.0), 200>;
    auto formula = [](auto x, auto y, auto qtag) {
        using Q = decltype(qtag);
        return std::clamp<std::int64_t>(std::int64_t{x.stored} + y.stored - Q::zero_point, Q::storage_min,
                                        Q::storage_max);
    };
    auto sizes_check = [&](auto n_tag, auto qtag) {
        using Q = decltype(qtag);
        constexpr std::size_t n = decltype(n_tag)::value;
        using T = tensor<Q, n>;
        const auto a = qt::random_stored<Q, T>(static_cast<std::uint32_t>(n)), b = qt::random_stored<Q, T>(77);
        const T s = add(a, b);
        std::size_t off = 0;
        for (std::size_t i = 0; i < n; ++i)
            off += s(i).stored != formula(a(i), b(i), qtag);
        INFO(n, " elements of ", xla_name<Q>);
        CHECK(off == 0);
    };
    sizes_check(std::integral_constant<std::size_t, 1>{}, QA{});
    sizes_check(std::integral_constant<std::size_t, 7>{}, QA{});
    sizes_check(std::integral_constant<std::size_t, 63>{}, QU{});
    sizes_check(std::integral_constant<std::size_t, 64>{}, QA{});
    sizes_check(std::integral_constant<std::size_t, 65>{}, QU{});
    sizes_check(std::integral_constant<std::size_t, 1000>{}, QA{});
    // a scalar, a row along broadcast_dimensions, a transposed operand
    using M = tensor<QA, 37, 41>;
    const auto m = qt::random_stored<QA, M>(5);
    const auto mt = qt::random_stored<QA, tensor<QA, 41, 37>>(6);
    const auto row = qt::random_stored<QA, tensor<QA, 41>>(7);
    const tensor<QA> one{9};
    const M s1 = add(m, one), s2 = add(m, row, dims<1>), s3 = add(m, transpose(mt, dims<1, 0>));
    std::size_t off = 0;
    for (std::size_t i = 0; i < 37; ++i)
        for (std::size_t j = 0; j < 41; ++j) {
            off += s1(i, j).stored != formula(m(i, j), one(), QA{});
            off += s2(i, j).stored != formula(m(i, j), row(j), QA{});
            off += s3(i, j).stored != formula(m(i, j), mt(j, i), QA{});
        }
    CHECK(off == 0);
    // in place, and above the threading threshold (2^21 elements)
    using L = tensor<QA, 2048, 1024>;
    auto x = std::make_unique<L>(qt::random_stored<QA, L>(8));
    const auto y = std::make_unique<L>(qt::random_stored<QA, L>(9));
    const auto x0 = std::make_unique<L>(*x);
    *x = add(*x, *y);
    off = 0;
    for (std::size_t i = 0; i < L::size(); ++i)
        off += x->data()[i].stored != formula(x0->data()[i], y->data()[i], QA{});
    CHECK(off == 0);
}
