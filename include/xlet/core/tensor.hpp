// tensor<T, D...>: owning, dense, row-major; small ones keep their elements inline (no heap).
// tensor_map<T, D...>: the same over user memory. Both are leaves of expressions.
#pragma once
#include <algorithm>
#include <bit>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <ostream>
#include <type_traits>

#include "block_cache.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "trace.hpp"
#include "types.hpp"

namespace xlet {

// Anything that evaluates to an array: nodes declare `using xlet_node = void`.
template<class E>
concept expression = requires {
    typename std::remove_cvref_t<E>::xlet_node;
};

// Base of every expression node, so that ADL finds xlet's operators and functions for them.
struct expression_base {};

namespace detail {
// Defined in eval/assign.hpp; every header that builds expressions includes it.
template<class S, class E>
void evaluate_into(S* dst, const E& e);
template<class E>
bool may_alias(const E& e, const void* begin, const void* end);

// Tensors up to this many bytes live inline: no heap for small static shapes.
inline constexpr std::size_t inline_bytes = 4096;

// Tag: storage whose every element the caller writes before anything reads it (an expression
// being evaluated into it, a kernel's output). Large arrays then skip the zero-fill: a second
// pass over memory that costs as much as a copy (and runs the page faults on one thread).
struct no_init_t {
    explicit no_init_t() = default;
};
inline constexpr no_init_t no_init{};

// Heap blocks come from core/block_cache.hpp: 2 MiB-aligned huge pages for large arrays, and
// freed large blocks reused by the next array of the same size.
template<std::size_t Bytes, std::size_t Align>
struct block_delete {
    template<class T>
    void operator()(T* p) const noexcept {
        free_block(p, Bytes, Align);
    }
};

template<class T, std::size_t N, bool Inline = (N * sizeof(T) <= inline_bytes)>
struct storage {
    static constexpr std::size_t bytes = N * sizeof(T);
    static constexpr std::size_t align =
        std::max<std::size_t>(alignof(T), std::min<std::size_t>(64, std::bit_ceil(bytes == 0 ? 1 : bytes)));
    alignas(align) std::array<T, N> a{};
    storage() = default;
    explicit storage(no_init_t) {} // inline storage is small: zeroed all the same
    // Copies and moves tell a tracing recorder (core/trace.hpp) that the elements moved house.
    storage(const storage& o) noexcept : a(o.a) { trace::copied(o.data(), data()); }
    storage& operator=(const storage& o) noexcept {
        a = o.a;
        trace::copied(o.data(), data());
        return *this;
    }
    T* data() { return a.data(); }
    const T* data() const { return a.data(); }
};
template<class T, std::size_t N>
struct storage<T, N, false> {
    static constexpr std::size_t align = heap_alignment(N * sizeof(T));
    std::unique_ptr<T[], block_delete<N * sizeof(T), align>> p{allocate(true)};
    static T* allocate(bool zero) {
        // Blocks are freed and reused without destructors; elements are copied as bytes.
        constexpr bool copyable = std::is_trivially_copyable_v<T> || std::is_same_v<T, std::complex<float>> ||
                                  std::is_same_v<T, std::complex<double>>;
        static_assert(copyable && std::is_trivially_destructible_v<T>);
        T* raw = static_cast<T*>(allocate_block(N * sizeof(T), align));
        if (zero)
            std::uninitialized_value_construct_n(raw, N);
        else if constexpr (std::is_trivially_default_constructible_v<T>)
            std::uninitialized_default_construct_n(raw, N); // no-op for the arithmetic types
        // else: std::complex, whose default constructor zeroes; it is an implicit-lifetime type
        // (trivial copy and destructor), so the fresh block holds its objects already and a
        // no_init result is not zero-filled (an 8 MiB FFT result spent 17% of its time there)
        return raw;
    }
    storage() = default;
    explicit storage(no_init_t) : p(allocate(false)) {}
    storage(const storage& o) : p(allocate(false)) {
        std::copy(o.data(), o.data() + N, data());
        trace::copied(o.data(), data());
    }
    storage(storage&&) noexcept = default; // the block moves: its address, and identity, stay
    storage& operator=(const storage& o) {
        if (this != &o) {
            std::copy(o.data(), o.data() + N, data());
            trace::copied(o.data(), data());
        }
        return *this;
    }
    storage& operator=(storage&& o) noexcept = default;
    T* data() { return p.get(); }
    const T* data() const { return p.get(); }
};

template<class T, std::size_t R>
struct nested_list {
    using type = std::initializer_list<typename nested_list<T, R - 1>::type>;
};
template<class T>
struct nested_list<T, 0> {
    using type = T;
};

template<std::size_t R, std::size_t K = 0, class T, class L>
void fill_nested(T*& out, const L& list, const extents_t<R>& e) {
    if constexpr (K == R) {
        *out++ = list;
    } else {
        if (list.size() != e[K])
            throw error("tensor", "initializer list has ", list.size(), " entries in dimension ", K, " of size ", e[K]);
        for (const auto& sub : list)
            fill_nested<R, K + 1>(out, sub, e);
    }
}

template<class T, std::size_t R>
void print_nested(std::ostream& os, const T* p, const extents_t<R>& e, std::size_t k) {
    if (k == R) {
        if constexpr (std::is_same_v<T, bool>)
            os << (*p ? "true" : "false");
        else if constexpr (sizeof(T) == 1 && std::is_integral_v<T>)
            os << static_cast<int>(*p);
        else
            os << *p;
        return;
    }
    std::size_t inner = 1;
    for (std::size_t i = k + 1; i < R; ++i)
        inner *= e[i];
    os << '{';
    for (std::size_t i = 0; i < e[k]; ++i) {
        if (i) os << ", ";
        print_nested<T, R>(os, p + i * inner, e, k + 1);
    }
    os << '}';
}

// A per-axis quantized element type fits a shape when its quantization dimension is one of the
// shape's (C12 of StableHLO's quantized tensor types) and has one scale per index (C13).
template<class T, std::size_t R>
consteval bool quant_axis_in_rank() {
    if constexpr (is_per_axis_quantized<T>)
        return quant_axis<T>() < static_cast<std::int64_t>(R);
    else
        return true;
}
template<class T, std::size_t R>
consteval bool quant_axis_sized(const extents_t<R>& e) {
    if constexpr (is_per_axis_quantized<T>) {
        constexpr auto a = quant_axis<T>();
        if constexpr (a < 0 || a >= static_cast<std::int64_t>(R))
            return true; // C12's message
        else
            return e[static_cast<std::size_t>(a)] == quant_axis_size<T>();
    } else {
        return true;
    }
}

// Shared element access and shape of tensor and tensor_map (CRTP over data()).
template<class Derived, class T, std::size_t... D>
struct array_base {
    using value_type = std::remove_const_t<T>;
    using xlet_node = void;
    static constexpr std::size_t rank = sizeof...(D);
    static constexpr extents_t<rank> extents{D...};
    static_assert(diag::got<quant_axis_in_rank<value_type, rank>(), value_type, diag::dimensions<D...>>::value,
                  "xlet::quant::uniform_per_axis [C12]: the quantization dimension must be a dimension of the "
                  "tensor (< rank)");
    static_assert(diag::got<quant_axis_sized<value_type, rank>(extents), value_type, diag::dimensions<D...>>::value,
                  "xlet::quant::uniform_per_axis [C13]: the tensor's size along the quantization dimension must "
                  "equal the number of scales");
    static constexpr std::size_t num_elements = (D * ... * std::size_t{1});
    // The element count, as std::array spells it: t.size(), and T::size() in constant expressions.
    static constexpr std::size_t size() noexcept { return num_elements; }

