// Data movement of quantized arrays (include/xlet/ops/layout/, issue #26): every layout op moves
// the stored integers untouched (checked on i32 storage, where a dequantize / quantize round trip
// would not be exact, against the same op on an s32 array of the same bits), on the fused SIMD
// path, the transpose kernel and the tiled path; and per-axis types follow their quantization
// dimension: dequantize(op(q)) == op(dequantize(q)) for transpose, broadcast, broadcast_in_dim
// (a size-1 quantization dimension too) and reshape.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "quant_common.hpp"

namespace {

using quant::scale;
using quant::scales;
using quant::zero_points;

using Q = quant::uniform<std::int32_t, float, scale(1e-6), -7>;
using Q8 = quant::uniform<std::int8_t, float, scale(0.5), 3>;

// An i32-storage array of arbitrary bits and the s32 array of the same integers.
template<std::size_t... D>
std::pair<tensor<Q, D...>, s32<D...>> random_pair(std::uint32_t seed) {
    const auto q = qt::random_stored<Q, tensor<Q, D...>>(seed);
    s32<D...> s;
    for (std::size_t i = 0; i < q.size(); ++i)
        s.data()[i] = q.data()[i].stored;
    return {q, s};
}
template<class QA, class SA>
bool same_integers(const QA& q, const SA& s) {
    static_assert(QA::extents == SA::extents);
    for (std::size_t i = 0; i < q.size(); ++i)
        if (static_cast<std::int64_t>(q.data()[i].stored) != static_cast<std::int64_t>(s.data()[i])) return false;
    return true;
}

} // namespace

TEST_CASE("data movement keeps the stored integers: i32 storage") {
    auto [q, s] = random_pair<4, 6>(1);
    CHECK(same_integers(eval(transpose(q, dims<1, 0>)), eval(transpose(s, dims<1, 0>))));
    CHECK(same_integers(eval(reshape(q, sizes<3, 8>)), eval(reshape(s, sizes<3, 8>))));
    CHECK(same_integers(eval(reshape(transpose(q, dims<1, 0>), sizes<2, 12>)),
                        eval(reshape(transpose(s, dims<1, 0>), sizes<2, 12>))));
    CHECK(same_integers(eval(collapse(q, dims<0, 1>)), eval(collapse(s, dims<0, 1>))));
    CHECK(same_integers(eval(slice(q, dims<1, 0>, dims<4, 6>, dims<2, 3>)),
                        eval(slice(s, dims<1, 0>, dims<4, 6>, dims<2, 3>))));
    CHECK(same_integers(eval(rev(q, dims<0, 1>)), eval(rev(s, dims<0, 1>))));
    CHECK(same_integers(eval(broadcast(q, sizes<3>)), eval(broadcast(s, sizes<3>))));
    CHECK(same_integers(eval(broadcast_in_dim(q, sizes<4, 5, 6>, dims<0, 2>)),
                        eval(broadcast_in_dim(s, sizes<4, 5, 6>, dims<0, 2>))));
    CHECK(same_integers(eval(concatenate<1>(q, rev(q, dims<1>))), eval(concatenate<1>(s, rev(s, dims<1>)))));
    CHECK(same_integers(eval(concatenate<0>(q, q, q)), eval(concatenate<0>(s, s, s))));
    const Q pv{-2147483647 - 1};
    CHECK(same_integers(eval(pad(q, pv, dims<1, -1>, dims<2, 0>, dims<1, 1>)),
                        eval(pad(s, std::int32_t{-2147483647 - 1}, dims<1, -1>, dims<2, 0>, dims<1, 1>))));
    CHECK(same_integers(dynamic_slice(q, sizes<2, 3>, 3, -1), dynamic_slice(s, sizes<2, 3>, 3, -1)));
    auto [u, us] = random_pair<2, 2>(2);
    CHECK(same_integers(dynamic_update_slice(q, u, 1, 5), dynamic_update_slice(s, us, 1, 5)));
    s32<3, 1> idx{{3}, {0}, {3}};
    constexpr gather_dims G{.offset_dims = {1},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 1,
                            .slice_sizes = {1, 6}};
    CHECK(same_integers(gather<G>(q, idx), gather<G>(s, idx)));
    CHECK(same_integers(eval(copy(q)), s));
    // bitcast_convert_type: quantized <-> its storage type, bits unchanged (spec: storage_type)
    CHECK(same_integers(q, eval(bitcast_convert_type<std::int32_t>(q))));
    tensor<Q, 4, 6> back = bitcast_convert_type<Q>(s);
    CHECK(equal(back, q));
    // a tensor_map over the same memory, and assignment through one
    tensor_map<const Q, 24> m(q.data());
    CHECK(same_integers(eval(reshape(m, sizes<6, 4>)), eval(reshape(s, sizes<6, 4>))));
    tensor<Q, 24> dst;
    tensor_map<Q, 24> md(dst.data());
    md = reshape(q, sizes<24>);
    CHECK(same_integers(dst, eval(reshape(s, sizes<24>))));
    // in place: a = rev(a) goes through a temporary, as for any array
    auto q2 = q;
    q2 = rev(q2, dims<1>);
    CHECK(same_integers(q2, eval(rev(s, dims<1>))));
}

