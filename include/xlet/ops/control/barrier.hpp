// OptimizationBarrier (spec: OptimizationBarrier) and the HLO-internal Copy and Bitcast as user
// operations:
//
//   auto [a, b] = optimization_barrier(x * 2.0f, y);  // x * 2 evaluated now; y passed through
//   f32<2, 3> c = copy(x);                            // Copy: a fresh materialised array
//   auto m = bitcast<f32<6>>(x);                      // Bitcast: x's bytes as f32[6], a view
//
// optimization_barrier(values...) is the identity, with the spec's guarantee that its operands
// are evaluated before anything that uses its results. In xlet, where every expression is lazy
// and fuses into the expression that consumes it, that means:
//   - an expression operand is evaluated here, into a fresh tensor: whatever consumes the result
//     reads that tensor, so no fusion crosses the barrier (`exp(optimization_barrier(x + y))` is
//     two loops, where `exp(x + y)` is one), and a compile-time rewrite (passes) sees a leaf;
//   - an array operand (tensor or tensor_map lvalue) has nothing to evaluate: it is passed through
//     by reference, not copied; an rvalue array is moved into the result;
//   - anything else (a C++ scalar, a token) is passed through;
//   - the results' memory is shown to the C++ optimiser as read and written (an empty asm
//     statement with a memory clobber), so the C++ compiler does not move or drop their
//     computation across the barrier either (what benchmarks use DoNotOptimize for).
// One operand gives that operand's result; several give a std::tuple.
//
// copy(x) (Copy; CopyStart / CopyDone are its asynchronous split in XLA, for copies between
// memory spaces, which a host does not have: to overlap a copy with other work, run it with
// async_start from <xlet/distributed.hpp>) always makes a new tensor, also of an array.
//
// bitcast<Out>(x) (Bitcast): the operand's bytes seen as Out, which has the same byte size and
// the same element width. Same element type: a tensor_map over x's memory for an array lvalue (a
// true view: writes through it change x; const for a const x), else a lazy reshape. Another type
// of the same width: lazy bitcast_convert_type + reshape (reading memory through a pointer of
// another type would break C++'s aliasing rules; the element-wise bitcast compiles to register
// moves). xlet arrays are row-major only, so a layout change is not a bitcast here; a width change
// is bitcast_convert_type's.
//
// Rules:
//   bitcast C1  Out is a tensor type with the operand's size in bytes
//           C2  Out's element type has the operand's element width
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

#include "../elementwise/convert.hpp"
#include "../layout/layout.hpp"
#include "computation.hpp"

namespace xlet {

namespace detail {

template<class X>
auto barrier_value(X&& x) {
    using D = std::remove_cvref_t<X>;
    if constexpr (is_array_leaf<D> && std::is_lvalue_reference_v<X>)
        return std::cref(x);
    else if constexpr (expression<D>)
        return materialize(std::forward<X>(x));
    else
        return D(std::forward<X>(x));
}

template<class V>
void barrier_fence(const V& v) {
    using D = std::remove_cvref_t<V>;
    if constexpr (expression<D>) {
        const void* p = v.data();
#if defined(__GNUC__) || defined(__clang__)
        asm volatile("" : : "r"(p) : "memory");
#else
        (void)p;
#endif
    } else if constexpr (is_std_tuple<D>) {
        detail::apply([](const auto&... e) { (barrier_fence(e), ...); }, v);
    }
}

template<class T>
struct unwrap_ref {
    using type = T;
};
template<class T>
struct unwrap_ref<std::reference_wrapper<T>> {
    using type = T&;
};

} // namespace detail

// OptimizationBarrier(operands...).
template<class... X>
requires(sizeof...(X) >= 1) decltype(auto) optimization_barrier(X&&... operands) {
    auto r =
        std::tuple<typename detail::unwrap_ref<decltype(detail::barrier_value(std::forward<X>(operands)))>::type...>(
            detail::barrier_value(std::forward<X>(operands))...);
    detail::barrier_fence(r);
    if constexpr (sizeof...(X) == 1)
        return std::tuple_element_t<0, decltype(r)>(std::get<0>(std::move(r)));
    else
        return r;
}

// Copy(operand): a new tensor holding the operand's elements.
template<expression X>
auto copy(const X& x) {
    return tensor_type_of<X>(x);
}

// Bitcast(operand) to Out.
template<class Out, class X>
auto bitcast(X&& x) {
    using D = std::remove_cvref_t<X>;
    constexpr bool c1 = [] {
        if constexpr (detail::is_owning_tensor<Out> && expression<D>)
            return Out::size() * sizeof(typename Out::value_type) == D::size() * sizeof(typename D::value_type);
        else
            return false;
    }();
    static_assert(diag::got<c1, Out, std::remove_cvref_t<X>>::value,
                  "xlet::bitcast [C1]: the result must be a tensor type of the operand's size in bytes");
    if constexpr (c1) {
        using T = typename D::value_type;
        using U = typename Out::value_type;
        constexpr bool c2 = sizeof(T) == sizeof(U);
        static_assert(diag::got<c2, Out, D>::value,
                      "xlet::bitcast [C2]: the element widths must be equal (bitcast_convert_type changes widths)");
        if constexpr (c2) {
            constexpr auto sz = []<std::size_t... K>(std::index_sequence<K...>) { return dims<Out::extents[K]...>; }
            (std::make_index_sequence<Out::rank>{});
            if constexpr (std::is_same_v<T, U> && is_array_leaf<D> && std::is_lvalue_reference_v<X>) {
                using E = std::remove_pointer_t<decltype(x.data())>;
                using M = typename detail::map_like<E, Out>::type;
                return M(x.data());
            } else if constexpr (std::is_same_v<T, U>) {
                return reshape(std::forward<X>(x), sz);
            } else {
                return reshape(bitcast_convert_type<U>(std::forward<X>(x)), sz);
            }
        }
    }
}

} // namespace xlet
