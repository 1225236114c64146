// The quantization passes on expressions (include/xlet/passes/, issue #26):
//   1. the type of each rewrite: std::is_same_v on the expression a user would write for it;
//   2. to_stablehlo of rewritten expressions: the seed's examples as exact text, and every program
//      of quant_pass_cases.hpp against xlet-translate's module pass run on the export of the
//      original (the same op sequence: the module pass's chlo.broadcast_<op> is the op on a
//      broadcast_in_dim here; constants, broadcasts and bitcast_convert views left aside);
//   3. values: every program of quant_pass_cases.hpp, its passes::apply<...> forms, and the module
//      passes' C++ (generated at build time from the same export: qm_<case>, qq_<case>) on the
//      same stored integers: legalize_quant_to_math gives the module pass's bits exactly, the qdq
//      form the direct op's bits exactly, and the direct op the module pass's bits where the
//      formulas agree (within 1 of the stored integer where the pass rounds twice).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <xlet/stablehlo/export.hpp>

#include "quant_common.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "parser.hpp"
#include "passes.hpp"
#include "printer.hpp"
#include "quant_pass_cases.hpp"
#include "quant_pass_headers.hpp" // generated: qm_<case>.hpp and qq_<case>.hpp of every case

namespace {

using namespace quant_pass_cases;
using passes::legalize_qdq_to_quantized_op;
using passes::legalize_quant_to_math;
using passes::legalize_quantized_op_to_qdq;

// A pass applied to an expression or to each expression of a tuple.
template<class P, class R>
auto apply_all(R&& r) {
    if constexpr (expression<R>)
        return passes::apply<P>(std::forward<R>(r));
    else
        return std::apply([](auto&&... e) { return std::make_tuple(passes::apply<P>(std::move(e))...); },
                          std::forward<R>(r));
}
template<class R>
auto materialise(const R& r) {
    if constexpr (expression<R>)
        return eval(r);
    else
        return std::apply([](const auto&... e) { return std::make_tuple(eval(e)...); }, r);
}
template<class F, class R>
void each_result(const R& a, F f) {
    if constexpr (expression<R>)
        f(a, 0);
    else
        [&]<std::size_t... I>(std::index_sequence<I...>) { (f(std::get<I>(a), I), ...); }
    (std::make_index_sequence<std::tuple_size_v<R>>{});
}
template<class F, class A, class B>
void each_pair(const A& a, const B& b, F f) {
    if constexpr (expression<A>) {
        f(a, b, 0);
    } else {
        static_assert(std::tuple_size_v<A> == std::tuple_size_v<B>);
        [&]<std::size_t... I>(std::index_sequence<I...>) { (f(std::get<I>(a), std::get<I>(b), I), ...); }
        (std::make_index_sequence<std::tuple_size_v<A>>{});
    }
}

// The elements of x as integers: the stored integers of a quantized array, or an integer array's.
template<class A>
std::vector<std::int64_t> integers(const A& x) {
    std::vector<std::int64_t> v;
    for (const auto& e : x) {
        if constexpr (is_quantized<typename A::value_type>)
            v.push_back(static_cast<std::int64_t>(e.stored));
        else
            v.push_back(static_cast<std::int64_t>(e));
    }
    return v;
}
// want and got hold the same bits (got may be the storage integers of want's quantized type);
// `tolerance` > 0: integers that differ by at most that.
template<class A, class B>
void check_same(const A& want, const B& got, std::size_t at, std::int64_t tolerance = 0) {
    static_assert(sizeof(typename A::value_type) == sizeof(typename B::value_type) && A::size() == B::size(),
                  "the results have other types");
    INFO("result ", at, " of type ", trace::type_of<A>());
    constexpr bool ints = (is_quantized<typename A::value_type> || std::is_integral_v<typename A::value_type>)&&(
        is_quantized<typename B::value_type> || std::is_integral_v<typename B::value_type>);
    if constexpr (ints) {
        if (tolerance > 0) {
            const auto w = integers(want), g = integers(got);
            std::size_t off = 0, differ = 0;
            for (std::size_t i = 0; i < w.size(); ++i) {
                off += std::abs(w[i] - g[i]) > tolerance;
                differ += w[i] != g[i];
            }
            CHECK(off == 0);
            if (differ > 0) MESSAGE("result ", at, ": ", differ, " of ", w.size(), " stored integers differ by 1");
            return;
        }
    }
    CHECK(std::memcmp(want.data(), got.data(), sizeof(typename A::value_type) * A::size()) == 0);
}

// Arguments: stored integers over the whole storage range, floats in [-8, 8].
template<class A>
void fill(A& a, std::mt19937& g) {
    using T = typename A::value_type;
    if constexpr (is_quantized<T>) {
        a = qt::random_stored<T, A>(static_cast<std::uint32_t>(g()));
    } else {
        std::uniform_real_distribution<float> d(-8, 8);
        for (auto& v : a)
            v = d(g);
    }
}
// An argument as the translated module takes it: the stored integers of a quantized array.
template<class A>
auto module_arg(const A& a) {
    using T = typename A::value_type;
    if constexpr (is_quantized<T>)
        return eval(bitcast_convert_type<storage_t<T>>(a));
    else
        return a;
}

template<class Case, class Qm, class Qq>
void check_values(Qm qm, Qq qq) {
    std::mt19937 g(11);
    for (int round = 0; round < 3; ++round) {
        auto args = std::make_unique<typename Case::args>();
        std::apply([&](auto&... a) { (fill(a, g), ...); }, *args);
        const auto direct = materialise(std::apply([](const auto&... a) { return Case::f(a...); }, *args));
        const auto math = materialise(
            std::apply([](const auto&... a) { return apply_all<legalize_quant_to_math>(Case::f(a...)); }, *args));
        const auto qdq = materialise(
            std::apply([](const auto&... a) { return apply_all<legalize_quantized_op_to_qdq>(Case::f(a...)); }, *args));
        const auto fused_again = materialise(std::apply(
            [](const auto&... a) {
                return apply_all<legalize_qdq_to_quantized_op>(apply_all<legalize_quantized_op_to_qdq>(Case::f(a...)));
            },
            *args));
        const auto qdq_math = materialise(std::apply(
            [](const auto&... a) {
                return apply_all<legalize_quant_to_math>(apply_all<legalize_quantized_op_to_qdq>(Case::f(a...)));
            },
            *args));
        const auto module = std::apply([&](const auto&... a) { return qm(module_arg(a)...); }, *args);
        const auto module_qdq = std::apply([&](const auto&... a) { return qq(module_arg(a)...); }, *args);
        INFO("round ", round);
        // legalize_quant_to_math: the module pass's bits (and after -quantized-op-to-qdq too)
        each_pair(math, module, [](const auto& w, const auto& m, std::size_t i) { check_same(w, m, i); });
        each_pair(qdq_math, module_qdq, [](const auto& w, const auto& m, std::size_t i) { check_same(w, m, i); });
        // the qdq form, and the op fused from it again: the direct op's bits
        each_pair(direct, qdq, [](const auto& w, const auto& q, std::size_t i) { check_same(w, q, i); });
        each_pair(direct, fused_again, [](const auto& w, const auto& q, std::size_t i) { check_same(w, q, i); });
        // the direct op against the module pass
        if constexpr (Case::compare != direct::none)
            each_pair(direct, module, [](const auto& w, const auto& m, std::size_t i) {
                check_same(w, m, i, Case::compare == direct::exact ? 0 : 1);
            });
    }
}

// ---- text ----------------------------------------------------------------------------------------

// The ops of a module's text: the computing ops in order (chlo.broadcast_<op> read as
// stablehlo.<op>; constant, broadcast_in_dim and bitcast_convert left out), then the ops that only
// move data, sorted (the module pass rewrites an op where it stands, after the data movement of
// its operands; an expression is traced operand by operand).
std::vector<std::string> op_sequence(const std::string& text) {
    std::vector<std::string> ops, moves;
    for (std::size_t at = text.find("= \""); at != std::string::npos; at = text.find("= \"", at + 1)) {
        const std::size_t end = text.find('"', at + 3);
        std::string name = text.substr(at + 3, end - at - 3);
        if (name.rfind("chlo.broadcast_", 0) == 0) name = "stablehlo." + name.substr(15);
        if (name == "stablehlo.constant" || name == "stablehlo.broadcast_in_dim" || name == "stablehlo.bitcast_convert")
            continue;
        const bool move = name == "stablehlo.reshape" || name == "stablehlo.transpose" || name == "stablehlo.slice" ||
                          name == "stablehlo.reverse" || name == "stablehlo.pad" || name == "stablehlo.concatenate";
        (move ? moves : ops).push_back(name);
    }
    std::sort(moves.begin(), moves.end());
    ops.push_back("--");
    ops.insert(ops.end(), moves.begin(), moves.end());
    return ops;
}
// xlet-translate's module pass on a module's text, printed.
std::string module_pass(const std::string& text, const std::vector<std::string>& names) {
    auto r = xlt::parse_module(text, "export.mlir");
    REQUIRE(r.errors.empty());
    for (const auto& n : names) {
        std::vector<xlt::diagnostic> errs;
        REQUIRE(xlt::run_pass(r.mod, n, "", errs));
    }
    return xlt::print_module(r.mod);
}
template<class Case, class P>
std::string export_after() {
    typename Case::args args{};
    return std::apply(
        [](const auto&... a) {
            return to_stablehlo([](const auto&... x) { return apply_all<P>(Case::f(x...)); }, a...);
        },
        args);
}
struct no_pass {}; // (no rules: the expression rebuilt as it was)
template<class Case>
void check_text() {
    const std::string original = export_after<Case, no_pass>();
    typename Case::args plain{};
    CHECK(
        std::apply([](const auto&... a) { return to_stablehlo([](const auto&... x) { return Case::f(x...); }, a...); },
                   plain) == original);
    // the rewritten expression's ops are those of the module pass on the original program
    const auto mine = op_sequence(export_after<Case, legalize_quant_to_math>());
    const auto theirs = op_sequence(module_pass(original, {"stablehlo-legalize-quant-to-math"}));
    CHECK(mine == theirs);
    if (mine != theirs)
        for (std::size_t i = 0; i < std::max(mine.size(), theirs.size()); ++i)
            MESSAGE(i, ": ", i < mine.size() ? mine[i] : "-", "  ", i < theirs.size() ? theirs[i] : "-");
    CHECK(op_sequence(export_after<Case, legalize_quantized_op_to_qdq>()) ==
          op_sequence(module_pass(original, {"stablehlo-legalize-quantized-op-to-qdq"})));
}

} // namespace

