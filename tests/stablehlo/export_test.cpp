// xlet::to_stablehlo (issue #25 §3): the text of small programs op by op, constants with their
// exact bits, value identity through copies and moves, and every error path. The round trip of
// every op family through xlet-translate is export_roundtrip_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include <xlet/stablehlo/export.hpp>
#include <xlet/xlet.hpp>

using namespace xlet;

xlet::f32<4> untraced_unit_op(const xlet::f32<4>& x);   // export_test_plain.cpp, without XLET_TRACE
xlet::f32<4> untraced_unit_copy(const xlet::f32<4>& x); // (the same unit)

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
int count(const std::string& text, const std::string& part) {
    int n = 0;
    for (std::size_t i = text.find(part); i != std::string::npos; i = text.find(part, i + 1))
        ++n;
    return n;
}
} // namespace

TEST_CASE("an expression: its arrays are the arguments, one op per node, nothing evaluated") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    f32<3> v{10, 20, 30};
    const std::string m = to_stablehlo(add(a, v, dims<1>) * 2.0f);
    CHECK(m == "module @xlet {\n"
               "  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xf32>) {\n"
               "    %0 = \"stablehlo.broadcast_in_dim\"(%arg1) {broadcast_dimensions = array<i64: 1>} : "
               "(tensor<3xf32>) -> tensor<2x3xf32>\n"
               "    %1 = \"stablehlo.add\"(%arg0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
               "    %2 = \"stablehlo.constant\"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>\n"
               "    %3 = \"stablehlo.broadcast_in_dim\"(%2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> "
               "tensor<2x3xf32>\n"
               "    %4 = \"stablehlo.multiply\"(%1, %3) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
               "    \"func.return\"(%4) : (tensor<2x3xf32>) -> ()\n"
               "  }\n"
               "}\n");
    // An array read twice is one argument.
    const std::string twice = to_stablehlo(a * a);
    CHECK(has(twice, "@main(%arg0: tensor<2x3xf32>) ->"));
    CHECK(has(twice, "\"stablehlo.multiply\"(%arg0, %arg0)"));
}

TEST_CASE("names, options and the MLIR 15 spelling of integer lists") {
    f32<2, 3> a{};
    stablehlo_options o;
    o.module_name = "jit_f";
    o.function_name = "f";
    o.mlir_compat = 15;
    const std::string m = to_stablehlo(transpose(a, dims<1, 0>), o);
    CHECK(has(m, "module @jit_f {"));
    CHECK(has(m, "func.func @f(%arg0: tensor<2x3xf32>)"));
    CHECK(has(m, "{permutation = dense<[1, 0]> : tensor<2xi64>}"));
    const std::string b = to_stablehlo(broadcast(f32<>(1.0f), sizes<2>), o);
    CHECK(has(b, "{broadcast_dimensions = dense<> : tensor<0xi64>}"));
}

TEST_CASE("views become reverse, slice, reshape, transpose and broadcast_in_dim, only where needed") {
    f32<4, 6> x{};
    const std::string s = to_stablehlo(slice(rev(x, dims<0>), sizes<1, 0>, sizes<4, 6>, sizes<2, 3>));
    CHECK(has(s, "\"stablehlo.reverse\"(%arg0) {dimensions = array<i64: 0>}"));
    CHECK(has(s, "{start_indices = array<i64: 1, 0>, limit_indices = array<i64: 4, 4>, strides = array<i64: 2, 3>}"));
    CHECK(has(s, "-> tensor<2x2xf32>"));
    CHECK(count(s, "stablehlo.") == 2); // reverse, slice: no transpose or broadcast
    const std::string t = to_stablehlo(transpose(x, dims<1, 0>));
    CHECK(count(t, "stablehlo.") == 1);
    CHECK(has(t, "{permutation = array<i64: 1, 0>}"));
    // broadcast_in_dim to new dimensions: one op.
    f32<4> c{};
    const std::string b = to_stablehlo(broadcast_in_dim(c, sizes<3, 4, 5>, dims<1>));
    CHECK(has(b, "{broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<3x4x5xf32>"));
    CHECK(count(b, "stablehlo.") == 1);
    // A size-1 dimension stretched: the view reads index 0 there, so it is dropped, then broadcast.
    f32<4, 1> c1{};
    const std::string b1 = to_stablehlo(broadcast_in_dim(c1, sizes<3, 4, 5>, dims<1, 2>));
    CHECK(has(b1, "\"stablehlo.reshape\"(%arg0) : (tensor<4x1xf32>) -> tensor<4xf32>"));
    CHECK(has(b1, "{broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<3x4x5xf32>"));
}

