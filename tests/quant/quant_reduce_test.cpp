// The quantized ops this file covers (issue #26):
//   1. max, min, clamp, select and the comparisons of operands of one per-tensor type on the
//      stored integers (quant/op_node.hpp, exact_on_stored): every pair of s8 / u8 stored integers
//      at scales from 2^-149 to 2^100 and zero points at the storage bounds give the bits of the
//      spec's f32 path (passes::apply<legalize_quantized_op_to_qdq>, and the reference's
//      formulas); where the path would not be exact (bf16 holding i16 differences) the spec's
//      formula is kept: two stored integers one apart compare equal;
//   2. reduce and reduce_window on quantized operands (quant/reduce.hpp): hand-checked folds
//      with saturation at every step, the promotion of the body's storage type (reduce<Ei>),
//      differential tests against a sequential fold of the reference's dequantize / quantize,
//      user bodies on quantized scalars, and the export of the body as the quantized op;
//   3. iota of a quantized type: quantize(index).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <xlet/stablehlo/export.hpp>

#include "quant_common.hpp"

#include <memory>

namespace {

using passes::legalize_quantized_op_to_qdq;
using quant::scale;

template<class S, quant::scale_t Scale, std::int64_t Z, class E = float>
using q = quant::uniform<S, E, Scale, Z>;

template<class Q>
using grid = tensor<Q, 256, 256>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every pair of stored integers of Q's storage range: a(i, j) = i-th, b(i, j) = j-th value.
template<class Q>
void fill_pairs(grid<Q>& a, grid<Q>& b) {
    using S = storage_t<Q>;
    const std::int64_t lo = Q::storage_min, n = Q::storage_max - Q::storage_min + 1;
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t j = 0; j < 256; ++j) {
            a(i, j).stored = static_cast<S>(lo + static_cast<std::int64_t>(i) % n);
            b(i, j).stored = static_cast<S>(lo + static_cast<std::int64_t>(j) % n);
        }
}

// The ops of section 1 on every pair, against the spec's path and the integer formula.
template<class Q>
void every_pair_picks() {
    static_assert(detail::stored_integer_op<detail::max_fn, Q, Q, Q>());
    static_assert(detail::stored_integer_op<detail::lt_fn, bool, Q, Q>());
    static_assert(detail::stored_integer_op<detail::select_fn, Q, bool, Q, Q>());
    auto a = std::make_unique<grid<Q>>(), b = std::make_unique<grid<Q>>();
    fill_pairs(*a, *b);
    INFO(xla_name<Q>);
    const auto qa = qt::qtype_of<Q>();
    const auto da = r::dequantize<float>(qt::stored(*a), qa), db = r::dequantize<float>(qt::stored(*b), qa);
    auto mx = std::make_unique<grid<Q>>(max(*a, *b));
    auto mn = std::make_unique<grid<Q>>(min(*a, *b));
    auto mx_spec = std::make_unique<grid<Q>>(passes::apply<legalize_quantized_op_to_qdq>(max(*a, *b)));
    auto mn_spec = std::make_unique<grid<Q>>(passes::apply<legalize_quantized_op_to_qdq>(min(*a, *b)));
    CHECK(qt::int_mismatches(qt::stored(*mx), qt::stored(*mx_spec)) == 0);
    CHECK(qt::int_mismatches(qt::stored(*mn), qt::stored(*mn_spec)) == 0);
    // clamp(b, a, hi) with a scalar upper bound, select(a < b, b, a)
    const tensor<Q> hi{static_cast<storage_t<Q>>(Q::zero_point)};
    auto cl = std::make_unique<grid<Q>>(clamp(*b, *a, hi));
    auto cl_spec = std::make_unique<grid<Q>>(passes::apply<legalize_quantized_op_to_qdq>(clamp(*b, *a, hi)));
    CHECK(qt::int_mismatches(qt::stored(*cl), qt::stored(*cl_spec)) == 0);
    auto lt = std::make_unique<tensor<bool, 256, 256>>(*a < *b);
    auto lt_spec = std::make_unique<tensor<bool, 256, 256>>(passes::apply<legalize_quantized_op_to_qdq>(*a < *b));
    auto eq_ = std::make_unique<tensor<bool, 256, 256>>(*a == *b);
    auto ge_ = std::make_unique<tensor<bool, 256, 256>>(ge(*a, *b));
    auto sel = std::make_unique<grid<Q>>(select(*lt, *b, *a));
    auto sel_spec = std::make_unique<grid<Q>>(passes::apply<legalize_quantized_op_to_qdq>(select(*lt, *b, *a)));
    CHECK(qt::int_mismatches(qt::stored(*sel), qt::stored(*sel_spec)) == 0);
    std::size_t off = 0, off_spec = 0;
    for (std::size_t f = 0; f < a->size(); ++f) {
        const std::int64_t x = a->data()[f].stored, y = b->data()[f].stored;
        const std::int64_t c = std::min(std::max(x, y), static_cast<std::int64_t>(Q::zero_point));
        off += mx->data()[f].stored != std::max(x, y) || mn->data()[f].stored != std::min(x, y) ||
               cl->data()[f].stored != c || lt->data()[f] != (x < y) || eq_->data()[f] != (x == y) ||
               ge_->data()[f] != (x >= y) || sel->data()[f].stored != std::max(x, y);
        // the spec: compare of the dequantized values (FLOAT)
        off_spec += lt_spec->data()[f] != (da.data[f] < db.data[f]) || lt->data()[f] != (da.data[f] < db.data[f]) ||
                    eq_->data()[f] != (da.data[f] == db.data[f]);
    }
    CHECK(off == 0);
    CHECK(off_spec == 0);
}

