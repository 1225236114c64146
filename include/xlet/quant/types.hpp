// Uniform quantized element types (StableHLO "Quantized element types", issue #26):
//   quant::uniform<Storage, Expressed, quant::scale(0.5), ZeroPoint[, StorageMin, StorageMax]>
//   quant::uniform_per_axis<Storage, Expressed, Axis, quant::scales(0.1, 0.2),
//                           quant::zero_points(2, -1)[, StorageMin, StorageMax]>
// An element holds its stored integer i; it stands for the real value (i - zero_point) * scale of
// the expressed type. Storage: quant::i4 (a byte, -8..7), quant::u4 (a byte, 0..15), std::int8_t,
// std::uint8_t, std::int16_t, std::uint16_t, std::int32_t. Expressed: half (f16), bfloat16 (bf16),
// float (f32), double (f64). A scale is the bits of a double (Clang 14 takes no floating-point
// template arguments), rounded to the expressed type where it is used (C4). The elements are
// ordinary element types of tensor, tensor_map and every expression: tensor<Q, 16, 16>. Their
// compute type is the storage integer, so data movement copies stored integers; arithmetic goes
// through uniform_dequantize / uniform_quantize (quant/uniform_quantize.hpp). Rules, numbered as
// the spec's constraints on quantized element types:
//   C1  the storage type is one of the above (the spec: an integer type; C1/C2, the type of
//       storage_min/max, hold by construction)
//   C3  min_value(storage) <= storage_min < storage_max <= max_value(storage)
//   C4  the expressed type is f16, bf16, f32 or f64
//   C5  every scale, rounded to the expressed type, is > 0
//   C6  every scale, rounded to the expressed type, is finite
//   C7  storage_min <= every zero point <= storage_max
//   C9  as many zero points as scales (per-axis)
//   C11 quantization dimension >= 0 (per-axis)
//   C12 quantization dimension < rank, C13 size along it = number of scales: checked by the
//       tensor type (core/tensor.hpp) and by uniform_quantize.
#pragma once
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "../core/shape.hpp"
#include "../core/types.hpp"