TEST_CASE("constants keep their exact bits: splats, NaN, -0, infinities, bf16, pred, hex blobs") {
    f32<3> x{};
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK(has(to_stablehlo(x + nan), "dense<0x7FC00000> : tensor<f32>"));
    CHECK(has(to_stablehlo(x + -0.0f), "dense<-0.0> : tensor<f32>"));
    CHECK(has(to_stablehlo(x + std::numeric_limits<float>::infinity()), "dense<0x7F800000> : tensor<f32>"));
    CHECK(has(to_stablehlo(x * 1e30f), "dense<1.0e+30> : tensor<f32>"));
    CHECK(has(to_stablehlo(x * 0.1f), "dense<0.1> : tensor<f32>"));
    f64<> d{};
    CHECK(has(to_stablehlo(d + 0.1), "dense<0.1> : tensor<f64>"));
    bf16<2> h{};
    CHECK(has(to_stablehlo(h + bfloat16(1.5f)), "dense<1.5> : tensor<bf16>"));
    c64<2> z{};
    CHECK(has(to_stablehlo(z * std::complex<float>(1, -2)), "dense<(1.0, -2.0)> : tensor<complex<f32>>"));
    // A callable's hand-filled arrays are constants of their contents.
    const std::string m = to_stablehlo(
        [](const f32<3>& a) {
            f32<3> w{1, 2, 3};
            pred<2> p{true, false};
            s8<2> q{-1, 5};
            return std::make_tuple(eval(a * w), p, q);
        },
        x);
    CHECK(has(m, "dense<\"0x0000803F0000004000004040\"> : tensor<3xf32>"));
    CHECK(has(m, "dense<[true, false]> : tensor<2xi1>"));
    CHECK(has(m, "dense<\"0xFF05\"> : tensor<2xi8>"));
}

TEST_CASE("a callable: evaluated values keep their identity through copies and moves") {
    f32<8> x{};
    const std::string m = to_stablehlo(
        [](const f32<8>& a) {
            f32<8> y = a + 1.0f;   // evaluated: an op, bound to y's storage
            f32<8> z = y;          // a copy: still that value
            auto w = std::move(z); // a move of inline storage: the same
            return eval(w * w);
        },
        x);
    CHECK(count(m, "stablehlo.constant") == 1); // only the 1.0f
    CHECK(has(m, "%1 = \"stablehlo.broadcast_in_dim\""));
    CHECK(has(m, "\"stablehlo.multiply\"(%2, %2)"));
    // A large (heap) tensor too.
    f32<4096> big{};
    const std::string h = to_stablehlo([](const f32<4096>& a) { return f32<4096>(exp(a)); }, big);
    CHECK(count(h, "stablehlo.constant") == 0);
    CHECK(has(h, "\"func.return\"(%0)"));
}

TEST_CASE("a value changed by hand after an op wrote it is a constant of what it holds") {
    f32<2> x{};
    const std::string m = to_stablehlo(
        [](const f32<2>& a) {
            f32<2> y = a + 1.0f;
            y(0) = 7.0f; // not an op: the export cannot follow it, so y is now data
            return eval(y * 2.0f);
        },
        x);
    CHECK(has(m, "dense<\"0x0000E0400000803F\"> : tensor<2xf32>")); // {7, 1}
}

TEST_CASE("heavy ops are one op each, whatever their kernels do inside") {
    f32<4, 8> a{};
    f32<8, 2> b{};
    const std::string m = to_stablehlo(
        [](const auto& x, const auto& y) { return dot(transpose(y, dims<1, 0>), transpose(x, dims<1, 0>)); }, a, b);
    CHECK(count(m, "stablehlo.dot_general") == 1);
    CHECK(count(m, "stablehlo.transpose") == 2);
    CHECK(has(m, "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]"));
    const std::string r = to_stablehlo([](const f32<4, 8>& x) { return reduce(x, 0.0f, add_fn{}, dims<0>); }, a);
    CHECK(has(r, "\"stablehlo.add\"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>"));
    CHECK(has(r, "{dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>"));
}

