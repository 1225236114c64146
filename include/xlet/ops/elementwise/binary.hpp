// Element-wise binary arithmetic, logical and shift ops (spec: "Elementwise binary arithmetic
// operations", Atan2, Complex, Pow, Shift*, And/Or/Xor). Every op has the implicit-broadcast form
// op(lhs, rhs) and the broadcast_dimensions form op(lhs, rhs, dims<...>); rules C1-C4 are in
// elementwise.hpp. Semantics and implementation-defined values: docs/semantics.md.
#pragma once
#include <cmath>
#include <complex>
#include <limits>

#include "unary.hpp"

namespace xlet::detail {

template<class T>
inline constexpr bool arith = is_pred<T> || numeric<T>; // add, mul, max, min: pred is or/and
template<class T>
inline constexpr bool real_numeric = is_integer<T> || is_float<T>;
template<class T>
inline constexpr bool ordered = is_pred<T> || is_integer<T> || is_float<T>; // max, min: no order on C
template<class T>
inline constexpr bool f32_or_f64 = std::is_same_v<T, float> || std::is_same_v<T, double>;

struct add_fn : same_result<add_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a || b;
        else if constexpr (std::is_integral_v<C>)
            return static_cast<C>(wrap_t<C>(a) + wrap_t<C>(b));
        else
            return a + b;
    }
    template<class B>
    static B simd(B a, B b) {
        return from_unsigned<B>(to_unsigned(a) + to_unsigned(b));
    }
};
struct sub_fn : same_result<sub_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_integral_v<C>)
            return static_cast<C>(wrap_t<C>(a) - wrap_t<C>(b));
        else
            return a - b;
    }
    template<class B>
    static B simd(B a, B b) {
        return from_unsigned<B>(to_unsigned(a) - to_unsigned(b));
    }
};
struct mul_fn : same_result<mul_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a && b;
        else if constexpr (std::is_integral_v<C>)
            return static_cast<C>(wrap_t<C>(a) * wrap_t<C>(b));
        else
            return a * b;
    }
    template<class B>
    static B simd(B a, B b) {
        return from_unsigned<B>(to_unsigned(a) * to_unsigned(b));
    }
};
struct div_fn : same_result<div_fn> {
    static constexpr double cost = 4;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_integral_v<C>) {
            if (b == 0) return static_cast<C>(-1); // all bits set (UINT_MAX for unsigned)
            if constexpr (std::is_signed_v<C>)
                if (a == std::numeric_limits<C>::min() && b == -1) return a;
            return static_cast<C>(a / b);
        } else {
            return a / b;
        }
    }
    template<class B>
    requires std::is_floating_point_v<batch_value<B>>
    static B simd(B a, B b) { return a / b; }
};
struct rem_fn : same_result<rem_fn> {
    static constexpr double cost = 4;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_integral_v<C>) {
            if (b == 0) return a;
            if constexpr (std::is_signed_v<C>)
                if (b == -1) return 0; // also INT_MIN % -1, which C++ leaves undefined
            return static_cast<C>(a % b);
        } else {
            return std::fmod(a, b); // exact; sign of the dividend
        }
    }
};

// IEEE 754-2019 maximum/minimum: NaN wins, and +0 > -0.
// AVX512DQ's vrangeps/pd takes the max / min with -0 < +0 (imm bits 1:0: 00 min, 01 max; bits
// 3:2 = 01: the sign from the comparison) but returns the other operand for a NaN: one unordered
// compare and a masked a + b (the scalar form's NaN) complete it. Three instructions where the
// portable form takes two max / min, an and / or, two NaN tests and a select.
template<class B>
inline constexpr bool range_form = [] {
#if defined(__AVX512DQ__)
    using T = batch_value<B>;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        if constexpr (sizeof(B) == 64) return true;
#if defined(__AVX512VL__)
        if constexpr (sizeof(B) == 32 || sizeof(B) == 16) return true;
#endif
    }
