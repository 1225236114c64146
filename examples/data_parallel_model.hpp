// Data-parallel training of a linear least-squares model: each replica computes the gradient on its
// shard of the batch, all_reduce sums the gradients, every replica applies the same update. With
// one replica it is plain full-batch gradient descent, so the two runs can be compared
// (tests/distributed/collectives_test.cpp).
#pragma once
#include <cmath>
#include <cstdint>

#include <xlet/xlet.hpp>

namespace data_parallel {

constexpr std::size_t batch = 256, features = 8;
inline constexpr float truth[features] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f, 0.0f, -2.0f};

// A least-squares problem: inputs in [-1, 1) (a hash of the index), targets x·truth plus small noise.
inline void make_problem(xlet::f32<batch, features>& x, xlet::f32<batch>& y) {
    for (std::size_t i = 0; i < batch; ++i) {
        float t = 0;
        for (std::size_t j = 0; j < features; ++j) {
            std::uint32_t h = static_cast<std::uint32_t>(i * features + j) * 0x9E3779B1u;
            h ^= h >> 15, h *= 0x2C1B3C6Du, h ^= h >> 12;
            x(i, j) = static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
            t += truth[j] * x(i, j);
        }
        y(i) = t + 0.01f * std::cos(static_cast<float>(i));
    }
}

// The SPMD program of R replicas (R divides the batch): `steps` of gradient descent on (x, y); each
// replica returns the weights. Any pool runs it: replica_pool, or mpi_pool (data_parallel --mpi).
template<std::size_t R>
auto trainer(const xlet::f32<batch, features>& x, const xlet::f32<batch>& y, int steps, float lr) {
    using namespace xlet;
    constexpr std::size_t shard = batch / R;
    return [&x, &y, steps, lr](replica_context& ctx) {
        const std::size_t r = ctx.replica_id();
        const tensor_map<const float, shard, features> xs(x.data() + r * shard * features);
        const tensor_map<const float, shard> ys(y.data() + r * shard);
        f32<features> w{};
        for (int s = 0; s < steps; ++s) {
            const f32<shard> err = dot(xs, w) - ys;
            // This shard's part of X^T (X w - y), summed over the replicas in replica order.
            const f32<features> g = dot_general<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}>(xs, err);
            const f32<features> total = all_reduce(ctx, g, add_fn{});
            w = w - (lr / static_cast<float>(batch)) * total;
        }
        return w;
    };
}

// The weights after `steps` with R replicas of an in-process pool.
template<std::size_t R>
xlet::f32<features> train(const xlet::f32<batch, features>& x, const xlet::f32<batch>& y, int steps, float lr) {
    xlet::replica_pool pool(R);
    return pool.run(trainer<R>(x, y, steps, lr))[0];
}

} // namespace data_parallel