TEST_CASE("what cannot be exported is an xlet::error that says why") {
    f32<4> x{};
    // A C++ callable as a computation, unless declared traceable.
    CHECK_THROWS_WITH(to_stablehlo(
                          [](const f32<4>& a) {
                              return reduce(
                                  a, 0.0f, [](float p, float q) { return p + q; }, dims<0>);
                          },
                          x),
                      doctest::Contains("xlet::to_stablehlo: reduce: the computation is a C++ callable"));
    CHECK_THROWS_WITH(to_stablehlo([](const f32<4>& a) { return eval(map([](float p) { return p * 2.0f; }, a)); }, x),
                      doctest::Contains("map: the computation is a C++ callable"));
    // A while condition that answers in C++ (a bool decided by the data of this one run).
    CHECK_THROWS_WITH(to_stablehlo(
                          [](const f32<4>& a) {
                              return while_loop([](const f32<4>& s) { return s(0) < 10.0f; },
                                                [](const f32<4>& s) { return eval(s + 1.0f); }, a);
                          },
                          x),
                      doctest::Contains("while_loop: the condition returns a C++ value"));
    // A state that is not made of tensors.
    CHECK_THROWS_WITH(to_stablehlo(
                          [](const f32<4>& a) {
                              auto [n, s] = while_loop(
                                  [](int i, const f32<4>&) { return i < 3; },
                                  [](int i, const f32<4>& s) { return std::make_tuple(i + 1, eval(s * 2.0f)); },
                                  std::make_tuple(0, a));
                              return s;
                          },
                          x),
                      doctest::Contains("while_loop: a state that is not made of tensors"));
    // A scan's body likewise (it is traced on slices).
    CHECK_THROWS_WITH(
        to_stablehlo(
            [](const f32<4>& a) {
                return std::get<0>(scan<scan_config{}>(a, 0.0f, [](float e, float c) { return std::tuple{e, c + e}; }));
            },
            x),
        doctest::Contains("xlet::to_stablehlo: scan: the computation is a C++ callable without a StableHLO form"));
    // Code compiled without XLET_TRACE says so rather than record nothing.
    CHECK_THROWS_WITH(to_stablehlo([](const f32<4>& a) { return untraced_unit_op(a); }, x),
                      doctest::Contains("an op ran in code compiled without XLET_TRACE"));
    // A tensor copied in such code keeps its traced value (no constant of its contents).
    const auto traced_fn = [](const f32<4>& a) {
        f32<4> t = eval(a * 2.0f);
        return eval(t + 1.0f);
    };
    const auto copied_fn = [](const f32<4>& a) {
        f32<4> t = eval(a * 2.0f);
        return eval(untraced_unit_copy(t) + 1.0f);
    };
    CHECK(to_stablehlo(copied_fn, x) == to_stablehlo(traced_fn, x));
    // Nothing stays active after an error: a plain evaluation afterwards is not traced.
    CHECK(trace::active == nullptr);
    f32<4> y = x + 1.0f;
    CHECK(y(3) == 1.0f);
}

