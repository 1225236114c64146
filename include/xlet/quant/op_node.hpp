// A quantized op of the spec as a node of its own (issue #26): quant_op_node<Op, R, K...> is the op
// Op (the element-wise functor of its float form: add_fn, exp_fn, eq_fn, select_fn ...; or
// requantize_op, uniform_quantize of a quantized operand) on operand nodes K (broadcast to one
// shape already), with result element type R (quantized; pred for a comparison). Its type says
// which op it is, so that
//   - to_stablehlo records it as one op on quantized types ("stablehlo.add"(%a, %b) :
//     (tensor<4x!quant.uniform<...>>, ...) -> tensor<4x!quant.uniform<...>>), as StableHLO
//     writes a quantized op;
//   - the passes (passes/quant.hpp) find it and rewrite it (to the dequantize / op / quantize
//     form, to integer and float math) and make it from that form again.
// It computes what the spec defines, through `quant_impl` (built over references to its
// operands each time the evaluator asks: nothing is stored twice):
//   - in general the spec's formula: uniform_quantize<R>(op(uniform_dequantize(k)...)), fused
//     into one pass (no float array), bit for bit the nodes a user would write;
//   - add of operands and result with one per-tensor scale and zero point on the stored integers
//     (integer_add_fn below), where that gives the same bits; likewise max, min, clamp, select
//     and the comparisons of one such type, which the spec's formula reduces to the same op on
//     the stored integers (exact_on_stored below).
#pragma once
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "../ops/elementwise/binary.hpp"
#include "../ops/elementwise/compare.hpp"
#include "../ops/elementwise/select.hpp"
#include "types.hpp"

namespace xlet {
template<class Q, expression X>
auto uniform_quantize(X&& x);
template<expression X>
auto uniform_dequantize(X&& x);
} // namespace xlet

