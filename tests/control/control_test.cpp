// Control flow and computations (issue #17): call, conditional (both forms), while_loop,
// custom_call, optimization_barrier, copy, bitcast, tokens, infeed / outfeed. The spec's examples
// verbatim, the type rules' run-time halves, exceptions inside computations, allocation counts,
// and infeed / outfeed across threads.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <xlet/xlet.hpp>

#include "alloc_counter.hpp"

using namespace xlet;

namespace {

template<class T, std::size_t... D>
bool equal_to(const tensor<T, D...>& a, std::initializer_list<T> v) {
    return std::equal(a.begin(), a.end(), v.begin(), v.end());
}

// The message of an exception and of everything nested in it, joined by " / ".
std::string messages(const std::exception& e) {
    std::string s = e.what();
    try {
        std::rethrow_if_nested(e);
    } catch (const std::exception& inner) {
        s += " / " + messages(inner);
    }
    return s;
}

} // namespace

// ---------------------------------------------------------------- call

TEST_CASE("call: a plain callable, generic lambdas, expressions in and out, zero operands") {
    f32<3> v{1, 2, 3};
    auto r = call([](const auto& a, const auto& b) { return a * b + 1.0f; }, v, v * 2.0f);
    static_assert(std::is_same_v<decltype(r), f32<3>>); // materialised
    CHECK(equal_to(r, {3.0f, 9.0f, 19.0f}));
    auto t = call([](const f32<3>& a) { return std::tuple{a + 1.0f, reduce(a, 0.0f, add_fn{}, dims<0>)}; }, v);
    static_assert(std::is_same_v<decltype(t), std::tuple<f32<3>, f32<>>>);
    CHECK(equal_to(std::get<0>(t), {2.0f, 3.0f, 4.0f}));
    CHECK(std::get<1>(t)() == 6.0f);
    auto z = call([] { return f32<2>{7, 8}; });
    CHECK(equal_to(z, {7.0f, 8.0f}));
    CHECK(call([](int a, int b) { return a + b; }, 2, 3) == 5); // any values
}

TEST_CASE("call: a named, typed computation defined once and reused") {
    auto axpy = computation<"axpy", f32<3>(f32<>, f32<3>, f32<3>)>(
        [](const f32<>& a, const f32<3>& x, const f32<3>& y) { return a * x + y; });
    static_assert(decltype(axpy)::name == "axpy" && decltype(axpy)::arity == 3);
    f32<3> v{1, 2, 3};
    f32<> two = 2.0f;
    f32<3> r1 = call(axpy, two, v, v);
    CHECK(equal_to(r1, {3.0f, 6.0f, 9.0f}));
    // Operands that are expressions are evaluated into the parameter types first.
    f32<3> r2 = call(axpy, two, v * 2.0f, v + 1.0f);
    CHECK(equal_to(r2, {6.0f, 11.0f, 16.0f}));
    // Reused inside a loop.
    f32<3> acc{};
    for (int i = 0; i < 4; ++i)
        acc = call(axpy, two, v, acc);
    CHECK(equal_to(acc, {8.0f, 16.0f, 24.0f}));
}

TEST_CASE("call: an exception inside the computation names the op and the computation") {
    auto bad = computation<"bad", f32<2>(f32<2>)>([](const f32<2>& x) -> f32<2> {
        if (x(0) > 0) throw std::runtime_error("boom");
        return x;
    });
    f32<2> p{1, 2};
    try {
        (void)call(bad, p);
        FAIL("no exception");
    } catch (const xlet::error& e) {
        CHECK(std::string(e.what()) == "xlet::call: computation 'bad' threw: boom");
        CHECK_THROWS_WITH_AS(std::rethrow_if_nested(e), "boom", std::runtime_error);
    }
    CHECK_THROWS_WITH_AS(call([](int) -> int { throw std::logic_error("x"); }, 1),
                         "xlet::call: the computation threw: x", xlet::error);
}

// ---------------------------------------------------------------- conditional