    auto* data() { return static_cast<Derived*>(this)->data_ptr(); }
    const value_type* data() const { return static_cast<const Derived*>(this)->data_ptr(); }
    auto* begin() { return data(); }
    auto* end() { return data() + num_elements; }
    const value_type* begin() const { return data(); }
    const value_type* end() const { return data() + num_elements; }

    static constexpr std::size_t offset(const std::array<std::size_t, rank>& idx) {
        std::size_t off = 0;
        for (std::size_t i = 0; i < rank; ++i)
            off = off * extents[i] + idx[i];
        return off;
    }
    template<class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...)) decltype(auto) operator()(I... i) {
        return data()[offset({static_cast<std::size_t>(i)...})];
    }
    template<class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...)) const value_type& operator()(I... i) const {
        return data()[offset({static_cast<std::size_t>(i)...})];
    }
    // Checked access: throws xlet::error naming the dimension out of range.
    const value_type& at(const std::array<std::size_t, rank>& idx) const {
        for (std::size_t i = 0; i < rank; ++i)
            if (idx[i] >= extents[i])
                throw error("tensor::at", "index ", idx[i], " out of range for dimension ", i, " of size ", extents[i]);
        return data()[offset(idx)];
    }

    friend std::ostream& operator<<(std::ostream& os, const array_base& t) {
        os << xla_name<value_type> << '[';
        for (std::size_t i = 0; i < rank; ++i)
            os << (i ? "," : "") << extents[i];
        os << "] ";
        print_nested<value_type, rank>(os, t.data(), extents, 0);
        return os;
    }
};
} // namespace detail

