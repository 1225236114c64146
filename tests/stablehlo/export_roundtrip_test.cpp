// import(export(f)) == f, bit for bit: every case of export_cases.hpp was exported with
// xlet::to_stablehlo (export_gen), translated back to C++ by xlet-translate (namespace rt_<case>),
// and both run here on the same random arguments.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>
#include <tuple>

#include "export_cases.hpp"
#include "export_roundtrip_headers.hpp" // generated: one #include per case

namespace {
template<class T>
void fill(T& t, std::mt19937& g) {
    using V = typename T::value_type;
    for (auto& v : t) {
        if constexpr (std::is_same_v<V, bool>)
            v = (g() & 1) != 0;
        else if constexpr (std::is_integral_v<V>)
            v = static_cast<V>(static_cast<int>(g() % 41) - 20);
        else if constexpr (xlet::is_complex<V>)
            v = V(std::uniform_real_distribution<float>(-2, 2)(g), std::uniform_real_distribution<float>(-2, 2)(g));
        else
            v = V(std::uniform_real_distribution<float>(-2, 2)(g));
    }
}

template<class A>
auto materialise(const A& a) {
    if constexpr (
        requires { typename A::xlet_node; } || requires { a.padded(); }) // (an array or a bounded value)
        return xlet::eval(a);
    else
        return std::apply([](const auto&... e) { return std::make_tuple(xlet::eval(e)...); }, a);
}

template<class A, class B>
void same_bits(const A& want, const B& got) {
    if constexpr (requires { want.padded(); }) { // a bounded value: the sizes, then every element
        static_assert(std::is_same_v<A, B>, "the translated function returns other types");
        CHECK(want.sizes() == got.sizes());
        same_bits(want.padded(), got.padded());
    } else if constexpr (requires { typename A::xlet_node; }) {
        static_assert(std::is_same_v<A, B>, "the translated function returns other types");
        INFO("result of type ", xlet::trace::type_of<A>());
        CHECK(std::memcmp(want.data(), got.data(), sizeof(typename A::value_type) * A::size()) == 0);
    } else {
        static_assert(std::tuple_size_v<A> == std::tuple_size_v<B>);
        [&]<std::size_t... I>(std::index_sequence<I...>) { (same_bits(std::get<I>(want), std::get<I>(got)), ...); }
        (std::make_index_sequence<std::tuple_size_v<A>>{});
    }
}

// The same without doctest (devices run on several threads; doctest's CHECK is not thread-safe).
template<class A, class B>
bool equal_bits(const A& want, const B& got) {
    if constexpr (requires { typename A::xlet_node; }) {
        static_assert(std::is_same_v<A, B>, "the translated function returns other types");
        return std::memcmp(want.data(), got.data(), sizeof(typename A::value_type) * A::size()) == 0;
    } else {
        static_assert(std::tuple_size_v<A> == std::tuple_size_v<B>);
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return (equal_bits(std::get<I>(want), std::get<I>(got)) && ...);
        }
        (std::make_index_sequence<std::tuple_size_v<A>>{});
    }
}

template<class Case, class Translated>
void check(Translated translated) {
    if constexpr (requires { Case::replicas; }) {
        // An SPMD case: both programs run on every device of one pool, each device on its own
        // random arguments; the results are compared per device.
        for (int round = 0; round < 3; ++round) {
            std::vector<char> ok(Case::replicas * Case::partitions, 0);
            xlet::replica_pool(Case::replicas, Case::partitions).run([&](xlet::replica_context& ctx) {
                std::mt19937 g(static_cast<unsigned>(7 + 100 * round + static_cast<int>(ctx.device_id())));
                auto args = std::make_unique<typename Case::args>();
                std::apply([&](auto&... a) { (fill(a, g), ...); }, *args);
                auto want = materialise(std::apply([&](const auto&... a) { return Case::f(ctx, a...); }, *args));
                auto got = std::apply([&](auto&... a) { return translated(ctx, a...); }, *args);
                ok[ctx.device_id()] = equal_bits(want, got);
            });
            for (std::size_t d = 0; d < ok.size(); ++d) {
                INFO("round ", round, ", device ", d);
                CHECK(ok[d]);
            }
        }
    } else {
        std::mt19937 g(7);
        for (int round = 0; round < 3; ++round) {
            auto args = std::make_unique<typename Case::args>();
            std::apply([&](auto&... a) { (fill(a, g), ...); }, *args);
            auto want = materialise(std::apply([](const auto&... a) { return Case::f(a...); }, *args));
            auto got = std::apply(translated, *args);
            same_bits(want, got);
        }
    }
}
} // namespace

#define XLET_CASE(name)                                                                                                \
    TEST_CASE("import(export(" #name ")) gives the bits of " #name) {                                                  \
        check<export_cases::name>([](auto&&... a) { return rt_##name::main(std::forward<decltype(a)>(a)...); });       \
    }
XLET_EXPORT_CASES(XLET_CASE)