TEST_CASE("conditional, predicate form: only the chosen branch runs, operands of different types") {
    int true_runs = 0, false_runs = 0;
    f32<3> v{1, 2, 3};
    s32<2> w{10, 20};
    auto t = [&](const f32<3>& a) {
        ++true_runs;
        return reduce(a, 0.0f, add_fn{}, dims<0>);
    };
    auto f = [&](const s32<2>& b) {
        ++false_runs;
        return f32<>(static_cast<float>(b(0) * b(1)));
    };
    f32<> r1 = conditional(true, v, t, w, f);
    CHECK(r1() == 6.0f);
    CHECK((true_runs == 1 && false_runs == 0));
    f32<> r2 = conditional(pred<>(false), v, t, w, f);
    CHECK(r2() == 200.0f);
    CHECK((true_runs == 1 && false_runs == 1));
    // A rank-0 pred expression as the predicate; an expression operand stays lazy until used.
    f32<> k = 5.0f;
    f32<> r3 = conditional(
        k < 3.0f, v * 2.0f, [](const auto& a) { return reduce(a, 0.0f, max_fn{}, dims<0>); }, w, f);
    CHECK(r3() == 200.0f);
    f32<> r4 = conditional(
        k > 3.0f, v * 2.0f, [](const auto& a) { return reduce(a, 0.0f, max_fn{}, dims<0>); }, w, f);
    CHECK(r4() == 6.0f);
}

TEST_CASE("conditional, branch-index form: N branches, out-of-range index runs the last") {
    std::vector<int> ran;
    f32<2> a{1, 2};
    s32<> b = 7;
    f32<2, 2> c{{1, 2}, {3, 4}};
    auto branches = std::tuple{[&](const f32<2>& x) {
                                   ran.push_back(0);
                                   return f32<>(x(0) + x(1));
                               },
                               [&](const s32<>& x) {
                                   ran.push_back(1);
                                   return f32<>(static_cast<float>(x()) * 10);
                               },
                               [&](const f32<2, 2>& x) {
                                   ran.push_back(2);
                                   return reduce(x, 0.0f, add_fn{}, dims<0, 1>);
                               }};
    auto ops = std::forward_as_tuple(a, b, c);
    CHECK(conditional(0, branches, ops)() == 3.0f);
    CHECK(conditional(s32<>(1), branches, ops)() == 70.0f);
    CHECK(conditional(2, branches, ops)() == 10.0f);
    CHECK(conditional(3, branches, ops)() == 10.0f);  // >= N: the last branch
    CHECK(conditional(-1, branches, ops)() == 10.0f); // < 0: the last branch
    CHECK(conditional(std::numeric_limits<std::int32_t>::min(), branches, ops)() == 10.0f);
    s32<> k = 1;
    CHECK(conditional(k + 1, branches, ops)() == 10.0f); // a rank-0 s32 expression
    CHECK(ran == std::vector<int>{0, 1, 2, 2, 2, 2, 2});
    // One branch: every index runs it.
    CHECK(conditional(5, std::tuple{[](int x) { return x * 2; }}, std::tuple{21}) == 42);
}

TEST_CASE("conditional: a branch that throws is named") {
    auto ok = [](int x) { return x; };
    auto bad = [](int) -> int { throw std::runtime_error("nope"); };
    CHECK_THROWS_WITH_AS(conditional(1, std::tuple{ok, bad, ok}, std::tuple{1, 2, 3}),
                         "xlet::conditional: branch 1 threw: nope", xlet::error);
    CHECK_THROWS_WITH_AS(conditional(false, 1, ok, 2, bad), "xlet::conditional: the false branch threw: nope",
                         xlet::error);
    CHECK(conditional(true, 1, ok, 2, bad) == 1); // the other branch never runs
}

// ---------------------------------------------------------------- while_loop

