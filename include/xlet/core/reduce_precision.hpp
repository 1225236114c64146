// xlet/core/reduce_precision.hpp - XLA ReducePrecision, plus the f32 <-> f16/bf16 rounding,
// load and store kernels used when f16/bf16 tensors are computed in f32.
//
// Everything works on the bit pattern with unsigned integer arithmetic (wrap-around is defined,
// every shift count is below the lane width), so there is no undefined behaviour. The binary16
// subnormal kernels use one float addition and read its result as bits; they rely on the default
// round-to-nearest mode only (a flushed float subnormal input would round to 0 anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "simd.hpp"
#include "float16.hpp"

namespace xlet {

namespace detail {

template<class T>
struct float_bits;
template<>
struct float_bits<float> {
    using uint = std::uint32_t;
    static constexpr int exponent = 8;
    static constexpr int mantissa = 23;
};
template<>
struct float_bits<double> {
    using uint = std::uint64_t;
    static constexpr int exponent = 11;
    static constexpr int mantissa = 52;
};

// f16 and bf16 are reduced on their own 16-bit patterns, as XLA does (for f16 this keeps its
// subnormals when exponent_bits >= 5, which a detour through f32 would flush).
template<>
struct float_bits<half> {
    using uint = std::uint16_t;
    static constexpr int exponent = 5;
    static constexpr int mantissa = 10;
};
template<>
struct float_bits<bfloat16> {
    using uint = std::uint16_t;
    static constexpr int exponent = 8;
    static constexpr int mantissa = 7;
};

template<class T>
concept xla_float =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// XLA's ReducePrecision, step by step as XLA's elemental IR emitter and HLO evaluator do it:
//  1. Round the mantissa to `mantissa_bits` (ties to even) in place on the bits. A carry out of
//     the mantissa bumps the exponent, which is the correct rounded value.
//  2. If the reduced exponent range is narrower than T's, a rounded exponent above the reduced
//     maximum becomes +-inf, and one at or below the reduced bias (value < the reduced format's
//     smallest normal 2^(1 - bias)) becomes +-0. Reduced-format subnormals are therefore flushed
//     to signed zero, not rounded: that is what XLA computes. If the reduced exponent range is at
//     least T's, T's own subnormals are rounded on their raw mantissa bits, also like XLA.
//  3. NaN inputs are returned unchanged (sign and payload kept). XLA's backends do the same for
//     mantissa_bits > 0; for mantissa_bits == 0 XLA's emitter returns +inf instead (such a format
//     has no NaN encoding), but the op's specification says NaN is retained, and we follow that.
// -0 stays -0 and +-inf stays +-inf (rounding leaves them alone, the clamp maps them to inf).
template<xla_float T>
constexpr T reduce_precision_bits(T x, int exponent_bits, int mantissa_bits) noexcept {
    using U = typename float_bits<T>::uint;
    constexpr int SE = float_bits<T>::exponent;
    constexpr int SM = float_bits<T>::mantissa;
    constexpr U sign_mask = U(1) << (SE + SM);
    constexpr U exp_mask = ((U(1) << SE) - 1) << SM;

    const U in = std::bit_cast<U>(x);
    if ((in & ~sign_mask) > exp_mask) return x; // NaN

    U u = in;
    if (mantissa_bits < SM) {
        const int drop = SM - (mantissa_bits < 0 ? 0 : mantissa_bits); // 1..SM
        u = static_cast<U>(u + ((U(1) << (drop - 1)) - 1) + ((u >> drop) & 1u));
        u = static_cast<U>(u & ~((U(1) << drop) - 1));
    }
    if (exponent_bits < SE) {
        const int eb = exponent_bits < 1 ? 1 : exponent_bits; // XLA requires >= 1
        const U src_bias = (U(1) << (SE - 1)) - 1;
        const U red_bias = (U(1) << (eb - 1)) - 1;
        const U max_exp = (src_bias + red_bias) << SM;
        const U min_exp = (src_bias - red_bias) << SM;
        const U e = u & exp_mask;
        const U sign = u & sign_mask;
        if (e > max_exp)
            u = sign | exp_mask;
        else if (e <= min_exp)
            u = sign;
    }
    return std::bit_cast<T>(u);
}

} // namespace detail

// Run-time parameters. Preconditions as in XLA: exponent_bits >= 1, mantissa_bits >= 0 (smaller
// values are treated as 1 and 0). Widths at or above T's leave that part untouched.
template<class T>
requires detail::xla_float<T>
constexpr T reduce_precision(T x, int exponent_bits, int mantissa_bits) noexcept {
    return detail::reduce_precision_bits(x, exponent_bits, mantissa_bits);
}

template<int ExponentBits, int MantissaBits, class T>
requires detail::xla_float<T>
constexpr T reduce_precision(T x) noexcept {
    static_assert(ExponentBits >= 1, "ReducePrecision needs at least one exponent bit");
    static_assert(MantissaBits >= 0, "ReducePrecision needs a non-negative mantissa width");
    return detail::reduce_precision_bits(x, ExponentBits, MantissaBits);
}

namespace detail {

// The same three steps, branch-free on integer lanes (see reduce_precision_bits).
template<int E, int M, class T, class A>
xsimd::batch<T, A> reduce_precision_batch(xsimd::batch<T, A> const& x) noexcept {
    static_assert(E >= 1 && M >= 0);
    using U = typename float_bits<T>::uint;
    using UB = xsimd::batch<U, A>;
    constexpr int SE = float_bits<T>::exponent;
    constexpr int SM = float_bits<T>::mantissa;
    constexpr U sign_mask = U(1) << (SE + SM);
    constexpr U exp_mask = ((U(1) << SE) - 1) << SM;

    const UB in = xsimd::bitwise_cast<UB>(x);
    UB u = in;
    if constexpr (M < SM) {
        constexpr int drop = SM - M;
        constexpr U bias = (U(1) << (drop - 1)) - 1;
        constexpr U keep = ~((U(1) << drop) - 1);
        u = (u + UB(bias) + ((u >> drop) & UB(U(1)))) & UB(keep);
    }
    if constexpr (E < SE) {
        constexpr U src_bias = (U(1) << (SE - 1)) - 1;
        constexpr U red_bias = (U(1) << (E - 1)) - 1;
        const UB e = u & UB(exp_mask);
        const UB sign = u & UB(sign_mask);
        u = xsimd::select(e > UB((src_bias + red_bias) << SM), sign | UB(exp_mask), u);
        u = xsimd::select(e <= UB((src_bias - red_bias) << SM), sign, u);
    }
    u = xsimd::select((in & UB(U(~sign_mask))) > UB(exp_mask), in, u); // NaN unchanged
    return xsimd::bitwise_cast<xsimd::batch<T, A>>(u);
}

} // namespace detail

template<int ExponentBits, int MantissaBits, class A>
xsimd::batch<float, A> reduce_precision(xsimd::batch<float, A> const& x) noexcept {
    return detail::reduce_precision_batch<ExponentBits, MantissaBits>(x);
}

template<int ExponentBits, int MantissaBits, class A>
xsimd::batch<double, A> reduce_precision(xsimd::batch<double, A> const& x) noexcept {
    return detail::reduce_precision_batch<ExponentBits, MantissaBits>(x);
}

// ---------------------------------------------------------------------------------------------
// f16 / bf16 storage computed in f32.
//
// round_to_half(x) == float(half(x)) and round_to_bfloat16(x) == float(bfloat16(x)), bit for bit
// for every float x (NaN: quiet, payload truncated, sign kept - the same NaN the scalar gives).
// Unlike reduce_precision<5, 10> this keeps binary16 subnormals: it is the real conversion.

constexpr float round_to_half(float x) noexcept { return float(half(x)); }
constexpr float round_to_bfloat16(float x) noexcept { return float(bfloat16(x)); }

template<class A>
xsimd::batch<float, A> round_to_half(xsimd::batch<float, A> const& x) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    using FB = xsimd::batch<float, A>;
    using IB = xsimd::batch<std::int32_t, A>;
    const UB u = xsimd::bitwise_cast<UB>(x);
    const UB a = u & UB(0x7FFFFFFFu);
    const UB sign = u ^ a;
    // Normal binary16 range: round the mantissa to 10 bits in place (ties to even); whatever
    // reaches 2^16 (including +-inf itself) is +-inf.
    UB r = (a + UB(0xFFFu) + ((a >> 13) & UB(1u))) & UB(0xFFFFE000u);
    r = xsimd::select(r >= UB(0x47800000u), UB(0x7F800000u), r);
    // Below 2^-14 binary16 is fixed point with quantum 2^-24. |x| + 0.5 lies in [0.5, 1), whose
    // float ulp is exactly 2^-24, so the FPU's round-to-nearest-even produces the quantum count q
    // in the low mantissa bits (0.5 is an even count, so parity is kept for the tie rule).
    // q * 2^-24 is then rebuilt exactly; no float subnormal is ever produced or consumed.
    const UB q = xsimd::bitwise_cast<UB>(xsimd::bitwise_cast<FB>(a) + FB(0.5f)) - UB(0x3F000000u);
    const FB sub = xsimd::batch_cast<float>(xsimd::bitwise_cast<IB>(q)) * FB(0x1p-24f);
    r = xsimd::select(a < UB(0x38800000u), xsimd::bitwise_cast<UB>(sub), r);
    r = xsimd::select(a > UB(0x7F800000u), (a | UB(0x00400000u)) & UB(0xFFFFE000u), r);
    return xsimd::bitwise_cast<FB>(r | sign);
}

