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
//     (integer_add_fn below), where that gives the same bits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "../ops/elementwise/binary.hpp"
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

// Whether add of operands A, B into R gives the spec's bits when computed on the stored integers
// as clamp(a + b - z, storage_min(R), storage_max(R)): one per-tensor scale s (as f32) and zero
// point z, f32 expressed, storage of at most 16 bits, s <= 2^100. The spec's f32 path computes
// ((a - z) s + (b - z) s) / s + z. Each product is exact or rounds once (a product of an integer
// and a subnormal s is a multiple of 2^-149, exact while subnormal; with a normal s it is normal),
// the sum and the quotient round once, each with relative error at most 2^-24: with
// |a - z| + |b - z| <= 2^17 the quotient is within 3 * 2^17 * 2^-24 < 0.03 of the integer
// (a - z) + (b - z), and adding z (below 2^16) adds at most 2^-7: round half to even gives that
// integer, and clamping then rounding equals rounding then clamping at integer bounds. What the
// bound on s excludes is overflow: (a - z) s + (b - z) s must stay finite (at s = 1e38 the f32
// path saturates where the integers do not). tests/quant/quant_add_test.cpp checks every s8 and
// u8 pair at scales from 2^-149 to 2^100.
template<class R, class... T>
consteval bool integer_add_exact() {
    if constexpr (sizeof...(T) != 2 || !is_quantized<R> || !(is_quantized<T> && ...)) {
        return false;
    } else if constexpr (is_per_axis_quantized<R> || (is_per_axis_quantized<T> || ...)) {
        return false;
    } else if constexpr (!std::is_same_v<expressed_t<R>, float> || sizeof(storage_t<R>) > 2 ||
                         !(std::is_same_v<typename T::storage_tag, typename R::storage_tag> && ...)) {
        return false;
    } else {
        constexpr float s = static_cast<float>(R::scale);
        return ((static_cast<float>(T::scale) == s && T::zero_point == R::zero_point) && ...) && s <= 0x1p100f;
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
    std::tuple<K...> kids;

    impl_t impl() const {
        return std::apply([](const K&... k) { return quant_impl<Op, R>(ref_node<K>{{}, &k}...); }, kids);
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
        std::apply([&](const auto&... c) { (ins.push_back(trace::value_of(r, c)), ...); }, kids);
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