// Section 2's reference: the spec's body on scalars of qtype e (dequantize, op in E, quantize),
// folded from init in row-major order of the reduced elements.
template<class E, class Op>
std::int64_t ref_step(std::int64_t a, std::int64_t b, const r::qtype& e, Op op) {
    const auto x = r::dequantize<E>(r::array<std::int64_t>({1}, {a}), e);
    const auto y = r::dequantize<E>(r::array<std::int64_t>({1}, {b}), e);
    r::array<E> v = x;
    v.data[0] = E(op(r::detail_quant::wide(x.data[0]), r::detail_quant::wide(y.data[0])));
    return r::quantize<E>(v, e).data[0];
}

// Rows of a [rows, cols] array of stored integers reduced along dimension 1.
template<class E, class Op>
std::vector<std::int64_t> ref_reduce_rows(const r::array<std::int64_t>& x, std::int64_t init, const r::qtype& e,
                                          Op op) {
    const std::size_t rows = static_cast<std::size_t>(x.dims[0]), cols = static_cast<std::size_t>(x.dims[1]);
    std::vector<std::int64_t> out(rows);
    for (std::size_t i = 0; i < rows; ++i) {
        std::int64_t acc = init;
        for (std::size_t j = 0; j < cols; ++j)
            acc = ref_step<E>(acc, x.data[i * cols + j], e, op);
        out[i] = acc;
    }
    return out;
}

template<class A>
std::vector<std::int64_t> ints(const A& a) {
    return qt::stored(a).data;
}

// reduce along dimension 1 of random stored integers with add, mul, max and min, against the
// reference fold; Q's init is its zero point (the real 0) or stored 1 for mul.
template<class Q, class E, std::size_t Rows, std::size_t Cols>
void reduce_differential(std::uint32_t seed) {
    INFO(xla_name<Q>);
    const auto x = qt::random_stored<Q, tensor<Q, Rows, Cols>>(seed);
    const auto qx = qt::qtype_of<Q>();
    const Q zero(static_cast<storage_t<Q>>(Q::zero_point));
    const Q one(static_cast<storage_t<Q>>(std::min<std::int64_t>(Q::zero_point + 3, Q::storage_max)));
    auto plus = [](auto a, auto b) { return a + b; };
    auto times = [](auto a, auto b) { return a * b; };
    auto fmax_ = [](auto a, auto b) { return a < b ? b : a; };
    auto fmin_ = [](auto a, auto b) { return b < a ? b : a; };
    CHECK(ints(reduce(x, zero, add_fn{}, dims<1>)) == ref_reduce_rows<E>(qt::stored(x), Q::zero_point, qx, plus));
    CHECK(ints(reduce(x, one, mul_fn{}, dims<1>)) == ref_reduce_rows<E>(qt::stored(x), one.stored, qx, times));
    CHECK(ints(reduce(x, zero, max_fn{}, dims<1>)) == ref_reduce_rows<E>(qt::stored(x), Q::zero_point, qx, fmax_));
    CHECK(ints(reduce(x, zero, min_fn{}, dims<1>)) == ref_reduce_rows<E>(qt::stored(x), Q::zero_point, qx, fmin_));
}

} // namespace