// =================================================================================================
// 1. The types of the rewrites
// =================================================================================================
TEST_CASE("legalize_quantized_op_to_qdq: the spec's form of each quantized op, as a user writes it") {
    tensor<QA, 4> a{}, b{};
    tensor<QB, 4> c{};
    using add_qdq = decltype(uniform_quantize<QA>(add(uniform_dequantize(a), uniform_dequantize(b))));
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(add(a, b))), add_qdq>);
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(a + b)), add_qdq>);
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(exp(a))),
                                 decltype(uniform_quantize<QA>(exp(uniform_dequantize(a))))>);
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(mul<QB>(a, c))),
                                 decltype(uniform_quantize<QB>(mul(uniform_dequantize(a), uniform_dequantize(c))))>);
    // a comparison: dequantize_compare, no quantize
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(a < b)),
                                 decltype(uniform_dequantize(a) < uniform_dequantize(b))>);
    // select: pred as it is
    pred<4> p{};
    static_assert(
        std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(select(p, a, b))),
                       decltype(uniform_quantize<QA>(select(p, uniform_dequantize(a), uniform_dequantize(b))))>);
    // nested: inside out, each op its own quantize
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(add(exp(a), b))),
                                 decltype(uniform_quantize<QA>(
                                     add(uniform_dequantize(uniform_quantize<QA>(exp(uniform_dequantize(a)))),
                                         uniform_dequantize(b))))>);
    // requantization stays (upstream's op list has no uniform_quantize); arrays stay
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(uniform_quantize<QB>(a))),
                                 decltype(uniform_quantize<QB>(a))>);
    static_assert(
        std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(a)), decltype(detail::as_node(a))>);
    // a named expression is rewritten, not referred to (the result outlives it)
    auto e = add(a, b);
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(e)), add_qdq>);
    // views and layout ops around quantized ops are rebuilt around the rewritten operands
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quantized_op_to_qdq>(
                                     transpose(broadcast_in_dim(abs(a), sizes<4, 2>, dims<0>), dims<1, 0>))),
                                 decltype(transpose(broadcast_in_dim(uniform_quantize<QA>(abs(uniform_dequantize(a))),
                                                                     sizes<4, 2>, dims<0>),
                                                    dims<1, 0>))>);
}