TEST_CASE("an SPMD program: every device runs, device 0 is recorded, the module says how many devices") {
    f32<2> x{1.0f, 2.0f};
    stablehlo_options o;
    o.replicas = 2;
    o.partitions = 2;
    const std::string m = to_stablehlo(
        o,
        [](replica_context& ctx, const f32<2>& a) {
            auto s = all_reduce(ctx, a, add_fn{}, {.replica_groups = {{0, 1}}, .channel_id = 4});
            return eval(s * convert_element_type<float>(partition_id(ctx)));
        },
        x);
    CHECK(m == "module @xlet attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32} {\n"
               "  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {\n"
               "    %0 = \"stablehlo.all_reduce\"(%arg0) ({\n"
               "    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):\n"
               "      %1 = \"stablehlo.add\"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
               "      \"stablehlo.return\"(%1) : (tensor<f32>) -> ()\n"
               "    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = "
               "#stablehlo.channel_handle<handle = 4, type = 1>} : (tensor<2xf32>) -> tensor<2xf32>\n"
               "    %2 = \"stablehlo.partition_id\"() : () -> tensor<ui32>\n"
               "    %3 = \"stablehlo.convert\"(%2) : (tensor<ui32>) -> tensor<f32>\n"
               "    %4 = \"stablehlo.broadcast_in_dim\"(%3) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> "
               "tensor<2xf32>\n"
               "    %5 = \"stablehlo.multiply\"(%0, %4) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
               "    \"func.return\"(%5) : (tensor<2xf32>) -> ()\n"
               "  }\n"
               "}\n");
    // Many devices on few threads: a device that suspends in a collective and resumes elsewhere
    // keeps recording; the others never record.
    o.replicas = 64;
    o.partitions = 1;
    const std::string many = to_stablehlo(
        o,
        [](replica_context& ctx, const f32<2>& a) {
            f32<2> v = a;
            for (int i = 0; i < 4; ++i)
                v = all_reduce(ctx, eval(v * 0.5f), max_fn{});
            return v;
        },
        x);
    std::size_t count = 0;
    for (std::size_t p = many.find("stablehlo.all_reduce"); p != std::string::npos;
         p = many.find("stablehlo.all_reduce", p + 1))
        ++count;
    CHECK(count == 4);
    CHECK(many.find("mhlo.num_replicas = 64 : i32") != std::string::npos);
    // What does not export says so.
    CHECK_THROWS_WITH(
        to_stablehlo(
            o, [](const f32<2>& a) { return eval(a * 2.0f); }, x),
        doctest::Contains("replicas x partitions > 1 needs a program that takes an xlet::replica_context&"));
    // The *_start / *_done forms export as their op, recorded at the start (its operands) and
    // bound at the done (its result): the same module as the synchronous form.
    auto sync = [](replica_context& ctx, const f32<2>& a) {
        auto s = all_reduce(ctx, a, add_fn{});
        auto p = collective_permute(ctx, a, {{0, 1}});
        auto g = all_gather<0, 1>(ctx, a, {.replica_groups = {{0}, {1}}});
        return eval(s + p + g);
    };
    auto async = [](replica_context& ctx, const f32<2>& a) {
        auto h = all_reduce_start(ctx, a, add_fn{});
        auto p = collective_permute_start(ctx, a, {{0, 1}});
        auto g = all_gather_start<0, 1>(ctx, a, {.replica_groups = {{0}, {1}}});
        auto s = all_reduce_done(std::move(h));
        return eval(s + collective_permute_done(std::move(p)) + all_gather_done(std::move(g)));
    };
    o.replicas = 2;
    CHECK(to_stablehlo(o, async, x) == to_stablehlo(o, sync, x));
    // send / recv: device to device, ordered by a chain of tokens.
    const std::string ring = to_stablehlo(
        o,
        [](replica_context& ctx, const f32<2>& a) {
            auto s = send(ctx, a * 3.0f, 5, {{0, 1}, {1, 0}});
            f32<2> got = recv_done(recv<f32<2>>(ctx, 5, {{0, 1}, {1, 0}}));
            send_done(std::move(s));
            return eval(got + a);
        },
        x);
    CHECK(ring.find(
              "%3 = \"stablehlo.after_all\"() : () -> !stablehlo.token\n"
              "    %4 = \"stablehlo.send\"(%2, %3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = "
              "1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : "
              "(tensor<2xf32>, !stablehlo.token) -> !stablehlo.token\n"
              "    %5:2 = \"stablehlo.recv\"(%4) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, "
              "is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : "
              "(!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"
              "    %6 = \"stablehlo.add\"(%5#0, %arg0)") != std::string::npos);
}

TEST_CASE("async_start exports with its computation as the body (captured values as operands), async_done reads "
          "the future") {
    f32<2> x{1, 2};
    const std::string m = to_stablehlo(
        [](const f32<2>& a) {
            auto h = async_start([&](const f32<2>& b) { return eval(b * 2.0f + a); }, eval(a + 1.0f));
            auto h2 = async_start([](const f32<2>& b, const s32<3>& c) { return std::make_tuple(eval(exp(b)), c); }, a,
                                  s32<3>{1, 2, 3});
            auto [e, c] = async_done(std::move(h2));
            return std::make_tuple(eval(async_done(std::move(h)) - a), e, c);
        },
        x);
    // The captured `a` is the body's second block argument (StableHLO's region is isolated from above).
    CHECK(has(m, "%3 = \"stablehlo.async_start\"(%2, %arg0) ({\n    ^bb0(%arg1: tensor<2xf32>, %arg2: "
                 "tensor<2xf32>):"));
    CHECK(has(m, "\"stablehlo.add\"(%6, %arg2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n      "
                 "\"stablehlo.return\"(%7) : (tensor<2xf32>) -> ()\n    }) : (tensor<2xf32>, tensor<2xf32>) -> "
                 "!stablehlo.future<tensor<2xf32>>"));
    CHECK(has(m, "-> !stablehlo.future<tensor<2xf32>, tensor<3xi32>>"));
    CHECK(has(m, "\"stablehlo.async_done\"(%9) : (!stablehlo.future<tensor<2xf32>, tensor<3xi32>>) -> "
                 "(tensor<2xf32>, tensor<3xi32>)"));
    CHECK(has(m, "\"stablehlo.async_done\"(%3) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>"));
    // An argument passed through unchanged is returned as the block argument.
    CHECK(has(m, "\"stablehlo.return\"(%10, %arg4)"));
    // Not traced, it runs as a task.
    auto h = async_start([&](const f32<2>& b) { return eval(b * 2.0f + x); }, eval(x + 1.0f));
    CHECK(equal(async_done(std::move(h)), f32<2>{5.0f, 8.0f}));
    // Only tensors cross.
    CHECK_THROWS_WITH(to_stablehlo(
                          [](const f32<2>& a) {
                              return async_done(async_start([](const f32<2>& b, int k) { return eval(b * k); }, a, 2));
                          },
                          x),
                      doctest::Contains("async_start: arguments and results must be tensors"));
}

