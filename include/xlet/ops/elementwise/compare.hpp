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

// The comparisons as function objects, for the computations of select_and_scatter (XLA's usual
// select is ge_fn{}), sort and map: exported as stablehlo.compare by to_stablehlo.
using detail::eq_fn;
using detail::ge_fn;
using detail::gt_fn;
using detail::le_fn;
using detail::lt_fn;
using detail::ne_fn;

// XLA's Compare(lhs, rhs, direction[, broadcast_dimensions]) with StableHLO's compare_type, both
// spelled as the spec spells them:
//   compare<comparison_direction::LT>(a, b[, dims<...>])                    the element type's own
//       comparison (SIGNED for signed integers, UNSIGNED for unsigned integers and pred, FLOAT for
//       floating and complex types)
//   compare<comparison_direction::LT, comparison_type::TOTALORDER>(a, b[, dims<...>])
// FLOAT is IEEE (eq ... lt: NaN unordered, -0 == +0), TOTALORDER the total order of eq_total ...
// lt_total (-NaN < -Inf < ... < -0 < +0 < ... < +NaN), SIGNED and UNSIGNED the integer order.
// Rule C3 (StableHLO compare C3): SIGNED needs a signed integer element type, UNSIGNED an unsigned
// integer or pred, TOTALORDER a floating type, FLOAT a floating or complex type. The other rules
// (and complex being only EQ/NE) are those of the named op it dispatches to.
enum class comparison_direction { EQ, NE, GE, GT, LE, LT };
enum class comparison_type { FLOAT, TOTALORDER, SIGNED, UNSIGNED };

namespace detail {
template<class T>
inline constexpr comparison_type default_comparison_type =
    is_signed_int<T>                   ? comparison_type::SIGNED
    : is_unsigned_int<T> || is_pred<T> ? comparison_type::UNSIGNED
                                       : comparison_type::FLOAT;
template<class T, comparison_type... K>
constexpr comparison_type chosen_comparison_type() {
    if constexpr (sizeof...(K) == 0)
        return default_comparison_type<T>;
    else
        return (K, ...);
}
template<class L, class R>
using compare_element =
    typename common_element<decltype(unbound(std::declval<L>())), decltype(unbound(std::declval<R>()))>::type;
} // namespace detail

template<comparison_direction D, comparison_type... K, class L, class R, class... B>
requires(sizeof...(K) <= 1 && sizeof...(B) <= 1) auto compare(L&& l, R&& r, B... broadcast_dimensions) {
    using T = detail::compare_element<L, R>;
    constexpr comparison_type type = detail::chosen_comparison_type<T, K...>();
    constexpr bool signed_ok = type != comparison_type::SIGNED || is_signed_int<T>;
    constexpr bool unsigned_ok = type != comparison_type::UNSIGNED || is_unsigned_int<T> || is_pred<T>;
    constexpr bool total_ok = type != comparison_type::TOTALORDER || is_float<T>;
    // Quantized operands compare as their dequantized values (FLOAT; quant/elementwise.hpp).
    constexpr bool float_ok = type != comparison_type::FLOAT || is_float<T> || is_complex<T> || is_quantized<T>;
    using LT = detail::shown_t<decltype(detail::unbound(std::declval<L>()))>;
    using RT = detail::shown_t<decltype(detail::unbound(std::declval<R>()))>;
    static_assert(diag::got<signed_ok, LT, RT>::value,
                  "xlet::compare [C3]: comparison_type::SIGNED needs a signed integer element type");
    static_assert(diag::got<unsigned_ok, LT, RT>::value,
                  "xlet::compare [C3]: comparison_type::UNSIGNED needs an unsigned integer or pred element type");
    static_assert(diag::got<total_ok, LT, RT>::value,
                  "xlet::compare [C3]: comparison_type::TOTALORDER needs a floating element type");
    static_assert(diag::got<float_ok, LT, RT>::value,
                  "xlet::compare [C3]: comparison_type::FLOAT needs a floating or complex element type");
    if constexpr (signed_ok && unsigned_ok && total_ok && float_ok) {
        constexpr bool total = type == comparison_type::TOTALORDER;
// (Unqualified: quantized operands find quant/elementwise.hpp's eq ... lt, declared later.)
#define XLET_COMPARE_CASE(DIR, dir)                                                                                    \
    if constexpr (D == comparison_direction::DIR && total)                                                             \
        return dir##_total(std::forward<L>(l), std::forward<R>(r), broadcast_dimensions...);                           \
    else if constexpr (D == comparison_direction::DIR)                                                                 \
        return dir(std::forward<L>(l), std::forward<R>(r), broadcast_dimensions...);
        XLET_COMPARE_CASE(EQ, eq)
        else XLET_COMPARE_CASE(NE, ne) else XLET_COMPARE_CASE(GE, ge) else XLET_COMPARE_CASE(
            GT, gt) else XLET_COMPARE_CASE(LE, le) else XLET_COMPARE_CASE(LT, lt)
#undef XLET_COMPARE_CASE
    }
}

} // namespace xlet

namespace xlet::trace {
// compare_type: FLOAT (IEEE) for floats and complex, TOTALORDER for the *_total functions on
// floats, SIGNED / UNSIGNED (pred) for integers (their total order is the usual one).
template<const char* Dir, bool Total>
struct compare_form {
    static constexpr std::string_view name = "stablehlo.compare";
    template<class T>
    static std::string attrs() {
        const char* type = is_float<T>        ? (Total ? "TOTALORDER" : "FLOAT")
                           : is_complex<T>    ? "FLOAT"
                           : is_signed_int<T> ? "SIGNED"
                                              : "UNSIGNED";
        return std::string("comparison_direction = #stablehlo<comparison_direction ") + Dir +
               ">, compare_type = #stablehlo<comparison_type " + type + ">";
    }
};
inline constexpr char eq_dir[] = "EQ", ne_dir[] = "NE", lt_dir[] = "LT", le_dir[] = "LE", gt_dir[] = "GT",
                      ge_dir[] = "GE";
template<>
struct form<detail::eq_fn> : compare_form<eq_dir, false> {};
template<>
struct form<detail::ne_fn> : compare_form<ne_dir, false> {};
template<>
struct form<detail::lt_fn> : compare_form<lt_dir, false> {};
template<>
struct form<detail::le_fn> : compare_form<le_dir, false> {};
template<>
struct form<detail::gt_fn> : compare_form<gt_dir, false> {};
template<>
struct form<detail::ge_fn> : compare_form<ge_dir, false> {};
template<>
struct form<detail::eq_total_fn> : compare_form<eq_dir, true> {};
template<>
struct form<detail::ne_total_fn> : compare_form<ne_dir, true> {};
template<>
struct form<detail::lt_total_fn> : compare_form<lt_dir, true> {};
template<>
struct form<detail::le_total_fn> : compare_form<le_dir, true> {};
template<>
struct form<detail::gt_total_fn> : compare_form<gt_dir, true> {};
template<>
struct form<detail::ge_total_fn> : compare_form<ge_dir, true> {};
} // namespace xlet::trace
