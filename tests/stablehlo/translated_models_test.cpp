// A JAX-style export with a symbolic batch size (examples/stablehlo/mlp_loss.mlir), refined by
// xlet-translate to batches of 8 and 33 and translated to C++, against the same program written by
// hand with xlet (examples/mlp_model.hpp): the same ops in the same order, so the same bits.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstring>
#include <memory>

#include "collectives.hpp"
#include "examples/mlp_model.hpp"
#include "mlp_loss_b33.hpp"
#include "mlp_loss_b8.hpp"

namespace {
template<class T>
void fill(T& t, std::uint32_t seed, float scale) {
    std::uint32_t s = seed * 2654435761u + 1;
    for (auto& v : t) {
        s = s * 1664525u + 1013904223u;
        v = scale * (static_cast<float>(s >> 8) / 8388608.0f - 1.0f);
    }
}

template<std::size_t B, class F>
void check_batch(F translated) {
    auto p = std::make_unique<mlp::params<B>>();
    auto x = std::make_unique<xlet::f32<B, 784>>();
    fill(p->w1, 1, 0.05f), fill(p->b1, 2, 0.1f), fill(p->w2, 3, 0.05f), fill(p->b2, 4, 0.1f), fill(*x, 5, 1.0f);
    xlet::s32<B> labels;
    for (std::size_t i = 0; i < B; ++i)
        labels(i) = static_cast<std::int32_t>((i * 7) % 10);
    float hand = mlp::loss(*p, *x, labels);
    xlet::f32<> t = translated(*x, p->w1, p->b1, p->w2, p->b2, labels);
    CAPTURE(hand);
    CAPTURE(t());
    CHECK(hand > 1.0f);
    CHECK(std::memcmp(&hand, t.data(), sizeof(float)) == 0);
}
} // namespace

TEST_CASE("the symbolic-batch MLP refined to B = 8 and B = 33 equals the hand-written one bit for bit") {
    check_batch<8>([](const auto&... a) { return mlp_b8::main(a...); });
    check_batch<33>([](const auto&... a) { return mlp_b33::main(a...); });
}

TEST_CASE("infeed and outfeed: the translated module's host queues") {
    using namespace xlet;
    collectives::infeed_queue().push(s32<2>{1, 2});
    collectives::infeed_queue().push(std::tuple{s32<2>{10, 20}, s32<>(7)});
    auto [sum, seven, t] = collectives::feeds(after_all());
    (void)t;
    CHECK(equal(sum, s32<2>{11, 22}));
    auto [o0, o1] = collectives::outfeed_queue().pop<std::tuple<s32<2>, s32<>>>();
    CHECK(equal(o0, s32<2>{11, 22}));
    CHECK(o1.data()[0] == 7);
    CHECK(seven.data()[0] == 7);
    CHECK(equal(collectives::outfeed_queue().pop<s32<2>>(), s32<2>{1, 2}));
    CHECK(!collectives::outfeed_queue().try_pop<s32<2>>());
    // An item of the wrong type is an error naming both, and stays in the queue.
    collectives::infeed_queue().push(f32<2>{1, 2});
    CHECK_THROWS_WITH(collectives::feeds(after_all()), doctest::Contains("infeed"));
}
