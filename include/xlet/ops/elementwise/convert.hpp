// ConvertElementType, BitcastConvertType and ReducePrecision.
//   convert_element_type<U>(x)    element-wise; C1 U is an element type; C2 neither x's element
//                                 type nor U is quantized (the spec's convert takes tensors only;
//                                 uniform_quantize / uniform_dequantize convert). Complex → non-complex
//                                 drops the imaginary part (StableHLO, XLA) and converts the real
//                                 part; complex → pred is z != 0. Values: docs/semantics.md.
//   bitcast_convert_type<U>(x)    same width: element-wise, lazy. Different widths (not
//                                 element-wise, evaluated): B > B' appends a minor dimension of
//                                 B/B'; B' > B needs a last dimension of B'/B and drops it.
//                                 C1 neither type is pred; C2 widths divide, last dimension fits;
//                                 C3 both complex or neither (as StableHLO).
//   reduce_precision<E, M>(x)     C1 floating type; C2 exponent_bits >= 1, mantissa_bits >= 0.
#pragma once
#include <bit>
#include <cstring>
#include <limits>

#include "elementwise.hpp"

namespace xlet::detail {

template<class U>
struct convert_fn {
    template<class T> using result = U;
    static constexpr double cost = 1;
    template<class C> static compute_t<U> scalar(C x) {
        using D = compute_t<U>;
        if constexpr (is_complex<C> && !is_complex<U> && !std::is_same_v<U, bool>) {
            return scalar(x.real()); // the imaginary part is dropped, the real part converted
        } else if constexpr (std::is_same_v<U, bool>) {
            return x != C(0);
        } else if constexpr (is_narrow_float<U>) {
            if constexpr (is_complex<C>) return static_cast<float>(U(x.real()));
            else return static_cast<float>(U(x)); // one rounding, straight from the source type
        } else if constexpr (is_complex<U>) {
            if constexpr (is_complex<C>) return D(static_cast<typename D::value_type>(x.real()), static_cast<typename D::value_type>(x.imag()));
            else return D(static_cast<typename D::value_type>(x), 0);
        } else if constexpr (std::is_integral_v<U> && std::is_floating_point_v<C>) {
            // Truncate toward zero, saturate, NaN → 0. The bounds are powers of two (or the exact
            // maximum for narrow integers), so the comparisons are exact.
            if (std::isnan(x)) return 0;
            if (x <= static_cast<C>(std::numeric_limits<U>::min())) return std::numeric_limits<U>::min();
            if (x >= static_cast<C>(std::numeric_limits<U>::max())) return std::numeric_limits<U>::max();
            return static_cast<U>(x);
        } else {
            return static_cast<D>(x); // int → int wraps (C++20), int → float rounds to nearest even
        }
    }
    template<class B> requires(lanes_of<batch_value<B>>() == lanes_of<compute_t<U>>() && has_batch<compute_t<U>>)
    static auto simd(B x) {
        using From = batch_value<B>;
        using To = compute_t<U>;
        if constexpr (std::is_same_v<From, To>) {
            return x;
        } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && std::is_signed_v<To> && sizeof(To) == 4) {
            const B lo(static_cast<From>(std::numeric_limits<To>::min()));
            const B hi(static_cast<From>(std::numeric_limits<To>::max())); // 2^31: exact bound
            using I = xsimd::batch<To>;
            auto over = x >= hi;
            I r = xsimd::batch_cast<To>(xsimd::select(xsimd::isnan(x) , B(0), xsimd::select(x < lo || over, lo, x)));
            I m = xsimd::bitwise_cast<I>(xsimd::bitwise_cast(over)); // all ones where x overflows
            return (r & ~m) | (I(std::numeric_limits<To>::max()) & m);
        } else if constexpr (std::is_integral_v<From> && std::is_floating_point_v<To> && std::is_signed_v<From> && !is_narrow_float<U>) {
            return xsimd::batch_cast<To>(x);
        } else {
            return unsupported{};
        }
    }
    struct unsupported {};
};

template<class T, class U>
struct bitcast_fn {
    static constexpr double cost = 1;
    // compute values of f16/bf16 are exact, so narrowing back recovers the stored bits
    static compute_t<U> scalar(compute_t<T> x) { return widen(std::bit_cast<U>(narrow<T>(x))); }
    // One compute type on both sides (a quantized type and its storage integer): the lanes as they
    // are, so the view costs nothing.
    template<class Out, std::size_t N>
    requires std::is_same_v<compute_t<T>, compute_t<U>>
    static vec<compute_t<U>, N> on_vec(const vec<compute_t<T>, N>& v) { return v; }
};

