// Programs written with xlet that tests/stablehlo/export_gen.cpp exports with xlet::to_stablehlo
// and export_roundtrip_test.cpp compares, bit for bit, with their import by xlet-translate: one
// case (or more) per op family. A case is a struct with `args` (a tuple of argument types) and a
// static `f`; XLET_EXPORT_CASES lists them (CMake reads the list, one X(name) per line).
#pragma once
#include <tuple>

#include <xlet/xlet.hpp>

namespace export_cases {
using namespace xlet;

// Element-wise ops, operators, implicit and explicit broadcasts, C++ constants, compare/select,
// convert, clamp, a traceable map.
struct elementwise {
    using args = std::tuple<f32<4, 8>, f32<8>, s32<4, 8>>;
    static auto f(const f32<4, 8>& a, const f32<8>& b, const s32<4, 8>& i) {
        auto x = add(a, b, dims<1>) * 0.5f - exp(a) / (abs(a) + 1.0f);
        f32<4, 8> y = select(x > 0.25f, tanh(x), logistic(x)) + sqrt(abs(a)) * floor(a) + atan2(a, x);
        s32<4, 8> j = (i << 2) ^ ((i >> 1) & ~i);
        auto k = convert_element_type<float>(clamp(-3, j % 7, 5)) + rsqrt(abs(y) + 1.0f);
        auto m = map(traceable([](auto p, auto q) { return p * q + p; }), y, eval(k));
        return std::make_tuple(eval(m), eval(max(y, k) + min(log1p(abs(y)), cos(k))), j, eval(is_finite(y / a)));
    }
};

// Layout views and movements: transpose, broadcast_in_dim, slice with strides, rev, reshape,
// pad (with interior padding), concatenate, iota.
struct layout {
    using args = std::tuple<f32<3, 4>, f32<4>>;
    static auto f(const f32<3, 4>& a, const f32<4>& v) {
        auto t = transpose(a, dims<1, 0>);                                      // 4x3
        auto b = broadcast_in_dim(v, sizes<4, 3>, dims<0>) + t;                 // 4x3
        auto s = slice(rev(b, dims<1>), sizes<0, 0>, sizes<4, 3>, sizes<2, 2>); // 2x2
        auto r = reshape(eval(s), sizes<4>);
        auto p = pad<padding_config<1>{{1}, {2}, {1}}>(r, -1.0f); // 1+4+3+2 = 10
        auto c = concatenate<0>(p, v, iota<f32<3>, 0>());         // 17
        return std::make_tuple(eval(c), eval(reshape(a, dims<1, 0>, sizes<2, 6>)), eval(broadcast(v, sizes<2>)));
    }
};

// Reductions with xlet's monoids, a traceable computation and two operands, dot_general, ragged_dot,
// scan, scaled_dot.
struct reduce_dot {
    using args = std::tuple<f32<5, 6>, f32<6, 3>, f32<2, 5, 6>>;
    static auto f(const f32<5, 6>& x, const f32<6, 3>& w, const f32<2, 5, 6>& bx) {
        auto h = dot(x, w);
        auto s = reduce(h, 0.0f, add_fn{}, dims<1>);
        auto m = reduce(x, -1e30f, max_fn{}, dims<0, 1>);
        auto g = reduce(tanh(h), 1.0f, traceable([](auto p, auto q) { return p * q + p; }), dims<0>);
        auto bd =
            dot_general<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {2}}>(
                bx, bx);
        // ragged_dot (a mixture of experts: rows 0-1 by expert 0, rows 2-4 by expert 1)
        const s32<2> groups{2, 3};
        auto experts = eval(broadcast_in_dim(w, sizes<2, 6, 3>, dims<1, 2>) * iota<f32<2, 6, 3>, 0>() - 0.5f);
        auto rd = ragged_dot<ragged_dot_dims{
            .dot = {.lhs_contracting = {1}, .rhs_contracting = {1}}, .lhs_ragged = {0}, .rhs_group = {0}}>(x, experts,
                                                                                                           groups);
        // scan (a traceable body, reverse) and scaled_dot (lhs scales in blocks of 3 along the
        // contracting dimension, one rhs scale per column)
        auto [sy, sc] =
            scan<scan_config{.dimension = 1, .is_reverse = true}>(x, 1.0f, traceable([](auto e, auto c) {
                                                                      return std::tuple{c * 0.5f + e, c * 0.5f - e};
                                                                  }));
        auto sd = scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(
            x, eval(abs(slice(x, sizes<0, 0>, sizes<5, 2>)) + 0.5f), w, f32<1, 3>{{0.5f, 2.0f, 0.25f}});
        return std::make_tuple(s, m, g, bd, rd, sy, sc, sd);
    }
};