#endif
    return false;
}();
#define XLET_RANGE_OP(W, S)                                                                                            \
    {                                                                                                                  \
        const auto r = W##_range_##S(a, b, Imm);                                                                       \
        return B(W##_mask_add_##S(r, W##_cmp_##S##_mask(a, b, _CMP_UNORD_Q), a, b));                                   \
    }
template<class B, int Imm>
B range_op(const B& a, const B& b) {
#if defined(__AVX512DQ__)
    constexpr bool f = std::is_same_v<batch_value<B>, float>;
    if constexpr (sizeof(B) == 64) {
        if constexpr (f)
            XLET_RANGE_OP(_mm512, ps)
        else
            XLET_RANGE_OP(_mm512, pd)
    }
#if defined(__AVX512VL__)
    else if constexpr (sizeof(B) == 32) {
        if constexpr (f)
            XLET_RANGE_OP(_mm256, ps)
        else
            XLET_RANGE_OP(_mm256, pd)
    } else if constexpr (sizeof(B) == 16) {
        if constexpr (f)
            XLET_RANGE_OP(_mm, ps)
        else
            XLET_RANGE_OP(_mm, pd)
    }
#endif
#endif
    (void)b;  // (without AVX512DQ: Clang warns on the template itself)
    return a; // not reached: range_form<B> is false here
}
#undef XLET_RANGE_OP

struct max_fn : same_result<max_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a || b;
        else if constexpr (std::is_integral_v<C>)
            return a < b ? b : a;
        else {
            if (std::isnan(a) || std::isnan(b)) return a + b;
            if (a == b) return std::signbit(a) ? b : a;
            return a < b ? b : a;
        }
    }
    template<class B>
    static B simd(B a, B b) {
        if constexpr (std::is_integral_v<batch_value<B>>) {
            return xsimd::max(a, b);
        } else if constexpr (range_form<B>) {
            return range_op<B, 0x5>(a, b);
        } else {
            // max(a, b) and max(b, a) agree unless a == b, where one returns a and the other b:
            // their bitwise and is +0 for {+0, -0} and the value itself otherwise. NaN: a + b.
            const B r = xsimd::max(a, b) & xsimd::max(b, a);
            return xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, r);
        }
    }
};
struct min_fn : same_result<min_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a && b;
        else if constexpr (std::is_integral_v<C>)
            return b < a ? b : a;
        else {
            if (std::isnan(a) || std::isnan(b)) return a + b;
            if (a == b) return std::signbit(a) ? a : b;
            return b < a ? b : a;
        }
    }
    template<class B>
    static B simd(B a, B b) {
        if constexpr (std::is_integral_v<batch_value<B>>) {
            return xsimd::min(a, b);
        } else if constexpr (range_form<B>) {
            return range_op<B, 0x4>(a, b);
        } else {
            const B r = xsimd::min(a, b) | xsimd::min(b, a); // as max: -0 for {+0, -0}
            return xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, r);
        }
    }
};

struct pow_fn : same_result<pow_fn> {
    static constexpr double cost = 12;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_integral_v<C>) {
            if constexpr (std::is_signed_v<C>) {
                if (b < 0) return a == 1 ? C(1) : a == -1 ? static_cast<C>((b & 1) ? -1 : 1) : C(0);
            }
            wrap_t<C> base = wrap_t<C>(a), acc = 1;
            for (auto e = static_cast<std::make_unsigned_t<C>>(b); e != 0; e >>= 1) {
                if (e & 1) acc = static_cast<wrap_t<C>>(acc * base);
                base = static_cast<wrap_t<C>>(base * base);
            }
            return static_cast<C>(acc);
        } else {
            return std::pow(a, b);
        }
    }
};

struct atan2_fn : same_result<atan2_fn> {
    static constexpr double cost = 12;
    template<class C>
    static C scalar(C y, C x) {
        if constexpr (is_complex<C>) {
            // atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)) (docs/semantics.md)
            const C i(0, 1);
            return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
        } else {
            return std::atan2(y, x);
        }
    }
    template<class B>
    requires std::is_floating_point_v<batch_value<B>>
    static B simd(B y, B x) {
        // xsimd 8.1 returns NaN for zero and infinite operands: those lanes take std::atan2.
        auto bad = y == B(0) || x == B(0) || xsimd::isinf(x) || xsimd::isinf(y);
        return patch_lanes2(xsimd::atan2(y, x), bad, y, x, [](auto a, auto b) { return std::atan2(a, b); });
    }
};

struct complex_fn : functor_call<complex_fn> {
    template<class T>
    using result = std::complex<T>;
    static constexpr double cost = 1;
    template<class C>
    static std::complex<C> scalar(C re, C im) {
        return {re, im};
    }
};

struct and_fn : same_result<and_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a && b;
        else
            return static_cast<C>(a & b);
    }
    template<class B>
    requires std::is_integral_v<batch_value<B>>
    static B simd(B a, B b) { return a & b; }
};
struct or_fn : same_result<or_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a || b;
        else
            return static_cast<C>(a | b);
    }
    template<class B>
    requires std::is_integral_v<batch_value<B>>
    static B simd(B a, B b) { return a | b; }
};
struct xor_fn : same_result<xor_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        if constexpr (std::is_same_v<C, bool>)
            return a != b;
        else
            return static_cast<C>(a ^ b);
    }
    template<class B>
    requires std::is_integral_v<batch_value<B>>
    static B simd(B a, B b) { return a ^ b; }
};