namespace xlet::quant {

// 4-bit storage types (StableHLO i4 and ui4): one value in a byte.
struct i4 {};
struct u4 {};

// A scale as a template argument: quant::scale(0.5).
struct scale_t {
    std::uint64_t bits;
    constexpr double value() const { return std::bit_cast<double>(bits); }
    friend constexpr bool operator==(const scale_t&, const scale_t&) = default;
};
consteval scale_t scale(double s) { return {std::bit_cast<std::uint64_t>(s)}; }

// The scales and zero points of a per-axis type: quant::scales(0.1, 0.2), quant::zero_points(2, -1).
template<std::size_t N>
struct scales_t {
    std::array<std::uint64_t, N> bits;
    constexpr double operator[](std::size_t i) const { return std::bit_cast<double>(bits[i]); }
    static constexpr std::size_t size() { return N; }
    friend constexpr bool operator==(const scales_t&, const scales_t&) = default;
};
template<class... D>
requires(sizeof...(D) > 0 && (std::is_arithmetic_v<D> && ...)) consteval scales_t<sizeof...(D)> scales(D... s) {
    return {{std::bit_cast<std::uint64_t>(static_cast<double>(s))...}};
}
template<std::size_t N>
struct zero_points_t {
    std::array<std::int64_t, N> v;
    constexpr std::int64_t operator[](std::size_t i) const { return v[i]; }
    static constexpr std::size_t size() { return N; }
    friend constexpr bool operator==(const zero_points_t&, const zero_points_t&) = default;
};
template<class... I>
requires(sizeof...(I) > 0 && (std::integral<I> && ...)) consteval zero_points_t<sizeof...(I)> zero_points(I... z) {
    return {{static_cast<std::int64_t>(z)...}};
}

namespace detail {

// The supported storage types: the integer a byte-sized element holds, its range and MLIR name.
template<class S>
struct storage_info {
    static constexpr bool ok = false;
    using type = std::int8_t;
    static constexpr int bits = 8;
    static constexpr std::int64_t min = 0, max = 0;
    static constexpr std::string_view name = "?", tensor_name = "?";
};
template<class I, int Bits, std::int64_t Lo, std::int64_t Hi>
struct storage_of {
    static constexpr bool ok = true;
    using type = I;
    static constexpr int bits = Bits;
    static constexpr std::int64_t min = Lo, max = Hi;
};
// clang-format off
template<> struct storage_info<i4> : storage_of<std::int8_t, 4, -8, 7> { static constexpr std::string_view name = "i4", tensor_name = "i4"; };
template<> struct storage_info<u4> : storage_of<std::uint8_t, 4, 0, 15> { static constexpr std::string_view name = "u4", tensor_name = "ui4"; };
template<> struct storage_info<std::int8_t> : storage_of<std::int8_t, 8, -128, 127> { static constexpr std::string_view name = "i8", tensor_name = "i8"; };
template<> struct storage_info<std::uint8_t> : storage_of<std::uint8_t, 8, 0, 255> { static constexpr std::string_view name = "u8", tensor_name = "ui8"; };
template<> struct storage_info<std::int16_t> : storage_of<std::int16_t, 16, -32768, 32767> { static constexpr std::string_view name = "i16", tensor_name = "i16"; };
template<> struct storage_info<std::uint16_t> : storage_of<std::uint16_t, 16, 0, 65535> { static constexpr std::string_view name = "u16", tensor_name = "ui16"; };
template<> struct storage_info<std::int32_t> : storage_of<std::int32_t, 32, -2147483648LL, 2147483647LL> { static constexpr std::string_view name = "i32", tensor_name = "i32"; };
// clang-format on

template<class E>
inline constexpr bool expressed_ok =
    std::is_same_v<E, half> || std::is_same_v<E, bfloat16> || std::is_same_v<E, float> || std::is_same_v<E, double>;

// A scale as the expressed type holds it (C4), as a double; 1 for an unsupported expressed type
// (C4's message is the one to see then).
template<class E>
constexpr double rounded_scale(double s) {
    if constexpr (expressed_ok<E>)
        return static_cast<double>(E(s));
    else
        return 1;
}
constexpr bool positive(double s) { return s > 0; }
constexpr bool finite(double s) { return s == s && s <= std::numeric_limits<double>::max(); }

// The element's MLIR spelling, for printing and diagnostics: !quant.uniform<i8:f32, 5.000000e-01:2>.
// (Scales are printed with 7 significant digits as MLIR does; the exact value is the type's.)
template<std::size_t Cap>
struct text {
    std::array<char, Cap> c{};
    std::size_t n = 0;
    constexpr void put(std::string_view s) {
        for (char ch : s)
            if (n + 1 < Cap) c[n++] = ch;
    }
    constexpr void put_int(std::int64_t v) {
        if (v < 0) put("-");
        std::uint64_t u = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
        char d[20]{};
        int k = 0;
        do {
            d[k++] = static_cast<char>('0' + u % 10);
            u /= 10;
        } while (u != 0);
        while (k > 0)
            put(std::string_view(&d[--k], 1));
    }
    constexpr void put_sci(double v) { // v > 0 and finite (C5, C6); else "?"
        if (!(v > 0) || !finite(v)) return put("?");
        int e = 0;
        while (v >= 10)
            v /= 10, ++e;
        while (v < 1)
            v *= 10, --e;
        auto digits = static_cast<std::int64_t>(v * 1e6 + 0.5);
        if (digits >= 10000000) digits /= 10, ++e;
        const char m[] = {static_cast<char>('0' + digits / 1000000), '.'};
        put(std::string_view(m, 2));
        for (std::int64_t p = 100000; p >= 1; p /= 10) {
            const char ch = static_cast<char>('0' + digits / p % 10);
            put(std::string_view(&ch, 1));
        }
        put(e < 0 ? "e-" : "e+");
        if (e > -10 && e < 10) put("0");
        put_int(e < 0 ? -e : e);
    }
    constexpr std::string_view view() const { return {c.data(), n}; }
};

template<class Storage, std::int64_t Min, std::int64_t Max, class T>
constexpr void put_storage(T& t) {
    t.put(storage_info<Storage>::name);
    if (Min != storage_info<Storage>::min || Max != storage_info<Storage>::max) {
        t.put("<");
        t.put_int(Min);
        t.put(":");
        t.put_int(Max);
        t.put(">");
    }
}
template<class E>
constexpr std::string_view expressed_name() {
    if constexpr (expressed_ok<E>)
        return element_traits<E>::name;
    else
        return "?";
}

template<class S>
consteval bool is_scales(const S&) {
    return false;
}
template<std::size_t N>
consteval bool is_scales(const scales_t<N>&) {
    return true;
}
template<class Z>
consteval bool is_zero_points(const Z&) {
    return false;
}
template<std::size_t N>
consteval bool is_zero_points(const zero_points_t<N>&) {
    return true;
}

// Every scale of a list S, rounded to E, passes p; every zero point of Z is in [lo, hi]. (True for
// a list of the wrong kind: another rule reports it.)
template<class E, auto S>
consteval bool every_scale(bool (*p)(double)) {
    if constexpr (is_scales(S)) {
        for (std::size_t i = 0; i < S.size(); ++i)
            if (!p(rounded_scale<E>(S[i]))) return false;
    }
    return true;
}
template<auto Z>
consteval bool zero_points_within(std::int64_t lo, std::int64_t hi) {
    if constexpr (is_zero_points(Z)) {
        for (std::size_t i = 0; i < Z.size(); ++i)
            if (Z[i] < lo || Z[i] > hi) return false;
    }
    return true;
}

// Count copies of the one entry of a list (broadcast_in_dim of a size-1 quantization dimension);
// Count 0: the list itself.
template<auto L, std::size_t Count>
consteval auto repeated() {
    if constexpr (Count == 0) {
        return L;
    } else {
        std::remove_cvref_t<decltype(L)> one = L;
        if constexpr (requires { one.bits; }) {
            scales_t<Count> r{};
            for (auto& b : r.bits)
                b = one.bits[0];
            return r;
        } else {
            zero_points_t<Count> r{};
            for (auto& z : r.v)
                z = one.v[0];
            return r;
        }
    }
}

// Per-axis Q with its quantization dimension moved to A (a class, so that element_traits of a
// per-tensor type never names a with_axis it does not have).
template<class Q, std::int64_t A, std::size_t Count>
struct axis_moved {
    using type = typename Q::template with_axis<A, Count>;
};

// What both kinds of quantized element share: the stored integer, the storage and expressed types
// and the storage range, their rules (C1, C3, C4), construction from a stored integer, equality of
// stored integers and printing.
template<class Derived, class Storage, class Expressed, std::int64_t StorageMin, std::int64_t StorageMax>
struct element_base {
    using storage_type = typename storage_info<Storage>::type;
    using storage_tag = Storage;
    using expressed_type = Expressed;
    static constexpr bool xlet_quantized = true;
    static constexpr int storage_bits = storage_info<Storage>::bits;
    static constexpr std::int64_t storage_min = StorageMin, storage_max = StorageMax;