TEST_CASE("legalize_qdq_to_quantized_op: dequantize / op / quantize fused into the op, and what is not") {
    tensor<QA, 4> a{}, b{};
    tensor<QB, 4> c{};
    f32<4> x{};
    static_assert(std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(
                                     uniform_quantize<QA>(add(uniform_dequantize(a), uniform_dequantize(b))))),
                                 decltype(add(a, b))>);
    static_assert(std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(
                                     uniform_quantize<QB>(sub(uniform_dequantize(a), uniform_dequantize(c))))),
                                 decltype(sub<QB>(a, c))>);
    // the seed's example: abs of u8 34.0:16
    tensor<U34, 16, 16> u{};
    static_assert(std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(
                                     uniform_quantize<U34>(abs(uniform_dequantize(u))))),
                                 decltype(abs(u))>);
    // nested: inside out
    static_assert(std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(uniform_quantize<QA>(
                                     add(uniform_dequantize(uniform_quantize<QA>(exp(uniform_dequantize(a)))),
                                         uniform_dequantize(b))))),
                                 decltype(add(exp(a), b))>);
    // the round trip of a program
    auto prog = [&] { return add<QB>(exp(a), mul(a, b)); };
    static_assert(std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(
                                     passes::apply<legalize_quantized_op_to_qdq>(prog()))),
                                 decltype(prog())>);
    // not fused (as upstream, and where the library has no quantized op):
    // an operand that is not a dequantize, a comparison (no quantize), a float op without a
    // quantized form, per-axis operands of an op other than add (rule C7), a quantize of a
    // dequantize (requantization is its own op)
    auto keeps = [](auto&& e) {
        using E = std::remove_cvref_t<decltype(e)>;
        return std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(std::move(e))), E>;
    };
    CHECK(keeps(uniform_quantize<QA>(add(uniform_dequantize(a), x))));
    CHECK(keeps(uniform_dequantize(a) < uniform_dequantize(b)));
    CHECK(keeps(uniform_quantize<QA>(erf(uniform_dequantize(a)))));
    tensor<PA, 4, 3> pa{};
    CHECK(keeps(uniform_quantize<PA>(mul(uniform_dequantize(pa), uniform_dequantize(pa)))));
    CHECK(keeps(uniform_quantize<QB>(uniform_dequantize(a))));
    // ... but per-axis add is fused
    static_assert(std::is_same_v<decltype(passes::apply<legalize_qdq_to_quantized_op>(
                                     uniform_quantize<PA>(add(uniform_dequantize(pa), uniform_dequantize(pa))))),
                                 decltype(add(pa, pa))>);
}

