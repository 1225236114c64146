// Operators as sugar for the named ops, with the same rules (no implicit promotion, XLA
// broadcasting). == and the other comparisons build pred arrays, as XLA's Compare does; use
// xlet::equal(a, b) for a bool answer. >> is arithmetic on signed and logical on unsigned types,
// as in C++.
#pragma once
#include "binary.hpp"
#include "compare.hpp"

namespace xlet {

#define XLET_OPERATOR(sym, fn)                                                                                       \
    template<class L, class R>                                                                                       \
        requires((expression<L> || expression<R>) && detail::operand<L> && detail::operand<R>)                      \
    auto operator sym(L&& l, R&& r) {                                                                                \
        return fn(std::forward<L>(l), std::forward<R>(r));                                                           \
    }                                                                                                                \
    template<class L, class R>                                                                                       \
        requires(detail::any_bounded<L, R>)                                                                          \
    auto operator sym(L&& l, R&& r) {                                                                                \
        return fn(std::forward<L>(l), std::forward<R>(r));                                                           \
    }
XLET_OPERATOR(+, add)
XLET_OPERATOR(-, sub)
XLET_OPERATOR(*, mul)
XLET_OPERATOR(/, div)
XLET_OPERATOR(%, rem)
XLET_OPERATOR(&, and_)
XLET_OPERATOR(|, or_)
XLET_OPERATOR(^, xor_)
XLET_OPERATOR(<<, shift_left)
XLET_OPERATOR(==, eq)
XLET_OPERATOR(!=, ne)
XLET_OPERATOR(<, lt)
XLET_OPERATOR(<=, le)
XLET_OPERATOR(>, gt)
XLET_OPERATOR(>=, ge)
#undef XLET_OPERATOR

template<class L, class R>
    requires((expression<L> || expression<R>) && detail::operand<L> && detail::operand<R>)
auto operator>>(L&& l, R&& r) {
    using T = typename detail::common_element<L, R>::type;
    if constexpr (std::is_signed_v<T>) return shift_right_arithmetic(std::forward<L>(l), std::forward<R>(r));
    else return shift_right_logical(std::forward<L>(l), std::forward<R>(r));
}

template<class L, class R>
    requires(detail::any_bounded<L, R>)
auto operator>>(L&& l, R&& r) {
    using T = typename decltype(shift_right_logical(detail::unbound(l), detail::unbound(r)))::value_type;
    if constexpr (std::is_signed_v<T>) return shift_right_arithmetic(std::forward<L>(l), std::forward<R>(r));
    else return shift_right_logical(std::forward<L>(l), std::forward<R>(r));
}

template<class X> requires(expression<X> || detail::bounded_operand<X>) auto operator-(X&& x) { return neg(std::forward<X>(x)); }
template<class X> requires(expression<X> || detail::bounded_operand<X>) auto operator~(X&& x) { return not_(std::forward<X>(x)); }
template<expression X> requires std::is_same_v<detail::element_of<X>, bool> auto operator!(X&& x) { return not_(std::forward<X>(x)); }

} // namespace xlet
