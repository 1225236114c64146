// xlet/core/float16.hpp - 16-bit floating-point storage types.
//
//   xlet::half      IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits.
//   xlet::bfloat16  "brain float": the top 16 bits of a binary32 (1, 8, 7).
//
// Both are storage types: arithmetic converts to float, computes there and rounds the result back.
// Every conversion into these types rounds to nearest, ties to even, straight from the source type
// (double -> half rounds once, never through float), as XLA's convert to f16/bf16 does.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

namespace xlet {

namespace detail {

// Rounds an IEEE binary value, given by its bit pattern `u` (unsigned type U holding 1 + SE + SM
// bits), to the 16-bit format with DE exponent and DM mantissa bits (1 + DE + DM == 16).
// Round to nearest, ties to even; overflow gives +-inf; subnormals of the destination are rounded
// exactly; NaN gives a quiet NaN with the same sign and the top payload bits.
// Only unsigned arithmetic is used, so there is no overflow UB; every shift is below U's width.
template <class U, int SE, int SM, int DE, int DM>
constexpr std::uint16_t round_to_16(U u) noexcept {
    static_assert(std::is_unsigned_v<U> && 1 + SE + SM == std::numeric_limits<U>::digits);
    static_assert(1 + DE + DM == 16 && DE <= SE && DM < SM);
    constexpr int src_bias = (1 << (SE - 1)) - 1;
    constexpr int dst_bias = (1 << (DE - 1)) - 1;
    constexpr int drop = SM - DM; // mantissa bits that disappear
    constexpr U src_sign = U(1) << (SE + SM);
    constexpr U src_inf = ((U(1) << SE) - 1) << SM;
    constexpr std::uint16_t dst_inf = std::uint16_t(((1u << DE) - 1) << DM);
    constexpr std::uint16_t dst_quiet = std::uint16_t(1u << (DM - 1));
    constexpr std::uint16_t dst_mant = std::uint16_t((1u << DM) - 1);
    // Smallest destination normal, written as a source bit pattern.
    constexpr U min_normal = U(1 - dst_bias + src_bias) << SM;

    const std::uint16_t sign = (u & src_sign) ? std::uint16_t(0x8000) : std::uint16_t(0);
    const U a = u & ~src_sign;
    if (a > src_inf) // NaN: force the quiet bit so a payload held only in dropped bits stays NaN
        return std::uint16_t(sign | dst_inf | dst_quiet | std::uint16_t((a >> drop) & dst_mant));
    if (a >= min_normal) {
        // Adding 0111..1 plus the lowest kept bit rounds ties to even; a carry out of the mantissa
        // correctly bumps the exponent. Rebiasing afterwards cannot wrap because a >= min_normal.
        U r = a + ((U(1) << (drop - 1)) - 1) + ((a >> drop) & 1u);
        r = (r - (U(src_bias - dst_bias) << SM)) >> drop;
        if (r >= dst_inf) return std::uint16_t(sign | dst_inf); // overflow, and inf itself
        return std::uint16_t(sign | r);
    }
    // Destination subnormal (or zero): count in units of the smallest destination subnormal,
    // 2^(1 - dst_bias - DM). The source value is sig * 2^(e - src_bias - SM).
    const int e = int(a >> SM);
    const U sig = e != 0 ? ((a & ((U(1) << SM) - 1)) | (U(1) << SM)) : a;
    const int shift = SM - DM + src_bias - dst_bias + 1 - (e != 0 ? e : 1);
    if (shift > SM + 1) return sign; // below half the smallest subnormal (sig < 2^(SM+1))
    const U q = sig >> shift;
    const U rem = sig & ((U(1) << shift) - 1);
    const U halfway = U(1) << (shift - 1);
    const U rounded = q + ((rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u);
    return std::uint16_t(sign | rounded); // rounding up to the smallest normal encodes correctly
}

constexpr std::uint16_t float_to_half_bits(float f) noexcept {
    return round_to_16<std::uint32_t, 8, 23, 5, 10>(std::bit_cast<std::uint32_t>(f));
}
constexpr std::uint16_t double_to_half_bits(double d) noexcept {
    return round_to_16<std::uint64_t, 11, 52, 5, 10>(std::bit_cast<std::uint64_t>(d));
}
constexpr std::uint16_t float_to_bfloat16_bits(float f) noexcept {
    return round_to_16<std::uint32_t, 8, 23, 8, 7>(std::bit_cast<std::uint32_t>(f));
}
constexpr std::uint16_t double_to_bfloat16_bits(double d) noexcept {
    return round_to_16<std::uint64_t, 11, 52, 8, 7>(std::bit_cast<std::uint64_t>(d));
}

// Exact widening: every binary16 value (NaN payloads included) is a binary32 value.
constexpr float half_bits_to_float(std::uint16_t h) noexcept {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t em = h & 0x7FFFu;
    std::uint32_t bits;
    if (em >= 0x7C00u) { // inf / NaN
        bits = 0x7F800000u | ((em & 0x3FFu) << 13);
    } else if (em >= 0x0400u) { // normal: rebias exponent 15 -> 127
        bits = (em << 13) + (std::uint32_t(127 - 15) << 23);
    } else if (em != 0) {                 // subnormal m * 2^-24 becomes a normal float
        const int w = std::bit_width(em); // 1..10, leading one at bit w-1
        bits = (std::uint32_t(w + 127 - 25) << 23) | ((em << (24 - w)) & 0x7FFFFFu);
    } else {
        bits = 0;
    }
    return std::bit_cast<float>(sign | bits);
}

constexpr float bfloat16_bits_to_float(std::uint16_t b) noexcept {
    return std::bit_cast<float>(std::uint32_t(b) << 16);
}

// Integers go through double. Up to 53 significant bits that is exact. Wider magnitudes are cut
// to 53 bits with the dropped bits ORed into the lowest kept one ("sticky" bit): the 53-bit value
// then lies strictly between the same 16-bit neighbours as the integer and is never a false tie,
// so the second rounding (to <= 11 bits) gives the correctly rounded result.
template <std::integral I>
constexpr double integer_to_double_sticky(I i) noexcept {
    static_assert(sizeof(I) <= sizeof(std::uint64_t));
    const bool negative = i < I(0);
    std::uint64_t m = negative ? std::uint64_t(0) - std::uint64_t(i) : std::uint64_t(i);
    double scale = 1.0;
    const int width = std::bit_width(m);
    if (width > 53) {
        const int s = width - 53; // 1..11
        const std::uint64_t dropped = m & ((std::uint64_t(1) << s) - 1);
        m = (m >> s) | (dropped != 0 ? 1u : 0u);
        scale = double(std::uint64_t(1) << s);
    }
    const double d = double(m) * scale; // m < 2^53 and scale a power of two: exact
    return negative ? -d : d;
}

// Arithmetic and comparisons shared by half and bfloat16, as hidden friends found by ADL (the
// base is an associated class), so only D op D participates; a float or int operand converts to D.
//
// + - * / are computed in float and rounded once more: float has 24 >= 2p+2 significand bits
// (p = 11 for half, 8 for bfloat16), so the double rounding is innocuous and the result is the
// correctly rounded one (Figueroa's theorem). bfloat16 shares float's exponent range; in the
// subnormal range the exact results of these ops are either exact in float or farther than half
// a float quantum from a bfloat16 midpoint, so the argument still holds (the tests check it).
template <class D>
struct float16_operators {
    friend constexpr D operator+(D a) noexcept { return a; }
    friend constexpr D operator-(D a) noexcept { // exact sign flip, NaN included
        return D::from_bits(std::uint16_t(a.bits() ^ 0x8000u));
    }
    friend constexpr D operator+(D a, D b) noexcept { return D(float(a) + float(b)); }
    friend constexpr D operator-(D a, D b) noexcept { return D(float(a) - float(b)); }
    friend constexpr D operator*(D a, D b) noexcept { return D(float(a) * float(b)); }
    friend constexpr D operator/(D a, D b) noexcept { return D(float(a) / float(b)); }
    friend constexpr D& operator+=(D& a, D b) noexcept { return a = a + b; }
    friend constexpr D& operator-=(D& a, D b) noexcept { return a = a - b; }
    friend constexpr D& operator*=(D& a, D b) noexcept { return a = a * b; }
    friend constexpr D& operator/=(D& a, D b) noexcept { return a = a / b; }

    // IEEE comparisons via float (exact): NaN is unordered, -0 == +0.
    friend constexpr bool operator==(D a, D b) noexcept { return float(a) == float(b); }
    friend constexpr bool operator!=(D a, D b) noexcept { return float(a) != float(b); }
    friend constexpr bool operator<(D a, D b) noexcept { return float(a) < float(b); }
    friend constexpr bool operator<=(D a, D b) noexcept { return float(a) <= float(b); }
    friend constexpr bool operator>(D a, D b) noexcept { return float(a) > float(b); }
    friend constexpr bool operator>=(D a, D b) noexcept { return float(a) >= float(b); }

    friend std::ostream& operator<<(std::ostream& os, D x) { return os << float(x); }
};

} // namespace detail

struct half : detail::float16_operators<half> {
    constexpr half() noexcept = default;
    // Implicit, so braced lists like std::initializer_list<half>{1.0f, 2.5} work.
    constexpr half(float f) noexcept : bits_(detail::float_to_half_bits(f)) {}
    constexpr half(double d) noexcept : bits_(detail::double_to_half_bits(d)) {}
    template <std::integral I>
    constexpr half(I i) noexcept : half(detail::integer_to_double_sticky(i)) {}
    // No exact single-rounding path is provided for long double; refuse it rather than guess.
    half(long double) = delete;

