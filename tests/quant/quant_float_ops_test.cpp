// batch_norm_inference / training / grad, cholesky and triangular_solve on quantized operands
// (quant/float_ops.hpp, issue #26): the spec's dequantize -> float op -> quantize. The inputs are
// chosen so every real value is dyadic and var + epsilon is a power of 4: the float op is exact,
// and the expected stored integers below are worked by hand (ties rounded half to even, values
// beyond the storage range saturated).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <xlet/stablehlo/export.hpp>
#include <xlet/xlet.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

using namespace xlet;
using quant::scale;

namespace {

template<class S, quant::scale_t Scale, std::int64_t Z, class E = float>
using q = quant::uniform<S, E, Scale, Z>;

template<class A>
std::vector<std::int64_t> stored(const A& a) {
    std::vector<std::int64_t> v;
    for (const auto& e : a)
        v.push_back(static_cast<std::int64_t>(e.stored));
    return v;
}
template<class A>
void set_stored(A& a, std::initializer_list<std::int64_t> v) {
    std::size_t i = 0;
    for (auto s : v)
        a.data()[i++].stored = static_cast<decltype(a.data()[0].stored)>(s);
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using X = q<std::int8_t, scale(0.25), 3>; // x = (stored - 3) / 4

TEST_CASE("batch_norm_inference: dequantize, normalise, quantize in one lazy pass") {
    // x [3, 2], feature_index 1; variance 0.5 + epsilon 0.5 = 1 for both features.
    using V = q<std::int8_t, scale(0.5), -1>; // the 1-D operands: v = (stored + 1) / 2
    tensor<X, 3, 2> x;
    set_stored(x, {3 + 4 /*1*/, 3 - 4 /*-1*/, 3 + 5 /*1.25*/, 3 + 2 /*0.5*/, 3 + 100 /*25*/, 3 - 100 /*-25*/});
    tensor<V, 2> sc, off, mean, var;
    set_stored(sc, {3 /*2*/, 1 /*1*/});
    set_stored(off, {0 /*0.5*/, -1 /*0*/});
    set_stored(mean, {1 /*1*/, -3 /*-1*/});
    set_stored(var, {0 /*0.5*/, 0 /*0.5*/});
    // y = (x - mean) * scale / sqrt(var + 0.5) + offset, var + 0.5 = 1:
    //   f0: (1 - 1) 2 + 0.5 = 0.5,  (1.25 - 1) 2 + 0.5 = 1,    (25 - 1) 2 + 0.5 = 48.5
    //   f1: (-1 + 1) + 0 = 0,        (0.5 + 1) = 1.5,            (-25 + 1) = -24
    using R = q<std::int8_t, scale(1.0), 0>; // ties: 0.5 -> 0, 1.5 -> 2, 48.5 -> 48
    auto y = batch_norm_inference<1, R>(x, sc, off, mean, var, 0.5f);
    static_assert(!std::is_same_v<std::remove_cvref_t<decltype(y)>, tensor<R, 3, 2>>, "lazy, as the float op");
    tensor<R, 3, 2> got = y;
    CHECK(stored(got) == std::vector<std::int64_t>{0, 0, 1, 2, 48, -24});
    // The result type defaults to x's; saturation at its storage bounds: 48.5 * 4 + 3 > 127.
    tensor<X, 3, 2> same = batch_norm_inference<1>(x, sc, off, mean, var, 0.5f);
    CHECK(stored(same) == std::vector<std::int64_t>{5, 3, 7, 9, 127, -93});
    // Fuses into its consumer: a quantized ReLU (max with quantize(0)) on the same pass.
    tensor<R, 3, 2> zero;
    for (auto& e : zero)
        e.stored = 0;
    tensor<R, 3, 2> relu = max(batch_norm_inference<1, R>(x, sc, off, mean, var, 0.5f), zero);
    CHECK(stored(relu) == std::vector<std::int64_t>{0, 0, 1, 2, 48, 0});
}

TEST_CASE("batch_norm_training: quantized output, batch_mean and batch_var of their own types") {
    // x [4, 2], feature 1; per feature the values are mean -+ 0.5: var = 0.25, + epsilon 0.75 = 1.
    tensor<X, 4, 2> x;
    set_stored(x, {3 + 2 /*0.5*/, 3 - 10 /*-2.5*/, 3 + 6 /*1.5*/, 3 - 6 /*-1.5*/, 3 + 2, 3 - 10, 3 + 6, 3 - 6});
    using V = q<std::int8_t, scale(0.5), 0>;
    tensor<V, 2> sc, off;
    set_stored(sc, {2 /*1*/, 6 /*3*/});
    set_stored(off, {0, 1 /*0.5*/});
    using RY = q<std::int8_t, scale(0.25), 0>;
    using RM = q<std::int8_t, scale(0.125), 1>;
    using RV = q<std::int8_t, scale(0.0625), -2>;
    auto [y, m, v] = batch_norm_training<1, RY, RM, RV>(x, sc, off, 0.75f);
    static_assert(std::is_same_v<decltype(y), tensor<RY, 4, 2>> && std::is_same_v<decltype(m), tensor<RM, 2>> &&
                  std::is_same_v<decltype(v), tensor<RV, 2>>);
    // mean: 1 -> 8 + 1, -2 -> -16 + 1; var 0.25 -> 4 - 2 (both features)
    CHECK(stored(m) == std::vector<std::int64_t>{9, -15});
    CHECK(stored(v) == std::vector<std::int64_t>{2, 2});
    // y: f0 (x - 1) * 1 + 0 = -0.5, 0.5;  f1 (x + 2) * 3 + 0.5 = -1, 2   (in quarters)
    CHECK(stored(y) == std::vector<std::int64_t>{-2, -4, 2, 8, -2, -4, 2, 8});
    // one type for all three by default
    auto [y1, m1, v1] = batch_norm_training<1>(x, sc, off, 0.75f);
    static_assert(std::is_same_v<decltype(m1), tensor<X, 2>>);
    CHECK(stored(m1) == std::vector<std::int64_t>{7, -5});
    CHECK(stored(v1) == std::vector<std::int64_t>{4, 4});
    CHECK(stored(y1) == std::vector<std::int64_t>{1, -1, 5, 11, 1, -1, 5, 11});
}

TEST_CASE("batch_norm_grad: the spec's formulas on the dequantized operands") {
    // x [4, 1] = mean -+ 0.5 (mean 1), var + epsilon = 1, scale 1, grad_output (1, 0, 0, 0):
    //   d = 1/4, c = sum(gy (x - mean)) / 4 / 1 = -1/8
    //   gx = gy - d - c (x - mean) = 0.6875, -0.1875, -0.3125, -0.1875
    //   grad_scale = sum(gy (x - mean)) = -0.5, grad_offset = sum(gy) = 1
    tensor<X, 4, 1> x, gy;
    set_stored(x, {3 + 2, 3 + 6, 3 + 2, 3 + 6});
    set_stored(gy, {3 + 4, 3, 3, 3});
    tensor<X, 1> sc, mean, var;
    set_stored(sc, {3 + 4});
    set_stored(mean, {3 + 4});
    set_stored(var, {3 + 1 /*0.25*/});
    using RX = q<std::int8_t, scale(0.0625), 0>;
    using RS = q<std::int8_t, scale(0.5), 0>;
    using RO = q<std::int8_t, scale(1.0), 10>;
    auto [gx, gs, go] = batch_norm_grad<1, RX, RS, RO>(x, sc, mean, var, gy, 0.75f);
    CHECK(stored(gx) == std::vector<std::int64_t>{11, -3, -5, -3});
    CHECK(stored(gs) == std::vector<std::int64_t>{-1});
    CHECK(stored(go) == std::vector<std::int64_t>{11});
}

TEST_CASE("cholesky and triangular_solve on quantized matrices") {
    using A = q<std::int8_t, scale(0.5), 0>;
    using L = q<std::int8_t, scale(0.25), 5>;
    // a = [[4, 2], [2, 5]] -> l = [[2, 0], [1, 2]]; the zero triangle is quantize(0) = 5
    tensor<A, 2, 2> a;
    set_stored(a, {8, 4, 4, 10});
    auto l = cholesky<true, L>(a);
    static_assert(std::is_same_v<decltype(l), tensor<L, 2, 2>>);
    CHECK(stored(l) == std::vector<std::int64_t>{13, 5, 9, 13});
    // upper: u = [[2, 1], [0, 2]], in a's type by default
    CHECK(stored(cholesky<false>(a)) == std::vector<std::int64_t>{4, 2, 0, 4});
    // not positive definite: NaN, which quantizes to stored 0, in that matrix of the batch only
    tensor<A, 2, 2, 2> ab;
    set_stored(ab, {8, 4, 4, 10, -2, 0, 0, 2});
    CHECK(stored(cholesky<true, L>(ab)) == std::vector<std::int64_t>{13, 5, 9, 13, 0, 0, 0, 0});
    // bf16 expressed type: computed in f32, rounded to bf16, quantized
    using AB = q<std::int8_t, scale(0.5), 0, bfloat16>;
    tensor<AB, 2, 2> a16;
    set_stored(a16, {8, 4, 4, 10});
    CHECK(stored(cholesky<true>(a16)) == std::vector<std::int64_t>{4, 0, 2, 4});

    // l x = b: [[2, 0], [1, 4]] x = [2, 5] -> x = [1, 1]; b and x in other types of the baseline
    using B = q<std::int8_t, scale(0.25), -3>;
    using Xr = q<std::int8_t, scale(0.125), 0>;
    tensor<A, 2, 2> la;
    set_stored(la, {4, 100 /* not read */, 2, 8});
    tensor<B, 2, 1> b;
    set_stored(b, {8 - 3, 20 - 3});
    auto x = triangular_solve<true, true, false, transpose_type::no_transpose, Xr>(la, b);
    static_assert(std::is_same_v<decltype(x), tensor<Xr, 2, 1>>);
    CHECK(stored(x) == std::vector<std::int64_t>{8, 8});
    // x^T l^T = b^T (right side, transposed): the same solution; the default result type is b's
    tensor<B, 1, 2> bt;
    set_stored(bt, {8 - 3, 20 - 3});
    CHECK(stored(triangular_solve<false, true, false, transpose_type::transpose>(la, bt)) ==
          std::vector<std::int64_t>{4 - 3, 4 - 3});
}

TEST_CASE("the trace shows one op on the quantized types") {
    using A = q<std::int8_t, scale(0.5), 0>;
    tensor<A, 2, 2> a;
    set_stored(a, {8, 4, 4, 10});
    const std::string t = to_stablehlo([](const tensor<A, 2, 2>& m) { return cholesky<true>(m); }, a);
    CHECK(has(t, "stablehlo.cholesky"));
    CHECK(has(t, "!quant.uniform<i8:f32, 5.000000e-01>"));
    CHECK(!has(t, "uniform_dequantize"));
}

} // namespace
