// The MLP of examples/mlp.cpp, written once so that the example and bench/mlp_bench.cpp run the
// same code: x f32[B,784] -> dense 512 + relu -> dense 10 -> softmax cross-entropy against
// integer labels (one-hot by iota == label, as a JAX program lowers it).
#pragma once
#include <limits>

#include <xlet/xlet.hpp>

namespace mlp {

using namespace xlet;

template<std::size_t B, std::size_t In = 784, std::size_t Hid = 512, std::size_t Out = 10>
struct params {
    f32<In, Hid> w1;
    f32<Hid> b1;
    f32<Hid, Out> w2;
    f32<Out> b2;
};

// Mean softmax cross-entropy of the batch, written as a user would: every intermediate a fresh
// `auto ... = eval(...)`.
template<std::size_t B, std::size_t In, std::size_t Hid, std::size_t Out>
float loss(const params<B, In, Hid, Out>& p, const f32<B, In>& x, const s32<B>& labels) {
    auto h = eval(max(add(dot(x, p.w1), p.b1, dims<1>), 0.0f));              // dense + relu
    auto z = eval(add(dot(h, p.w2), p.b2, dims<1>));                         // logits [B, Out]
    auto m = eval(reduce(z, -std::numeric_limits<float>::infinity(), max_fn{}, dims<1>));
    auto lse = eval(log(reduce(exp(sub(z, m, dims<0>)), 0.0f, add_fn{}, dims<1>)) + m);
    auto onehot = eq(iota<s32<B, Out>, 1>(), labels, dims<0>);
    auto picked = reduce(select(onehot, z, 0.0f), 0.0f, add_fn{}, dims<1>);   // z[i, label_i]
    return eval(reduce(lse - picked, 0.0f, add_fn{}, dims<0>))() / static_cast<float>(B);
}

} // namespace mlp

namespace attention {

using namespace xlet;

// Single-head attention softmax(q kᵀ / sqrt(d)) v, rows of q attending to rows of k.
template<std::size_t N, std::size_t D>
f32<N, D> forward(const f32<N, D>& q, const f32<N, D>& k, const f32<N, D>& v) {
    constexpr float scale = D == 64 ? 0.125f : 1.0f / static_cast<float>(__builtin_sqrt(static_cast<double>(D)));
    auto s = eval(dot_general<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}>(q, k) * scale);
    auto m = eval(reduce(s, -std::numeric_limits<float>::infinity(), max_fn{}, dims<1>));
    auto e = eval(exp(sub(s, m, dims<0>)));
    auto sum = eval(reduce(e, 0.0f, add_fn{}, dims<1>));
    return div(dot(e, v), sum, dims<0>);
}

} // namespace attention