template<element T, std::size_t... D>
class tensor;

// The owning tensor type an expression evaluates to.
namespace detail {
template<class T, auto E, class Seq>
struct tensor_of_impl;
template<class T, auto E, std::size_t... I>
struct tensor_of_impl<T, E, std::index_sequence<I...>> {
    using type = tensor<T, E[I]...>;
};
} // namespace detail
template<class E>
using tensor_type_of =
    typename detail::tensor_of_impl<typename std::remove_cvref_t<E>::value_type, std::remove_cvref_t<E>::extents,
                                    std::make_index_sequence<std::remove_cvref_t<E>::rank>>::type;

template<element T, std::size_t... D>
class tensor : public detail::array_base<tensor<T, D...>, T, D...> {
    using base = detail::array_base<tensor<T, D...>, T, D...>;
    detail::storage<T, base::num_elements> store_;
    friend base;
    T* data_ptr() { return store_.data(); }
    const T* data_ptr() const { return store_.data(); }

    template<class E>
    void check_assignable() const {
        using X = std::remove_cvref_t<E>;
        static_assert(diag::got<same_extents(X::extents, base::extents), tensor, tensor_type_of<X>>::value &&
                          std::is_same_v<typename X::value_type, T>,
                      "xlet::tensor: the expression's shape and element type must equal the tensor's");
    }

public:
    tensor() = default;
    tensor(const tensor&) = default;
    tensor(tensor&&) noexcept = default;
    // Uninitialised contents (large arrays; small ones are zeroed): for code that writes every
    // element before reading any, as kernels do with their outputs.
    explicit tensor(detail::no_init_t) : store_(detail::no_init) {}
    tensor& operator=(const tensor&) = default;
    tensor& operator=(tensor&&) noexcept = default;

    // Rank 0 from a value; rank >= 1 from nested braces: f32<2, 3>{{1, 2, 3}, {4, 5, 6}}.
    tensor(T value) requires(base::rank == 0) { store_.data()[0] = value; }
    tensor(typename detail::nested_list<T, base::rank>::type list) requires(base::rank > 0) {
        T* out = store_.data();
        detail::fill_nested<base::rank>(out, list, base::extents);
    }

    template<expression E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>) tensor(const E& e) : store_(detail::no_init) {
        check_assignable<E>();
        detail::evaluate_into(store_.data(), e);
    }
    template<expression E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>) tensor& operator=(const E& e) {
        check_assignable<E>();
        if (detail::may_alias(e, store_.data(), store_.data() + base::num_elements)) {
            tensor tmp(e);
            *this = std::move(tmp);
        } else {
            detail::evaluate_into(store_.data(), e);
        }
        return *this;
    }

    // An array filled with one value (XLA's Broadcast of a constant, materialised).
    static tensor filled(T value) {
        tensor t;
        std::fill(t.begin(), t.end(), value);
        return t;
    }
};