// Shift amounts are read as unsigned; anything >= the bit width shifts everything out.
template<class C>
constexpr bool shift_out(C amount) {
    return static_cast<std::make_unsigned_t<C>>(amount) >= static_cast<std::make_unsigned_t<C>>(sizeof(C) * 8);
}
struct shift_left_fn : same_result<shift_left_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        using U = std::make_unsigned_t<C>;
        return shift_out(b) ? C(0) : static_cast<C>(static_cast<U>(static_cast<U>(a) << static_cast<U>(b)));
    }
};
struct shift_right_logical_fn : same_result<shift_right_logical_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        using U = std::make_unsigned_t<C>;
        return shift_out(b) ? C(0) : static_cast<C>(static_cast<U>(static_cast<U>(a) >> static_cast<U>(b)));
    }
};
// Works on the bits as two's complement signed, for unsigned types too (C++20 >> on negative
// signed values is arithmetic and defined).
struct shift_right_arithmetic_fn : same_result<shift_right_arithmetic_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C a, C b) {
        using S = std::make_signed_t<C>;
        auto s = static_cast<S>(a);
        auto amount = shift_out(b) ? static_cast<int>(sizeof(C) * 8 - 1) : static_cast<int>(b);
        return static_cast<C>(static_cast<S>(s >> amount));
    }
};

} // namespace xlet::detail

namespace xlet {

XLET_BINARY_OP(add, detail::add_fn, detail::arith, "pred, an integer, floating or complex type")
XLET_BINARY_OP(sub, detail::sub_fn, detail::numeric, "an integer, floating or complex type")
XLET_BINARY_OP(mul, detail::mul_fn, detail::arith, "pred, an integer, floating or complex type")
XLET_BINARY_OP(div, detail::div_fn, detail::numeric, "an integer, floating or complex type")
XLET_BINARY_OP(rem, detail::rem_fn, detail::real_numeric, "an integer or floating type")
XLET_BINARY_OP(max, detail::max_fn, detail::ordered, "pred, an integer or floating type")
XLET_BINARY_OP(min, detail::min_fn, detail::ordered, "pred, an integer or floating type")
XLET_BINARY_OP(pow, detail::pow_fn, detail::numeric, "an integer, floating or complex type")
XLET_BINARY_OP(atan2, detail::atan2_fn, detail::float_or_complex, "a floating or complex type")
XLET_BINARY_OP(complex, detail::complex_fn, detail::f32_or_f64, "f32 or f64")
XLET_BINARY_OP(and_, detail::and_fn, detail::pred_or_integer, "pred or an integer type")
XLET_BINARY_OP(or_, detail::or_fn, detail::pred_or_integer, "pred or an integer type")
XLET_BINARY_OP(xor_, detail::xor_fn, detail::pred_or_integer, "pred or an integer type")
XLET_BINARY_OP(shift_left, detail::shift_left_fn, detail::integer, "an integer type")
XLET_BINARY_OP(shift_right_arithmetic, detail::shift_right_arithmetic_fn, detail::integer, "an integer type")
XLET_BINARY_OP(shift_right_logical, detail::shift_right_logical_fn, detail::integer, "an integer type")

// The monoid tags reductions take (reduce, reduce_window, all_reduce, ...), as public names.
using detail::add_fn;
using detail::and_fn;
using detail::max_fn;
using detail::min_fn;
using detail::mul_fn;
using detail::or_fn;

} // namespace xlet

namespace xlet::trace {
XLET_STABLEHLO_FORM(detail::add_fn, "stablehlo.add")
XLET_STABLEHLO_FORM(detail::sub_fn, "stablehlo.subtract")
XLET_STABLEHLO_FORM(detail::mul_fn, "stablehlo.multiply")
XLET_STABLEHLO_FORM(detail::div_fn, "stablehlo.divide")
XLET_STABLEHLO_FORM(detail::rem_fn, "stablehlo.remainder")
XLET_STABLEHLO_FORM(detail::max_fn, "stablehlo.maximum")
XLET_STABLEHLO_FORM(detail::min_fn, "stablehlo.minimum")
XLET_STABLEHLO_FORM(detail::pow_fn, "stablehlo.power")
XLET_STABLEHLO_FORM(detail::atan2_fn, "stablehlo.atan2")
XLET_STABLEHLO_FORM(detail::complex_fn, "stablehlo.complex")
XLET_STABLEHLO_FORM(detail::and_fn, "stablehlo.and")
XLET_STABLEHLO_FORM(detail::or_fn, "stablehlo.or")
XLET_STABLEHLO_FORM(detail::xor_fn, "stablehlo.xor")
XLET_STABLEHLO_FORM(detail::shift_left_fn, "stablehlo.shift_left")
XLET_STABLEHLO_FORM(detail::shift_right_logical_fn, "stablehlo.shift_right_logical")
XLET_STABLEHLO_FORM(detail::shift_right_arithmetic_fn, "stablehlo.shift_right_arithmetic")
} // namespace xlet::trace