namespace xlet::detail {

// The op of uniform_quantize on a quantized operand (requantization).
struct requantize_op {};

// The first quantized type of a list (the operands of select begin with pred); void if none.
template<class... T>
struct first_quantized {
    using type = void;
};
template<class T, class... U>
struct first_quantized<T, U...> {
    using type = std::conditional_t<is_quantized<T>, T, typename first_quantized<U...>::type>;
};
template<class... T>
using first_quantized_t = typename first_quantized<T...>::type;

// x dequantized when it is quantized, else x's node (select's pred).
template<class X>
auto dequantized(X&& x) {
    if constexpr (is_quantized<element_of<X>>)
        return uniform_dequantize(std::forward<X>(x));
    else
        return as_node(std::forward<X>(x));
}

// The spec's form of a quantized op: dequantize_op_quantize(op, operands..., R), or
// dequantize_compare for a pred result; the nodes the same op on dequantized operands makes.
template<class F, class R, class... K>
auto qdq_form(K&&... k) {
    using E = expressed_t<first_quantized_t<element_of<K>...>>;
    if constexpr (is_quantized<R>)
        return uniform_quantize<R>(make_map<F, E>(dequantized(std::forward<K>(k))...));
    else
        return make_map<F, R>(dequantized(std::forward<K>(k))...);
}

// Whether the spec's f32 path is exact on the stored integers of a per-tensor type Q: f32
// expressed, storage of at most 16 bits, scale s <= 2^100. Then, for stored a, b and zero point z:
//   add: the spec computes ((a - z) s + (b - z) s) / s + z. Each product is exact or rounds once
//   (a product of an integer and a subnormal s is a multiple of 2^-149, exact while subnormal;
//   with a normal s it is normal), the sum and the quotient round once, each with relative error
//   at most 2^-24: with |a - z| + |b - z| <= 2^17 the quotient is within 3 * 2^17 * 2^-24 < 0.03
//   of the integer (a - z) + (b - z), and adding z (below 2^16) adds at most 2^-7: round half to
//   even gives that integer, and clamping then rounding equals rounding then clamping at integer
//   bounds. What the bound on s excludes is overflow: (a - z) s + (b - z) s must stay finite (at
//   s = 1e38 the f32 path saturates where the integers do not).
//   quantize(dequantize(m)) = m: add's case b = z.
//   dequantize is strictly increasing in the stored integer: it is monotone (a conversion and a
//   product by s > 0, each rounded), and two integers j != k (|j|, |k| <= 2^17 after subtracting
//   z) give products j s, k s at least s apart, each rounded by at most 2^-24 * 2^17 s < s / 2
//   (or exact in the subnormal range): never equal, and finite.
// So max, min, clamp and select of operands and result of one such type (scale, zero point and
// storage range) pick the stored integer the spec picks, and a comparison of two operands of one
// such type orders their stored integers as the spec orders the dequantized values.
// tests/quant/quant_add_test.cpp checks every s8 and u8 pair at scales from 2^-149 to 2^100.
template<class Q>
consteval bool exact_on_stored() {
    if constexpr (!is_quantized<Q> || is_per_axis_quantized<Q>)
        return false;
    else
        return std::is_same_v<expressed_t<Q>, float> && sizeof(storage_t<Q>) <= 2 &&
               static_cast<float>(Q::scale) <= 0x1p100f;
}
// A and B have one storage type, one f32 scale and one zero point (both exact_on_stored).
template<class A, class B>
consteval bool same_exact_params() {
    if constexpr (!exact_on_stored<A>() || !exact_on_stored<B>())
        return false;
    else
        return std::is_same_v<typename A::storage_tag, typename B::storage_tag> &&
               static_cast<float>(A::scale) == static_cast<float>(B::scale) && A::zero_point == B::zero_point;
}
template<class A, class B>
consteval bool same_exact_type() {
    if constexpr (!same_exact_params<A, B>())
        return false;
    else
        return A::storage_min == B::storage_min && A::storage_max == B::storage_max;
}

// Whether add of operands A, B into R gives the spec's bits when computed on the stored integers
// as clamp(a + b - z, storage_min(R), storage_max(R)) (the operands' storage ranges may differ).
template<class R, class... T>
consteval bool integer_add_exact() {
    if constexpr (sizeof...(T) != 2)
        return false;
    else
        return (same_exact_params<R, T>() && ...);
}

// Ops that pick one of their operands' values (max, min, clamp, select): on the stored integers
// when every quantized operand and the result have one exact type.
template<class Op>
inline constexpr bool picks_operand = std::is_same_v<Op, max_fn> || std::is_same_v<Op, min_fn> ||
                                      std::is_same_v<Op, clamp_fn> || std::is_same_v<Op, select_fn>;
template<class Op>
inline constexpr bool is_ordered_compare =
    std::is_same_v<Op, eq_fn> || std::is_same_v<Op, ne_fn> || std::is_same_v<Op, lt_fn> || std::is_same_v<Op, le_fn> ||
    std::is_same_v<Op, gt_fn> || std::is_same_v<Op, ge_fn>;
template<class Op>
inline constexpr bool quant_arith_form =
    std::is_same_v<Op, add_fn> || std::is_same_v<Op, sub_fn> || std::is_same_v<Op, mul_fn> ||
    std::is_same_v<Op, div_fn> || std::is_same_v<Op, rem_fn> || std::is_same_v<Op, max_fn> ||
    std::is_same_v<Op, min_fn> || std::is_same_v<Op, pow_fn> || std::is_same_v<Op, atan2_fn>;
template<class R, class T>
consteval bool operand_exact() { // a non-quantized operand (select's pred) does not count
    return !is_quantized<T> || same_exact_type<R, T>();
}
template<class Op, class R, class... T>
consteval bool stored_integer_op() {
    if constexpr (picks_operand<Op> && is_quantized<R>) {
        return (operand_exact<R, T>() && ...);
    } else if constexpr (is_ordered_compare<Op> && sizeof...(T) == 2) {
        using A = std::tuple_element_t<0, std::tuple<T...>>;
        return (same_exact_type<A, T>() && ...);
    } else {
        return false;
    }
}

// add on the stored integers: clamp(a + b - z) to R's storage range, in SIMD registers of the
// storage integer. Each register is read as lanes twice as wide (the low and the high half of
// each pair of elements, sign- or zero-extended by shifts), summed there without overflow,
// clamped, and packed back: no lane crosses, so it is the same code for every register width.
template<class R>
struct integer_add_fn {
    using S = storage_t<R>;
    static constexpr double cost = 1;
    static constexpr std::int32_t zp = static_cast<std::int32_t>(R::zero_point);
    static constexpr std::int32_t lo = static_cast<std::int32_t>(R::storage_min);
    static constexpr std::int32_t hi = static_cast<std::int32_t>(R::storage_max);
    static S scalar(S a, S b) {
        return static_cast<S>(std::clamp(static_cast<std::int32_t>(a) + static_cast<std::int32_t>(b) - zp, lo, hi));
    }
    template<class Out, std::size_t N>
    requires(vec<S, N>::simd && sizeof(S) <= 2) static vec<S, N> on_vec(const vec<S, N>& a, const vec<S, N>& b) {
        using W = std::conditional_t<sizeof(S) == 1, std::int16_t, std::int32_t>;
        using BW = xsimd::batch<W>;
        constexpr int shift = 8 * sizeof(S);
        const BW z(static_cast<W>(zp)), l(static_cast<W>(lo)), h(static_cast<W>(hi));
        const BW low(static_cast<W>((1 << shift) - 1));
        auto halves = [&](const xsimd::batch<S>& x, BW& even, BW& odd) {
            const BW w = xsimd::bitwise_cast<BW>(x);
            if constexpr (std::is_signed_v<S>) {
                even = (w << shift) >> shift; // arithmetic shifts: sign-extended
                odd = w >> shift;
            } else {
                even = w & low;
                odd = (w >> shift) & low;
            }
        };
        vec<S, N> r;
        for (std::size_t k = 0; k < vec<S, N>::simd_regs::count; ++k) {
            BW ea, oa, eb, ob;
            halves(a.r.b[k], ea, oa);
            halves(b.r.b[k], eb, ob);
            const BW se = xsimd::min(xsimd::max(ea + eb - z, l), h);
            const BW so = xsimd::min(xsimd::max(oa + ob - z, l), h);
            r.r.b[k] = xsimd::bitwise_cast<xsimd::batch<S>>((se & low) | (so << shift));
        }
        return r;
    }
};

// What a quant_op_node computes, over references to its operands (ref_nodes).
template<class Op, class R, class... K>
auto quant_impl(K... k) {
    if constexpr (std::is_same_v<Op, requantize_op>)
        return uniform_quantize<R>(uniform_dequantize(std::move(k)...));
    else if constexpr (std::is_same_v<Op, add_fn> && integer_add_exact<R, typename K::value_type...>())
        return make_map<integer_add_fn<R>, R>(std::move(k)...);
    else if constexpr (stored_integer_op<Op, R, typename K::value_type...>())
        return make_map<Op, R>(std::move(k)...); // the same functor on the stored integers
    else
        return qdq_form<Op, R>(std::move(k)...);
}

template<class Op, class R, class... K>
struct quant_op_node : node_shape<R, std::tuple_element_t<0, std::tuple<K...>>::rank,
                                  std::tuple_element_t<0, std::tuple<K...>>::extents> {
    using impl_t = decltype(quant_impl<Op, R>(std::declval<ref_node<K>>()...));
    static constexpr std::size_t lanes = impl_t::lanes;
    static constexpr double cost = impl_t::cost;
    static constexpr std::size_t leaf_count = impl_t::leaf_count;
    static constexpr bool linear = impl_t::linear;
    static constexpr bool viewable = impl_t::viewable;
    detail::kids<K...> kids;

    impl_t impl() const {
        return detail::apply([](const K&... k) { return quant_impl<Op, R>(ref_node<K>{{}, &k}...); }, kids);
    }
    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() {
        return impl_t::template leaf_strides<Ro, M>();
    }
    // (The cursors of impl()'s nodes hold their children's cursors and memory pointers, never
    // the nodes: they outlive the temporary.)
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        return impl().template cursor<Ro, M, P>(outer);
    }
    compute_t<R> at(const std::array<std::size_t, quant_op_node::rank>& idx) const { return impl().at(idx); }
    int trace(trace::recorder& r) const {
        std::vector<int> ins;
        detail::apply([&](const auto&... c) { (ins.push_back(trace::value_of(r, c)), ...); }, kids);
        if constexpr (std::is_same_v<Op, requantize_op>) {
            return r.emit("stablehlo.uniform_quantize", std::move(ins), {trace::type_of<quant_op_node>()});
        } else {
            // (compare_type FLOAT: the spec compares the dequantized values)
            using E = expressed_t<first_quantized_t<typename K::value_type...>>;
            return r.emit(std::string(trace::form<Op>::name), std::move(ins), {trace::type_of<quant_op_node>()},
                          trace::form<Op>::template attrs<E>());
        }
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        return impl().template may_alias<Ro, M, D>(b, e);
    }
};

template<class Op, class R, class... K>
auto make_quant_op(K&&... k) {
    return quant_op_node<Op, R, std::remove_cvref_t<K>...>{{}, {std::forward<K>(k)...}};
}

} // namespace xlet::detail