template<class A>
xsimd::batch<float, A> round_to_bfloat16(xsimd::batch<float, A> const& x) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    const UB u = xsimd::bitwise_cast<UB>(x);
    const UB a = u & UB(0x7FFFFFFFu);
    const UB sign = u ^ a;
    // bfloat16 has float's exponent field, so rounding the raw bits is right for subnormals,
    // for the carry into the next binade and for overflow to inf alike.
    UB r = (a + UB(0x7FFFu) + ((a >> 16) & UB(1u))) & UB(0xFFFF0000u);
    r = xsimd::select(a > UB(0x7F800000u), (a | UB(0x00400000u)) & UB(0xFFFF0000u), r);
    return xsimd::bitwise_cast<xsimd::batch<float, A>>(r | sign);
}

namespace detail {

// half and bfloat16 are standard-layout wrappers of one uint16_t, so their arrays are read and
// written through from_bits/bits() rather than by aliasing.
template<class T, class A>
xsimd::batch<std::uint32_t, A> load_bits(T const* p) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    alignas(A::alignment()) std::uint32_t buf[UB::size];
    for (std::size_t i = 0; i < UB::size; ++i)
        buf[i] = p[i].bits();
    return UB::load_aligned(buf);
}

template<class T, class A>
void store_bits(T* p, xsimd::batch<std::uint32_t, A> const& v) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    alignas(A::alignment()) std::uint32_t buf[UB::size];
    v.store_aligned(buf);
    for (std::size_t i = 0; i < UB::size; ++i)
        p[i] = T::from_bits(std::uint16_t(buf[i]));
}