TEST_CASE("legalize_quant_to_math: the module pass's formulas as xlet ops on the stored integers") {
    tensor<QA, 4> a{}, b{};
    f32<4> x{};
    auto s8 = [](auto& q) { return bitcast_convert_type<std::int8_t>(q); };
    // uniform_dequantize: f32(convert<i32>(q) - zp) * scale
    static_assert(
        std::is_same_v<decltype(passes::apply<legalize_quant_to_math>(uniform_dequantize(a))),
                       decltype(mul(convert_element_type<float>(sub(convert_element_type<std::int32_t>(s8(a)), -3)),
                                    0.5f))>);
    // uniform_quantize: convert(round_nearest_even(clamp(lo, x / scale + zp, hi))), viewed as QA
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quant_to_math>(uniform_quantize<QA>(x))),
                                 decltype(bitcast_convert_type<QA>(convert_element_type<std::int8_t>(
                                     round_nearest_even(clamp(-128.0f, add(div(x, 0.5f), -3.0f), 127.0f)))))>);
    // add of one type: the i32 sum - zp, clamped, converted
    auto i32 = [&](auto& q) { return convert_element_type<std::int32_t>(s8(q)); };
    using add_math = decltype(bitcast_convert_type<QA>(
        convert_element_type<std::int8_t>(clamp(-128, sub(add(i32(a), i32(b)), -3), 127))));
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quant_to_math>(add(a, b))), add_math>);
    // requantization to QB: f32(q) * (0.5 / 0.25) + (1 - -3 * 2), clamped, rounded
    static_assert(
        std::is_same_v<decltype(passes::apply<legalize_quant_to_math>(uniform_quantize<QB>(a))),
                       decltype(bitcast_convert_type<QB>(convert_element_type<std::int8_t>(round_nearest_even(
                           clamp(-128.0f, add(mul(convert_element_type<float>(s8(a)), 2.0f), 7.0f), 127.0f)))))>);
    // max of one type: on the integers
    static_assert(std::is_same_v<decltype(passes::apply<legalize_quant_to_math>(max(a, b))),
                                 decltype(bitcast_convert_type<QA>(max(s8(a), s8(b))))>);
    // nested: one view back to QA, at the end (the inner sum's i8 feeds the outer convert)
    const std::string t = to_stablehlo(passes::apply<legalize_quant_to_math>(add(add(a, b), a)));
    CHECK(t.find("(tensor<4xi8>) -> tensor<4x!quant") != std::string::npos);
    CHECK(t.find("(tensor<4xi8>) -> tensor<4x!quant") == t.rfind("(tensor<4xi8>) -> tensor<4x!quant"));
    CHECK(t.find("\"stablehlo.convert\"(%") != std::string::npos);
}

