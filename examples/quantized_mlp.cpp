// The MLP of examples/mlp.cpp with int8 weights and activations (quantized_mlp_model.hpp), beside
// the f32 one: the same weights, the same batch, the loss of both and the time of each forward pass.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "quantized_mlp_model.hpp"

using namespace xlet;

namespace {

constexpr std::size_t B = 256;

template<class F>
double median_ms(F&& f) {
    std::vector<double> t;
    for (int r = 0; r < 21; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(t.begin(), t.begin() + 10, t.end());
    return t[10];
}

} // namespace

int main() {
    const auto d = std::make_unique<qmlp::model<B>>();
    const auto& p = d->p;
    const auto& q = d->q;
    const auto& x = d->x;
    const auto& labels = d->labels;

    const float lf = mlp::loss(p, x, labels);
    const float lq = qmlp::loss(q, x, labels);
    const double tf = median_ms([&] { (void)mlp::loss(p, x, labels); });
    const double tq = median_ms([&] { (void)qmlp::loss(q, x, labels); });
    std::printf("mlp %zu x %zu -> %zu (relu) -> %zu, softmax cross-entropy\n", B, qmlp::In, qmlp::Hid, qmlp::Out);
    std::printf("  f32 : loss %.6f  %.3f ms\n", static_cast<double>(lf), tf);
    std::printf("  int8: loss %.6f  %.3f ms  (loss difference %.2e, %.2fx the f32 speed)\n", static_cast<double>(lq),
                tq, std::abs(static_cast<double>(lq - lf)), tf / tq);
    return std::isfinite(lq) && std::abs(lq - lf) < 0.05f ? 0 : 1;
}
