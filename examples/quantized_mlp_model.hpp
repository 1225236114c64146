// The MLP of examples/mlp_model.hpp with int8 weights and activations, written once so that
// examples/quantized_mlp.cpp and bench/quant_bench.cpp run the same code:
//   x f32[B,784] -quantize-> s8 per tensor
//   dot with w1 (s8, one scale per output column) -> i32 per axis (scale sx * sw1_j: exact sums)
//   dequantize + bias + relu, quantized to s8 per tensor (zero point -128: relu is >= 0), one pass
//   dot with w2 -> i32 per axis; dequantize + bias -> f32 logits -> softmax cross-entropy.
// The scales are part of the types, as in StableHLO: here they come from the weights' known range
// (a model quantized after training would carry the ones its calibration chose): the weights of
// column j lie in [-amp(j), amp(j)), x in [-1, 1), the relu output in [0, 4].
#pragma once
#include <bit>
#include <cstdint>
#include <limits>

#include "mlp_model.hpp"

namespace qmlp {

using namespace xlet;

inline constexpr std::size_t In = 784, Hid = 512, Out = 10;

// A different range per output column, which is what per-axis scales are for.
constexpr double amp(double base, std::size_t j) { return base * (0.5 + static_cast<double>(j % 8) / 8.0); }

template<std::size_t N>
consteval quant::scales_t<N> column_scales(double base, double in_scale) {
    quant::scales_t<N> s{};
    for (std::size_t j = 0; j < N; ++j)
        s.bits[j] = std::bit_cast<std::uint64_t>(amp(base, j) / 127.0 * in_scale);
    return s;
}
template<std::size_t N>
consteval quant::zero_points_t<N> zeros() {
    return {};
}

inline constexpr double w1_base = 0.05, w2_base = 0.05;
inline constexpr double sx = 1.0 / 127.0; // x in [-1, 1)
inline constexpr double sh = 4.0 / 255.0; // relu output in [0, 4]

using QX = quant::uniform<std::int8_t, float, quant::scale(sx), 0>;
using QH = quant::uniform<std::int8_t, float, quant::scale(sh), -128>;
using QW1 = quant::uniform_per_axis<std::int8_t, float, 1, column_scales<Hid>(w1_base, 1.0), zeros<Hid>()>;
using QW2 = quant::uniform_per_axis<std::int8_t, float, 1, column_scales<Out>(w2_base, 1.0), zeros<Out>()>;
// The dot products' i32 results: scale = lhs scale * weight scale, so the sums are kept exactly.
using QA1 = quant::uniform_per_axis<std::int32_t, float, 1, column_scales<Hid>(w1_base, sx), zeros<Hid>()>;
using QA2 = quant::uniform_per_axis<std::int32_t, float, 1, column_scales<Out>(w2_base, sh), zeros<Out>()>;

struct params {
    tensor<QW1, In, Hid> w1;
    f32<Hid> b1;
    tensor<QW2, Hid, Out> w2;
    f32<Out> b2;
};

inline float pseudo(std::size_t i, unsigned seed) { // deterministic values in [-1, 1)
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ (seed * 0x85EBCA77u + 0x165667B1u);
    x ^= x >> 15, x *= 0x2C1B3C6Du, x ^= x >> 12, x *= 0x297A2D39u, x ^= x >> 15;
    return static_cast<float>(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

// The f32 model and its int8 form (the weights quantized once, as a deployed model stores them),
// a batch and its labels. Large: allocate it (std::make_unique).
template<std::size_t B>
struct model {
    mlp::params<B> p;
    params q;
    f32<B, In> x;
    s32<B> labels;
    model() {
        for (std::size_t i = 0; i < In; ++i)
            for (std::size_t j = 0; j < Hid; ++j)
                p.w1(i, j) = static_cast<float>(amp(w1_base, j)) * pseudo(i * Hid + j, 1);
        for (std::size_t i = 0; i < Hid; ++i)
            for (std::size_t j = 0; j < Out; ++j)
                p.w2(i, j) = static_cast<float>(amp(w2_base, j)) * pseudo(i * Out + j, 3);
        for (std::size_t i = 0; i < Hid; ++i)
            p.b1(i) = 0.1f * pseudo(i, 2);
        for (std::size_t i = 0; i < Out; ++i)
            p.b2(i) = 0.1f * pseudo(i, 4);
        for (std::size_t i = 0; i < B * In; ++i)
            x.data()[i] = pseudo(i, 5);
        for (std::size_t i = 0; i < B; ++i)
            labels(i) = static_cast<std::int32_t>(i % 10);
        q.w1 = uniform_quantize<QW1>(p.w1);
        q.w2 = uniform_quantize<QW2>(p.w2);
        q.b1 = p.b1;
        q.b2 = p.b2;
    }
};

// The same loss as mlp::loss, on the int8 path.
template<std::size_t B>
float loss(const params& p, const f32<B, In>& x, const s32<B>& labels) {
    auto xq = eval(uniform_quantize<QX>(x));
    auto a1 = eval(dot<QA1>(xq, p.w1));
    auto hq = eval(uniform_quantize<QH>(max(add(uniform_dequantize(a1), p.b1, dims<1>), 0.0f)));
    auto a2 = eval(dot<QA2>(hq, p.w2));
    auto z = eval(add(uniform_dequantize(a2), p.b2, dims<1>));
    auto m = eval(reduce(z, -std::numeric_limits<float>::infinity(), max_fn{}, dims<1>));
    auto lse = eval(log(reduce(exp(sub(z, m, dims<0>)), 0.0f, add_fn{}, dims<1>)) + m);
    auto onehot = eq(iota<s32<B, Out>, 1>(), labels, dims<0>);
    auto picked = reduce(select(onehot, z, 0.0f), 0.0f, add_fn{}, dims<1>);
    return eval(reduce(lse - picked, 0.0f, add_fn{}, dims<0>))() / static_cast<float>(B);
}

} // namespace qmlp