TEST_CASE("where legalize_quant_to_math rounds twice: within 1 of the direct op, every stored value") {
    using X = quant::uniform<std::int8_t, float, scale(0.1), -30>;
    using Y = quant::uniform<std::int8_t, float, scale(0.5), -20>;
    using Z = quant::uniform<std::int8_t, float, scale(0.3), 3>;
    using W = quant::uniform<std::uint8_t, float, scale(0.07), 128>;
    // requantization: every stored value of the operand
    auto requant = [](auto to_tag, auto from) {
        using To = decltype(to_tag);
        using From = typename decltype(from)::value_type;
        tensor<From, 256> q;
        for (std::size_t i = 0; i < 256; ++i)
            q(i).stored = static_cast<storage_t<From>>(
                From::storage_min + static_cast<std::int64_t>(i) % (From::storage_max - From::storage_min + 1));
        const tensor<To, 256> direct = uniform_quantize<To>(q);
        const tensor<To, 256> math = passes::apply<legalize_quant_to_math>(uniform_quantize<To>(q));
        const auto d = integers(direct), m = integers(math);
        std::size_t off = 0, differ = 0;
        for (std::size_t i = 0; i < 256; ++i) {
            off += std::abs(d[i] - m[i]) > 1;
            differ += d[i] != m[i];
        }
        CHECK(off == 0);
        return differ;
    };
    std::size_t differ = requant(Y{}, tensor<X, 1>{}) + requant(X{}, tensor<Y, 1>{}) + requant(Z{}, tensor<X, 1>{}) +
                         requant(W{}, tensor<Z, 1>{}) + requant(Z{}, tensor<W, 1>{}) + requant(Y{}, tensor<Z, 1>{});
    MESSAGE(differ, " of 1536 requantized values differ by 1");
    // add of operands of other parameters than the result's: every pair
    auto adds = [](auto r_tag, auto a_tag, auto b_tag) {
        using R = decltype(r_tag);
        using A = decltype(a_tag);
        using B = decltype(b_tag);
        auto a = std::make_unique<tensor<A, 256, 256>>();
        auto b = std::make_unique<tensor<B, 256, 256>>();
        for (std::size_t i = 0; i < 256; ++i)
            for (std::size_t j = 0; j < 256; ++j) {
                (*a)(i, j).stored = static_cast<storage_t<A>>(A::storage_min + static_cast<std::int64_t>(i));
                (*b)(i, j).stored = static_cast<storage_t<B>>(B::storage_min + static_cast<std::int64_t>(j));
            }
        auto direct = std::make_unique<tensor<R, 256, 256>>(add<R>(*a, *b));
        auto math = std::make_unique<tensor<R, 256, 256>>(passes::apply<legalize_quant_to_math>(add<R>(*a, *b)));
        const auto d = integers(*direct), m = integers(*math);
        std::size_t off = 0, differ = 0;
        for (std::size_t i = 0; i < d.size(); ++i) {
            off += std::abs(d[i] - m[i]) > 1;
            differ += d[i] != m[i];
        }
        CHECK(off == 0);
        return differ;
    };
    // (it does round twice: 14534 and 8719 of the sums differ)
    CHECK(adds(S3{}, S1{}, S2{}) > 0);
    CHECK(adds(Z{}, X{}, Y{}) > 0);
    adds(W{}, W{}, quant::uniform<std::uint8_t, float, scale(0.11), 0>{});
    adds(W{}, quant::uniform<std::uint8_t, float, scale(0.01), 3>{},
         quant::uniform<std::uint8_t, float, scale(0.02), 250>{});
}