// Portable half kernels (integer bit manipulation). load_half/store_half use F16C when the
// compiler targets it; these stay reachable so both paths can be tested on one machine.
template<class A>
xsimd::batch<float, A> load_half_generic(half const* p) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    using FB = xsimd::batch<float, A>;
    using IB = xsimd::batch<std::int32_t, A>;
    const UB h = load_bits<half, A>(p);
    const UB em = h & UB(0x7FFFu);
    const UB sign = (h & UB(0x8000u)) << 16;
    const UB shifted = em << 13;
    // Rebias the exponent by 127 - 15; inf/NaN need the field to go from 31 to 255 instead.
    UB r = xsimd::select(em >= UB(0x7C00u), shifted + UB(0x70000000u), shifted + UB(0x38000000u));
    // Subnormals (and zero) are m * 2^-24: an exact int -> float conversion and power-of-2 scale.
    const FB sub = xsimd::batch_cast<float>(xsimd::bitwise_cast<IB>(em)) * FB(0x1p-24f);
    r = xsimd::select(em < UB(0x0400u), xsimd::bitwise_cast<UB>(sub), r);
    return xsimd::bitwise_cast<FB>(r | sign);
}

// x must already be a binary16 value (e.g. the output of round_to_half), inf or NaN; the bits are
// then just repacked. NaN stays NaN (the quiet bit is forced).
template<class A>
void store_half_generic(half* p, xsimd::batch<float, A> const& x) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    using FB = xsimd::batch<float, A>;
    const UB u = xsimd::bitwise_cast<UB>(x);
    const UB a = u & UB(0x7FFFFFFFu);
    const UB sign = (u >> 16) & UB(0x8000u);
    // Normal: rebias and drop the 13 zero bits. (For small a this wraps; those lanes are replaced.)
    UB h = (a - UB(0x38000000u)) >> 13;
    UB special = UB(0x7C00u) | ((a >> 13) & UB(0x3FFu));
    special = xsimd::select(a > UB(0x7F800000u), special | UB(0x0200u), special);
    h = xsimd::select(a >= UB(0x7F800000u), special, h);
    // Subnormal: same +0.5 trick as round_to_half; the low mantissa bits are the binary16 bits.
    const UB q = xsimd::bitwise_cast<UB>(xsimd::bitwise_cast<FB>(a) + FB(0.5f)) - UB(0x3F000000u);
    h = xsimd::select(a < UB(0x38800000u), q, h);
    store_bits<half, A>(p, h | sign);
}

} // namespace detail