// Control flow: while_loop (a counter and an accumulator, capturing an argument), conditional
// in its pred and index forms (regions that capture their operands), async_start / async_done.
struct control {
    using args = std::tuple<f32<6>, s32<>, f32<6>>;
    static auto f(const f32<6>& x, const s32<>& k, const f32<6>& y) {
        auto [n, acc] =
            while_loop([](const s32<>& i, const f32<6>&) { return i < 5; },
                       [&](const s32<>& i, const f32<6>& a) { return std::make_tuple(i + 1, a * 0.5f + x); },
                       std::make_tuple(s32<>(0), y));
        auto c = conditional(
            k > 0, x, [](const f32<6>& v) { return eval(v * 2.0f); }, y, [](const f32<6>& v) { return eval(exp(v)); });
        auto d = conditional(k,
                             std::make_tuple([](const f32<6>& v) { return eval(v + 1.0f); },
                                             [](const f32<6>& v) { return eval(v - 1.0f); },
                                             [](const f32<6>& v) { return eval(-v); }),
                             std::forward_as_tuple(x, y, acc));
        // async_start / async_done: a computation with a captured value and two results
        auto h = async_start(
            [&](const f32<6>& v, const s32<>& j) { return std::make_tuple(eval(v * y + x), eval(j * 3)); }, acc, k);
        auto [ha, hb] = async_done(std::move(h));
        return std::make_tuple(n, acc, c, d, ha, hb);
    }
};

// Sorting and indexing: sort (monoid comparator, a traceable one, variadic), top_k, gather,
// scatter (a traceable update), dynamic_slice and dynamic_update_slice with run-time starts.
struct sort_index {
    using args = std::tuple<f32<4, 6>, s32<3, 1>, f32<3, 6>, s32<>>;
    static auto f(const f32<4, 6>& x, const s32<3, 1>& idx, const f32<3, 6>& upd, const s32<> start) {
        auto s = sort(x);
        auto [k, v] =
            sort<sort_config{.dimension = 0}>(std::forward_as_tuple(x, eval(iota<s32<4, 6>, 0>())), sort_greater{});
        auto t = sort(x, traceable([](auto a, auto b) { return a > b; }));
        auto [tv, ti] = top_k<2>(x);
        auto [sv, si] = top_k<3, false>(eval(floor(x * 2.0f))); // the smallest, with ties (lower index first)
        auto g = gather<gather_dims{.offset_dims = {1},
                                    .collapsed_slice_dims = {0},
                                    .start_index_map = {0},
                                    .index_vector_dim = 1,
                                    .slice_sizes = {1, 6}}>(x, abs(idx) % 4);
        auto sc = scatter<scatter_dims{.update_window_dims = {1},
                                       .inserted_window_dims = {0},
                                       .scatter_dims_to_operand_dims = {0},
                                       .index_vector_dim = 1}>(x, idx, upd,
                                                               traceable([](auto a, auto b) { return a + b * 2.0f; }));
        auto ds = dynamic_slice(x, sizes<2, 3>, start, 2);
        auto du = dynamic_update_slice(x, ds, 1, start);
        return std::make_tuple(s, k, v, t, tv, ti, sv, si, g, sc, ds, du);
    }
};

// Windows and convolution: reduce_window (max pooling, padded mean), select_and_scatter,
// convolution (NHWC, strides, padding, dilation, groups; with an epilogue), batch_norm_training.
struct window_conv {
    using args = std::tuple<f32<1, 6, 6, 4>, f32<3, 3, 2, 8>, f32<1, 3, 3, 4>>;
    static auto f(const f32<1, 6, 6, 4>& x, const f32<3, 3, 2, 8>& w, const f32<1, 3, 3, 4>& src) {
        auto mp = reduce_window<window_config{.window_dimensions = {1, 2, 2, 1}, .window_strides = {1, 2, 2, 1}}>(
            x, -1e30f, max_fn{});
        auto av =
            reduce_window<window_config{.window_dimensions = {1, 3, 3, 1}, .mode = pad_mode::same}>(x, 0.0f, add_fn{});
        auto ss = select_and_scatter<window_config{.window_dimensions = {1, 2, 2, 1}, .window_strides = {1, 2, 2, 1}}>(
            x, ge_fn{}, src, 0.0f, add_fn{});
        auto y = conv_general_dilated<conv_config{.window_strides = {2, 1},
                                                  .padding_low = {1, 2},
                                                  .padding_high = {1, 0},
                                                  .rhs_dilation = {1, 2},
                                                  .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                                                  .feature_group_count = 2}>(x, w);
        // the same convolution with an epilogue (grouped: applied after it, in place)
        auto z = conv_general_dilated<conv_config{.window_strides = {2, 1},
                                                  .padding_low = {1, 2},
                                                  .padding_high = {1, 0},
                                                  .rhs_dilation = {1, 2},
                                                  .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                                                  .feature_group_count = 2}>(
            x, w, [](auto v) { return max(v, 0.0f) * 2.0f; });
        auto [bn, mean, var] = batch_norm_training<3>(y, f32<8>::filled(1.5f), f32<8>::filled(0.25f), 1e-3f);
        return std::make_tuple(mp, av, ss, y, z, bn, mean, var);
    }
};