TEST_CASE("rng_uniform and rng_normal export as StableHLO's rng (its generator is implementation-defined)") {
    f32<2> x{1.0f, 2.0f};
    const std::string m = to_stablehlo(
        [](const f32<2>& a) {
            f32<> lo = reduce(a, 0.0f, add_fn{}, dims<0>); // a rank-0 array bound
            return eval(rng_uniform<f32<2, 3>>(lo, 4.0f) + rng_normal<f32<2, 3>>(-1.0f, 0.5f));
        },
        x);
    CHECK(m.find("\"stablehlo.rng\"(") != std::string::npos);
    CHECK(m.find("\"stablehlo.rng\"(%1, ") != std::string::npos); // the reduce: a rank-0 array bound
    CHECK(m.find("{rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, "
                 "tensor<2xi64>) -> tensor<2x3xf32>") != std::string::npos);
    CHECK(m.find("{rng_distribution = #stablehlo<rng_distribution NORMAL>}") != std::string::npos);
    CHECK(m.find("{value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>") != std::string::npos);
    CHECK(m.find("{value = dense<4.0> : tensor<f32>}") != std::string::npos);
}

TEST_CASE("infeed and outfeed keep their program order through a chain of tokens") {
    f32<2> x{1.0f, 2.0f};
    feed_queue in, out;
    in.push(f32<3>{1, 2, 3});
    in.push(std::tuple{s32<2>{4, 5}, f32<>(6.0f)});
    const std::string m = to_stablehlo(
        [&](const f32<2>& a) {
            auto [v, t1] = infeed<f32<3>>(in, after_all());
            token t2 = outfeed(out, a * 2.0f, t1);
            auto [w, t3] = infeed<std::tuple<s32<2>, f32<>>>(in, t2);
            outfeed(out, std::tuple{v, std::get<0>(w)}, t3);
            return eval(reduce(v, 0.0f, add_fn{}, dims<0>) + std::get<1>(w));
        },
        x);
    CHECK(m ==
          "module @xlet {\n"
          "  func.func @main(%arg0: tensor<2xf32>) -> (tensor<f32>) {\n"
          "    %0 = \"stablehlo.after_all\"() : () -> !stablehlo.token\n"
          "    %1:2 = \"stablehlo.infeed\"(%0) {infeed_config = \"\"} : (!stablehlo.token) -> (tensor<3xf32>, "
          "!stablehlo.token)\n"
          "    %2 = \"stablehlo.constant\"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>\n"
          "    %3 = \"stablehlo.broadcast_in_dim\"(%2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> "
          "tensor<2xf32>\n"
          "    %4 = \"stablehlo.multiply\"(%arg0, %3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
          "    %5 = \"stablehlo.outfeed\"(%4, %1#1) {outfeed_config = \"\"} : (tensor<2xf32>, !stablehlo.token) -> "
          "!stablehlo.token\n"
          "    %6:3 = \"stablehlo.infeed\"(%5) {infeed_config = \"\"} : (!stablehlo.token) -> (tensor<2xi32>, "
          "tensor<f32>, !stablehlo.token)\n"
          "    %7 = \"stablehlo.outfeed\"(%1#0, %6#0, %6#2) {outfeed_config = \"\"} : (tensor<3xf32>, "
          "tensor<2xi32>, !stablehlo.token) -> !stablehlo.token\n"
          "    %8 = \"stablehlo.constant\"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>\n"
          "    %9 = \"stablehlo.reduce\"(%1#0, %8) ({\n"
          "    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):\n"
          "      %10 = \"stablehlo.add\"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
          "      \"stablehlo.return\"(%10) : (tensor<f32>) -> ()\n"
          "    }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n"
          "    %11 = \"stablehlo.add\"(%9, %6#1) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
          "    \"func.return\"(%11) : (tensor<f32>) -> ()\n"
          "  }\n"
          "}\n");
    // the program ran: the host sees what it wrote
    CHECK(equal(out.pop<f32<2>>(), f32<2>{2.0f, 4.0f}));
    auto [v, w] = out.pop<std::tuple<f32<3>, s32<2>>>();
    CHECK(equal(v, f32<3>{1, 2, 3}));
    CHECK(equal(w, s32<2>{4, 5}));
}

