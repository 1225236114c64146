// Data-parallel training of a linear least-squares model: each replica computes the gradient on its
// shard of the batch, all_reduce sums the gradients, every replica applies the same update. With
// one replica it is plain full-batch gradient descent, so the two runs can be compared
// (tests/distributed/collectives_test.cpp).
#pragma once
#include <xlet/xlet.hpp>

namespace data_parallel {

constexpr std::size_t batch = 256, features = 8;

// The weights after `steps` of gradient descent on (x, y) with R replicas (R divides the batch).
template<std::size_t R>
xlet::f32<features> train(const xlet::f32<batch, features>& x, const xlet::f32<batch>& y, int steps, float lr) {
    using namespace xlet;
    constexpr std::size_t shard = batch / R;
    replica_pool pool(R);
    auto weights = pool.run([&](replica_context& ctx) {
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
    });
    return weights[0];
}

} // namespace data_parallel