    static_assert(diag::got<storage_info<Storage>::ok, Storage>::value,
                  "xlet::quant::uniform [C1]: the storage type must be quant::i4, quant::u4, std::int8_t, "
                  "std::uint8_t, std::int16_t, std::uint16_t or std::int32_t");
    static_assert(diag::got < storage_info<Storage>::min <= StorageMin && StorageMin < StorageMax &&
                      StorageMax <= storage_info<Storage>::max,
                  Storage > ::value,
                  "xlet::quant::uniform [C3]: need min_value(storage) <= storage_min < storage_max <= "
                  "max_value(storage)");
    static_assert(diag::got<expressed_ok<Expressed>, Expressed>::value,
                  "xlet::quant::uniform [C4]: the expressed type must be f16, bf16, f32 or f64");

    storage_type stored; // the stored integer; (stored - zero_point) * scale is the value

    element_base() = default;
    // From a stored integer (not a real value: uniform_quantize makes those).
    template<std::integral I>
    requires(!std::is_same_v<I, bool>) constexpr element_base(I i) noexcept : stored(static_cast<storage_type>(i)) {}
    friend constexpr bool operator==(const Derived& a, const Derived& b) noexcept { return a.stored == b.stored; }
    friend std::ostream& operator<<(std::ostream& os, const Derived& q) {
        return os << static_cast<std::int64_t>(q.stored);
    }
};

} // namespace detail

// Per-tensor quantization: one scale and zero point for the whole tensor.
template<class Storage, class Expressed, scale_t Scale, std::int64_t ZeroPoint = 0,
         std::int64_t StorageMin = detail::storage_info<Storage>::min,
         std::int64_t StorageMax = detail::storage_info<Storage>::max>
struct uniform : detail::element_base<uniform<Storage, Expressed, Scale, ZeroPoint, StorageMin, StorageMax>, Storage,
                                      Expressed, StorageMin, StorageMax> {
    using detail::element_base<uniform, Storage, Expressed, StorageMin, StorageMax>::element_base;
    static constexpr bool per_axis = false;
    static constexpr double scale = Scale.value(); // as written
    static constexpr std::int64_t zero_point = ZeroPoint;

    static_assert(detail::positive(detail::rounded_scale<Expressed>(Scale.value())),
                  "xlet::quant::uniform [C5]: the scale, rounded to the expressed type, must be > 0");
    static_assert(detail::finite(detail::rounded_scale<Expressed>(Scale.value())),
                  "xlet::quant::uniform [C6]: the scale, rounded to the expressed type, must be finite");
    static_assert(StorageMin <= ZeroPoint && ZeroPoint <= StorageMax,
                  "xlet::quant::uniform [C7]: the zero point must be within [storage_min, storage_max]");

    static constexpr auto name_text = [] {
        detail::text<96> t;
        t.put("!quant.uniform<");
        detail::put_storage<Storage, StorageMin, StorageMax>(t);
        t.put(":");
        t.put(detail::expressed_name<Expressed>());
        t.put(", ");
        t.put_sci(Scale.value());
        if (ZeroPoint != 0) {
            t.put(":");
            t.put_int(ZeroPoint);
        }
        t.put(">");
        return t;
    }();
};

// Per-axis quantization: scales[i] and zero_points[i] for the slice i of dimension Axis.
template<class Storage, class Expressed, std::int64_t Axis, auto Scales, auto ZeroPoints,
         std::int64_t StorageMin = detail::storage_info<Storage>::min,
         std::int64_t StorageMax = detail::storage_info<Storage>::max>
struct uniform_per_axis
    : detail::element_base<uniform_per_axis<Storage, Expressed, Axis, Scales, ZeroPoints, StorageMin, StorageMax>,
                           Storage, Expressed, StorageMin, StorageMax> {
    using detail::element_base<uniform_per_axis, Storage, Expressed, StorageMin, StorageMax>::element_base;
    static constexpr bool per_axis = true;
    static constexpr std::int64_t axis = Axis;
    static constexpr auto scales = Scales;
    static constexpr auto zero_points = ZeroPoints;
    static constexpr std::size_t axis_size = [] {
        if constexpr (detail::is_scales(Scales))
            return Scales.size();
        else
            return std::size_t{0};
    }();
    // The same parameters along dimension A of another array (Count: one scale repeated).
    template<std::int64_t A, std::size_t Count = 0>
    using with_axis = uniform_per_axis<Storage, Expressed, A, detail::repeated<Scales, Count>(),
                                       detail::repeated<ZeroPoints, Count>(), StorageMin, StorageMax>;

    static_assert(detail::is_scales(Scales) && detail::is_zero_points(ZeroPoints),
                  "xlet::quant::uniform_per_axis: the scales are quant::scales(...), the zero points "
                  "quant::zero_points(...)");
    static constexpr bool params_ok = detail::is_scales(Scales) && detail::is_zero_points(ZeroPoints);
    static_assert(detail::every_scale<Expressed, Scales>(detail::positive),
                  "xlet::quant::uniform_per_axis [C5]: every scale, rounded to the expressed type, must be > 0");
    static_assert(detail::every_scale<Expressed, Scales>(detail::finite),
                  "xlet::quant::uniform_per_axis [C6]: every scale, rounded to the expressed type, must be finite");
    static_assert(detail::zero_points_within<ZeroPoints>(StorageMin, StorageMax),
                  "xlet::quant::uniform_per_axis [C7]: every zero point must be within [storage_min, storage_max]");
    static_assert(!params_ok || Scales.size() == ZeroPoints.size(),
                  "xlet::quant::uniform_per_axis [C9]: need as many zero points as scales");
    static_assert(Axis >= 0, "xlet::quant::uniform_per_axis [C11]: the quantization dimension must be >= 0");

    static constexpr auto name_text = [] {
        detail::text<64 + 32 * (axis_size == 0 ? 1 : axis_size)> t;
        t.put("!quant.uniform<");
        detail::put_storage<Storage, StorageMin, StorageMax>(t);
        t.put(":");
        t.put(detail::expressed_name<Expressed>());
        t.put(":");
        t.put_int(Axis);
        t.put(", {");
        if constexpr (params_ok) {
            for (std::size_t i = 0; i < axis_size; ++i) {
                if (i) t.put(",");
                t.put_sci(Scales[i]);
                if (i < ZeroPoints.size() && ZeroPoints[i] != 0) {
                    t.put(":");
                    t.put_int(ZeroPoints[i]);
                }
            }
        }
        t.put("}>");
        return t;
    }();
};

} // namespace xlet::quant