TEST_CASE("data movement keeps the stored integers: the transpose kernel, tiles, tails, threads") {
    // A pure transposing copy runs the cache-blocked transpose kernel (4-byte and 1-byte elements).
    auto [q, s] = random_pair<96, 80>(3);
    CHECK(same_integers(eval(transpose(q, dims<1, 0>)), eval(transpose(s, dims<1, 0>))));
    const auto b = qt::random_stored<Q8, tensor<Q8, 130, 70>>(4);
    tensor<Q8, 70, 130> bt = transpose(b, dims<1, 0>);
    bool ok = true;
    for (std::size_t i = 0; i < 130; ++i)
        for (std::size_t j = 0; j < 70; ++j)
            ok = ok && bt(j, i) == b(i, j);
    CHECK(ok);
    // A transposed operand inside an element-wise tree runs in tiles; requantizing to the same
    // type (i8, f32: exact) through the fused pass gives the transposed integers.
    tensor<Q8, 70, 130> rt = uniform_quantize<Q8>(uniform_dequantize(transpose(b, dims<1, 0>)));
    CHECK(equal(rt, bt));
    // Large: several TBB tasks, tails of every length.
    auto [l, ls] = random_pair<301, 517>(5);
    CHECK(same_integers(eval(slice(l, dims<1, 3>, dims<300, 517>)), eval(slice(ls, dims<1, 3>, dims<300, 517>))));
    CHECK(same_integers(eval(broadcast_in_dim(slice(l, dims<0, 0>, dims<1, 517>), sizes<7, 517>, dims<0, 1>)),
                        eval(broadcast_in_dim(slice(ls, dims<0, 0>, dims<1, 517>), sizes<7, 517>, dims<0, 1>))));
}

TEST_CASE("per-axis types follow their quantization dimension through layout ops") {
    using P = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25, 2.0), zero_points(1, -3, 0)>;
    const auto p = qt::random_stored<P, tensor<P, 2, 3, 4>>(11);
    const f32<2, 3, 4> d = uniform_dequantize(p);
    // transpose: dimension 1 goes to where the permutation puts it
    auto t = transpose(p, dims<2, 0, 1>);
    static_assert(std::is_same_v<decltype(t)::value_type, detail::with_quant_axis_t<P, 2>>);
    f32<4, 2, 3> dt = uniform_dequantize(t);
    CHECK(equal(dt, eval(transpose(d, dims<2, 0, 1>))));
    tensor<detail::with_quant_axis_t<P, 2>, 4, 2, 3> tt = t; // materialised: the kernel or the loop
    CHECK(equal(f32<4, 2, 3>(uniform_dequantize(tt)), dt));
    // broadcast: new leading dimensions shift it
    auto b = broadcast(p, sizes<5>);
    static_assert(decltype(b)::value_type::axis == 2);
    CHECK(equal(f32<5, 2, 3, 4>(uniform_dequantize(b)), eval(broadcast(d, sizes<5>))));
    // broadcast_in_dim: to broadcast_dimensions[1]
    auto bd = broadcast_in_dim(p, sizes<3, 2, 6, 4>, dims<1, 0, 3>);
    static_assert(decltype(bd)::value_type::axis == 0);
    CHECK(equal(f32<3, 2, 6, 4>(uniform_dequantize(bd)), eval(broadcast_in_dim(d, sizes<3, 2, 6, 4>, dims<1, 0, 3>))));
    // a size-1 quantization dimension broadcast: its one scale and zero point repeated (spec C6)
    using P1 = quant::uniform_per_axis<std::int8_t, float, 0, scales(0.75), zero_points(-2)>;
    const tensor<P1, 1, 3> one{{5, -7, 100}};
    auto rep = broadcast_in_dim(one, sizes<4, 3>, dims<0, 1>);
    using R = decltype(rep)::value_type;
    static_assert(R::axis == 0 && R::axis_size == 4 && R::scales[3] == 0.75 && R::zero_points[2] == -2);
    f32<4, 3> dr = uniform_dequantize(rep);
    CHECK(equal(dr, eval(broadcast_in_dim(f32<1, 3>(uniform_dequantize(one)), sizes<4, 3>, dims<0, 1>))));
    // reshape: the dimension of the same size with as many elements before it
    auto r1 = reshape(p, sizes<2, 3, 2, 2>);
    static_assert(decltype(r1)::value_type::axis == 1);
    CHECK(equal(f32<2, 3, 2, 2>(uniform_dequantize(r1)), eval(reshape(d, sizes<2, 3, 2, 2>))));
    auto r2 = reshape(p, sizes<1, 2, 3, 4>);
    static_assert(decltype(r2)::value_type::axis == 2);
    CHECK(equal(f32<1, 2, 3, 4>(uniform_dequantize(r2)), eval(reshape(d, sizes<1, 2, 3, 4>))));
    auto r3 = reshape<tensor<detail::with_quant_axis_t<P, 2>, 1, 2, 3, 4>>(p);
    CHECK(equal(eval(r3), eval(r2)));
    // per-axis add after a transpose: operands on the same dimension
    tensor<detail::with_quant_axis_t<P, 2>, 4, 2, 3> sum = add(t, t);
    CHECK(equal(sum, tensor<detail::with_quant_axis_t<P, 2>, 4, 2, 3>(
                         uniform_quantize<detail::with_quant_axis_t<P, 2>>(dt + dt))));
}