// =================================================================================================
// 1. max, min, clamp, select, compare on the stored integers
// =================================================================================================
TEST_CASE("every s8 / u8 pair: max, min, clamp, select and compare give the spec's f32 bits") {
    every_pair_picks<q<std::int8_t, scale(0x1p-149), 0>>(); // subnormal: the products are exact
    every_pair_picks<q<std::int8_t, scale(3e-42), -128>>();
    every_pair_picks<q<std::int8_t, scale(0.1), 127>>();
    every_pair_picks<q<std::int8_t, scale(0.5), 2>>();
    every_pair_picks<q<std::int8_t, scale(0x1p100), -128>>();
    every_pair_picks<q<std::uint8_t, scale(34.0), 255>>();
    every_pair_picks<q<std::uint8_t, scale(0.003), 0>>();
    every_pair_picks<quant::uniform<std::int8_t, float, scale(0.02), 0, -127, 127>>();
    every_pair_picks<q<quant::i4, scale(0.25), -8>>();
    every_pair_picks<q<std::int16_t, scale(1e-3), 32767>>();
}

TEST_CASE("where the stored integers do not order like the spec's values, the spec's formula runs") {
    // bf16 holds 8 significant bits: stored 258 and 257 (minus the zero point 1: 257, 256) both
    // dequantize to 256 * 0.5 = 128, so the spec compares them equal
    using QB = q<std::int16_t, scale(0.5), 1, bfloat16>;
    static_assert(!detail::stored_integer_op<detail::eq_fn, bool, QB, QB>());
    static_assert(!detail::stored_integer_op<detail::max_fn, QB, QB, QB>());
    tensor<QB, 3> a{258, 258, -5}, b{257, 259, -5};
    pred<3> e = a == b, l = a < b;
    CHECK(e(0) == true);  // 257 and 256 round to bf16 256
    CHECK(e(1) == false); // 257 -> 256, 258 -> 258
    CHECK(e(2) == true);
    CHECK(l(0) == false);
    CHECK(l(1) == true);
    // max picks a value and quantizes it, rounding to bf16 after each step: 128 / 0.5 = 256,
    // + 1 = 257 -> 256 (tie to even); 129 / 0.5 = 258, + 1 = 259 -> 260 (tie to even)
    tensor<QB, 3> m = max(a, b);
    CHECK(m(0).stored == 256);
    CHECK(m(1).stored == 260);
    CHECK(m(2).stored == -5); // exact: (-5 - 1) * 0.5 = -3, / 0.5 + 1 = -5
    // other types: scale above 2^100, i32 storage, different zero points: the spec's formula
    static_assert(!detail::stored_integer_op<detail::max_fn, q<std::int8_t, scale(0x1p101), 0>,
                                             q<std::int8_t, scale(0x1p101), 0>, q<std::int8_t, scale(0x1p101), 0>>());
    static_assert(!detail::stored_integer_op<detail::lt_fn, bool, q<std::int32_t, scale(1.0), 0>,
                                             q<std::int32_t, scale(1.0), 0>>());
    static_assert(!detail::stored_integer_op<detail::lt_fn, bool, q<std::int8_t, scale(1.0), 0>,
                                             q<std::int8_t, scale(1.0), 1>>());
    static_assert(!detail::stored_integer_op<detail::max_fn, q<std::int8_t, scale(1.0), 1>,
                                             q<std::int8_t, scale(1.0), 0>, q<std::int8_t, scale(1.0), 0>>());
}

