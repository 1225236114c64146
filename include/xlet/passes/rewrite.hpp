// passes::apply<P>(expr): a compile-time rewrite of an expression tree (DESIGN §2, the passes/
// layer). The tree is rebuilt bottom-up: each node's children are rewritten first, then the pass's
// rule for the node, if P has one for the node's type (`P::rule(node&&)`, found by overload
// resolution), replaces it. The result is a new lazy expression whose type shows the rewrite;
// nothing is evaluated (but for a reshape whose rewritten operand stops being linear, as
// xlet::reshape itself evaluates such an operand).
//
// How a node is rebuilt around rewritten children is a customization point per node family,
// `family<N>`: element-wise maps, affine views, reshape, pad, concatenate, user maps and the
// quantized ops; every other node (arrays, scalars, iota, the results of heavy ops, which are
// evaluated when the op is called) is a leaf, kept as it is. A node an lvalue expression refers to
// (ref_node) is rewritten in place of the reference, so the result never points into the tree it
// came from; it refers to the same arrays (by pointer, as the original did), and copies the
// arrays the original owned.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

#include "../ops/elementwise/elementwise.hpp"
#include "../ops/elementwise/map.hpp"
#include "../ops/layout/concatenate.hpp"
#include "../ops/layout/layout.hpp"
#include "../ops/layout/pad.hpp"
#include "../quant/op_node.hpp"

namespace xlet::passes {

template<class P, class N>
auto rewrite(const N& n);

// The default family: a leaf, kept.
template<class N>
struct family {
    template<class P>
    static N rebuild(const N& n) {
        return n;
    }
};

// Each child of a tuple rewritten, handed to make(children...).
template<class P, class Tuple, class Make>
auto rewrite_each(const Tuple& kids, Make make) {
    return detail::apply([&](const auto&... c) { return make(rewrite<P>(c)...); }, kids);
}

template<class F, class T, class... C>
struct family<detail::map_node<F, T, C...>> {
    template<class P>
    static auto rebuild(const detail::map_node<F, T, C...>& n) {
        return rewrite_each<P>(n.kids, [](auto&&... c) { return detail::make_map<F, T>(std::move(c)...); });
    }
};

template<class F, class S, class Ts, class... C>
struct family<detail::user_map_node<F, S, Ts, C...>> {
    template<class P>
    static auto rebuild(const detail::user_map_node<F, S, Ts, C...>& n) {
        return rewrite_each<P>(n.kids, [&](auto&&... c) {
            return detail::user_map_node<F, S, Ts, std::remove_cvref_t<decltype(c)>...>{{}, n.f, {std::move(c)...}};
        });
    }
};

template<class Op, class R, class... K>
struct family<detail::quant_op_node<Op, R, K...>> {
    template<class P>
    static auto rebuild(const detail::quant_op_node<Op, R, K...>& n) {
        return rewrite_each<P>(n.kids, [](auto&&... c) { return detail::make_quant_op<Op, R>(std::move(c)...); });
    }
};

template<class C, std::size_t R, extents_t<R> E, auto Map, class T>
struct family<detail::view_node<C, R, E, Map, T>> {
    template<class P>
    static auto rebuild(const detail::view_node<C, R, E, Map, T>& n) {
        return detail::make_view<R, E, Map, T>(rewrite<P>(n.child));
    }
};

template<class C, std::size_t R, extents_t<R> E, class T>
struct family<detail::reshape_node<C, R, E, T>> {
    template<class P>
    static auto rebuild(const detail::reshape_node<C, R, E, T>& n) {
        auto c = rewrite<P>(n.child);
        using Cn = decltype(c);
        if constexpr (Cn::linear) {
            return detail::reshape_node<Cn, R, E, T>{{}, std::move(c)};
        } else { // (as xlet::reshape: a view that reorders elements is evaluated first)
            auto t = eval(c);
            using Nt = detail::node_t<decltype(t)>;
            return detail::reshape_node<Nt, R, E, T>{{}, detail::as_node(std::move(t))};
        }
    }
};

template<class X, class V, std::size_t R, extents_t<R> E, padding_config<R> Cfg>
struct family<detail::pad_node<X, V, R, E, Cfg>> {
    template<class P>
    static auto rebuild(const detail::pad_node<X, V, R, E, Cfg>& n) {
        auto x = rewrite<P>(n.child);
        auto v = rewrite<P>(n.value);
        return detail::pad_node<decltype(x), decltype(v), R, E, Cfg>{{}, std::move(x), std::move(v)};
    }
};

template<std::size_t Kd, class T, std::size_t R, extents_t<R> E, class... C>
struct family<detail::concat_node<Kd, T, R, E, C...>> {
    template<class P>
    static auto rebuild(const detail::concat_node<Kd, T, R, E, C...>& n) {
        return rewrite_each<P>(n.kids, [](auto&&... c) {
            return detail::concat_node<Kd, T, R, E, std::remove_cvref_t<decltype(c)>...>{{}, {std::move(c)...}};
        });
    }
};

template<class N>
inline constexpr bool is_ref_node = false;
template<class N>
inline constexpr bool is_ref_node<detail::ref_node<N>> = true;

// The pass's rule for a node whose children are rewritten, when it has one for this type.
template<class P, class N>
auto apply_rule(N&& n) {
    if constexpr (requires(N && x) { P::rule(std::move(x)); })
        return P::rule(std::move(n));
    else
        return std::move(n);
}

template<class P, class N>
auto rewrite(const N& n) {
    if constexpr (is_ref_node<N>)
        return rewrite<P>(*n.n);
    else
        return apply_rule<P>(family<N>::template rebuild<P>(n));
}

// The expression e rewritten by pass P (passes/quant.hpp has the quantization passes).
template<class P, expression E>
auto apply(E&& e) {
    return rewrite<P>(detail::as_node(std::forward<E>(e)));
}

} // namespace xlet::passes