TEST_CASE("while_loop: the spec's example (1000 iterations adding a constant vector)") {
    // init = {0, zero_vector[10]}; while (result(0) < 1000) { result = {result(0) + 1, result(1) + c} }
    f32<10> constant_vector{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    auto [n, acc] = while_loop([](const s32<>& i, const f32<10>&) { return i < 1000; },
                               [&](const s32<>& i, const f32<10>& v) {
                                   return std::tuple{i + 1, v + constant_vector};
                               },
                               std::tuple{s32<>(0), f32<10>{}});
    static_assert(std::is_same_v<decltype(n), s32<>> && std::is_same_v<decltype(acc), f32<10>>);
    CHECK(n() == 1000);
    for (int k = 0; k < 10; ++k)
        CHECK(acc(k) == 1000.0f * static_cast<float>(k + 1));
}

TEST_CASE("while_loop: state forms (whole tuple, single tensor, plain values, zero iterations)") {
    // The whole tuple as the computations' one parameter (the spec's T -> PRED, T -> T).
    auto r = while_loop([](const auto& s) { return std::get<0>(s) < 5; },
                        [](const auto& s) {
                            return std::tuple{std::get<0>(s) + 1, std::get<1>(s) * 2.0f};
                        },
                        std::tuple{s32<>(0), f32<2>{1, 3}});
    CHECK(std::get<0>(r)() == 5);
    CHECK(equal_to(std::get<1>(r), {32.0f, 96.0f}));
    // A single tensor state; cond returns a bool.
    f32<4> x = while_loop([](const f32<4>& s) { return s(0) < 100.0f; }, [](const f32<4>& s) { return s * s; },
                          f32<4>{2, 1, 0, -1});
    CHECK(equal_to(x, {256.0f, 1.0f, 0.0f, 1.0f}));
    // Plain C++ values in the state.
    auto [i, sum] = while_loop([](int k, long) { return k < 10; },
                               [](int k, long s) {
                                   return std::tuple{k + 1, s + k};
                               },
                               std::tuple{0, 0L});
    CHECK((i == 10 && sum == 45));
    // Zero iterations: the initial state, evaluated from an expression.
    f32<2> y{1, 2};
    f32<2> z = while_loop([](const f32<2>&) { return false; }, [](const f32<2>& s) { return s + 1.0f; }, y * 3.0f);
    CHECK(equal_to(z, {3.0f, 6.0f}));
    // The body's elements read each other's old values (two states, swapped).
    auto [a, b] = while_loop([](const s32<>& p, const s32<>&) { return p < 100; },
                             [](const s32<>& p, const s32<>& q) {
                                 return std::tuple{q, p + q};
                             }, // Fibonacci
                             std::tuple{s32<>(0), s32<>(1)});
    CHECK((a() == 144 && b() == 233));
}

TEST_CASE("while_loop: no allocation per iteration for an inline state; heap states allocate once") {
    f32<10> c{1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    auto cond = [](const s32<>& i, const f32<10>&) { return i < 1000; };
    auto body = [&](const s32<>& i, const f32<10>& v) { return std::tuple{i + 1, v + c}; };
    auto init = std::tuple{s32<>(0), f32<10>{}};
    const long before = allocations.load();
    auto r = while_loop(cond, body, init);
    CHECK(allocations.load() == before);
    CHECK(std::get<1>(r)(9) == 1000.0f);
    // A 64 KiB heap state: the initial state, the second buffer, nothing per iteration.
    f32<16384> big{};
    const long before_big = allocations.load();
    auto rb = while_loop([](const s32<>& i, const f32<16384>&) { return i < 100; },
                         [](const s32<>& i, const f32<16384>& v) {
                             return std::tuple{i + 1, v + 0.5f};
                         },
                         std::tuple{s32<>(0), std::cref(big).get() * 1.0f});
    CHECK(allocations.load() - before_big <= 3);
    CHECK(std::get<1>(rb)(16383) == 50.0f);
}

TEST_CASE("while_loop: exceptions in the body or condition are named with the iteration") {
    auto body = [](const s32<>& i) -> s32<> {
        if (i() == 3) throw std::runtime_error("bad step");
        return s32<>(i + 1);
    };
    try {
        (void)while_loop([](const s32<>& i) { return i < 10; }, body, s32<>(0));
        FAIL("no exception");
    } catch (const xlet::error& e) {
        CHECK(std::string(e.what()) == "xlet::while_loop: the body (iteration 3) threw: bad step");
    }
    CHECK_THROWS_WITH_AS(while_loop(
                             [](int i) -> bool {
                                 if (i == 2) throw std::runtime_error("c");
                                 return true;
                             },
                             [](int i) { return i + 1; }, 0),
                         "xlet::while_loop: the condition (iteration 2) threw: c", xlet::error);
}

// ---------------------------------------------------------------- nesting

TEST_CASE("nested while / conditional / call, and an exception through three levels") {
    // sum over i < 20 of (i even ? call(square, i) : conditional on i % 3 ...)
    auto square = computation<"square", s32<>(s32<>)>([](const s32<>& x) { return x * x; });
    auto [i, acc] =
        while_loop([](const s32<>& k, const s32<>&) { return k < 20; },
                   [&](const s32<>& k, const s32<>& a) {
                       s32<> term = conditional(k % 2,
                                                std::tuple{[&](const s32<>& x) { return call(square, x); },
                                                           [](const s32<>& x) { return s32<>(x * -1); }},
                                                std::forward_as_tuple(k, k));
                       return std::tuple{k + 1, s32<>(a + term)}; // term is a local: evaluate before returning
                   },
                   std::tuple{s32<>(0), s32<>(0)});
    int expect = 0;
    for (int k = 0; k < 20; ++k)
        expect += k % 2 == 0 ? k * k : -k;
    CHECK((i() == 20 && acc() == expect));
    try {
        (void)while_loop([](int k) { return k < 5; },
                         [](int k) {
                             return conditional(
                                 k == 2, k,
                                 [](int x) {
                                     return call(
                                                [](int y) -> int {
                                                    if (y == 2) throw std::runtime_error("deep");
                                                    return y;
                                                },
                                                x) +
                                            1;
                                 },
                                 k, [](int x) { return x + 1; });
                         },
                         0);
        FAIL("no exception");
    } catch (const xlet::error& e) {
        CHECK(messages(e) ==
              "xlet::while_loop: the body (iteration 2) threw: xlet::conditional: the true branch threw: "
              "xlet::call: the computation threw: deep / xlet::conditional: the true branch threw: "
              "xlet::call: the computation threw: deep / xlet::call: the computation threw: deep / deep");
    }
}

// ---------------------------------------------------------------- custom_call

// The spec's example, verbatim but for EXPECT_EQ -> CHECK and the elided rest of z.
extern "C" void myfunc(void* out, void** in) {
    float(&x)[2] = *static_cast<float(*)[2]>(in[0]);
    float(&y)[2][3] = *static_cast<float(*)[2][3]>(in[1]);
    CHECK(1 == x[0]);
    CHECK(2 == x[1]);
    CHECK(10 == y[0][0]);
    CHECK(20 == y[0][1]);
    CHECK(30 == y[0][2]);
    CHECK(40 == y[1][0]);
    CHECK(50 == y[1][1]);
    CHECK(60 == y[1][2]);
    float(&z)[3][3] = *static_cast<float(*)[3][3]>(out);
    z[0][0] = x[1] + y[1][0];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (i || j) z[i][j] = x[i % 2] * y[i % 2][j];
}

// The form with const inputs.
extern "C" void scale_by_two(void* out, const void** in) {
    const float* x = static_cast<const float*>(in[0]);
    float* o = static_cast<float*>(out);
    for (int i = 0; i < 4; ++i)
        o[i] = 2 * x[i];
}

TEST_CASE("custom_call: the spec's myfunc example") {
    register_custom_call("myfunc", &myfunc);
    f32<2> x{1, 2};
    f32<2, 3> y{{10, 20, 30}, {40, 50, 60}};
    f32<3, 3> z = custom_call<"myfunc", f32<3, 3>>(x, y);
    CHECK(z(0, 0) == 42.0f); // x[1] + y[1][0]
    CHECK(z(0, 1) == 20.0f);
    CHECK(z(1, 2) == 120.0f);
    CHECK(z(2, 2) == 30.0f);
    // Expression operands are evaluated first.
    f32<3, 3> z2 = custom_call<"myfunc", f32<3, 3>>(x * 1.0f, y + 0.0f);
    CHECK(std::equal(z.begin(), z.end(), z2.begin()));
}

TEST_CASE("custom_call: const form, typed form, tuple results, registry and errors") {
    register_custom_call("scale_by_two", &scale_by_two);
    f32<4> v{1, 2, 3, 4};
    CHECK(equal_to(custom_call<"scale_by_two", f32<4>>(v), {2.0f, 4.0f, 6.0f, 8.0f}));

    register_custom_call<f32<4>(f32<4>, f32<4>)>("axpy4",
                                                 [](const f32<4>& a, const f32<4>& b) { return a * 3.0f + b; });
    CHECK(equal_to(custom_call<"axpy4", f32<4>>(v, v + 1.0f), {5.0f, 9.0f, 13.0f, 17.0f}));
    CHECK_THROWS_WITH_AS((custom_call<"axpy4", f32<4>>(v)),
                         "xlet::custom_call: target 'axpy4' was registered as f32[4](f32[4], f32[4]) but is called as "
                         "f32[4](f32[4])",
                         xlet::error);

    // A tuple result: out is an array of one pointer per element.
    register_custom_call(
        "split", +[](void* out, const void** in) {
            void** outs = static_cast<void**>(out);
            const float* x = static_cast<const float*>(in[0]);
            static_cast<float*>(outs[0])[0] = x[0] + x[1];
            static_cast<std::int32_t*>(outs[1])[0] = 7;
            static_cast<std::int32_t*>(outs[1])[1] = 8;
        });
    auto [s, t] = custom_call<"split", std::tuple<f32<>, s32<2>>>(v);
    CHECK((s() == 3.0f && t(0) == 7 && t(1) == 8));

    // A missing target is named.
    CHECK_THROWS_WITH_AS((custom_call<"nosuch", f32<4>>(v)),
                         "xlet::custom_call: no target named 'nosuch' is registered (register_custom_call(\"nosuch\", "
                         "f) first)",
                         xlet::error);
    // A private registry; removal.
    custom_call_registry reg;
    reg.add("double", &scale_by_two);
    CHECK(equal_to(custom_call<"double", f32<4>>(reg, v), {2.0f, 4.0f, 6.0f, 8.0f}));
    CHECK(reg.remove("double"));
    CHECK_FALSE(reg.contains("double"));
    CHECK_THROWS_AS((custom_call<"double", f32<4>>(reg, v)), xlet::error);
    CHECK_FALSE(reg.remove("double"));
    // Several names, registered out of order (kept sorted), one replaced by a second registration
    // (the typed form over the C form), prefixes of each other.
    reg.add("m", &scale_by_two);
    reg.add("b", &scale_by_two);
    reg.add<f32<4>(f32<4>)>("z", [](const f32<4>& a) { return f32<4>(a + 1.0f); });
    reg.add("mm", &scale_by_two);
    reg.add<f32<4>(f32<4>)>("m", [](const f32<4>& a) { return f32<4>(a * 3.0f); });
    CHECK(reg.contains("b"));
    CHECK(reg.contains("m"));
    CHECK(reg.contains("mm"));
    CHECK(reg.contains("z"));
    CHECK_FALSE(reg.contains("a"));
    CHECK_FALSE(reg.contains("n"));
    CHECK(equal_to(custom_call<"b", f32<4>>(reg, v), {2.0f, 4.0f, 6.0f, 8.0f}));
    CHECK(equal_to(custom_call<"m", f32<4>>(reg, v), {3.0f, 6.0f, 9.0f, 12.0f}));
    CHECK(equal_to(custom_call<"mm", f32<4>>(reg, v), {2.0f, 4.0f, 6.0f, 8.0f}));
    CHECK(equal_to(custom_call<"z", f32<4>>(reg, v), {2.0f, 3.0f, 4.0f, 5.0f}));
    CHECK(reg.remove("m"));
    CHECK_FALSE(reg.contains("m"));
    CHECK(equal_to(custom_call<"mm", f32<4>>(reg, v), {2.0f, 4.0f, 6.0f, 8.0f}));
    // A copy of an entry keeps its callable alive when the registry replaces it.
    const auto kept = reg.find("z");
    reg.add("z", &scale_by_two);
    f32<4> r;
    const void* in[] = {&v}; // the typed form takes the operand tensors themselves
    kept.fn(&r, in);
    CHECK(equal_to(r, {2.0f, 3.0f, 4.0f, 5.0f}));
    CHECK(equal_to(custom_call<"z", f32<4>>(reg, v), {2.0f, 4.0f, 6.0f, 8.0f}));
    // An exception inside the target.
    register_custom_call(
        "throws", +[](void*, const void**) { throw std::runtime_error("target failed"); });
    CHECK_THROWS_WITH_AS((custom_call<"throws", f32<4>>(v)), "xlet::custom_call: target 'throws' threw: target failed",
                         xlet::error);
}

// ---------------------------------------------------------------- barrier, copy, bitcast

TEST_CASE("optimization_barrier: expressions evaluated, arrays passed through, fusion stops") {
    f32<3> x{1, 2, 3};
    f32<3> y{4, 5, 6};
    auto [a, b, k] = optimization_barrier(x * 2.0f, y, 7);
    static_assert(std::is_same_v<decltype(a), f32<3>>);
    static_assert(std::is_same_v<decltype(b), const f32<3>&>); // nothing to evaluate: y itself
    CHECK(equal_to(a, {2.0f, 4.0f, 6.0f}));
    CHECK(&b == &y);
    CHECK(k == 7);
    // One operand: that result, a tensor.
    auto e = optimization_barrier(x + y);
    static_assert(std::is_same_v<decltype(e), f32<3>>);
    CHECK(equal_to(e, {5.0f, 7.0f, 9.0f}));
    // The barrier's result is a leaf: exp(barrier(x + y)) reads a tensor, not x and y.
    f32<3> f = exp(optimization_barrier(x - x));
    CHECK(equal_to(f, {1.0f, 1.0f, 1.0f}));
}

TEST_CASE("copy and bitcast") {
    f32<2, 3> x{{1, 2, 3}, {4, 5, 6}};
    auto c = copy(x);
    static_assert(std::is_same_v<decltype(c), f32<2, 3>>);
    CHECK(c.data() != x.data());
    CHECK(std::equal(c.begin(), c.end(), x.begin()));
    CHECK(equal_to(copy(transpose(x, dims<1, 0>)), {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}));
    // Same element type on an array: a view over x's memory (writes go through).
    auto m = bitcast<f32<6>>(x);
    static_assert(std::is_same_v<decltype(m), tensor_map<float, 6>>);
    CHECK(m.data() == x.data());
    m(5) = 60.0f;
    CHECK(x(1, 2) == 60.0f);
    const auto& cx = x;
    static_assert(std::is_same_v<decltype(bitcast<f32<3, 2>>(cx)), tensor_map<const float, 3, 2>>);
    // Another type of the same width: the bits, lazily.
    u32<3, 2> bits = bitcast<u32<3, 2>>(x);
    std::uint32_t one;
    float f1 = 1.0f;
    std::memcpy(&one, &f1, 4);
    CHECK(bits(0, 0) == one);
    // An expression: a lazy reshape.
    f32<3, 2> r = bitcast<f32<3, 2>>(x + 1.0f);
    CHECK(r(2, 1) == 61.0f);
}

// ---------------------------------------------------------------- tokens, infeed, outfeed

TEST_CASE("tokens: after_all and add_dependency") {
    token t0 = after_all();
    token t1 = after_all(t0, t0, after_all(t0));
    (void)t1;
    f32<2> x{1, 2};
    const f32<2>& same = add_dependency(x, t0);
    CHECK(&same == &x);
    auto lazy = add_dependency(x + 1.0f, t1); // still an expression
    static_assert(expression<decltype(lazy)> && !std::is_same_v<decltype(lazy), f32<2>>);
    CHECK(equal_to(f32<2>(lazy), {2.0f, 3.0f}));
}

TEST_CASE("infeed / outfeed: order, types, tuples, the empty tuple, close") {
    feed_queue in, out;
    in.push(f32<2>{1, 2});
    in.push(std::tuple{s32<>(5), f32<3>{7, 8, 9}});
    in.push(f32<2>{3, 4} * 10.0f); // an expression is evaluated when pushed
    token t = after_all();
    auto [a, t1] = infeed<f32<2>>(in, t);
    auto [b, t2] = infeed<std::tuple<s32<>, f32<3>>>(in, t1);
    // The empty tuple reads nothing.
    auto [e, t3] = infeed<std::tuple<>>(in, t2);
    (void)e;
    CHECK(in.size() == 1);
    // A wrong type is named and leaves the item in the queue.
    CHECK_THROWS_WITH_AS(infeed<s32<2>>(in, t3),
                         "xlet::infeed: expected an item of type s32[2], the next item is f32[2]", xlet::error);
    auto [c, t4] = infeed<f32<2>>(in, t3, "config");
    CHECK(equal_to(a, {1.0f, 2.0f}));
    CHECK((std::get<0>(b)() == 5 && std::get<1>(b)(2) == 9.0f));
    CHECK(equal_to(c, {30.0f, 40.0f}));
    token t5 = outfeed(out, a + c, t4);
    token t6 = outfeed(out, std::tuple{c, s32<>(1)}, t5, "cfg");
    (void)t6;
    CHECK(equal_to(out.pop<f32<2>>(), {31.0f, 42.0f}));
    CHECK(std::get<1>(*out.try_pop<std::tuple<f32<2>, s32<>>>())() == 1);
    CHECK_FALSE(out.try_pop<f32<2>>().has_value());
    // Large items move through the queue.
    f32<100000> big{};
    big(99999) = 3.0f;
    in.push(std::move(big));
    CHECK(std::get<0>(infeed<f32<100000>>(in, t))(99999) == 3.0f);
    // Closing wakes a waiting infeed with an error.
    std::thread closer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        in.close();
    });
    CHECK_THROWS_WITH_AS(infeed<f32<2>>(in, t), "xlet::infeed: the queue is closed and empty", xlet::error);
    closer.join();
    CHECK_THROWS_WITH_AS(outfeed(in, a, t), "xlet::outfeed: the queue is closed", xlet::error);
}