TEST_CASE("at a scale of 1e38 max is the spec's: the dequantized values overflow to inf") {
    // (127 - 0) * 1e38 = inf in f32, and so is 126 * 1e38: the spec compares them equal (the
    // stored integers would not), and max(inf, x) quantizes to storage_max. The condition
    // (scale <= 2^100) keeps the stored path off.
    using QH = q<std::int8_t, scale(1e38), 0>;
    static_assert(!detail::stored_integer_op<detail::max_fn, QH, QH, QH>());
    tensor<QH, 2> a{127, 126}, b{126, -3};
    pred<2> e = a == b;
    CHECK(e(0) == true); // inf == inf
    CHECK(e(1) == false);
    tensor<QH, 2> m = max(a, b);
    CHECK(m(0).stored == 127);
    CHECK(m(1).stored == 127); // inf quantizes to storage_max
}

// =================================================================================================
// 2. reduce and reduce_window
// =================================================================================================
TEST_CASE("reduce of quantized operands: hand-checked, saturation at every step") {
    using Q = q<std::int8_t, scale(0.5), 2>;
    tensor<Q, 3, 3> x{{10, 20, 30}, {127, 127, -128}, {-128, -128, 127}};
    // add on the stored integers: acc = clamp(acc + x - 2), from init 2 (the real 0)
    // row 0: 2 + 10 - 2 = 10, + 20 - 2 = 28, + 30 - 2 = 56 (real (8 + 18 + 28) * 0.5 = 27)
    // row 1: 2 + 127 - 2 = 127, + 127 - 2 = 252 -> 127, + (-128) - 2 = -3 (the exact sum: 122)
    // row 2: -128, -128 + -128 - 2 -> -128, -128 + 127 - 2 = -3
    tensor<Q, 3> s = reduce(x, Q(2), add_fn{}, dims<1>);
    CHECK(ints(s) == std::vector<std::int64_t>{56, -3, -3});
    // an init that is not the identity takes part once, first: init 6 (real 2); row 1:
    // 6 + 127 - 2 -> 127, 127 + 127 - 2 -> 127, 127 - 128 - 2 = -3 (it saturates away)
    tensor<Q, 3> s6 = reduce(x, Q(6), add_fn{}, dims<1>);
    CHECK(ints(s6) == std::vector<std::int64_t>{60, -3, -3});
    // max and min on the stored integers; init from a rank-0 array
    const tensor<Q> lowest{-128};
    CHECK(ints(tensor<Q, 3>(reduce(x, lowest, max_fn{}, dims<1>))) == std::vector<std::int64_t>{30, 127, 127});
    CHECK(ints(tensor<Q, 3>(reduce(x, Q(127), min_fn{}, dims<0>))) == std::vector<std::int64_t>{-128, -128, -128});
    // mul in the expressed type: 3 * 4 * ... with init 4 (real 1): row 0 reals 4, 9, 14 -> 504 -> saturates
    tensor<Q, 3> p = reduce(x, Q(4), mul_fn{}, dims<1>);
    CHECK(p(0).stored == 127);
    // every dimension: a scalar
    tensor<Q> all = reduce(x, Q(2), add_fn{}, dims<0, 1>);
    // 10, 28, 56, 127 (181), 127 (252), -3, -128 (-133), -128 (-258), -3
    CHECK(all().stored == -3);
    CHECK(ints(all) == std::vector<std::int64_t>{
                           ref_reduce_rows<float>(r::array<std::int64_t>({1, 9}, qt::stored(x).data), 2,
                                                  qt::qtype_of<Q>(), [](float a, float b) { return a + b; })[0]});
}

TEST_CASE("reduce<Ei>: the body's storage type promoted, inputs and init requantized") {
    using Q = q<std::int8_t, scale(0.5), 2>;
    using Acc = q<std::int32_t, scale(0.5), 0>; // the same expressed type, 32-bit storage
    tensor<Q, 2, 3> x{{127, 127, -128}, {10, 20, 30}};
    // inputs to Acc: stored - 2 (125, 125, -130); no saturation in 32 bits: 120 (real 60)
    tensor<Acc, 2> s = reduce<Acc>(x, Q(2), add_fn{}, dims<1>);
    CHECK(ints(s) == std::vector<std::int64_t>{120, 54});
    // another scale too: Acc2 = 0.25, zero point 7: stored 2 * (x - 2) + 7 per input
    using Acc2 = q<std::int16_t, scale(0.25), 7>;
    tensor<Acc2, 2> s2 = reduce<Acc2>(x, Q(2), add_fn{}, dims<1>);
    CHECK(ints(s2) == std::vector<std::int64_t>{2 * 120 + 7, 2 * 54 + 7});
    // max promoted: the maximum's real value in Acc2
    tensor<Acc2, 2> m = reduce<Acc2>(x, Q(-128), max_fn{}, dims<1>);
    CHECK(ints(m) == std::vector<std::int64_t>{2 * 125 + 7, 2 * 28 + 7});
}

