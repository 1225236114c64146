// Select and Clamp: the element-wise ternary ops.
//   select(pred, on_true, on_false)   C1 pred's element type is pred; C2 pred is a scalar or has the
//                                     operands' shape; C3 on_true and on_false have one shape;
//                                     C4 one element type. A C++ value operand is a constant of the
//                                     other's type. select(p, tuple, tuple) picks a whole tuple.
//   clamp(min, operand, max)          = min(max(min, operand), max); C1 min and max are scalars or
//                                     have operand's shape; C2 one element type; C3 not complex.
#pragma once
#include <tuple>

#include "binary.hpp"

namespace xlet::detail {

struct select_fn {
    template<class P, class T, class F> using result = T;
    static constexpr double cost = 1;
    template<class C> static C scalar(bool p, C a, C b) { return p ? a : b; }
    template<class B> static B simd(typename B::batch_bool_type p, B a, B b) { return xsimd::select(p, a, b); }
};

struct clamp_fn {
    static constexpr double cost = 2;
    template<class C> static C scalar(C lo, C x, C hi) { return min_fn::scalar(max_fn::scalar(lo, x), hi); }
    template<class B> static B simd(B lo, B x, B hi) { return min_fn::simd(max_fn::simd(lo, x), hi); }
};

template<class X, std::size_t R>
constexpr bool scalar_or_shape(const extents_t<R>& e) {
    return shape_of<X>::rank == 0 || same_extents(shape_of<X>::extents, e);
}

} // namespace xlet::detail

namespace xlet {

template<expression P, class A, class B>
    requires((expression<A> || expression<B>) && detail::operand<A> && detail::operand<B>)
auto select(P&& pred, A&& on_true, B&& on_false) {
    using CE = detail::common_element<A, B>;
    using T = typename CE::type;
    constexpr auto E = [] {
        if constexpr (expression<A>) return detail::shape_of<A>::extents;
        else return detail::shape_of<B>::extents;
    }();
    constexpr std::size_t R = E.size();
    using PT = detail::shown_t<P>;
    using AT = detail::shown_t<A>;
    using BT = detail::shown_t<B>;
    constexpr bool c1 = std::is_same_v<detail::element_of<P>, bool>;
    constexpr bool c2 = detail::scalar_or_shape<P>(E);
    constexpr bool c3 = detail::scalar_or_shape<A>(E) && detail::scalar_or_shape<B>(E) &&
                        (!expression<A> || !expression<B> || same_extents(detail::shape_of<A>::extents, detail::shape_of<B>::extents));
    static_assert(diag::got<c1, PT>::value, "xlet::select [C1]: pred must have element type pred");
    static_assert(diag::got<c2, PT, AT>::value, "xlet::select [C2]: pred must be a scalar or have the shape of on_true");
    static_assert(diag::got<c3, AT, BT>::value, "xlet::select [C3]: on_true and on_false must have the same shape");
    static_assert(diag::got<CE::ok, AT, BT>::value, "xlet::select [C4]: on_true and on_false must have the same element type");
    if constexpr (c1 && c2 && c3 && CE::ok)
        return detail::make_map<detail::select_fn, T>(detail::broadcast_to<R, E>(detail::as_node(std::forward<P>(pred))),
                                                      detail::broadcast_to<R, E>(detail::operand_node<T>(std::forward<A>(on_true))),
                                                      detail::broadcast_to<R, E>(detail::operand_node<T>(std::forward<B>(on_false))));
}

// Tuple form: a scalar pred chooses one whole tuple (evaluated).
template<expression P, class... A>
std::tuple<A...> select(const P& pred, const std::tuple<A...>& on_true, const std::tuple<A...>& on_false) {
    static_assert(diag::got<std::is_same_v<detail::element_of<P>, bool> && detail::shape_of<P>::rank == 0, detail::shown_t<P>>::value,
                  "xlet::select [C1]: with tuple operands, pred must be a pred scalar");
    return eval(pred).data()[0] ? on_true : on_false;
}

template<class Lo, expression X, class Hi>
    requires(detail::operand<Lo> && detail::operand<Hi>)
auto clamp(Lo&& lo, X&& x, Hi&& hi) {
    using T = detail::element_of<X>;
    constexpr auto E = detail::shape_of<X>::extents;
    constexpr std::size_t R = E.size();
    constexpr bool c1 = detail::scalar_or_shape<Lo>(E) && detail::scalar_or_shape<Hi>(E);
    constexpr bool c2 = detail::common_element<Lo, X>::ok && detail::common_element<X, Hi>::ok;
    constexpr bool c3 = detail::ordered<T>;
    using LT = detail::shown_t<Lo>;
    using XT = detail::shown_t<X>;
    using HT = detail::shown_t<Hi>;
    static_assert(diag::got<c1, LT, XT, HT>::value, "xlet::clamp [C1]: min and max must be scalars or have the operand's shape");
    static_assert(diag::got<c2, LT, XT, HT>::value, "xlet::clamp [C2]: min, operand and max must have the same element type");
    static_assert(diag::got<c3, XT>::value, "xlet::clamp [C3]: element type must be pred, an integer or floating type");
    if constexpr (c1 && c2 && c3)
        return detail::make_map<detail::clamp_fn, T>(detail::broadcast_to<R, E>(detail::operand_node<T>(std::forward<Lo>(lo))),
                                                     detail::as_node(std::forward<X>(x)),
                                                     detail::broadcast_to<R, E>(detail::operand_node<T>(std::forward<Hi>(hi))));
}

} // namespace xlet

namespace xlet::trace {
XLET_STABLEHLO_FORM(detail::select_fn, "stablehlo.select")
XLET_STABLEHLO_FORM(detail::clamp_fn, "stablehlo.clamp")
} // namespace xlet::trace