TEST_CASE("infeed / outfeed across threads: a program in a while_loop, a host feeding and draining") {
    static constexpr int n = 2000;
    feed_queue in(16), out(16); // bounded: the producers wait
    std::thread host_feed([&] {
        for (int i = 0; i < n; ++i)
            in.push(std::tuple{s32<>(i), f32<4>{float(i), 1, 2, 3}});
    });
    std::vector<int> drained;
    std::thread host_drain([&] {
        for (int i = 0; i < n; ++i)
            drained.push_back(out.pop<s32<>>()());
    });
    // The device program: read, compute, write, n times, threading the token.
    auto [k, tok, total] =
        while_loop([](const s32<>& i, const token&, const f32<>&) { return i < n; },
                   [&](const s32<>& i, const token& t, const f32<>& acc) {
                       auto [item, t1] = infeed<std::tuple<s32<>, f32<4>>>(in, t);
                       token t2 = outfeed(out, std::get<0>(item) * 2, t1);
                       return std::tuple{i + 1, t2, acc + reduce(std::get<1>(item), 0.0f, add_fn{}, dims<0>)};
                   },
                   std::tuple{s32<>(0), after_all(), f32<>(0.0f)});
    (void)tok;
    host_feed.join();
    host_drain.join();
    CHECK(k() == n);
    REQUIRE(drained.size() == static_cast<std::size_t>(n));
    bool in_order = true;
    for (int i = 0; i < n; ++i)
        in_order = in_order && drained[static_cast<std::size_t>(i)] == 2 * i;
    CHECK(in_order);
    CHECK(total() == static_cast<float>(n) * (n - 1) / 2 + 6.0f * n);
}