template<int E, int M, class T>
struct reduce_precision_fn {
    static constexpr double cost = 3;
    template<class C> static C scalar(C x) {
        if constexpr (is_narrow_float<T>) return static_cast<float>(reduce_precision<E, M>(T(x))); // on the 16 bits
        else return reduce_precision<E, M>(x);
    }
    template<class B> requires(std::is_floating_point_v<batch_value<B>> && !is_narrow_float<T>)
    static B simd(B x) { return reduce_precision<E, M>(x); }
};

} // namespace xlet::detail

namespace xlet {

template<element U, expression X>
auto convert_element_type(X&& x) {
    constexpr bool c2 = !is_quantized<detail::element_of<X>> && !is_quantized<U>;
    static_assert(diag::got<c2, detail::shown_t<X>, tensor<U>>::value,
                  "xlet::convert_element_type [C2]: quantized types convert with uniform_quantize and "
                  "uniform_dequantize (quant/), not convert");
    if constexpr (c2) return detail::make_map<detail::convert_fn<U>, U>(detail::as_node(std::forward<X>(x)));
}

template<element U, expression X>
auto bitcast_convert_type(X&& x) {
    using T = detail::element_of<X>;
    using XT = detail::shown_t<X>;
    constexpr std::size_t bt = sizeof(T), bu = sizeof(U);
    static constexpr auto E = detail::shape_of<X>::extents;
    constexpr std::size_t R = E.size();
    static_assert(diag::got<!is_pred<T> && !is_pred<U>, XT, tensor<U>>::value,
                  "xlet::bitcast_convert_type [C1]: pred has no bit layout to reinterpret");
    static_assert(diag::got<is_complex<T> == is_complex<U>, XT, tensor<U>>::value,
                  "xlet::bitcast_convert_type [C3]: complex and non-complex types do not bitcast into each other");
    constexpr bool fits = bt == bu || bt > bu || (R > 0 && E[R - 1] * bt == bu);
    static_assert(diag::got<fits, XT, tensor<U>>::value,
                  "xlet::bitcast_convert_type [C2]: converting to a wider type needs a last dimension of size "
                  "sizeof(new type) / sizeof(old type), which is dropped");
    if constexpr (is_pred<T> || is_pred<U> || is_complex<T> != is_complex<U>) {
        return;
    } else if constexpr (bt == bu && !is_narrow_float<T> && !is_narrow_float<U>) {
        return detail::make_map<detail::bitcast_fn<T, U>, U>(detail::as_node(std::forward<X>(x)));
    } else if constexpr (fits) {
        // Width change, or f16/bf16 involved (their lanes compute in f32, which would quiet a
        // signalling NaN): reinterpret the bytes of the evaluated operand (memcpy: no aliasing UB).
        auto in = eval(x);
        constexpr auto out_extents = [] {
            if constexpr (bt == bu) {
                return E;
            } else if constexpr (bt > bu) {
                extents_t<R + 1> o{};
                for (std::size_t i = 0; i < R; ++i) o[i] = E[i];
                o[R] = bt / bu;
                return o;
            } else {
                extents_t<R - 1> o{};
                for (std::size_t i = 0; i + 1 < R; ++i) o[i] = E[i];
                return o;
            }
        }();
        typename detail::tensor_of_impl<U, out_extents, std::make_index_sequence<out_extents.size()>>::type out;
        std::memcpy(static_cast<void*>(out.data()), in.data(), sizeof(T) * in.size());
        return out;
    }
}

template<int ExponentBits, int MantissaBits, expression X>
auto reduce_precision(X&& x) {
    using T = detail::element_of<X>;
    static_assert(diag::got<is_float<T>, detail::shown_t<X>>::value, "xlet::reduce_precision [C1]: element type must be a floating type");
    static_assert(ExponentBits >= 1 && MantissaBits >= 0,
                  "xlet::reduce_precision [C2]: exponent_bits must be at least 1 and mantissa_bits at least 0");
    if constexpr (is_float<T>)
        return detail::make_map<detail::reduce_precision_fn<ExponentBits, MantissaBits, T>, T>(detail::as_node(std::forward<X>(x)));
}

} // namespace xlet

namespace xlet::trace {
template<class U>
struct form<detail::convert_fn<U>> : plain_form {
    static constexpr std::string_view name = "stablehlo.convert";
};
template<class T, class U>
struct form<detail::bitcast_fn<T, U>> : plain_form {
    static constexpr std::string_view name = "stablehlo.bitcast_convert";
};
template<int E, int M, class T>
struct form<detail::reduce_precision_fn<E, M, T>> {
    static constexpr std::string_view name = "stablehlo.reduce_precision";
    template<class>
    static std::string attrs() {
        return "exponent_bits = " + std::to_string(E) + " : i32, mantissa_bits = " + std::to_string(M) + " : i32";
    }
};
} // namespace xlet::trace
