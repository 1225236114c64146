// Tokens (spec: AfterAll, AddDependency). A token carries no data: it orders side-effecting ops
// (infeed, outfeed, send, recv) by data dependence. In an xlet program, which runs its ops in
// program order on the calling thread, the order is already the program's; the token makes the
// dependence visible and keeps XLA's signatures (infeed returns one, outfeed and send_done take
// and return one).
//
//   token t = after_all();                 // a fresh token (XLA's CreateToken)
//   token u = after_all(t, outfeed(q, x, t));
//   auto y = add_dependency(x + 1.0f, u);  // x + 1 (unchanged, still lazy), ordered after u
//
// Rules:
//   after_all      C1  every operand is a token
//   add_dependency C1  the second operand is a token
#pragma once
#include <type_traits>
#include <utility>

#include "../../core/shape.hpp"
#include "../../core/tensor.hpp"

namespace xlet {

// An ordering token. Carries no data.
struct token {
    token() = default;
    explicit token(detail::no_init_t) {}
};

// AfterAll(tokens...): one token that comes after all of its operands.
template<class... T>
token after_all(const T&...) {
    constexpr bool ok = (std::is_same_v<T, token> && ...);
    static_assert(diag::got<ok, T...>::value, "xlet::after_all [C1]: every operand must be a token");
    return token{};
}

// AddDependency(operand, token): the operand, unchanged (an expression stays lazy; an lvalue is
// returned by reference, an rvalue by value), ordered after the token.
template<class X, class T>
X add_dependency(X&& operand, const T&) {
    static_assert(diag::got<std::is_same_v<T, token>, T>::value,
                  "xlet::add_dependency [C1]: the second operand must be a token");
    return std::forward<X>(operand);
}

} // namespace xlet