TEST_CASE("feed_queue: several producers and consumers, every item once, per-producer order kept") {
    feed_queue q(8);
    constexpr int producers = 3, per = 3000;
    std::vector<std::thread> ts;
    for (int p = 0; p < producers; ++p)
        ts.emplace_back([&, p] {
            for (int i = 0; i < per; ++i)
                q.push(s32<2>{p, i});
        });
    std::vector<std::vector<int>> seen(2 * producers);
    std::vector<std::thread> cs;
    std::atomic<int> taken{0};
    std::mutex m;
    std::vector<std::vector<int>> last(2, std::vector<int>(producers, -1));
    std::atomic<bool> order_ok{true};
    for (int c = 0; c < 2; ++c)
        cs.emplace_back([&, c] {
            while (taken.fetch_add(1) < producers * per) {
                auto [v, t] = infeed<s32<2>>(q, token{});
                (void)t;
                if (v(1) <= last[static_cast<std::size_t>(c)][static_cast<std::size_t>(v(0))]) order_ok = false;
                last[static_cast<std::size_t>(c)][static_cast<std::size_t>(v(0))] = v(1);
                std::lock_guard g(m);
                seen[static_cast<std::size_t>(v(0))].push_back(v(1));
            }
        });
    for (auto& t : ts)
        t.join();
    for (auto& t : cs)
        t.join();
    CHECK(order_ok.load());
    for (int p = 0; p < producers; ++p) {
        auto s = seen[static_cast<std::size_t>(p)];
        std::sort(s.begin(), s.end());
        bool all = s.size() == per;
        for (int i = 0; all && i < per; ++i)
            all = s[static_cast<std::size_t>(i)] == i;
        CHECK(all);
    }
    CHECK(q.empty());
}