// Loads batch<float, A>::size halves (any alignment) as exact floats.
template<class A = xsimd::default_arch>
xsimd::batch<float, A> load_half(half const* p) noexcept {
#if defined(__F16C__)
    if constexpr (std::is_base_of_v<xsimd::sse2, A>) {
        return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<__m128i const*>(p)));
    } else if constexpr (std::is_base_of_v<xsimd::avx, A>) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<__m128i const*>(p)));
    }
#if defined(__AVX512F__)
    else if constexpr (std::is_base_of_v<xsimd::avx512f, A>) {
        // maskz with every lane: the plain intrinsic's "undefined" pass-through trips GCC 12's
        // bug 105593 (-Wmaybe-uninitialized) where TBB's <immintrin.h> came first
        return _mm512_maskz_cvtph_ps(static_cast<__mmask16>(-1),
                                     _mm256_loadu_si256(reinterpret_cast<__m256i const*>(p)));
    }
#endif
    else
#endif
    {
        return detail::load_half_generic<A>(p);
    }
}

// Stores x, whose lanes must already be binary16 values (round_to_half output), inf or NaN.
template<class A>
void store_half(half* p, xsimd::batch<float, A> const& x) noexcept {
#if defined(__F16C__)
    constexpr int nearest = _MM_FROUND_TO_NEAREST_INT; // exact anyway for rounded input
    if constexpr (std::is_base_of_v<xsimd::sse2, A>) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_cvtps_ph(x, nearest));
    } else if constexpr (std::is_base_of_v<xsimd::avx, A>) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(x, nearest));
    }
#if defined(__AVX512F__)
    else if constexpr (std::is_base_of_v<xsimd::avx512f, A>) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                            _mm512_maskz_cvtps_ph(static_cast<__mmask16>(-1), x, nearest));
    }
#endif
    else
#endif
    {
        detail::store_half_generic<A>(p, x);
    }
}

// bfloat16 is the top half of a float: loading is a shift, storing (of a rounded value) a shift.
template<class A = xsimd::default_arch>
xsimd::batch<float, A> load_bfloat16(bfloat16 const* p) noexcept {
    return xsimd::bitwise_cast<xsimd::batch<float, A>>(detail::load_bits<bfloat16, A>(p) << 16);
}

// x must already be a bfloat16 value (round_to_bfloat16 output), inf or NaN. The quiet bit is
// forced on NaN so a payload held only in the low half cannot turn into inf.
template<class A>
void store_bfloat16(bfloat16* p, xsimd::batch<float, A> const& x) noexcept {
    using UB = xsimd::batch<std::uint32_t, A>;
    const UB u = xsimd::bitwise_cast<UB>(x);
    const UB a = u & UB(0x7FFFFFFFu);
    const UB b = u >> 16;
    detail::store_bits<bfloat16, A>(p, xsimd::select(a > UB(0x7F800000u), b | UB(0x0040u), b));
}

} // namespace xlet
