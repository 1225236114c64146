// Element-wise unary functions (spec: "Elementwise unary functions" and the per-op sections of the
// newest spec): abs ... tanh. Semantics and implementation-defined choices: docs/semantics.md.
// Rule C3 of each op: the element types it accepts (listed in the macro calls below).
#pragma once
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include "elementwise.hpp"

namespace xlet::detail {

// Accepted element types, named after the groups the spec uses.
template<class T>
inline constexpr bool floating = is_float<T>;
template<class T>
inline constexpr bool float_or_complex = is_float<T> || is_complex<T>;
template<class T>
inline constexpr bool integer = is_integer<T>;
template<class T>
inline constexpr bool signed_numeric = is_signed_int<T> || is_float<T> || is_complex<T>;
template<class T>
inline constexpr bool numeric = is_integer<T> || is_float<T> || is_complex<T>;
template<class T>
inline constexpr bool pred_or_integer = is_pred<T> || is_integer<T>;

template<class T>
using same_type = T;

// Integer arithmetic wraps: compute in an unsigned type at least as wide as int (no promotion to
// signed int, so no signed overflow).
template<class T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// Lanes flagged `bad` take the <cmath> result instead of xsimd's: xsimd 8.1's kernels overflow
// early, flush subnormal results to zero, lose the sign of zero or miss special values in a few
// input ranges (measured in tests/elementwise_math_test.cpp). Costs one compare and a mask test when
// no lane is affected.
template<class B, class F>
B patch_lanes(B r, const typename B::batch_bool_type& bad, const B& x, F scalar) {
    if (!xsimd::any(bad)) return r;
    alignas(64) std::array<typename B::value_type, B::size> xs, rs;
    std::array<bool, B::size> m;
    bad.store_unaligned(m.data());
    x.store_aligned(xs.data());
    r.store_aligned(rs.data());
    for (std::size_t i = 0; i < B::size; ++i)
        if (m[i]) rs[i] = scalar(xs[i]);
    return B::load_aligned(rs.data());
}
template<class B, class F>
B patch_lanes2(B r, const typename B::batch_bool_type& bad, const B& x, const B& y, F scalar) {
    if (!xsimd::any(bad)) return r;
    alignas(64) std::array<typename B::value_type, B::size> xs, ys, rs;
    std::array<bool, B::size> m;
    bad.store_unaligned(m.data());
    x.store_aligned(xs.data());
    y.store_aligned(ys.data());
    r.store_aligned(rs.data());
    for (std::size_t i = 0; i < B::size; ++i)
        if (m[i]) rs[i] = scalar(xs[i], ys[i]);
    return B::load_aligned(rs.data());
}
// xsimd 8.1 reduces sin / cos / tan arguments by one of four methods chosen for the whole batch
// from its largest lane (|x| <= 20 pi, <= 64 pi (f32) / 2^18 pi (f64), else a scalar Payne-Hanek),
// so a lane's result depended on its neighbours: on the ISA's batch width, on where a slice
// starts, on a NaN elsewhere in the batch. Here each method runs on the lanes that need it (the
// others replaced by a value of the same class), so every element gets the method its own
// magnitude selects. One compare and one test when the whole batch is in the common class.
template<class B, class F>
B trig_by_lane(const B& x, F f) {
    const B ax = xsimd::abs(x);
    const auto small = ax <= xsimd::constants::twentypi<B>();
    if (xsimd::all(small)) return f(x);
    const auto medium = !small && ax <= xsimd::constants::mediumpi<B>();
    const auto large = !(small || medium); // NaN too
    if (xsimd::all(medium) || xsimd::all(large)) return f(x);
    B r = f(xsimd::select(small, x, B(0)));
    if (xsimd::any(medium))
        r = xsimd::select(medium, f(xsimd::select(medium, x, B(2) * xsimd::constants::twentypi<B>())), r);
    if (xsimd::any(large))
        r = xsimd::select(large, f(xsimd::select(large, x, B(2) * xsimd::constants::mediumpi<B>())), r);
    return r;
}

// Where xsimd's exp is exact to a few ulp: beyond it, results overflow early or flush subnormals.
template<class T>
inline constexpr T exp_lo = sizeof(T) == 4 ? T(-87.3) : T(-708.3);
template<class T>
inline constexpr T exp_hi = sizeof(T) == 4 ? T(88.37) : T(709.43);

// Signed integer batches do their wrapping arithmetic on the same bits as unsigned lanes: xsimd's
// generic fallbacks (64-bit multiply and abs on AVX2) compute lane by lane in the signed type,
// where overflow would be undefined.
template<class B>
auto to_unsigned(const B& b) {
    using T = batch_value<B>;
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
        return xsimd::bitwise_cast<xsimd::batch<std::make_unsigned_t<T>>>(b);
    else
        return b;
}
template<class B, class U>
B from_unsigned(const U& u) {
    if constexpr (std::is_same_v<B, U>)
        return u;
    else
        return xsimd::bitwise_cast<B>(u);
}

template<class Base>
struct same_result : functor_call<Base> {
    template<class T>
    using result = T;
};

struct abs_fn : functor_call<abs_fn> {
    template<class T>
    using result = real_t<T>;
    static constexpr double cost = 1;
    template<class C>
    static auto scalar(C x) {
        if constexpr (std::is_integral_v<C>)
            return static_cast<C>(x < 0 ? wrap_t<C>(0) - wrap_t<C>(x) : wrap_t<C>(x));
        else
            return std::abs(x);
    }
    template<class B>
    requires(!is_complex<batch_value<B>>) static B simd(B x) {
        if constexpr (std::is_integral_v<batch_value<B>>) {
            auto u = to_unsigned(x);
            return xsimd::select(x < B(0), from_unsigned<B>(decltype(u)(0) - u), x);
        } else {
            return xsimd::abs(x);
        }
    }
};

struct neg_fn : same_result<neg_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C x) {
        if constexpr (std::is_integral_v<C>)
            return static_cast<C>(wrap_t<C>(0) - wrap_t<C>(x));
        else
            return -x;
    }
    template<class B>
    static B simd(B x) {
        if constexpr (std::is_integral_v<batch_value<B>>) {
            auto u = to_unsigned(x);
            return from_unsigned<B>(decltype(u)(0) - u);
        } else {
            return -x;
        }
    }
};

