// Element-wise comparisons (spec: "Elementwise comparison operations", Compare): eq ... lt with
// IEEE semantics, and eq_total ... lt_total, which order floats as
// -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN. Results are pred.
#pragma once
#include <bit>
#include <cstring>

#include "binary.hpp"

namespace xlet::detail {

template<class T> inline constexpr bool any_element = element<T>;
template<class T> inline constexpr bool comparable = ordered<T>; // ordered compares: no complex

// A signed integer whose order is the total order of the float x (sign-magnitude to two's complement).
template<class C> auto total_key(C x) {
    if constexpr (std::is_floating_point_v<C>) {
        using I = std::conditional_t<sizeof(C) == 4, std::int32_t, std::int64_t>;
        using U = std::make_unsigned_t<I>;
        auto i = std::bit_cast<I>(x);
        // negative: flip the magnitude bits so larger magnitudes order lower
        return static_cast<I>(i < 0 ? static_cast<I>(static_cast<U>(i) ^ static_cast<U>(std::numeric_limits<I>::max())) : i);
    } else {
        return x;
    }
}

#define XLET_COMPARE_FN(name, op)                                                                                    \
    struct name##_fn : functor_call<name##_fn> {                                                                                        \
        template<class T> using result = bool;                                                                       \
        static constexpr double cost = 1;                                                                            \
        template<class C> static bool scalar(C a, C b) { return a op b; }                                            \
        template<class B> requires(!is_complex<batch_value<B>>) static auto simd(B a, B b) { return a op b; }        \
    };                                                                                                               \
    struct name##_total_fn : functor_call<name##_total_fn> {                                                                                  \
        template<class T> using result = bool;                                                                       \
        static constexpr double cost = 2;                                                                            \
        template<class C> static bool scalar(C a, C b) { return total_key(a) op total_key(b); }                      \
    };
XLET_COMPARE_FN(eq, ==)
// xsimd 8.1's batch != is the ordered comparison (false for NaN); IEEE ne is unordered: !(a == b).
struct ne_fn : functor_call<ne_fn> {
    template<class T> using result = bool;
    static constexpr double cost = 1;
    template<class C> static bool scalar(C a, C b) { return a != b; }
    template<class B> requires(!is_complex<batch_value<B>>) static auto simd(B a, B b) { return !(a == b); }
};
struct ne_total_fn : functor_call<ne_total_fn> {
    template<class T> using result = bool;
    static constexpr double cost = 2;
    template<class C> static bool scalar(C a, C b) { return total_key(a) != total_key(b); }
};
XLET_COMPARE_FN(lt, <)
XLET_COMPARE_FN(le, <=)
XLET_COMPARE_FN(gt, >)
XLET_COMPARE_FN(ge, >=)
#undef XLET_COMPARE_FN

} // namespace xlet::detail

namespace xlet {

XLET_BINARY_OP(eq, detail::eq_fn, detail::any_element, "any element type")
XLET_BINARY_OP(ne, detail::ne_fn, detail::any_element, "any element type")
XLET_BINARY_OP(lt, detail::lt_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(le, detail::le_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(gt, detail::gt_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(ge, detail::ge_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(eq_total, detail::eq_total_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(ne_total, detail::ne_total_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(lt_total, detail::lt_total_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(le_total, detail::le_total_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(gt_total, detail::gt_total_fn, detail::comparable, "pred, an integer or floating type")
XLET_BINARY_OP(ge_total, detail::ge_total_fn, detail::comparable, "pred, an integer or floating type")

// XLA's Compare(lhs, rhs, direction[, broadcast_dimensions]) with the comparison type: the
// default compares as the element type does (IEEE for floats), total_order as the *_total ops.
enum class comparison_direction { eq, ne, ge, gt, le, lt };
enum class comparison_type { default_order, total_order };

template<comparison_direction D, comparison_type K = comparison_type::default_order, class L, class R, class... B>
    requires(sizeof...(B) <= 1)
auto compare(L&& l, R&& r, B... broadcast_dimensions) {
    constexpr bool total = K == comparison_type::total_order;
#define XLET_COMPARE_CASE(dir)                                                                                       \
    if constexpr (D == comparison_direction::dir && total)                                                           \
        return ::xlet::dir##_total(std::forward<L>(l), std::forward<R>(r), broadcast_dimensions...);                 \
    else if constexpr (D == comparison_direction::dir)                                                               \
        return ::xlet::dir(std::forward<L>(l), std::forward<R>(r), broadcast_dimensions...);
    XLET_COMPARE_CASE(eq)
    else XLET_COMPARE_CASE(ne)
    else XLET_COMPARE_CASE(ge)
    else XLET_COMPARE_CASE(gt)
    else XLET_COMPARE_CASE(le)
    else XLET_COMPARE_CASE(lt)
#undef XLET_COMPARE_CASE
}

} // namespace xlet