TEST_CASE("reduce differential: the spec's fold in the expressed type, per storage and expressed type") {
    reduce_differential<q<std::int8_t, scale(0.5), 2>, float, 7, 33>(101);              // integer add
    reduce_differential<q<std::int8_t, scale(0.03), -128>, float, 5, 40>(102);          // zero point at min
    reduce_differential<q<std::uint8_t, scale(0.5), 255>, float, 4, 17>(103);           // zero point at max
    reduce_differential<q<std::int8_t, scale(0.1), 3, bfloat16>, bfloat16, 6, 21>(104); // bf16: every step rounds
    reduce_differential<q<std::int16_t, scale(0.01), -7, half>, half, 3, 50>(105);
    reduce_differential<q<std::int32_t, scale(1e-3), 12345>, float, 4, 9>(106); // i32: the f32 path
    reduce_differential<q<std::int32_t, scale(0.25), -5, double>, double, 3, 11>(107);
}

TEST_CASE("reduce with a user body on quantized scalars; export of the body as the quantized op") {
    using Q = q<std::int8_t, scale(0.5), 2>;
    tensor<Q, 2, 4> x{{1, 9, -4, 3}, {0, 0, 0, 0}};
    // the body gets Q values: an argmax-like body on the stored integers
    auto body = [](Q a, Q b) { return b.stored > a.stored ? b : a; };
    tensor<Q, 2> m = reduce(x, Q(-128), body, dims<1>);
    CHECK(ints(m) == std::vector<std::int64_t>{9, 0});
    // xlet's functors on quantized scalars are the quantized ops: add saturates (127 + 127 - 2),
    // exp goes through the expressed type, a comparison is dequantize_compare
    CHECK(add_fn{}(Q(127), Q(127)).stored == 127);
    CHECK(add_fn{}(Q(10), Q(20)).stored == 28);
    CHECK(mul_fn{}(Q(6), Q(10)).stored == 18); // 2 * 4 = 8 -> 16 + 2
    CHECK(detail::exp_fn{}(Q(2)).stored == 4); // exp(0) = 1 -> 2 + 2
    CHECK(detail::lt_fn{}(Q(3), Q(4)) == true);
    CHECK(std::is_same_v<decltype(detail::lt_fn{}(Q(3), Q(4))), bool>);
    // map with a functor (and so all_reduce's combiner): the quantized op, not the stored sum
    tensor<Q, 4> row{127, 10, -128, 6}, other{127, 20, -128, 6};
    tensor<Q, 4> mapped = map(add_fn{}, row, other);
    tensor<Q, 4> added = add(row, other);
    CHECK(ints(mapped) == std::vector<std::int64_t>{127, 28, -128, 10});
    CHECK(ints(mapped) == ints(added));
    // sort with the quantized compare as comparator (the spec's body: compare on quantized scalars)
    tensor<Q, 4> sorted = sort(tensor<Q, 4>{5, -3, 127, 0}, detail::lt_fn{});
    CHECK(ints(sorted) == std::vector<std::int64_t>{-3, 0, 5, 127});
    tensor<Q, 2> viaf = reduce(
        x, Q(2), [](Q a, Q b) { return add_fn{}(a, b); }, dims<1>);
    tensor<Q, 2> tag = reduce(x, Q(2), add_fn{}, dims<1>);
    CHECK(ints(viaf) == ints(tag));
    CHECK(ints(tag) == std::vector<std::int64_t>{1 + 9 - 4 + 3 - 2 * 3, -6}); // 1 + 9 - 4 + 3 - 3 * 2; 4 * -2 + 2
    // to_stablehlo: one reduce, its region the quantized add on scalars of Q
    const std::string t = to_stablehlo([](const tensor<Q, 2, 4>& a) { return reduce(a, Q(2), add_fn{}, dims<1>); }, x);
    CHECK(has(t, "\"stablehlo.reduce\""));
    CHECK(has(t, "\"stablehlo.add\"(%arg1, %arg2) : (tensor<!quant.uniform<i8:f32, 5.000000e-01:2>>, "
                 "tensor<!quant.uniform<i8:f32, 5.000000e-01:2>>) -> tensor<!quant.uniform<i8:f32, 5.000000e-01:2>>"));
    CHECK(has(t, "-> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:2>>"));
}

