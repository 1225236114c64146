// Quantized programs for the quantization passes' tests (issue #26). quant_pass_gen.cpp exports
// each with xlet::to_stablehlo; xlet-translate runs its module passes on that text
// (--stablehlo-legalize-quant-to-math, and --stablehlo-legalize-quantized-op-to-qdq before it) and
// translates the result to C++ (namespaces qm_<case>, qq_<case>); quant_passes_test.cpp runs those
// beside the program itself and beside passes::apply<...> of it on the same stored integers.
// A case: `args` (a tuple of argument types), a static `f` returning an expression or a tuple of
// them, and `direct`: how the direct ops' results compare with the module pass's: the same bits
// (exact), within 1 of each stored integer (within_one: requantization, or add of operands with
// other parameters than the result's, where the pass rounds twice; docs/semantics.md), or not
// compared (none: an i32 sum the direct op computes in f32).
#pragma once
#include <cstdint>
#include <tuple>

#include <xlet/xlet.hpp>

namespace quant_pass_cases {
using namespace xlet;

enum class direct { exact, within_one, none };
using quant::scale;
using quant::scales;
using quant::zero_points;

using QA = quant::uniform<std::int8_t, float, scale(0.5), -3>;
using QB = quant::uniform<std::int8_t, float, scale(0.25), 1>;
using QN = quant::uniform<std::int8_t, float, scale(0.5), -3, -127, 127>; // QA's parameters, storage -127:127
using U34 = quant::uniform<std::uint8_t, float, scale(34.0), 16>;
using U2 = quant::uniform<std::uint8_t, float, scale(2.0), 255>;
using S1 = quant::uniform<std::int8_t, float, scale(1.0), 0>;
using S2 = quant::uniform<std::int8_t, float, scale(2.0), 1>;
using S3 = quant::uniform<std::int8_t, float, scale(3.0), 2>;
using I16 = quant::uniform<std::int16_t, float, scale(0.001), -300>;
using PA = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25, 1.0), zero_points(0, 3, -4)>;
using PR = quant::uniform_per_axis<std::int8_t, float, 1, scales(1.0, 0.5, 2.0), zero_points(1, 0, 0)>;
using P32 = quant::uniform_per_axis<std::int32_t, float, 0, scales(0.5, 0.125), zero_points(7, 0)>;

// The seed's qdq example: abs of u8 34.0:16 (dequantize, abs, quantize in the spec's form).
struct seed_abs {
    static constexpr direct compare = direct::exact;
    using args = std::tuple<tensor<U34, 16, 16>>;
    static auto f(const tensor<U34, 16, 16>& x) { return abs(x); }
};

// The seed's add: scales 1, 2 -> 3, zero points 0, 1 -> 2 (the pass requantizes each operand).
struct seed_add {
    static constexpr direct compare = direct::within_one;
    using args = std::tuple<tensor<S1, 7>, tensor<S2, 7>>;
    static auto f(const tensor<S1, 7>& a, const tensor<S2, 7>& b) { return add<S3>(a, b); }
};

// add of one type (the integer path of the direct op and of the pass), of u8 with its zero point
// at the top, a narrower storage range, a row broadcast along dimension 1, and of i16.
struct add_one_type {
    static constexpr direct compare = direct::exact;
    using args = std::tuple<tensor<QA, 4, 37>, tensor<QA, 4, 37>, tensor<U2, 70>, tensor<QN, 37>, tensor<I16, 33>>;
    static auto f(const tensor<QA, 4, 37>& a, const tensor<QA, 4, 37>& b, const tensor<U2, 70>& u,
                  const tensor<QN, 37>& n, const tensor<I16, 33>& w) {
        return std::make_tuple(add(a, b), add(u, u), add<QA>(a, n, dims<1>), add(w, w));
    }
};

// Element-wise ops through dequantize / op / quantize, and the ops kept on the integers (max, min
// and select of one type), a comparison, clamp with scalar bounds, requantization.
struct elementwise {
    static constexpr direct compare = direct::within_one; // (the requantization)
    using args = std::tuple<tensor<QA, 5, 9>, tensor<QA, 5, 9>, tensor<QB, 5, 9>>;
    static auto f(const tensor<QA, 5, 9>& a, const tensor<QA, 5, 9>& b, const tensor<QB, 5, 9>& c) {
        return std::make_tuple(sub(a, b), mul<QB>(a, c), max(a, b), min<QB>(a, c), select(a < b, a, b), eq(a, c),
                               clamp(tensor<QA>{-5}, a, tensor<QA>{9}), exp(a), tanh(c), uniform_quantize<QB>(a));
    }
};

// Float to quantized and back, per tensor and per axis (dimension 1); data movement of quantized
// arrays between ops (transpose, reshape, broadcast_in_dim, slice).
struct quantize_layout {
    static constexpr direct compare = direct::exact;
    using args = std::tuple<f32<4, 3>, tensor<PA, 4, 3>, tensor<QA, 3, 4>>;
    static auto f(const f32<4, 3>& x, const tensor<PA, 4, 3>& p, const tensor<QA, 3, 4>& q) {
        // (no named expression: the result must not refer to locals)
        auto r = [&] { return reshape(slice(q, sizes<0, 0>, sizes<3, 4>, sizes<1, 2>), sizes<6>); };
        return std::make_tuple(uniform_quantize<PA>(x * 20.0f), uniform_dequantize(p), uniform_quantize<QA>(x),
                               abs(transpose(q, dims<1, 0>)), add(r(), r()),
                               broadcast_in_dim(uniform_dequantize(r()), sizes<2, 6>, dims<1>));
    }
};

// Per-axis add: per-axis and per-tensor operands into a per-axis result (dequantize, add,
// quantize).
struct per_axis_add {
    static constexpr direct compare = direct::exact;
    using args = std::tuple<tensor<PA, 4, 3>, tensor<QA, 4, 3>>;
    static auto f(const tensor<PA, 4, 3>& p, const tensor<QA, 4, 3>& q) { return add<PR>(p, q); }
};

// add of one per-axis type with i32 storage: the pass's integer sum; the direct op computes it in
// f32 (not exact for large stored integers).
struct per_axis_i32_add {
    static constexpr direct compare = direct::none;
    using args = std::tuple<tensor<P32, 2, 5>>;
    static auto f(const tensor<P32, 2, 5>& w) { return add(w, w); }
};

// clang-format off
#define XLET_QUANT_PASS_CASES(X) \
  X(seed_abs) \
  X(seed_add) \
  X(add_one_type) \
  X(elementwise) \
  X(quantize_layout) \
  X(per_axis_add) \
  X(per_axis_i32_add)
// clang-format on

} // namespace quant_pass_cases