struct sign_fn : same_result<sign_fn> {
    static constexpr double cost = 2;
    template<class C>
    static C scalar(C x) {
        if constexpr (std::is_integral_v<C>)
            return static_cast<C>((x > 0) - (x < 0));
        else if constexpr (is_complex<C>)
            return x == C(0) ? C(0) : x / std::abs(x);
        else
            return x > 0 ? C(1) : x < 0 ? C(-1) : x; // keeps -0, +0 and NaN
    }
    template<class B>
    requires std::is_floating_point_v<batch_value<B>>
    static B simd(B x) { return xsimd::select(x > B(0), B(1), xsimd::select(x < B(0), B(-1), x)); }
};

struct not_fn : same_result<not_fn> {
    static constexpr double cost = 1;
    template<class C>
    static C scalar(C x) {
        if constexpr (std::is_same_v<C, bool>)
            return !x;
        else
            return static_cast<C>(~x);
    }
    template<class B>
    requires std::is_integral_v<batch_value<B>>
    static B simd(B x) { return ~x; }
};

struct clz_fn : same_result<clz_fn> {
    static constexpr double cost = 2;
    template<class C>
    static C scalar(C x) {
        return static_cast<C>(std::countl_zero(static_cast<std::make_unsigned_t<C>>(x)));
    }
};
struct popcnt_fn : same_result<popcnt_fn> {
    static constexpr double cost = 2;
    template<class C>
    static C scalar(C x) {
        return static_cast<C>(std::popcount(static_cast<std::make_unsigned_t<C>>(x)));
    }
};

