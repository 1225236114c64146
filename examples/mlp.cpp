// An MLP forward pass with softmax cross-entropy, and single-head attention, in plain xlet:
// dot, add with broadcast_dimensions, max (relu), reduce, exp, log, iota == label one-hot.
// bench/mlp_bench.cpp times the same code beside Eigen and OpenBLAS.
#include <cmath>
#include <cstdio>
#include <memory>

#include "mlp_model.hpp"

using namespace xlet;

namespace {
float pseudo(std::size_t i, unsigned seed) { // deterministic values in [-1, 1)
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ (seed * 0x85EBCA77u + 0x165667B1u);
    x ^= x >> 15, x *= 0x2C1B3C6Du, x ^= x >> 12, x *= 0x297A2D39u, x ^= x >> 15;
    return static_cast<float>(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}
template<class T> void fill(T& t, unsigned seed, float scale) {
    for (std::size_t i = 0; i < product(T::extents); ++i) t.data()[i] = scale * pseudo(i, seed);
}
} // namespace

int main() {
    constexpr std::size_t B = 256;
    auto p = std::make_unique<mlp::params<B>>(); // 1.6 MB of weights: on the heap
    auto x = std::make_unique<f32<B, 784>>();
    s32<B> labels;
    fill(p->w1, 1, 0.05f), fill(p->b1, 2, 0.1f), fill(p->w2, 3, 0.05f), fill(p->b2, 4, 0.1f), fill(*x, 5, 1.0f);
    for (std::size_t i = 0; i < B; ++i) labels(i) = static_cast<std::int32_t>(i % 10);
    const float l = mlp::loss(*p, *x, labels);
    std::printf("mlp: batch %zu, 784 -> 512 (relu) -> 10, softmax cross-entropy = %.6f\n", B, static_cast<double>(l));

    auto q = std::make_unique<f32<512, 64>>(), k = std::make_unique<f32<512, 64>>(), v = std::make_unique<f32<512, 64>>();
    fill(*q, 6, 1.0f), fill(*k, 7, 1.0f), fill(*v, 8, 1.0f);
    auto o = attention::forward(*q, *k, *v);
    double checksum = 0;
    for (std::size_t i = 0; i < 512 * 64; ++i) checksum += o.data()[i];
    std::printf("attention: softmax(q kT / 8) v on [512, 64], sum of the output = %.6f\n", checksum);
    return std::isfinite(l) && std::isfinite(checksum) ? 0 : 1;
}
