// Element types of XLA and their traits: kind, bit width, XLA name, and the type computations run in.
#pragma once
#include "simd.hpp" // first: see the comment there
#include <complex>
#include <concepts>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "float16.hpp"

namespace xlet {

namespace detail {
// The children of an expression node: a tuple without std::tuple's machinery. Every node type of
// every expression held a std::tuple, and each access went through std::get, __get_helper and
// _Head_base: three functions per child per node, each one a unit of the compiler's work before
// inlining removes it. Here an access is a cast to a base (kids_at) and apply expands in place.
template<std::size_t I, class T>
struct kid {
    T v;
};
template<class Is, class... C>
struct kids_impl;
template<std::size_t... I, class... C>
struct kids_impl<std::index_sequence<I...>, C...> : kid<I, C>... {
    constexpr kids_impl() = default;
    constexpr kids_impl(C... c) requires(sizeof...(C) > 0) : kid<I, C>{static_cast<C&&>(c)}... {}
};
template<class... C>
using kids = kids_impl<std::index_sequence_for<C...>, C...>;

template<std::size_t I, class T>
constexpr T& kids_at(kid<I, T>& k) {
    return k.v;
}
template<std::size_t I, class T>
constexpr const T& kids_at(const kid<I, T>& k) {
    return k.v;
}
template<std::size_t I, class T>
constexpr T&& kids_at(kid<I, T>&& k) {
    return static_cast<T&&>(k.v);
}

// std::apply without its noexcept specification: that asks is_nothrow_invocable of every call,
// which instantiates std::__invoke_result's chain per expression type. Callers pass lambdas;
// nothing here needs std::invoke. (Not always_inline: forced, it changed GCC's inlining of the
// fused loops: in BM_fused a vector went through the stack, 5.3 -> 5.8 ms on 1 thread.)
template<class F, class Tuple>
constexpr decltype(auto) apply(F&& f, Tuple&& t) {
    return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
        return static_cast<F&&>(f)(std::get<I>(static_cast<Tuple&&>(t))...);
    }
    (std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<Tuple>>>{});
}
template<class F, std::size_t... I, class... C>
constexpr decltype(auto) apply(F&& f, kids_impl<std::index_sequence<I...>, C...>& k) {
    return static_cast<F&&>(f)(static_cast<kid<I, C>&>(k).v...);
}
template<class F, std::size_t... I, class... C>
constexpr decltype(auto) apply(F&& f, const kids_impl<std::index_sequence<I...>, C...>& k) {
    return static_cast<F&&>(f)(static_cast<const kid<I, C>&>(k).v...);
}
template<class F, std::size_t... I, class... C>
constexpr decltype(auto) apply(F&& f, kids_impl<std::index_sequence<I...>, C...>&& k) {
    return static_cast<F&&>(f)(static_cast<C&&>(static_cast<kid<I, C>&>(k).v)...);
}
} // namespace detail

enum class kind { pred, signed_int, unsigned_int, floating, complex, quantized };

// The 15 XLA element types have traits here; the uniform quantized types of quant/ add theirs
// (kind::quantized, compute_type = their storage integer: see is_quantized below).
template<class T>
struct element_traits;

namespace detail {
template<class T, kind K, int Bits, class Compute, char... Name>
struct traits_base {
    static constexpr xlet::kind kind = K;
    static constexpr int bits = Bits;
    // f16 and bf16 compute in f32 and round after every op (docs/semantics.md).
    using compute_type = Compute;
    static constexpr char name_chars[] = {Name..., '\0'};
    static constexpr std::string_view name{name_chars, sizeof...(Name)};
};
} // namespace detail