struct real_fn : functor_call<real_fn> {
    template<class T>
    using result = real_t<T>;
    static constexpr double cost = 1;
    template<class C>
    static auto scalar(C x) {
        if constexpr (is_complex<C>)
            return x.real();
        else
            return x;
    }
};
struct imag_fn : functor_call<imag_fn> {
    template<class T>
    using result = real_t<T>;
    static constexpr double cost = 1;
    template<class C>
    static auto scalar(C x) {
        if constexpr (is_complex<C>)
            return x.imag();
        else
            return C(0);
    }
};

struct is_finite_fn : functor_call<is_finite_fn> {
    template<class T>
    using result = bool;
    static constexpr double cost = 1;
    template<class C>
    static bool scalar(C x) {
        return std::isfinite(x);
    }
    template<class B>
    static auto simd(B x) {
        return xsimd::isfinite(x);
    }
};

// Functions with a <cmath>/<complex> scalar form and an xsimd form for real batches.
#define XLET_MATH_FN(fn, scalar_expr, simd_expr, cost_)                                                                \
    struct fn##_fn : same_result<fn##_fn> {                                                                            \
        static constexpr double cost = cost_;                                                                          \
        template<class C>                                                                                              \
        static C scalar(C x) {                                                                                         \
            return scalar_expr;                                                                                        \
        }                                                                                                              \
        template<class B>                                                                                              \
        requires std::is_floating_point_v<batch_value<B>>                                                              \
        static B simd(B x) { return simd_expr; }                                                                       \
    };

XLET_MATH_FN(exp, std::exp(x),
             patch_lanes(xsimd::exp(x), !(x >= B(exp_lo<batch_value<B>>) && x <= B(exp_hi<batch_value<B>>)), x,
                         [](auto v) { return std::exp(v); }),
             8)
XLET_MATH_FN(log, std::log(x),
             patch_lanes(xsimd::log(x), !(x >= B(std::numeric_limits<batch_value<B>>::min())), x,
                         [](auto v) { return std::log(v); }),
             8)
XLET_MATH_FN(sin, std::sin(x), trig_by_lane(x, [](const B& v) { return xsimd::sin(v); }), 8)
XLET_MATH_FN(cos, std::cos(x), trig_by_lane(x, [](const B& v) { return xsimd::cos(v); }), 8)
XLET_MATH_FN(tan, std::tan(x), trig_by_lane(x, [](const B& v) { return xsimd::tan(v); }), 10)
XLET_MATH_FN(tanh, std::tanh(x), xsimd::tanh(x), 10)
XLET_MATH_FN(cosh, std::cosh(x),
             patch_lanes(xsimd::cosh(x), !(xsimd::abs(x) <= B(exp_hi<batch_value<B>>)), x,
                         [](auto v) { return std::cosh(v); }),
             10)
XLET_MATH_FN(sqrt, std::sqrt(x), xsimd::sqrt(x), 4)
XLET_MATH_FN(rsqrt, C(1) / std::sqrt(x), B(1) / xsimd::sqrt(x), 5)
XLET_MATH_FN(cbrt, std::cbrt(x),
             patch_lanes(xsimd::cbrt(x), !(xsimd::abs(x) >= B(std::numeric_limits<batch_value<B>>::min())), x,
                         [](auto v) { return std::cbrt(v); }),
             10)
// A rounded value has the sign of its input (ceil(-0.5) = -0, floor(-0) = -0); xsimd's SSE2
// emulations (no roundps before SSE4.1) return +0 there, so the sign is put back (one and/or).
XLET_MATH_FN(ceil, std::ceil(x), xsimd::copysign(xsimd::ceil(x), x), 1)
XLET_MATH_FN(floor, std::floor(x), xsimd::copysign(xsimd::floor(x), x), 1)
XLET_MATH_FN(round, std::round(x), xsimd::copysign(xsimd::round(x), x), 1) // ties away from zero
XLET_MATH_FN(round_nearest_even, std::nearbyint(x), xsimd::copysign(xsimd::nearbyint(x), x),
             1) // default rounding mode