// FFT, linear algebra and random bits.
struct fft_linalg_rng {
    using args = std::tuple<f32<4, 8>, f32<4, 4>, f32<4, 2>, u64<2>>;
    static auto f(const f32<4, 8>& x, const f32<4, 4>& m, const f32<4, 2>& b, const u64<2>& state) {
        auto r = fft<fft_type::rfft, 8>(x);
        auto c = fft<fft_type::ifft, 4, 5>(r);
        auto spd = dot_general<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}>(m, m) +
                   eval(broadcast_in_dim(f32<4>::filled(4.0f), sizes<4, 4>, dims<0>));
        auto l = cholesky<true>(spd);
        auto xs = triangular_solve<true, true, false, transpose_type::no_transpose>(l, b);
        auto [ns, bits] = rng_bit_generator<rng_algorithm::philox, u32<3, 5>>(state);
        return std::make_tuple(r, c, l, xs, ns, bits);
    }
};

// The rest of the element-wise family: integer bit ops, complex parts, rounding, total-order
// compares, bitcast and reduce_precision, the transcendental functions.
struct elementwise_more {
    using args = std::tuple<f32<16>, s32<16>, u32<16>>;
    static auto f(const f32<16>& x, const s32<16>& i, const u32<16>& u) {
        auto bits = eval(popcnt(i) + clz(i) + sign(i) + not_(i) + shift_right_arithmetic(i, 3) + (i & 12) - (i | 5));
        auto ubits = eval(shift_right_logical(u, 7u) ^ shift_left(u, 2u) % 1000u);
        auto z = complex(x, exp(x));
        auto cz = eval(real(z * z) + imag(exp(z)) + abs(z));
        auto r = eval(round(x * 3.0f) + round_nearest_even(x * 2.5f) + ceil(x) - cbrt(x) + expm1(x) +
                      pow(abs(x), 1.5f) + sin(x) * cos(x) + tan(x * 0.5f) + cosh(x) + erf(x) + log(abs(x) + 1.0f));
        auto cmp = eval(select(lt_total(x, -x) | (x == 0.5f) | ne(x, x * 2.0f), x, 2.0f));
        auto bc = eval(bitcast_convert_type<std::int32_t>(x) + i);
        auto rp = eval(reduce_precision<5, 10>(x * 1000.0f) +
                       convert_element_type<float>(bitcast_convert_type<float>(u & 0x3fffffffu)));
        auto h = eval(convert_element_type<float>(convert_element_type<bfloat16>(x) * bfloat16(3.0f)));
        return std::make_tuple(bits, ubits, cz, r, cmp, bc, rp, h, get_dimension_size<0>(x));
    }
};

// batch_norm_grad and batch_norm_inference (an expression), optimization_barrier, copy.
struct batch_norm_misc {
    using args = std::tuple<f32<2, 3, 4>, f32<3>, f32<2, 3, 4>>;
    static auto f(const f32<2, 3, 4>& x, const f32<3>& s, const f32<2, 3, 4>& g) {
        auto [bx, mean, var] = batch_norm_training<1>(x, s, s, 1e-3f);
        auto [gx, gs, go] = batch_norm_grad<1>(x, s, mean, var, g, 1e-3f);
        auto inf = eval(batch_norm_inference<1>(x, s, mean, mean, exp(var), 1e-2f));
        auto [b1, b2] = optimization_barrier(gx * 2.0f, go);
        return std::make_tuple(bx, gx, gs, go, inf, b1, copy(b2));
    }
};

