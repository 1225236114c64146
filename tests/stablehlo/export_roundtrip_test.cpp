// import(export(f)) == f, bit for bit: every case of export_cases.hpp was exported with
// xlet::to_stablehlo (export_gen), translated back to C++ by xlet-translate (namespace rt_<case>),
// and both run here on the same random arguments.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstring>
#include <random>
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
    if constexpr (requires { typename A::xlet_node; })
        return xlet::eval(a);
    else
        return std::apply([](const auto&... e) { return std::make_tuple(xlet::eval(e)...); }, a);
}

template<class A, class B>
void same_bits(const A& want, const B& got) {
    if constexpr (requires { typename A::xlet_node; }) {
        static_assert(std::is_same_v<A, B>, "the translated function returns other types");
        INFO("result of type ", xlet::trace::type_of<A>());
        CHECK(std::memcmp(want.data(), got.data(), sizeof(typename A::value_type) * A::size()) == 0);
    } else {
        static_assert(std::tuple_size_v<A> == std::tuple_size_v<B>);
        [&]<std::size_t... I>(std::index_sequence<I...>) { (same_bits(std::get<I>(want), std::get<I>(got)), ...); }
        (std::make_index_sequence<std::tuple_size_v<A>>{});
    }
}

template<class Case, class Translated>
void check(Translated translated) {
    std::mt19937 g(7);
    for (int round = 0; round < 3; ++round) {
        auto args = std::make_unique<typename Case::args>();
        std::apply([&](auto&... a) { (fill(a, g), ...); }, *args);
        auto want = materialise(std::apply([](const auto&... a) { return Case::f(a...); }, *args));
        auto got = std::apply(translated, *args);
        same_bits(want, got);
    }
}
} // namespace

#define XLET_CASE(name)                                                                                                \
    TEST_CASE("import(export(" #name ")) gives the bits of " #name) {                                                  \
        check<export_cases::name>([](const auto&... a) { return rt_##name::main(a...); });                             \
    }
XLET_EXPORT_CASES(XLET_CASE)
