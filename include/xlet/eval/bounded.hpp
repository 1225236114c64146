// Bounded dynamic dimensions (spec: SetDimensionSize, GetDimensionSize, DynamicReshape).
//
// bounded<E, Mask> pairs a static expression E, whose extents are the upper bounds, with a run-time
// size for each dimension whose bit is set in Mask (which dimensions are dynamic is part of the
// type, as in an XLA shape). The static machinery is untouched: E is an ordinary node, evaluated
// over its whole bound; the sizes travel beside it. Ops that understand sizes accept a bounded
// operand and return one (element-wise ops, convert, select, clamp, reduce, dynamic_reshape,
// get_dimension_size, eval); elements past a run-time size are padding: computed, never read by a
// reduction. `padded()` hands out the static expression for any other op, padding included.
#pragma once
#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include "../core/error.hpp"
#include "node.hpp"

namespace xlet {

template<class E, unsigned Mask>
class bounded {
    static_assert(expression<E>, "xlet::bounded: E must be an expression");

public:
    using expr_type = E;
    using value_type = typename E::value_type;
    static constexpr std::size_t rank = E::rank;
    static constexpr extents_t<rank> bounds = E::extents;
    static constexpr unsigned dynamic_mask = Mask;
    static_assert(rank <= 32 && (rank == 32 || (Mask >> rank) == 0), "xlet::bounded: a dynamic dimension beyond the rank");
    static constexpr bool is_dynamic(std::size_t d) { return d < rank && ((Mask >> d) & 1u) != 0; }

    // Sizes of static dimensions must equal their extent; dynamic ones lie in [0, bound].
    bounded(E e, const std::array<std::size_t, rank>& sizes, const char* op = "bounded") : e_(std::move(e)), size_(sizes) {
        for (std::size_t d = 0; d < rank; ++d) {
            if (!is_dynamic(d) && size_[d] != bounds[d])
                throw error(op, "static dimension " + std::to_string(d) + " has size " + std::to_string(size_[d]) + ", not " +
                                    std::to_string(bounds[d]));
            if (size_[d] > bounds[d])
                throw error(op, "size " + std::to_string(size_[d]) + " of dimension " + std::to_string(d) + " exceeds its bound " +
                                    std::to_string(bounds[d]));
        }
    }

    std::size_t size(std::size_t d) const { return size_[d]; }
    const std::array<std::size_t, rank>& sizes() const { return size_; }
    std::size_t element_count() const {
        std::size_t n = 1;
        for (auto s : size_) n *= s;
        return n;
    }
    // The static expression over the whole bound (padding included).
    const E& padded() const& { return e_; }
    E&& padded() && { return std::move(e_); }

    // Element at a multi-index inside the run-time sizes (checked).
    template<class... I>
    auto operator()(I... i) const
        requires(sizeof...(I) == rank)
    {
        std::array<std::size_t, rank> idx{static_cast<std::size_t>(i)...};
        for (std::size_t d = 0; d < rank; ++d)
            if (idx[d] >= size_[d]) throw error("bounded", "index " + std::to_string(idx[d]) + " outside the size " + std::to_string(size_[d]) + " of dimension " + std::to_string(d));
        if constexpr (is_array_leaf<E>) return e_(i...);
        else return static_cast<value_type>(detail::narrow<value_type>(detail::as_node(e_).at(idx)));
    }

private:
    E e_;
    std::array<std::size_t, rank> size_;
};

namespace detail {

template<class X> inline constexpr bool is_bounded_v = false;
template<class E, unsigned M> inline constexpr bool is_bounded_v<bounded<E, M>> = true;
template<class X> concept bounded_operand = is_bounded_v<std::remove_cvref_t<X>>;
template<class... X> inline constexpr bool any_bounded = (bounded_operand<X> || ...);

// The operand a static op sees: a bounded one's static expression, anything else as given.
template<class X> decltype(auto) unbound(X&& x) {
    if constexpr (bounded_operand<X>) return std::forward<X>(x).padded();
    else return std::forward<X>(x);
}

template<class X> struct bound_info {
    static constexpr std::size_t rank = 0;
    static constexpr extents_t<0> extents{};
    static constexpr unsigned mask = 0;
};
template<class E, unsigned M> struct bound_info<bounded<E, M>> {
    static constexpr std::size_t rank = E::rank;
    static constexpr auto extents = E::extents;
    static constexpr unsigned mask = M;
};

// Which result dimensions are dynamic: a dimension an operand supplies (same rank, extent equal to
// the result's, not broadcast from 1) that is dynamic in it.
template<std::size_t R, extents_t<R> E, class... X>
consteval unsigned lifted_mask() {
    unsigned m = 0;
    auto one = [&]<class B>() {
        if constexpr (B::rank == R)
            for (std::size_t d = 0; d < R; ++d)
                if (((B::mask >> d) & 1u) && B::extents[d] == E[d]) m |= 1u << d;
    };
    (one.template operator()<bound_info<std::remove_cvref_t<X>>>(), ...);
    return m;
}

// Run-time sizes of the result: dynamic operands that supply a dimension must agree; a dynamic
// dimension that is broadcast (bound 1 against a larger result) must have size 1.
template<std::size_t R, extents_t<R> E, class X>
void lift_sizes(const char* op, std::array<std::size_t, R>& size, std::array<bool, R>& set, const X& x) {
    if constexpr (bounded_operand<X>) {
        using B = std::remove_cvref_t<X>;
        if constexpr (B::rank == R) {
            for (std::size_t d = 0; d < R; ++d) {
                if (!B::is_dynamic(d)) continue;
                const std::size_t s = x.size(d);
                if (B::bounds[d] != E[d]) {
                    if (s != 1) throw error(op, "dynamic dimension " + std::to_string(d) + " of size " + std::to_string(s) + " is broadcast");
                } else if (set[d] && size[d] != s) {
                    throw error(op, "dynamic sizes differ in dimension " + std::to_string(d) + ": " + std::to_string(size[d]) + " and " +
                                        std::to_string(s));
                } else {
                    size[d] = s;
                    set[d] = true;
                }
            }
        }
    }
}

// Apply a static op f to the static expressions of the operands and carry the sizes over.
template<class F, class... X>
auto lift(const char* op, F&& f, X&&... x) {
    using N = decltype(f(unbound(std::forward<X>(x))...));
    constexpr std::size_t R = N::rank;
    constexpr auto E = N::extents;
    std::array<std::size_t, R> size = E;
    std::array<bool, R> set{};
    (lift_sizes<R, E>(op, size, set, x), ...);
    return bounded<N, lifted_mask<R, E, X...>()>(f(unbound(std::forward<X>(x))...), size, op);
}

} // namespace detail
} // namespace xlet