    // Explicit, so h + 1.0f means h + half(1.0f) instead of being ambiguous.
    constexpr explicit operator float() const noexcept { return detail::half_bits_to_float(bits_); }
    constexpr explicit operator double() const noexcept { return double(float(*this)); }

    static constexpr half from_bits(std::uint16_t b) noexcept {
        half h;
        h.bits_ = b;
        return h;
    }
    constexpr std::uint16_t bits() const noexcept { return bits_; }

private:
    std::uint16_t bits_{};
};

struct bfloat16 : detail::float16_operators<bfloat16> {
    constexpr bfloat16() noexcept = default;
    constexpr bfloat16(float f) noexcept : bits_(detail::float_to_bfloat16_bits(f)) {}
    constexpr bfloat16(double d) noexcept : bits_(detail::double_to_bfloat16_bits(d)) {}
    template <std::integral I>
    constexpr bfloat16(I i) noexcept : bfloat16(detail::integer_to_double_sticky(i)) {}
    bfloat16(long double) = delete;

    constexpr explicit operator float() const noexcept { return detail::bfloat16_bits_to_float(bits_); }
    constexpr explicit operator double() const noexcept { return double(float(*this)); }

    static constexpr bfloat16 from_bits(std::uint16_t b) noexcept {
        bfloat16 h;
        h.bits_ = b;
        return h;
    }
    constexpr std::uint16_t bits() const noexcept { return bits_; }

private:
    std::uint16_t bits_{};
};

static_assert(sizeof(half) == 2 && alignof(half) == 2);
static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2);
static_assert(std::is_trivially_copyable_v<half> && std::is_standard_layout_v<half>);
static_assert(std::is_trivially_copyable_v<bfloat16> && std::is_standard_layout_v<bfloat16>);

// Classification straight from the bits (no conversion needed).
constexpr bool isnan(half x) noexcept { return (x.bits() & 0x7FFFu) > 0x7C00u; }
constexpr bool isinf(half x) noexcept { return (x.bits() & 0x7FFFu) == 0x7C00u; }
constexpr bool isfinite(half x) noexcept { return (x.bits() & 0x7C00u) != 0x7C00u; }
constexpr bool signbit(half x) noexcept { return (x.bits() & 0x8000u) != 0; }

constexpr bool isnan(bfloat16 x) noexcept { return (x.bits() & 0x7FFFu) > 0x7F80u; }
constexpr bool isinf(bfloat16 x) noexcept { return (x.bits() & 0x7FFFu) == 0x7F80u; }
constexpr bool isfinite(bfloat16 x) noexcept { return (x.bits() & 0x7F80u) != 0x7F80u; }
constexpr bool signbit(bfloat16 x) noexcept { return (x.bits() & 0x8000u) != 0; }

} // namespace xlet