// A device that receives nothing gets zeros: for a quantized type the real 0, i.e. the zero point
// of its slice (StableHLO collective_permute / collective_broadcast / recv), not the stored 0.
TEST_CASE("collectives: a device that receives nothing gets the zero points") {
    using P = quant::uniform_per_axis<std::int8_t, float, 1, scales(0.5, 0.25, 2.0), zero_points(-3, 0, 5)>;
    replica_pool three(3);
    auto cp = three.run([](replica_context& ctx) {
        const auto id = static_cast<std::int8_t>(ctx.replica_id());
        const tensor<Q8, 2> a{Q8(id), Q8(id + 10)};
        tensor<P, 2, 3> b;
        for (std::size_t i = 0; i < b.size(); ++i)
            b.data()[i] = P(static_cast<std::int8_t>(10 * id + static_cast<std::int8_t>(i)));
        return std::tuple{eval(collective_permute(ctx, a, {{0, 1}, {1, 2}})),
                          eval(collective_permute(ctx, b, {{0, 1}, {1, 2}})),
                          collective_permute_done(collective_permute_start(ctx, b, {{1, 0}}))};
    });
    // replica 0 is no target of the first two: zero point 3; per axis: -3, 0, 5 along dimension 1
    CHECK(std::get<0>(cp[0])(0).stored == 3);
    CHECK(std::get<0>(cp[0])(1).stored == 3);
    CHECK(std::get<0>(cp[1])(1).stored == 10); // replica 0's a
    CHECK(std::get<0>(cp[2])(0).stored == 1);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(std::get<1>(cp[0])(i, 0).stored == -3);
        CHECK(std::get<1>(cp[0])(i, 1).stored == 0);
        CHECK(std::get<1>(cp[0])(i, 2).stored == 5);
        CHECK(std::get<2>(cp[1])(i, 2).stored == 5); // async form: replicas 1 and 2 are no target
        CHECK(std::get<2>(cp[2])(i, 0).stored == -3);
    }
    CHECK(std::get<1>(cp[2])(1, 2).stored == 15); // replica 1's b
    CHECK(std::get<2>(cp[0])(1, 0).stored == 13);
    // collective_broadcast: replica 0 is in no group; recv: replica 0 has no source
    auto cb = three.run([](replica_context& ctx) {
        const auto id = static_cast<std::int8_t>(ctx.replica_id());
        const tensor<Q8, 2> a{Q8(id), Q8(id)};
        tensor<P, 2, 3> b;
        for (std::size_t i = 0; i < b.size(); ++i)
            b.data()[i] = P(static_cast<std::int8_t>(i));
        auto s = send(ctx, b, 7, {{1, 2}}); // only replica 1 is a source
        auto r = recv_done(recv<tensor<P, 2, 3>>(ctx, 7, {{1, 2}}));
        (void)send_done(std::move(s));
        return std::tuple{eval(collective_broadcast(ctx, a, {.replica_groups = {{2, 1}}})), r};
    });
    CHECK(std::get<0>(cb[0])(0).stored == 3);
    CHECK(std::get<0>(cb[1])(1).stored == 2);
    CHECK(std::get<1>(cb[0])(1, 1).stored == 0);
    CHECK(std::get<1>(cb[0])(0, 2).stored == 5);
    CHECK(std::get<1>(cb[2])(1, 2).stored == 5); // received from replica 1: stored i = 5
}