TEST_CASE("custom_call exports as stablehlo.custom_call of its target") {
    f32<2> x{1.0f, 2.0f};
    custom_call_registry reg;
    reg.add("my.twice", [](void* out, const void** in) {
        const float* a = static_cast<const float*>(in[0]);
        float* o = static_cast<float*>(out);
        o[0] = 2 * a[0];
        o[1] = 2 * a[1];
    });
    f32<2> seen;
    const std::string m = to_stablehlo(
        [&](const f32<2>& a) {
            seen = custom_call<"my.twice", f32<2>>(reg, a + 1.0f);
            return seen;
        },
        x);
    CHECK(m.find("= \"stablehlo.custom_call\"(%2) {call_target_name = \"my.twice\"} : (tensor<2xf32>) -> "
                 "tensor<2xf32>") != std::string::npos);
    CHECK(equal(seen, f32<2>{4.0f, 6.0f})); // and it ran
}

TEST_CASE("top_k of the smallest exports as a stable sort of (x, iota) and slices (chlo.top_k has the largest "
          "only)") {
    f32<2, 4> x{{3, 1, 2, 1}, {0, -1, 5, -1}};
    const std::string m = to_stablehlo([](const f32<2, 4>& a) { return top_k<2, false>(a); }, x);
    CHECK(has(m, "\"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<2x4xi32>"));
    CHECK(has(m, "comparison_direction = #stablehlo<comparison_direction LT>, compare_type = "
                 "#stablehlo<comparison_type TOTALORDER>"));
    CHECK(has(m, "{dimension = 1 : i64, is_stable = true} : (tensor<2x4xf32>, tensor<2x4xi32>) -> "
                 "(tensor<2x4xf32>, tensor<2x4xi32>)"));
    CHECK(has(m, "\"stablehlo.slice\"(%1#1) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 2>, "
                 "strides = array<i64: 1, 1>} : (tensor<2x4xi32>) -> tensor<2x2xi32>"));
    CHECK(!has(m, "chlo.top_k"));
    auto [v, i] = top_k<2, false>(x); // ties: the lower index first
    CHECK(equal(v, f32<2, 2>{{1, 1}, {-1, -1}}));
    CHECK(equal(i, s32<2, 2>{{1, 3}, {1, 3}}));
}

TEST_CASE("scan exports as chlo.scan, its body traced once on slices") {
    f32<2, 3> x{{1, 2, 3}, {4, 5, 6}};
    auto body = traceable([](auto e, auto c) { return std::tuple{e > 2.0f, c * 0.5f + e}; });
    const std::string m = to_stablehlo(
        [&](const f32<2, 3>& a) { return scan<scan_config{.dimension = 1, .is_reverse = true}>(a, 1.0f, body); }, x);
    // The scalar init broadcast to the carry shape; block arguments of the slice shape; constants
    // broadcast there; the attributes chlo.scan has, with its operand segments.
    CHECK(has(m, "\"stablehlo.broadcast_in_dim\"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> "
                 "tensor<2xf32>\n    %2:2 = \"chlo.scan\"(%arg0, %1) ({\n    ^bb0(%arg1: tensor<2xf32>, %arg2: "
                 "tensor<2xf32>):"));
    CHECK(has(m, "\"stablehlo.return\"(%5, %9) : (tensor<2xi1>, tensor<2xf32>) -> ()\n    }) {dimension = 1 : i64, "
                 "is_reverse = true, operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3xf32>, tensor<2xf32>) -> "
                 "(tensor<2x3xi1>, tensor<2xf32>)"));
    // Two inputs, an array init and an integer carry returned as it came.
    const std::string m2 = to_stablehlo(
        [](const f32<2, 3>& a) {
            return scan<scan_config{.dimension = 0, .is_associative = false}>(
                std::forward_as_tuple(a, a), std::tuple{f32<3>{1, 2, 3}, 0},
                traceable([](auto e, auto f, auto c, auto d) {
                    return std::tuple{e * f + c, c + e, d};
                }));
        },
        x);
    CHECK(has(m2, "^bb0(%arg1: tensor<3xf32>, %arg2: tensor<3xf32>, %arg3: tensor<3xf32>, %arg4: tensor<3xi32>):"));
    CHECK(has(m2, "\"stablehlo.return\"(%5, %6, %arg4)"));
    CHECK(has(m2, "{dimension = 0 : i64, operandSegmentSizes = array<i32: 2, 2>}"));
    // And the scan still ran: outputs and the final carry.
    auto [o, c] = scan<scan_config{.dimension = 1, .is_reverse = true}>(x, 1.0f, body);
    CHECK(equal(o, pred<2, 3>{{false, false, true}, {true, true, true}}));
    CHECK(equal(c, f32<2>{2.875f, 8.125f})); // 1 -> 3.5 -> 3.75 -> 2.875; 1 -> 6.5 -> 8.25 -> 8.125
}