namespace std {

template <>
class numeric_limits<xlet::half> {
public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = true;
    static constexpr std::float_denorm_style has_denorm = std::denorm_present;
    static constexpr bool has_denorm_loss = false;
    static constexpr std::float_round_style round_style = std::round_to_nearest;
    static constexpr bool is_iec559 = true;
    static constexpr bool is_bounded = true;
    static constexpr bool is_modulo = false;
    static constexpr int digits = 11;
    static constexpr int digits10 = 3;     // floor((11 - 1) * log10(2))
    static constexpr int max_digits10 = 5; // ceil(1 + 11 * log10(2))
    static constexpr int radix = 2;
    static constexpr int min_exponent = -13;
    static constexpr int min_exponent10 = -4;
    static constexpr int max_exponent = 16;
    static constexpr int max_exponent10 = 4;
    static constexpr bool traps = false;
    static constexpr bool tinyness_before = false;

    static constexpr xlet::half min() noexcept { return xlet::half::from_bits(0x0400); } // 2^-14
    static constexpr xlet::half lowest() noexcept { return xlet::half::from_bits(0xFBFF); }
    static constexpr xlet::half max() noexcept { return xlet::half::from_bits(0x7BFF); } // 65504
    static constexpr xlet::half epsilon() noexcept { return xlet::half::from_bits(0x1400); }
    static constexpr xlet::half round_error() noexcept { return xlet::half::from_bits(0x3800); }
    static constexpr xlet::half infinity() noexcept { return xlet::half::from_bits(0x7C00); }
    static constexpr xlet::half quiet_NaN() noexcept { return xlet::half::from_bits(0x7E00); }
    static constexpr xlet::half signaling_NaN() noexcept { return xlet::half::from_bits(0x7D00); }
    static constexpr xlet::half denorm_min() noexcept { return xlet::half::from_bits(0x0001); }
};

template <>
class numeric_limits<xlet::bfloat16> {
public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = true;
    static constexpr std::float_denorm_style has_denorm = std::denorm_present;
    static constexpr bool has_denorm_loss = false;
    static constexpr std::float_round_style round_style = std::round_to_nearest;
    static constexpr bool is_iec559 = false; // not an IEEE 754 interchange format
    static constexpr bool is_bounded = true;
    static constexpr bool is_modulo = false;
    static constexpr int digits = 8;
    static constexpr int digits10 = 2;     // floor((8 - 1) * log10(2))
    static constexpr int max_digits10 = 4; // ceil(1 + 8 * log10(2))
    static constexpr int radix = 2;
    static constexpr int min_exponent = -125;
    static constexpr int min_exponent10 = -37;
    static constexpr int max_exponent = 128;
    static constexpr int max_exponent10 = 38;
    static constexpr bool traps = false;
    static constexpr bool tinyness_before = false;

    static constexpr xlet::bfloat16 min() noexcept { return xlet::bfloat16::from_bits(0x0080); }
    static constexpr xlet::bfloat16 lowest() noexcept { return xlet::bfloat16::from_bits(0xFF7F); }
    static constexpr xlet::bfloat16 max() noexcept { return xlet::bfloat16::from_bits(0x7F7F); }
    static constexpr xlet::bfloat16 epsilon() noexcept { return xlet::bfloat16::from_bits(0x3C00); }
    static constexpr xlet::bfloat16 round_error() noexcept { return xlet::bfloat16::from_bits(0x3F00); }
    static constexpr xlet::bfloat16 infinity() noexcept { return xlet::bfloat16::from_bits(0x7F80); }
    static constexpr xlet::bfloat16 quiet_NaN() noexcept { return xlet::bfloat16::from_bits(0x7FC0); }
    static constexpr xlet::bfloat16 signaling_NaN() noexcept { return xlet::bfloat16::from_bits(0x7FA0); }
    static constexpr xlet::bfloat16 denorm_min() noexcept { return xlet::bfloat16::from_bits(0x0001); }
};

} // namespace std
