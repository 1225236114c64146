// CompositeCall (spec: CompositeCall; StableHLO composite). Not included by <xlet/xlet.hpp> or
// <xlet/ops/control.hpp>: include <xlet/ops/control/composite.hpp> (it reads Boost.Hana's map and
// string headers, which add about 0.35 s to every translation unit; docs/architecture.md).
//
//   namespace hana = boost::hana;
//   auto attrs = hana::make_map(hana::make_pair(BOOST_HANA_STRING("n"), hana::int_c<1>));
//   // or attribute_key<"n">, the same key, usable in constant expressions and decltype
//   f32<> r = composite_call<"foo.bar", 1>(attrs, [](const f32<>& x) { return x + 1.0f; }, z);
//
//   auto c = composite<"foo.bar", 1>(attrs, decomposition);   // the composite as a value
//   composite_call(c, z);                                       // the same call
//   static_assert(decltype(c)::name == "foo.bar" && decltype(c)::version == 1);
//   hana::at_key(c.attributes, BOOST_HANA_STRING("n"))          // hana::int_c<1>, a compile-time value
//
// The meaning of a composite is its decomposition: composite_call runs it through call() (operands
// passed as given, result materialised, an exception reported as "xlet::composite_call: composite
// 'foo.bar' threw: ..."). What the spec keeps as frontend attributes is part of the composite's
// type: name (a fixed_string, and as a hana::string: `name_string`), version (default 0) and
// attributes (a hana::map whose keys are compile-time strings; values whose type carries the
// value, hana::int_c<1>, hana::bool_c<true>, BOOST_HANA_STRING("tanh"), are known at compile
// time; others, a tensor for the spec's `dense<1>`, are run-time values of a known type). So a
// later rewrite can match a composite at compile time (is_composite<C>, its name, version and
// attributes) and replace it with a kernel, or keep the decomposition: see
// tests/control/composite_test.cpp. composite_attributes_string(c) prints them as the spec's
// frontend_attributes (composite.name="foo.bar", composite.attributes={n = 1}, composite.version="1").
//
// Rules (xlet numbering):
//   composite_call C1  attributes is a hana::map (hana::make_map() when there are none)
//                  C2  the decomposition is callable with the operands
//                  C3  version >= 0
//                  C4  name is a namespaced op name: non-empty parts separated by '.' ("foo.bar")
#pragma once
#include <boost/hana/at_key.hpp>
#include <boost/hana/contains.hpp>
#include <boost/hana/core/is_a.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/map.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/string.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "computation.hpp"

namespace xlet {

namespace detail {
namespace hana = boost::hana;

template<fixed_string S, std::size_t... I>
constexpr auto to_hana_string(std::index_sequence<I...>) {
    return hana::string_c<S.value[I]...>;
}

constexpr bool namespaced_op_name(std::string_view s) {
    if (s.empty() || s.front() == '.' || s.back() == '.') return false;
    bool dot = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '.') {
            if (s[i + 1] == '.') return false;
            dot = true;
        }
    }
    return dot;
}

template<class V>
void print_attribute(std::ostream& os, const V& v) {
    if constexpr (hana::is_a<hana::string_tag, V>)
        os << '"' << V::c_str() << '"';
    else if constexpr (hana::is_a<hana::integral_constant_tag<bool>, V>)
        os << (V::value ? "true" : "false");
    else if constexpr (requires { V::value; })
        os << V::value;
    else if constexpr (requires { os << v; })
        os << v;
    else
        os << "<value>";
}
} // namespace detail

// A compile-time string usable as a hana::map key anywhere, also inside decltype (where
// BOOST_HANA_STRING, a lambda, cannot appear): attribute_key<"n"> == BOOST_HANA_STRING("n").
template<fixed_string S>
inline constexpr auto attribute_key = detail::to_hana_string<S>(std::make_index_sequence<S.size()>{});

// A composite: its identity (name, version, attributes) in its type, its meaning (the
// decomposition) as a callable.
template<fixed_string Name, std::int64_t Version, class Attrs, class F>
struct composite_t {
    static constexpr auto name = Name;
    static constexpr std::int64_t version = Version;
    static constexpr auto name_string = attribute_key<Name>;
    using attributes_type = Attrs;
    Attrs attributes;
    F decomposition;
};

template<class C>
inline constexpr bool is_composite = false;
template<fixed_string N, std::int64_t V, class A, class F>
inline constexpr bool is_composite<composite_t<N, V, A, F>> = true;

// composite<"name", version>(attributes, decomposition).
template<fixed_string Name, std::int64_t Version = 0, class Attrs, class F>
auto composite(Attrs attributes, F decomposition) {
    static_assert(diag::got<boost::hana::is_a<boost::hana::map_tag, Attrs>, Attrs>::value,
                  "xlet::composite_call [C1]: the attributes must be a boost::hana::map (hana::make_map() when "
                  "there are none)");
    static_assert(Version >= 0, "xlet::composite_call [C3]: the version must be >= 0");
    static_assert(detail::namespaced_op_name(Name.view()),
                  "xlet::composite_call [C4]: the name must be a namespaced op name, non-empty parts separated by "
                  "'.' (\"foo.bar\")");
    return composite_t<Name, Version, Attrs, F>{std::move(attributes), std::move(decomposition)};
}

// CompositeCall(c, operands...): the decomposition applied to the operands, materialised.
template<class C, class... A>
requires is_composite<std::remove_cvref_t<C>>
auto composite_call(const C& c, A&&... operands) {
    constexpr bool c2 = std::is_invocable_v<const decltype(c.decomposition)&, A&&...>;
    static_assert(diag::got<c2, std::remove_cvref_t<A>...>::value,
                  "xlet::composite_call [C2]: the decomposition must be callable with the operands");
    if constexpr (c2) {
        try {
            return detail::materialize(c.decomposition(std::forward<A>(operands)...));
        } catch (...) {
            detail::rethrow_in("composite_call", "composite '" + std::string(C::name.view()) + "'");
        }
    }
}

// CompositeCall(decomposition, operands..., name, attributes, version), as one call.
template<fixed_string Name, std::int64_t Version = 0, class Attrs, class F, class... A>
auto composite_call(Attrs&& attributes, F&& decomposition, A&&... operands) {
    return composite_call(composite<Name, Version>(std::forward<Attrs>(attributes), std::forward<F>(decomposition)),
                          std::forward<A>(operands)...);
}

// The spec's frontend attributes of a composite, as text.
template<class C>
requires is_composite<C> std::string composite_attributes_string(const C& c) {
    std::ostringstream os;
    os << "composite.name=\"" << C::name.view() << "\", composite.attributes={";
    bool first = true;
    boost::hana::for_each(c.attributes, [&](const auto& kv) {
        os << (first ? "" : ", ") << boost::hana::first(kv).c_str() << " = ";
        detail::print_attribute(os, boost::hana::second(kv));
        first = false;
    });
    os << "}, composite.version=\"" << C::version << '"';
    return os.str();
}

} // namespace xlet