namespace xlet {

// Element traits of every quantized type: kind quantized, computed (moved) as its storage integer.
template<class Q>
requires(Q::xlet_quantized) struct element_traits<Q> {
    static constexpr xlet::kind kind = xlet::kind::quantized;
    static constexpr int bits = Q::storage_bits;
    using compute_type = typename Q::storage_type;
    using storage_type = typename Q::storage_type;
    using expressed_type = typename Q::expressed_type;
    static constexpr std::int64_t storage_min = Q::storage_min, storage_max = Q::storage_max;
    static constexpr bool per_axis = Q::per_axis;
    static constexpr std::int64_t axis = [] {
        if constexpr (Q::per_axis)
            return Q::axis;
        else
            return std::int64_t{-1};
    }();
    static constexpr std::size_t axis_size = [] {
        if constexpr (Q::per_axis)
            return Q::axis_size;
        else
            return std::size_t{1};
    }();
    template<std::int64_t A, std::size_t Count>
    using with_axis = typename quant::detail::axis_moved<Q, A, Count>::type;
    static constexpr std::string_view name = Q::name_text.view();
    // The storage type as an MLIR tensor element (ui8 for u8): the type of a quantized constant's
    // value and of bitcast_convert_type to the storage integer.
    static constexpr std::string_view storage_name = quant::detail::storage_info<typename Q::storage_tag>::tensor_name;
};

// The storage integer and the expressed type of a quantized element type.
template<class Q>
requires is_quantized<Q>
using storage_t = typename element_traits<Q>::storage_type;
template<class Q>
requires is_quantized<Q>
using expressed_t = typename element_traits<Q>::expressed_type;

} // namespace xlet