TEST_CASE("reduce_window of quantized operands") {
    using Q = q<std::int8_t, scale(0.5), 2>;
    tensor<Q, 6> x{10, 127, 127, -128, 30, 40};
    // max pooling, window 2, stride 2
    tensor<Q, 3> mp =
        reduce_window<window_config{.window_dimensions = {2}, .window_strides = {2}}>(x, Q(-128), max_fn{});
    CHECK(ints(mp) == std::vector<std::int64_t>{127, 127, 40});
    // sums of windows of 3, stride 1: saturation inside a window, from init 2
    // [10, 127, 127]: 10, 135 -> 127, 252 -> 127;  [127, 127, -128]: 127, 127, -3;
    // [127, -128, 30]: 127, -3, 25;  [-128, 30, 40]: -128, -100, -62
    tensor<Q, 4> s = reduce_window<window_config{.window_dimensions = {3}, .window_strides = {1}}>(x, Q(2), add_fn{});
    CHECK(ints(s) == std::vector<std::int64_t>{127, -3, 25, -62});
    // promoted: the sums exact in 16 bits at the same scale and zero point 0
    using Acc = q<std::int16_t, scale(0.5), 0>;
    tensor<Acc, 4> w =
        reduce_window<window_config{.window_dimensions = {3}, .window_strides = {1}}, Acc>(x, Q(2), add_fn{});
    CHECK(ints(w) == std::vector<std::int64_t>{8 + 125 + 125, 125 + 125 - 130, 125 - 130 + 28, -130 + 28 + 38});
}

// =================================================================================================
// 3. iota
// =================================================================================================
TEST_CASE("iota of a quantized type: quantize(index)") {
    using Q = q<std::int8_t, scale(0.5), -3>;
    tensor<Q, 2, 4> a = iota<tensor<Q, 2, 4>, 1>();
    // index / 0.5 - 3: -3, -1, 1, 3 on each row
    CHECK(ints(a) == std::vector<std::int64_t>{-3, -1, 1, 3, -3, -1, 1, 3});
    // saturation: index 100 / 0.5 - 3 = 197 -> 127
    using Qs = q<std::int8_t, scale(0.5), 0>;
    tensor<Qs, 200> b = iota<tensor<Qs, 200>, 0>();
    CHECK(b(63).stored == 126);
    CHECK(b(64).stored == 127);
    CHECK(b(199).stored == 127);
}

TEST_CASE("reduce_precision of a quantized operand: dequantize, reduce, quantize") {
    using Q = q<std::int8_t, scale(0.5), 0>;
    tensor<Q, 5> x{9, 11, 7, 127, -13};
    // 4.5 = 1.001b * 2^2 -> 2 mantissa bits, tie to even: 4 -> 8; 5.5 = 1.011b * 2^2 -> 6 -> 12;
    // 3.5 = 1.11b * 2 exact -> 7; 63.5 -> 64 -> 128 saturates to 127; -6.5 = -1.101b * 2^2 -> -6 -> -12
    tensor<Q, 5> r = reduce_precision<5, 2>(x);
    CHECK(ints(r) == std::vector<std::int64_t>{8, 12, 7, 127, -12});
    const std::string t = to_stablehlo(reduce_precision<5, 2>(x));
    CHECK(has(t, "\"stablehlo.reduce_precision\"(%arg0) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32} : "
                 "(tensor<5x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<5x!quant.uniform<i8:f32, 5.000000e-01>>"));
}
