// Tuple and GetTupleElement, for parity with XLA: an XLA tuple is a std::tuple of arrays (or of
// expressions, which stay lazy), and structured bindings work on it.
#pragma once
#include <tuple>
#include <utility>

namespace xlet {

template<class... X>
auto tuple(X&&... elements) {
    return std::tuple<std::remove_cvref_t<X>...>(std::forward<X>(elements)...);
}

template<std::size_t I, class Tuple>
decltype(auto) get_tuple_element(Tuple&& t) {
    static_assert(I < std::tuple_size_v<std::remove_cvref_t<Tuple>>, "xlet::get_tuple_element [C1]: index must be less than the tuple size");
    return std::get<I>(std::forward<Tuple>(t));
}

} // namespace xlet
