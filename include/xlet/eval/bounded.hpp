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
#include <memory>
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
    static_assert(rank <= 32 && (rank == 32 || (Mask >> rank) == 0),
                  "xlet::bounded: a dynamic dimension beyond the rank");
    static constexpr bool is_dynamic(std::size_t d) { return d < rank && ((Mask >> d) & 1u) != 0; }

    // Sizes of static dimensions must equal their extent; dynamic ones lie in [0, bound].
    bounded(E e, const std::array<std::size_t, rank>& sizes, const char* op = "bounded")
        : e_(std::move(e)), size_(sizes) {
        for (std::size_t d = 0; d < rank; ++d) {
            if (!is_dynamic(d) && size_[d] != bounds[d])
                throw error(op, "static dimension ", d, " has size ", size_[d], ", not ", bounds[d]);
            if (size_[d] > bounds[d])
                throw error(op, "size ", size_[d], " of dimension ", d, " exceeds its bound ", bounds[d]);
        }
    }

    std::size_t size(std::size_t d) const { return size_[d]; }
    const std::array<std::size_t, rank>& sizes() const { return size_; }
    std::size_t element_count() const {
        std::size_t n = 1;
        for (auto s : size_)
            n *= s;
        return n;
    }
    // Export (stablehlo/export.hpp): the value of the traced program this one is, when an op
    // recorded it; else a constant of the padded contents with its sizes set.
    const trace::carried& traced() const { return traced_; }
    void traced(const trace::carried& c) { traced_ = c; }
    XLET_TRACE_COLD int trace(trace::recorder& r) const {
        if (const int id = r.carried_id(traced_); id >= 0) return id;
        int v = trace::value_of(r, e_);
        const std::string t = trace::type_of<E>();
        unsigned m = 0;
        for (std::size_t d = 0; d < rank; ++d)
            if (is_dynamic(d)) {
                const int s = trace::scalar_value<std::int32_t>(r, static_cast<std::int32_t>(size_[d]));
                m |= 1u << d;
                v = r.emit("stablehlo.set_dimension_size", {v, s}, {trace::recorder::bounded_type(t, m)},
                           "dimension = " + std::to_string(d) + " : i64");
            }
        return v;
    }

    // The static expression over the whole bound (padding included).
    const E& padded() const& { return e_; }
    E&& padded() && { return std::move(e_); }

    // Element at a multi-index inside the run-time sizes (checked).
    template<class... I>
    auto operator()(I... i) const requires(sizeof...(I) == rank) {
        std::array<std::size_t, rank> idx{static_cast<std::size_t>(i)...};
        for (std::size_t d = 0; d < rank; ++d)
            if (idx[d] >= size_[d])
                throw error("bounded", "index ", idx[d], " outside the size ", size_[d], " of dimension ", d);
        if constexpr (is_array_leaf<E>)
            return e_(i...);
        else
            return static_cast<value_type>(detail::narrow<value_type>(detail::as_node(e_).at(idx)));
    }

private:
    E e_;
    std::array<std::size_t, rank> size_;
    trace::carried traced_;
};

namespace detail {

template<class X>
inline constexpr bool is_bounded_v = false;
template<class E, unsigned M>
inline constexpr bool is_bounded_v<bounded<E, M>> = true;
template<class X>
concept bounded_operand = is_bounded_v<std::remove_cvref_t<X>>;
template<class... X>
inline constexpr bool any_bounded = (bounded_operand<X> || ...);

// The operand a static op sees: a bounded one's static expression, anything else as given.
template<class X>
decltype(auto) unbound(X&& x) {
    if constexpr (bounded_operand<X>)
        return std::forward<X>(x).padded();
    else
        return std::forward<X>(x);
}

template<class X>
struct bound_info {
    static constexpr std::size_t rank = 0;
    static constexpr extents_t<0> extents{};
    static constexpr unsigned mask = 0;
};
template<class E, unsigned M>
struct bound_info<bounded<E, M>> {
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
                    if (s != 1) throw error(op, "dynamic dimension ", d, " of size ", s, " is broadcast");
                } else if (set[d] && size[d] != s) {
                    throw error(op, "dynamic sizes differ in dimension ", d, ": ", size[d], " and ", s);
                } else {
                    size[d] = s;
                    set[d] = true;
                }
            }
        }
    }
}