// A row-major view of user memory; T may be const. The caller keeps the memory alive.
template<class T, std::size_t... D>
requires element<std::remove_const_t<T>>
class tensor_map : public detail::array_base<tensor_map<T, D...>, T, D...> {
    using base = detail::array_base<tensor_map<T, D...>, T, D...>;
    T* p_;
    friend base;
    T* data_ptr() const { return p_; }

public:
    explicit tensor_map(T* p) : p_(p) {}
    tensor_map(const tensor_map&) = default;

    template<expression E>
    requires(!std::is_const_v<T>) tensor_map& operator=(const E& e) {
        using X = std::remove_cvref_t<E>;
        static_assert(diag::got<same_extents(X::extents, base::extents), tensor_map, tensor_type_of<X>>::value &&
                          std::is_same_v<typename X::value_type, std::remove_const_t<T>>,
                      "xlet::tensor_map: the expression's shape and element type must equal the map's");
        if (detail::may_alias(e, p_, p_ + base::num_elements)) {
            tensor<std::remove_const_t<T>, D...> tmp(e);
            std::copy(tmp.begin(), tmp.end(), p_);
        } else {
            detail::evaluate_into(p_, e);
        }
        return *this;
    }
    // Copies the elements (a view assigns through, like an expression would).
    tensor_map& operator=(const tensor_map& o) {
        if (o.p_ != p_) std::memmove(static_cast<void*>(p_), o.p_, base::num_elements * sizeof(T));
        return *this;
    }
};

template<class X>
inline constexpr bool is_array_leaf = false;
template<class T, std::size_t... D>
inline constexpr bool is_array_leaf<tensor<T, D...>> = true;
template<class T, std::size_t... D>
inline constexpr bool is_array_leaf<tensor_map<T, D...>> = true;

namespace detail {
// A tensor_map of element type E with a tensor's shape: map_like<E, tensor<U, D...>>::type.
template<class E, class Tn>
struct map_like;
template<class E, class U, std::size_t... D>
struct map_like<E, tensor<U, D...>> {
    using type = tensor_map<E, D...>;
};
} // namespace detail

// XLA type names as aliases: f32<2, 3> is f32[2,3]; f32<> is a scalar.
template<std::size_t... D>
using pred = tensor<bool, D...>;
template<std::size_t... D>
using s8 = tensor<std::int8_t, D...>;
template<std::size_t... D>
using s16 = tensor<std::int16_t, D...>;
template<std::size_t... D>
using s32 = tensor<std::int32_t, D...>;
template<std::size_t... D>
using s64 = tensor<std::int64_t, D...>;
template<std::size_t... D>
using u8 = tensor<std::uint8_t, D...>;
template<std::size_t... D>
using u16 = tensor<std::uint16_t, D...>;
template<std::size_t... D>
using u32 = tensor<std::uint32_t, D...>;
template<std::size_t... D>
using u64 = tensor<std::uint64_t, D...>;
template<std::size_t... D>
using f16 = tensor<half, D...>;
template<std::size_t... D>
using bf16 = tensor<bfloat16, D...>;
template<std::size_t... D>
using f32 = tensor<float, D...>;
template<std::size_t... D>
using f64 = tensor<double, D...>;
template<std::size_t... D>
using c64 = tensor<std::complex<float>, D...>;
template<std::size_t... D>
using c128 = tensor<std::complex<double>, D...>;

// Exact element-wise equality of two arrays of one shape and type (IEEE ==: NaN is unequal).
template<class A, class B>
requires(is_array_leaf<std::remove_cvref_t<A>>&& is_array_leaf<std::remove_cvref_t<B>>) bool equal(const A& a,
                                                                                                   const B& b) {
    static_assert(
        std::remove_cvref_t<A>::extents == std::remove_cvref_t<B>::extents &&
            std::is_same_v<typename std::remove_cvref_t<A>::value_type, typename std::remove_cvref_t<B>::value_type>,
        "xlet::equal: arrays must have the same shape and element type");
    return std::equal(a.begin(), a.end(), b.begin());
}

} // namespace xlet