XLET_MATH_FN(logistic, C(1) / (C(1) + std::exp(-x)),
             patch_lanes(B(1) / (B(1) + xsimd::exp(-x)),
                         !(x >= B(-exp_hi<batch_value<B>>) && x <= B(-exp_lo<batch_value<B>>)), x,
                         [](auto v) { return decltype(v)(1) / (decltype(v)(1) + std::exp(-v)); }),
             9)

// erf: xsimd's f64 kernel is 67 ulp off in places and NaN beyond 9.5e61, so f64 stays scalar.
struct erf_fn : same_result<erf_fn> {
    static constexpr double cost = 10;
    template<class C>
    static C scalar(C x) {
        return std::erf(x);
    }
    template<class B>
    requires std::is_same_v < batch_value<B>,
    float > static B simd(B x) { return xsimd::erf(x); }
};
#undef XLET_MATH_FN

// expm1 and log1p: accurate near 0 for complex operands too.
struct expm1_fn : same_result<expm1_fn> {
    static constexpr double cost = 8;
    template<class C>
    static C scalar(C z) {
        if constexpr (is_complex<C>) {
            auto x = z.real(), y = z.imag();
            if (y == 0) return {std::expm1(x), y}; // no inf * 0 for large real parts
            auto s = std::sin(y / 2);
            return {std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y)};
        } else {
            return std::expm1(z);
        }
    }
    template<class B>
    requires std::is_floating_point_v<batch_value<B>>
    static B simd(B x) {
        return patch_lanes(xsimd::expm1(x), !(x <= B(exp_hi<batch_value<B>>)) || x == B(0), x,
                           [](auto v) { return std::expm1(v); });
    }
};
struct log1p_fn : same_result<log1p_fn> {
    static constexpr double cost = 8;
    template<class C>
    static C scalar(C z) {
        if constexpr (is_complex<C>) {
            auto x = z.real(), y = z.imag();
            // log|1 + z| = log1p(x(2 + x) + y^2) / 2 keeps the digits near 0; near -1 (where that
            // sum cancels) and for huge |z| (where it overflows) log(1 + z) is the accurate form,
            // 1 + z being exact near -1.
            const C w = C(1) + z;
            using R = typename C::value_type;
            const R big = std::sqrt(std::numeric_limits<R>::max()) / 4;
            if (std::abs(w) < R(0.5) || !(std::abs(x) < big && std::abs(y) < big)) return std::log(w);
            return {std::log1p(x * (2 + x) + y * y) / 2, std::atan2(y, 1 + x)};
        } else {
            return std::log1p(z);
        }
    }
    template<class B>
    requires std::is_floating_point_v<batch_value<B>>
    static B simd(B x) {
        return patch_lanes(xsimd::log1p(x), x == B(0), x, [](auto v) { return std::log1p(v); }); // keeps -0
    }
};

} // namespace xlet::detail