// ---------------------------------------------------------------- random programs

// Three program shapes with nested while / conditional / call, run on random data, trip counts and
// branch choices (seeded), each checked against the same program written as plain C++ loops.
namespace {

struct lcg {
    std::uint64_t s;
    std::int32_t next(std::int32_t lo, std::int32_t hi) { // [lo, hi]
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return lo + static_cast<std::int32_t>((s >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
    }
};

// Program A: while i < n { b = v[i % 4] (any s32, so often out of range); v = case b of
//   0: v + w;  1: call(twice, v) (a computation with its own while loop);  2: reverse-accumulate;
//   last: v * 3 - w }.
s32<4> program_a(const s32<4>& init, const s32<4>& w, std::int32_t n) {
    auto twice = computation<"twice", s32<4>(s32<4>)>([](const s32<4>& x) {
        return std::get<1>(while_loop([](const s32<>& k, const s32<4>&) { return k < 2; },
                                      [](const s32<>& k, const s32<4>& y) {
                                          return std::tuple{k + 1, y + y};
                                      },
                                      std::tuple{s32<>(0), x}));
    });
    auto r = while_loop([&](const s32<>& i, const s32<4>&) { return i < n; },
                        [&](const s32<>& i, const s32<4>& v) {
                            const std::int32_t b = v(static_cast<std::size_t>(i() % 4));
                            s32<4> nv =
                                conditional(b,
                                            std::tuple{[&](const s32<4>& x) { return s32<4>(x + w); },
                                                       [&](const s32<4>& x) { return call(twice, x); },
                                                       [](const s32<4>& x) { return s32<4>(x + rev(x, dims<0>)); },
                                                       [&](const s32<4>& x) { return s32<4>(x * 3 - w); }},
                                            std::forward_as_tuple(v, v, v, v));
                            return std::tuple{i + 1, s32<4>((nv % 1000 + 1000) % 1000 - 500)}; // keep values small
                        },
                        std::tuple{s32<>(0), init});
    return std::get<1>(r);
}
std::array<std::int32_t, 4> program_a_ref(std::array<std::int32_t, 4> v, const std::array<std::int32_t, 4>& w,
                                          std::int32_t n) {
    for (std::int32_t i = 0; i < n; ++i) {
        std::int32_t b = v[static_cast<std::size_t>(i % 4)];
        if (b < 0 || b > 3) b = 3;
        std::array<std::int32_t, 4> nv{};
        for (std::size_t k = 0; k < 4; ++k) {
            switch (b) {
            case 0:
                nv[k] = v[k] + w[k];
                break;
            case 1:
                nv[k] = v[k] * 4;
                break;
            case 2:
                nv[k] = v[k] + v[3 - k];
                break;
            default:
                nv[k] = v[k] * 3 - w[k];
            }
        }
        for (std::size_t k = 0; k < 4; ++k)
            v[k] = (nv[k] % 1000 + 1000) % 1000 - 500;
    }
    return v;
}

// Program B: nested loops, the inner trip count from the outer state, a pred conditional inside.
std::tuple<std::int32_t, float> program_b(std::int32_t outer, std::int32_t m) {
    auto r = while_loop([&](const s32<>& i, const s32<>&, const f32<>&) { return i < outer; },
                        [&](const s32<>& i, const s32<>& acc, const f32<>& f) {
                            auto [j, a2, f2] =
                                while_loop([&](const s32<>& jj, const s32<>&, const f32<>&) { return jj < (i % m); },
                                           [&](const s32<>& jj, const s32<>& a, const f32<>& g) {
                                               auto step = conditional((jj + a) % 3 == 0, a,
                                                                       [](const s32<>& x) { return s32<>(x + 7); }, g,
                                                                       [&](const f32<>&) { return s32<>(jj * 2); });
                                               return std::tuple{jj + 1, s32<>(a + step), g + 0.5f};
                                           },
                                           std::tuple{s32<>(0), acc, f});
                            (void)j;
                            return std::tuple{i + 1, s32<>(a2 % 100000), f2};
                        },
                        std::tuple{s32<>(0), s32<>(1), f32<>(0.0f)});
    return {std::get<1>(r)(), std::get<2>(r)()};
}
std::tuple<std::int32_t, float> program_b_ref(std::int32_t outer, std::int32_t m) {
    std::int32_t acc = 1;
    float f = 0;
    for (std::int32_t i = 0; i < outer; ++i) {
        std::int32_t a = acc;
        float g = f;
        for (std::int32_t jj = 0; jj < i % m; ++jj) {
            std::int32_t step = (jj + a) % 3 == 0 ? a + 7 : jj * 2;
            a += step;
            g += 0.5f;
        }
        acc = a % 100000;
        f = g;
    }
    return {acc, f};
}

// Program C: a conditional whose branches hold loops and calls, chosen by a pred on the data.
std::tuple<s32<>, f32<3>> program_c(const f32<3>& x, std::int32_t n, bool which) {
    auto scale = computation<"scale", f32<3>(f32<3>, f32<>)>([](const f32<3>& v, const f32<>& s) { return v * s; });
    return conditional(
        pred<>(which), x,
        [&](const f32<3>& v) {
            return while_loop([&](const s32<>& k, const f32<3>&) { return k < n; },
                              [&](const s32<>& k, const f32<3>& a) {
                                  return std::tuple{k + 1, call(scale, a, f32<>(0.5f))};
                              },
                              std::tuple{s32<>(0), v});
        },
        x,
        [&](const f32<3>& v) {
            return std::tuple{s32<>(-1), f32<3>(v + static_cast<float>(n))};
        });
}

} // namespace

TEST_CASE("random programs: nested while / conditional / call against plain C++") {
    lcg g{12345};
    int checked = 0;
    for (int trial = 0; trial < 300; ++trial) {
        s32<4> init{g.next(-6, 6), g.next(-6, 6), g.next(0, 4), g.next(0, 4)};
        s32<4> w{g.next(-9, 9), g.next(-9, 9), g.next(-9, 9), g.next(-9, 9)};
        const std::int32_t n = g.next(0, 40);
        auto got = program_a(init, w, n);
        auto want = program_a_ref({init(0), init(1), init(2), init(3)}, {w(0), w(1), w(2), w(3)}, n);
        CHECK(std::equal(got.begin(), got.end(), want.begin()));
        const std::int32_t outer = g.next(0, 30), m = g.next(1, 9);
        CHECK(program_b(outer, m) == program_b_ref(outer, m));
        f32<3> x{static_cast<float>(g.next(-100, 100)), 2.0f, static_cast<float>(g.next(1, 8))};
        const std::int32_t k = g.next(0, 12);
        const bool which = g.next(0, 1) == 1;
        auto [kc, c] = program_c(x, k, which);
        for (std::size_t e = 0; e < 3; ++e) {
            float want_c = x(e);
            if (which)
                for (int s = 0; s < k; ++s)
                    want_c *= 0.5f;
            else
                want_c += static_cast<float>(k);
            CHECK(c(e) == want_c);
        }
        CHECK(kc() == (which ? k : -1));
        ++checked;
    }
    CHECK(checked == 300);
}