TEST_CASE("scaled_dot exports as its dequantisation (convert, the scales broadcast over their blocks) and a "
          "dot_general") {
    f16<4, 8> l{};
    f16<8, 2> r{};
    const std::string m = to_stablehlo(
        [](const f16<4, 8>& a, const f16<8, 2>& b) {
            return scaled_dot<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}>(a, f32<4, 2>{}, b,
                                                                                        bf16<1, 1>{});
        },
        l, r);
    // Blocks of 4 along the contracting dimension: 4x2 -> 4x2x4 -> 4x8.
    CHECK(has(m, "(tensor<4x2xf32>) -> tensor<4x2x4xf32>"));
    CHECK(has(m, "stablehlo.reshape\"(%")); // (the numbering follows the compiler's evaluation order)
    CHECK(has(m, ") : (tensor<4x2x4xf32>) -> tensor<4x8xf32>"));
    // One scale for all of rhs; the operands in f32 (the accumulation type), the result in f16.
    CHECK(has(m, "(tensor<1x1xbf16>) -> tensor<1x1xf32>"));
    CHECK(has(m, "(tensor<4x8xf16>) -> tensor<4x8xf32>"));
    CHECK(has(m, "(tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf16>"));
    CHECK(count(m, "stablehlo.multiply") == 2);
    CHECK(count(m, "stablehlo.dot_general") == 1);
}

TEST_CASE("a traceable computation is exported op by op, and still runs on scalars") {
    f32<5> x{1, 2, 3, 4, 5};
    auto f = traceable([](auto p, auto q) { return p * q + p; });
    CHECK(f(2.0f, 3.0f) == 8.0f);
    const std::string m = to_stablehlo([&](const f32<5>& a) { return reduce(a, 1.0f, f, dims<0>); }, x);
    CHECK(has(m, "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):"));
    CHECK(has(m, "\"stablehlo.multiply\"(%arg1, %arg2)"));
    CHECK(count(m, "stablehlo.constant") == 1); // the init only: the body reads its block arguments
    CHECK(has(m, "\"stablehlo.return\"("));
    f32<> r = reduce(x, 1.0f, f, dims<0>);
    CHECK(r() == 720.0f); // (((((1·1+1)·2+2)·3+6)·4+24)·5+120): run, not traced
}

