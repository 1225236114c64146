// CompositeCall (issue #17): the spec's example (name "foo.bar", attributes {n = 1, tensor =
// dense<1>}, version 1), compile-time queries of name, version and attributes, a compile-time
// rewrite that replaces a composite by a kernel or keeps its decomposition, errors.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include <xlet/xlet.hpp>
#include <xlet/ops/control/composite.hpp>

using namespace xlet;
namespace hana = boost::hana;

TEST_CASE("composite_call: the spec's example, f32[] call(f32[] %cst), composite.name=\"foo.bar\"") {
    // composite.attributes={n = 1 : i32, tensor = dense<1> : tensor<i32>}, composite.version="1"
    auto attrs = hana::make_map(hana::make_pair(BOOST_HANA_STRING("n"), hana::int_c<1>),
                                hana::make_pair(BOOST_HANA_STRING("tensor"), s32<>(1)));
    f32<> cst = 2.0f;
    int runs = 0;
    auto decomposition = [&](const f32<>& x) {
        ++runs;
        return x * x + 1.0f;
    };
    f32<> r = composite_call<"foo.bar", 1>(attrs, decomposition, cst);
    CHECK(r() == 5.0f);
    CHECK(runs == 1);

    auto c = composite<"foo.bar", 1>(attrs, decomposition);
    static_assert(is_composite<decltype(c)>);
    static_assert(decltype(c)::name == "foo.bar");
    static_assert(decltype(c)::version == 1);
    static_assert(decltype(c)::name_string == BOOST_HANA_STRING("foo.bar"));
    // Attributes known at compile time: the value of n is in its type.
    static_assert(std::remove_cvref_t<decltype(hana::at_key(c.attributes, attribute_key<"n">))>::value == 1);
    static_assert(attribute_key<"n"> == BOOST_HANA_STRING("n"));
    // A run-time valued attribute: its presence is known at compile time, its value at run time.
    static_assert(decltype(hana::contains(c.attributes, attribute_key<"tensor">))::value);
    static_assert(!decltype(hana::contains(c.attributes, attribute_key<"m">))::value);
    CHECK(hana::at_key(c.attributes, BOOST_HANA_STRING("tensor"))() == 1);
    CHECK(composite_call(c, f32<>(3.0f))() == 10.0f);
    CHECK(composite_attributes_string(c) ==
          "composite.name=\"foo.bar\", composite.attributes={n = 1, tensor = s32[] 1}, composite.version=\"1\"");
    // Version defaults to 0; no attributes.
    auto d = composite<"xlet.identity">(hana::make_map(), [](const auto& x) { return x; });
    static_assert(decltype(d)::version == 0);
    CHECK(composite_attributes_string(d) ==
          "composite.name=\"xlet.identity\", composite.attributes={}, composite.version=\"0\"");
}

namespace {
// A compile-time rewrite: "xlet.gelu" version 1 with approximate = true is replaced by a kernel;
// any other composite keeps its decomposition.
int kernel_runs = 0;
template<class C, class... A>
auto lower(const C& c, A&&... operands) {
    constexpr bool gelu_tanh = [] {
        if constexpr (C::name == "xlet.gelu" && C::version == 1 &&
                      decltype(hana::contains(std::declval<typename C::attributes_type>(),
                                              attribute_key<"approximate">))::value)
            return std::remove_cvref_t<decltype(hana::at_key(std::declval<typename C::attributes_type>(),
                                                             attribute_key<"approximate">))>::value;
        else
            return false;
    }();
    if constexpr (gelu_tanh) {
        ++kernel_runs;
        return f32<3>(0.5f * (operands * ...) *
                      (1.0f + tanh(0.7978845608f * ((operands * ...) + 0.044715f * (operands * ...) * (operands * ...) *
                                                                           (operands * ...)))));
    } else {
        return composite_call(c, std::forward<A>(operands)...);
    }
}
} // namespace

TEST_CASE("composite: a compile-time rewrite inlines or keeps it") {
    f32<3> x{-1, 0, 2};
    int decomposition_runs = 0;
    auto decomposition = [&](const f32<3>& v) {
        ++decomposition_runs;
        return f32<3>(0.5f * v * (1.0f + tanh(0.7978845608f * (v + 0.044715f * v * v * v))));
    };
    auto fast = composite<"xlet.gelu", 1>(
        hana::make_map(hana::make_pair(BOOST_HANA_STRING("approximate"), hana::true_c)), decomposition);
    auto exact = composite<"xlet.gelu", 1>(
        hana::make_map(hana::make_pair(BOOST_HANA_STRING("approximate"), hana::false_c)), decomposition);
    auto other = composite<"xlet.gelu", 2>(hana::make_map(), decomposition);
    f32<3> a = lower(fast, x);
    f32<3> b = lower(exact, x);
    f32<3> c = lower(other, x);
    CHECK(kernel_runs == 1);
    CHECK(decomposition_runs == 2);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(a(i) == doctest::Approx(b(i)).epsilon(1e-6));
        CHECK(b(i) == c(i));
    }
}

TEST_CASE("composite_call: an exception in the decomposition names the composite") {
    CHECK_THROWS_WITH_AS(composite_call<"my.op">(
                             hana::make_map(), [](int) -> int { throw std::runtime_error("no"); }, 1),
                         "xlet::composite_call: composite 'my.op' threw: no", xlet::error);
}