// clang-format off
template<> struct element_traits<bool>          : detail::traits_base<bool, kind::pred, 1, bool, 'p','r','e','d'> {};
template<> struct element_traits<std::int8_t>   : detail::traits_base<std::int8_t, kind::signed_int, 8, std::int8_t, 's','8'> {};
template<> struct element_traits<std::int16_t>  : detail::traits_base<std::int16_t, kind::signed_int, 16, std::int16_t, 's','1','6'> {};
template<> struct element_traits<std::int32_t>  : detail::traits_base<std::int32_t, kind::signed_int, 32, std::int32_t, 's','3','2'> {};
template<> struct element_traits<std::int64_t>  : detail::traits_base<std::int64_t, kind::signed_int, 64, std::int64_t, 's','6','4'> {};
template<> struct element_traits<std::uint8_t>  : detail::traits_base<std::uint8_t, kind::unsigned_int, 8, std::uint8_t, 'u','8'> {};
template<> struct element_traits<std::uint16_t> : detail::traits_base<std::uint16_t, kind::unsigned_int, 16, std::uint16_t, 'u','1','6'> {};
template<> struct element_traits<std::uint32_t> : detail::traits_base<std::uint32_t, kind::unsigned_int, 32, std::uint32_t, 'u','3','2'> {};
template<> struct element_traits<std::uint64_t> : detail::traits_base<std::uint64_t, kind::unsigned_int, 64, std::uint64_t, 'u','6','4'> {};
template<> struct element_traits<half>          : detail::traits_base<half, kind::floating, 16, float, 'f','1','6'> {};
template<> struct element_traits<bfloat16>      : detail::traits_base<bfloat16, kind::floating, 16, float, 'b','f','1','6'> {};
template<> struct element_traits<float>         : detail::traits_base<float, kind::floating, 32, float, 'f','3','2'> {};
template<> struct element_traits<double>        : detail::traits_base<double, kind::floating, 64, double, 'f','6','4'> {};
template<> struct element_traits<std::complex<float>>  : detail::traits_base<std::complex<float>, kind::complex, 64, std::complex<float>, 'c','6','4'> {};
template<> struct element_traits<std::complex<double>> : detail::traits_base<std::complex<double>, kind::complex, 128, std::complex<double>, 'c','1','2','8'> {};
// clang-format on

template<class T>
concept element = requires {
    element_traits<std::remove_cv_t<T>>::bits;
};

template<element T>
using compute_t = typename element_traits<T>::compute_type;
template<element T>
inline constexpr kind kind_of = element_traits<T>::kind;
template<element T>
inline constexpr std::string_view xla_name = element_traits<T>::name;

namespace detail {
// False for any non-element type (long long, char, long double, ...), without instantiating traits.
template<class T>
consteval bool kind_is(kind k) {
    if constexpr (element<T>)
        return kind_of<T> == k;
    else
        return false;
}
} // namespace detail
template<class T>
inline constexpr bool is_pred = std::is_same_v<T, bool>;
template<class T>
inline constexpr bool is_signed_int = detail::kind_is<T>(kind::signed_int);
template<class T>
inline constexpr bool is_unsigned_int = detail::kind_is<T>(kind::unsigned_int);
template<class T>
inline constexpr bool is_integer = is_signed_int<T> || is_unsigned_int<T>;
template<class T>
inline constexpr bool is_float = detail::kind_is<T>(kind::floating);
template<class T>
inline constexpr bool is_complex = detail::kind_is<T>(kind::complex);
// Uniform quantized element types (quant/types.hpp). Their compute type is their storage integer:
// data movement copies the stored integers bit for bit (eval/vec.hpp loads and stores them as
// that integer), and arithmetic on them exists only through uniform_dequantize / uniform_quantize.
template<class T>
inline constexpr bool is_quantized = detail::kind_is<T>(kind::quantized);
namespace detail {
template<class T>
consteval bool per_axis_of() {
    if constexpr (is_quantized<T>)
        return element_traits<T>::per_axis;
    else
        return false;
}
} // namespace detail
template<class T>
inline constexpr bool is_per_axis_quantized = detail::per_axis_of<T>();

namespace detail {
// Per-axis quantized types name their quantization dimension, so a layout op that moves
// dimensions gives its result the type with that dimension moved to A (Count > 0: the dimension
// had size 1 and is broadcast to Count, its one scale and zero point repeated). Any other type
// stays as it is.
template<class T, std::int64_t A, std::size_t Count = 0>
struct with_quant_axis {
    using type = T;
};
template<class T, std::int64_t A, std::size_t Count>
requires(is_per_axis_quantized<T>) struct with_quant_axis<T, A, Count> {
    using type = typename element_traits<T>::template with_axis<A, Count>;
};
template<class T, std::int64_t A, std::size_t Count = 0>
using with_quant_axis_t = typename with_quant_axis<T, A, Count>::type;

// The quantization dimension of a per-axis quantized type (-1 for any other type), and the number
// of its scales (1 for any other type).
template<class T>
consteval std::int64_t quant_axis() {
    if constexpr (is_per_axis_quantized<T>)
        return element_traits<T>::axis;
    else
        return -1;
}
template<class T>
consteval std::size_t quant_axis_size() {
    if constexpr (is_per_axis_quantized<T>)
        return element_traits<T>::axis_size;
    else
        return 1;
}
} // namespace detail
// f16/bf16: stored narrow, computed in f32.
template<class T>
inline constexpr bool is_narrow_float = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// The real type of a complex element type (c64 → f32); the type itself otherwise.
template<class T>
struct real_of {
    using type = T;
};
template<class T>
struct real_of<std::complex<T>> {
    using type = T;
};
template<class T>
using real_t = typename real_of<T>::type;

} // namespace xlet