namespace xlet {

XLET_UNARY_OP(abs, detail::abs_fn, detail::signed_numeric, "a signed integer, floating or complex type")
XLET_UNARY_OP(neg, detail::neg_fn, detail::numeric, "an integer, floating or complex type")
XLET_UNARY_OP(sign, detail::sign_fn, detail::signed_numeric, "a signed integer, floating or complex type")
XLET_UNARY_OP(not_, detail::not_fn, detail::pred_or_integer, "pred or an integer type")
XLET_UNARY_OP(clz, detail::clz_fn, detail::integer, "an integer type")
XLET_UNARY_OP(popcnt, detail::popcnt_fn, detail::integer, "an integer type")
XLET_UNARY_OP(real, detail::real_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(imag, detail::imag_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(is_finite, detail::is_finite_fn, detail::floating, "a floating type")
XLET_UNARY_OP(exp, detail::exp_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(expm1, detail::expm1_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(log, detail::log_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(log1p, detail::log1p_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(logistic, detail::logistic_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(sin, detail::sin_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(cos, detail::cos_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(tan, detail::tan_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(tanh, detail::tanh_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(cosh, detail::cosh_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(sqrt, detail::sqrt_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(rsqrt, detail::rsqrt_fn, detail::float_or_complex, "a floating or complex type")
XLET_UNARY_OP(cbrt, detail::cbrt_fn, detail::floating, "a floating type")
XLET_UNARY_OP(erf, detail::erf_fn, detail::floating, "a floating type")
XLET_UNARY_OP(ceil, detail::ceil_fn, detail::floating, "a floating type")
XLET_UNARY_OP(floor, detail::floor_fn, detail::floating, "a floating type")
XLET_UNARY_OP(round, detail::round_fn, detail::floating, "a floating type")
XLET_UNARY_OP(round_nearest_afz, detail::round_fn, detail::floating, "a floating type") // = round
XLET_UNARY_OP(round_nearest_even, detail::round_nearest_even_fn, detail::floating, "a floating type")

} // namespace xlet

namespace xlet::trace {
XLET_STABLEHLO_FORM(detail::abs_fn, "stablehlo.abs")
XLET_STABLEHLO_FORM(detail::neg_fn, "stablehlo.negate")
XLET_STABLEHLO_FORM(detail::sign_fn, "stablehlo.sign")
XLET_STABLEHLO_FORM(detail::not_fn, "stablehlo.not")
XLET_STABLEHLO_FORM(detail::clz_fn, "stablehlo.count_leading_zeros")
XLET_STABLEHLO_FORM(detail::popcnt_fn, "stablehlo.popcnt")
XLET_STABLEHLO_FORM(detail::real_fn, "stablehlo.real")
XLET_STABLEHLO_FORM(detail::imag_fn, "stablehlo.imag")
XLET_STABLEHLO_FORM(detail::is_finite_fn, "stablehlo.is_finite")
XLET_STABLEHLO_FORM(detail::exp_fn, "stablehlo.exponential")
XLET_STABLEHLO_FORM(detail::expm1_fn, "stablehlo.exponential_minus_one")
XLET_STABLEHLO_FORM(detail::log_fn, "stablehlo.log")
XLET_STABLEHLO_FORM(detail::log1p_fn, "stablehlo.log_plus_one")
XLET_STABLEHLO_FORM(detail::logistic_fn, "stablehlo.logistic")
XLET_STABLEHLO_FORM(detail::sin_fn, "stablehlo.sine")
XLET_STABLEHLO_FORM(detail::cos_fn, "stablehlo.cosine")
XLET_STABLEHLO_FORM(detail::tan_fn, "stablehlo.tan")
XLET_STABLEHLO_FORM(detail::tanh_fn, "stablehlo.tanh")
XLET_STABLEHLO_FORM(detail::cosh_fn, "chlo.cosh")
XLET_STABLEHLO_FORM(detail::sqrt_fn, "stablehlo.sqrt")
XLET_STABLEHLO_FORM(detail::rsqrt_fn, "stablehlo.rsqrt")
XLET_STABLEHLO_FORM(detail::cbrt_fn, "stablehlo.cbrt")
XLET_STABLEHLO_FORM(detail::erf_fn, "chlo.erf")
XLET_STABLEHLO_FORM(detail::ceil_fn, "stablehlo.ceil")
XLET_STABLEHLO_FORM(detail::floor_fn, "stablehlo.floor")
XLET_STABLEHLO_FORM(detail::round_fn, "stablehlo.round_nearest_afz")
XLET_STABLEHLO_FORM(detail::round_nearest_even_fn, "stablehlo.round_nearest_even")
} // namespace xlet::trace