// Export of the ops that materialise bounded values (dynamic_dims.hpp). A result's type: a
// bounded one's dynamic dimensions as "?" with their bounds.
template<class T>
std::string result_type() {
    if constexpr (bounded_operand<T>)
        return trace::recorder::bounded_type(trace::type_of<typename T::expr_type>(), T::dynamic_mask);
    else
        return trace::type_of<T>();
}
// A materialised result is value id: a bounded one carries it, and its storage holds the padding
// (read statically through padding_of, trace::memory_value); a tensor's storage holds it.
template<class T>
XLET_TRACE_COLD void attach(trace::recorder& r, T& out, int& id) {
    if constexpr (bounded_operand<T>) {
        out.traced(r.carry(id));
        using P = typename T::expr_type;
        r.bind_padding(out.padded().data(), P::num_elements * sizeof(typename P::value_type), trace::type_of<P>(), id);
    } else if constexpr (is_array_leaf<T>) {
        trace::bind(r, out, id);
    } else {
        detail::apply([&](auto&... o) { (attach(r, o, id), ...); }, out);
        return;
    }
    ++id;
}
// `run()` computes the op with the recorder paused; while exporting, `emit(r, result_types)` first
// records it (its operands are still whole) and returns its first result id.
template<class Run, class Emit>
auto traced_op(Run&& run, Emit&& emit) {
    using Res = std::invoke_result_t<Run&>;
    trace::recorder* const r = trace::current();
    int id = -1;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]] {
            std::vector<std::string> types;
            if constexpr (bounded_operand<Res> || is_array_leaf<Res>)
                types.push_back(result_type<Res>());
            else
                [&]<class... T>(std::tuple<T...>*) {
                    (types.push_back(result_type<T>()), ...);
                }(static_cast<Res*>(nullptr));
            id = emit(*r, types);
        }
    Res out = [&] {
        trace::pause_if p(r);
        return run();
    }();
    if constexpr (trace::compiled_in) // (attach's recorder calls are defined in trace units only)
        if (id >= 0) [[unlikely]]
            attach(*r, out, id);
    return out;
}

// Export: f applied to the operands with each bounded one standing for its value (a placeholder
// array bound to it), the ops retyped with the dynamic dimensions they inherit.
template<class F, class... X>
XLET_TRACE_COLD int trace_lift(trace::recorder& r, const F& f, const X&... x) {
    auto hold = [&](const auto& v) {
        using V = std::remove_cvref_t<decltype(v)>;
        if constexpr (bounded_operand<V>) {
            auto p = std::make_unique<tensor_type_of<typename V::expr_type>>();
            trace::bind(r, *p, v.trace(r));
            return p;
        } else {
            return &v;
        }
    };
    std::tuple held{hold(x)...}; // (braces: left to right, as the ops are recorded)
    const std::size_t first = r.regions[static_cast<std::size_t>(r.current_region())].ops.size();
    const int id = detail::apply([&](const auto&... h) { return trace::value_of(r, f(std::as_const(*h)...)); }, held);
    r.retype_bounded(first);
    auto drop = [&](const auto& h) {
        if constexpr (!std::is_pointer_v<std::remove_cvref_t<decltype(h)>>) r.forget(h->data());
    };
    detail::apply([&](const auto&... h) { (drop(h), ...); }, held);
    return id;
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
    trace::recorder* const r = trace::current();
    int id = -1;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]]
            id = trace_lift(*r, f, x...);
    bounded<N, lifted_mask<R, E, X...>()> out(f(unbound(std::forward<X>(x))...), size, op);
    if (id >= 0) [[unlikely]]
        out.traced(r->carry(id));
    return out;
}

} // namespace detail
} // namespace xlet