// =================================================================================================
// 2. to_stablehlo of the rewritten expressions
// =================================================================================================
TEST_CASE("the seed's examples: exact text of the rewritten expressions") {
    // stablehlo-legalize-qdq-to-quantized-op: dequantize, abs, quantize -> abs on u8 34.0:16
    tensor<U34, 16, 16> u{};
    CHECK(
        to_stablehlo(passes::apply<legalize_qdq_to_quantized_op>(uniform_quantize<U34>(abs(uniform_dequantize(u))))) ==
        "module @xlet {\n"
        "  func.func @main(%arg0: tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>) -> "
        "(tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>) {\n"
        "    %0 = \"stablehlo.abs\"(%arg0) : (tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>) -> "
        "tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>\n"
        "    \"func.return\"(%0) : (tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>) -> ()\n"
        "  }\n"
        "}\n");
    // stablehlo-legalize-quantized-op-to-qdq: the seed's add (rank 0)
    tensor<S1> a{};
    tensor<S2> b{};
    CHECK(to_stablehlo(passes::apply<legalize_quantized_op_to_qdq>(add<S3>(a, b))) ==
          "module @xlet {\n"
          "  func.func @main(%arg0: tensor<!quant.uniform<i8:f32, 1.000000e+00>>, %arg1: "
          "tensor<!quant.uniform<i8:f32, 2.000000e+00:1>>) -> (tensor<!quant.uniform<i8:f32, 3.000000e+00:2>>) {\n"
          "    %0 = \"stablehlo.uniform_dequantize\"(%arg0) : (tensor<!quant.uniform<i8:f32, 1.000000e+00>>) -> "
          "tensor<f32>\n"
          "    %1 = \"stablehlo.uniform_dequantize\"(%arg1) : (tensor<!quant.uniform<i8:f32, 2.000000e+00:1>>) -> "
          "tensor<f32>\n"
          "    %2 = \"stablehlo.add\"(%0, %1) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
          "    %3 = \"stablehlo.uniform_quantize\"(%2) : (tensor<f32>) -> tensor<!quant.uniform<i8:f32, "
          "3.000000e+00:2>>\n"
          "    \"func.return\"(%3) : (tensor<!quant.uniform<i8:f32, 3.000000e+00:2>>) -> ()\n"
          "  }\n"
          "}\n");
    // ... and legalize_quant_to_math of it: the seed's constants (0.333333343 = f32(1 / 3),
    // 1.33333337 = f32(2 - 2 / 3) in the module pass's output) as xlet's shortest round-trip
    // spelling of the same f32 values
    const std::string m = to_stablehlo(passes::apply<legalize_quant_to_math>(add<S3>(a, b)));
    CHECK(m.find("dense<0.33333334> : tensor<f32>") != std::string::npos);
    CHECK(m.find("dense<0.6666667> : tensor<f32>") != std::string::npos);
    CHECK(m.find("dense<1.3333334> : tensor<f32>") != std::string::npos);
    CHECK(static_cast<float>(1.0 / 3) == 0.33333334f);
    CHECK(static_cast<float>(2.0 - 1.0 * 2.0 / 3) == 1.3333334f);
}

#define XLET_TEXT_CASE(name)                                                                                           \
    TEST_CASE("to_stablehlo of the rewritten " #name ": the module pass's ops on the original program") {              \
        check_text<quant_pass_cases::name>();                                                                          \
    }
XLET_QUANT_PASS_CASES(XLET_TEXT_CASE)
#undef XLET_TEXT_CASE

// =================================================================================================
// 3. Values against the module passes' C++
// =================================================================================================
#define XLET_VALUE_CASE(name)                                                                                          \
    TEST_CASE("the bits of " #name ": passes::apply against xlet-translate's module passes, and the direct ops") {     \
        check_values<quant_pass_cases::name>(                                                                          \
            [](auto&&... a) { return qm_##name::main(std::forward<decltype(a)>(a)...); },                              \
            [](auto&&... a) { return qq_##name::main(std::forward<decltype(a)>(a)...); });                             \
    }
XLET_QUANT_PASS_CASES(XLET_VALUE_CASE)
#undef XLET_VALUE_CASE