TEST_CASE("bounded dynamic sizes export as StableHLO's bounded types: set_dimension_size, the ops on them, "
          "reduce, get_dimension_size, dynamic_reshape") {
    f32<6, 2> x{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}};
    auto f = [](const f32<6, 2>& a, const s32<>& n) {
        auto b = set_dimension_size<0>(a, n);
        auto y = eval(b * 2.0f + 1.0f);
        auto s = reduce(y, 0.0f, add_fn{}, dims<0>); // (statements: the ops are recorded in this order)
        auto k = reduce(y, 0.0f, add_fn{}, dims<1>);
        auto g = get_dimension_size<0>(y);
        auto gt = y > 4.0f; // (ops on bounded values record as they are built: one per statement)
        auto ny = -y;
        auto c = eval(convert_element_type<std::int32_t>(select(gt, y, ny)));
        auto r = dynamic_reshape(y, std::array{2, 4}, sizes<3, 4>, dims<0>);
        return std::make_tuple(s, k, g, c, r);
    };
    const std::string m = to_stablehlo(f, x, s32<>{4});
    const std::string b = "tensor<?x2xf32, #stablehlo.bounds<6, ?>>";
    CHECK(has(m, "-> (tensor<2xf32>, tensor<?xf32, #stablehlo.bounds<6>>, tensor<i32>, tensor<?x2xi32, "
                 "#stablehlo.bounds<6, ?>>, tensor<?x4xf32, #stablehlo.bounds<3, ?>>)"));
    CHECK(has(m, "%0 = \"stablehlo.set_dimension_size\"(%arg0, %arg1) {dimension = 0 : i64} : (tensor<6x2xf32>, "
                 "tensor<i32>) -> " +
                     b));
    // Element-wise ops take the dynamic dimension from their bounded operand (constants stay static).
    CHECK(has(m, "\"stablehlo.multiply\"(%0, %2) : (" + b + ", tensor<6x2xf32>) -> " + b));
    CHECK(has(m, "\"stablehlo.compare\"(%6, %15) {comparison_direction = #stablehlo<comparison_direction GT>, "
                 "compare_type = #stablehlo<comparison_type FLOAT>} : (" +
                     b + ", tensor<6x2xf32>) -> tensor<?x2xi1, #stablehlo.bounds<6, ?>>"));
    CHECK(has(m, "\"stablehlo.convert\"(%18) : (" + b + ") -> tensor<?x2xi32, #stablehlo.bounds<6, ?>>"));
    // A reduce over the dynamic dimension has a static type; one that keeps it, a bounded type.
    CHECK(has(m, "}) {dimensions = array<i64: 0>} : (" + b + ", tensor<f32>) -> tensor<2xf32>"));
    CHECK(has(m, "}) {dimensions = array<i64: 1>} : (" + b + ", tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<6>>"));
    CHECK(has(m, "\"stablehlo.get_dimension_size\"(%6) {dimension = 0 : i64} : (" + b + ") -> tensor<i32>"));
    CHECK(has(m, "\"stablehlo.dynamic_reshape\"(%6, %20) : (" + b +
                     ", tensor<2xi64>) -> tensor<?x4xf32, #stablehlo.bounds<3, ?>>"));
    CHECK(count(m, "stablehlo.set_dimension_size") == 1);
    CHECK(!has(m, "stablehlo.constant\"() {value = dense<4> : tensor<i32>}")); // the size is the argument
    // The values are xlet's (the first 4 rows only).
    auto [s, k, g, c, r] = f(x, s32<>{4});
    CHECK(equal(s, f32<2>{28, 36}));
    CHECK(k.size(0) == 4);
    CHECK(g() == 4);
    CHECK(r.size(0) == 2);
    CHECK(r(1, 3) == 15.0f);
}

TEST_CASE("bounded values: a C++ size is a constant, padded() reads the padding through a static "
          "set_dimension_size, a bounded value made before tracing is a constant with its sizes") {
    f32<4> x{1, 2, 3, 4};
    const std::string m = to_stablehlo(
        [](const f32<4>& a) {
            auto b = eval(set_dimension_size<0>(a, 3) * a);
            auto p = eval(b.padded() + 1.0f);
            return std::make_tuple(p, reduce(b, 0.0f, add_fn{}, dims<0>));
        },
        x);
    CHECK(has(m, "%0 = \"stablehlo.constant\"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>"));
    CHECK(has(m, "\"stablehlo.set_dimension_size\"(%arg0, %0) {dimension = 0 : i64} : (tensor<4xf32>, tensor<i32>) "
                 "-> tensor<?xf32, #stablehlo.bounds<4>>"));
    // b * a: the static operand is the same array; the product is bounded.
    CHECK(has(m, "\"stablehlo.multiply\"(%1, %arg0) : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<4xf32>) -> "
                 "tensor<?xf32, #stablehlo.bounds<4>>"));
    CHECK(has(m, "\"stablehlo.set_dimension_size\"(%2, %3) {dimension = 0 : i64} : (tensor<?xf32, "
                 "#stablehlo.bounds<4>>, tensor<i32>) -> tensor<4xf32>"));
    CHECK(has(m, "value = dense<4> : tensor<i32>"));

    const auto made = eval(set_dimension_size<0>(x, 2)); // untraced
    const std::string m2 = to_stablehlo([&](const f32<4>& a) { return eval(made + a); }, x);
    CHECK(has(m2, "value = dense<\"0x0000803F000000400000404000008040\"> : tensor<4xf32>"));
    CHECK(has(m2, "value = dense<2> : tensor<i32>"));
    CHECK(has(m2, "\"stablehlo.add\"(%2, %arg0) : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<4xf32>) -> "
                  "tensor<?xf32, #stablehlo.bounds<4>>"));
    // An out-of-range size is still the op's error while exporting.
    CHECK_THROWS_WITH(to_stablehlo([](const f32<4>& a) { return eval(set_dimension_size<0>(a, 5)); }, x),
                      doctest::Contains("set_dimension_size"));
}