// Collectives on 4 replicas x 2 partitions (an SPMD case: f takes the device's context first and
// runs on a replica_pool): every process-group mode, a computation as a region, replica and
// partition ids, send / recv, a *_start / *_done form, ragged_all_to_all.
struct collectives {
    static constexpr std::uint32_t replicas = 4, partitions = 2;
    using args = std::tuple<f32<4, 2>, s32<6>>;
    static auto f(replica_context& ctx, const f32<4, 2>& x, const s32<6>& n) {
        auto sum = all_reduce(ctx, x * 2.0f, add_fn{}, {.replica_groups = {{0, 1}, {2, 3}}});
        auto big = all_reduce(ctx, n, traceable([](auto a, auto b) { return a + b * 3; }),
                              {.replica_groups = {{0, 1, 2, 3}}, .channel_id = 1});
        auto flat = all_reduce(
            ctx, n, mul_fn{},
            {.replica_groups = {{0, 7}, {1, 2, 3}, {4, 5, 6}}, .channel_id = 2, .use_global_device_ids = true});
        auto g = all_gather<1, 2>(ctx, x, {.replica_groups = {{3, 1}, {0, 2}}});
        auto rs = reduce_scatter<0, 2>(ctx, x, max_fn{}, {.replica_groups = {{1, 0}, {2, 3}}});
        auto a2a = all_to_all<0, 1, 2>(ctx, x, {.replica_groups = {{0, 1}}, .channel_id = 3});
        auto perm = collective_permute(ctx, n, {{0, 2}, {2, 3}, {3, 0}});
        auto bc = collective_broadcast(ctx, x, {.replica_groups = {{2, 1, 0, 3}}});
        auto bd = collective_broadcast_from(ctx, 1, n, {.replica_groups = {{0, 3}, {1, 2}}}); // has_dynamic_root
        auto ids = convert_element_type<std::int32_t>(replica_id(ctx) * 10u + partition_id(ctx));
        // a ring of send / recv over the 8 devices, and an async all_gather (flattened ids)
        const source_target_pairs_t ring = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0}};
        auto s = send(ctx, n * 2, 9, ring);
        auto h = all_gather_start<0, 2>(
            ctx, n,
            {.replica_groups = {{0, 4}, {1, 5}, {2, 6}, {3, 7}}, .channel_id = 10, .use_global_device_ids = true});
        s32<6> got = recv_done(recv<s32<6>>(ctx, 9, ring));
        send_done(std::move(s));
        auto ag = all_gather_done(std::move(h));
        // ragged_all_to_all in pairs of replicas: rows 0-1 to the first, 2-3 to the second, each
        // landing at 2 x the sender's place in the pair (an offset computed from replica_id)
        s32<4> in4 = slice(n, sizes<0>, sizes<4>, sizes<1>);
        const s64<2> io{0, 2}, ss{2, 2}, rsz{2, 2};
        s64<2> oo = broadcast(convert_element_type<std::int64_t>(replica_id(ctx) % 2u) * std::int64_t{2}, sizes<2>);
        s32<4> base = constant<s32<4>>(-7);
        auto rr = ragged_all_to_all(ctx, in4, io, ss, base, oo, rsz, {.replica_groups = {{0, 1}, {2, 3}}});
        return std::make_tuple(sum, eval(big + flat + ids + got), g, rs, a2a, perm, bc, bd, ag, rr);
    }
};

// Bounded dynamic sizes: set_dimension_size by a size computed from an argument, element-wise
// ops, compare/select/convert on the bounded value, reduce over and along the dynamic dimension,
// get_dimension_size, dynamic_reshape to a shape computed in the program.
struct bounded_dims {
    using args = std::tuple<f32<6, 2>, s32<>>;
    static auto f(const f32<6, 2>& x, const s32<>& k) {
        s32<> n = clamp(0, k, 3) * 2; // 0, 2, 4 or 6 rows
        auto b = set_dimension_size<0>(x, n);
        auto y = eval(b * 2.0f + exp(b));
        auto c = eval(convert_element_type<std::int32_t>(select(y > 4.0f, y, -y)));
        auto s = reduce(y, 0.0f, add_fn{}, dims<0>);
        auto m = reduce(y, -1e30f, max_fn{}, dims<1>);
        auto g = get_dimension_size<0>(y);
        s32<2> shape = concatenate<0>(reshape(n / 2, sizes<1>), s32<1>{4});
        auto r = dynamic_reshape(y, shape, sizes<3, 4>, dims<0>);
        return std::make_tuple(s, m, g, c, r);
    }
};

} // namespace export_cases

// clang-format off
#define XLET_EXPORT_CASES(X) \
  X(elementwise) \
  X(layout) \
  X(reduce_dot) \
  X(control) \
  X(sort_index) \
  X(window_conv) \
  X(fft_linalg_rng) \
  X(elementwise_more) \
  X(batch_norm_misc) \
  X(collectives) \
  X(bounded_dims)
// clang-format on
