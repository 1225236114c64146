// UniformQuantize and UniformDequantize (spec: uniform_quantize, uniform_dequantize and the
// "Quantization computations" quantize / dequantize), as lazy element-wise nodes that fuse with
// the expression around them:
//   uniform_quantize<Q>(x)      x floating (Q's expressed type) or quantized (requantization:
//                               quantize<Q>(dequantize(x)) in one pass); the result has type Q.
//                               C1 shape(result) = shape(operand): by construction;
//                               C2 Q is quantized, and its expressed type is x's element type (a
//                               floating x) or x's expressed type (a quantized x);
//                               C12 / C13 of a per-axis Q against x's shape (quant/types.hpp).
//   uniform_dequantize(q)       q quantized; the result has q's expressed type.
//                               C1 shape: by construction; C2 q is quantized.
// Each step is computed in the expressed type as the spec writes it (f16 / bf16 in f32, rounded to
// the expressed type after every step, as every xlet op on them):
//   dequantize: (stored - zero_point) → expressed (one rounding), × scale (one rounding).
//   quantize:   x / scale, + zero_point (each rounded), clamp to [storage_min, storage_max] as
//               expressed values, round half to even, convert: NaN → 0; the integer is clamped to
//               [storage_min, storage_max] once more (an i32 storage_max rounds up to 2^31 in f32).
// The one departure from the spec's formula: stored - zero_point is computed in 64-bit integers,
// not in the storage type, so it never wraps (i8: 127 - (-128) = 255; as StableHLO's own lowering,
// which subtracts in i32). Per-axis parameters are two constant arrays (scales, zero points) read
// along the quantization dimension through the broadcast machinery: still one fused pass.
// Docs: docs/semantics.md "Quantization".
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "../ops/elementwise/elementwise.hpp"
#include "../ops/elementwise/iota.hpp"
#include "op_node.hpp"
#include "types.hpp"

namespace xlet::detail {

// The spec's convert(integer, expressed_type): one rounding to the expressed type.
template<class E>
inline compute_t<E> expressed_from(std::int64_t i) {
    if constexpr (is_narrow_float<E>)
        return static_cast<float>(E(i));
    else
        return static_cast<compute_t<E>>(i);
}
template<class E>
constexpr compute_t<E> expressed_const(double d) {
    return static_cast<compute_t<E>>(E(d)); // a scale rounded to the expressed type (C4)
}
template<class E>
constexpr compute_t<E> expressed_const_int(std::int64_t i) {
    return static_cast<compute_t<E>>(E(i));
}

// dequantize(x) of one element.
template<class Q>
inline compute_t<expressed_t<Q>> dequantize_value(storage_t<Q> q, std::int64_t zero_point,
                                                  compute_t<expressed_t<Q>> scale) {
    using E = expressed_t<Q>;
    return round_scalar_to_storage<E>(expressed_from<E>(static_cast<std::int64_t>(q) - zero_point) * scale);
}

// quantize(x, Q) of one element.
template<class Q>
inline storage_t<Q> quantize_value(compute_t<expressed_t<Q>> x, compute_t<expressed_t<Q>> scale,
                                   compute_t<expressed_t<Q>> zero_point) {
    using E = expressed_t<Q>;
    using C = compute_t<E>;
    constexpr C lo = expressed_const_int<E>(element_traits<Q>::storage_min);
    constexpr C hi = expressed_const_int<E>(element_traits<Q>::storage_max);
    C y = round_scalar_to_storage<E>(x / scale);
    y = round_scalar_to_storage<E>(y + zero_point);
    y = y < lo ? lo : y; // clamp(min, y, max); NaN stays NaN
    y = y > hi ? hi : y;
    y = std::nearbyint(y); // round_nearest_even (the default rounding mode)
    const std::int64_t i = y == y ? static_cast<std::int64_t>(y) : 0;
    return static_cast<storage_t<Q>>(std::clamp(i, element_traits<Q>::storage_min, element_traits<Q>::storage_max));
}

// The parameters of a per-tensor type, and of a per-axis type as constant arrays, in the
// expressed type's compute type.
template<class Q>
struct quant_consts {
    using E = expressed_t<Q>;
    using C = compute_t<E>;
    static constexpr C scale = expressed_const<E>(Q::scale);
    static constexpr C zero_point = expressed_const_int<E>(Q::zero_point);
};
template<class Q>
struct axis_consts {
    using E = expressed_t<Q>;
    using C = compute_t<E>;
    static constexpr std::size_t n = Q::axis_size;
    static constexpr std::array<C, n> scale = [] {
        std::array<C, n> a{};
        for (std::size_t i = 0; i < n; ++i)
            a[i] = expressed_const<E>(Q::scales[i]);
        return a;
    }();
    static constexpr std::array<C, n> zero_point = [] {
        std::array<C, n> a{};
        for (std::size_t i = 0; i < n; ++i)
            a[i] = expressed_const_int<E>(Q::zero_points[i]);
        return a;
    }();
    // (C7: a zero point is inside the storage range, at most 32 bits)
    static constexpr std::array<std::int32_t, n> zero_point_int = [] {
        std::array<std::int32_t, n> a{};
        for (std::size_t i = 0; i < n; ++i)
            a[i] = Q::zero_points[i];
        return a;
    }();
};

// The SIMD forms of the per-tensor functors: f32 lanes (f16 / bf16 too, rounded after each step
// as the scalar form) and stored integers of up to 16 bits, whose conversions to and from f32 are
// exact (i32 storage, f64 expressed types: the scalar form). Every lane gets the scalar form's bits.
template<class Q>
inline constexpr bool simd_quant = std::is_same_v<compute_t<expressed_t<Q>>, float> && sizeof(storage_t<Q>) <= 2;

template<class E, class B>
inline B round_batch_to(const B& b) {
    if constexpr (std::is_same_v<E, half>)
        return round_to_half(b);
    else if constexpr (std::is_same_v<E, bfloat16>)
        return round_to_bfloat16(b);
    else
        return b;
}

template<class Q>
struct dequantize_fn {
    static constexpr double cost = 2;
    static compute_t<expressed_t<Q>> scalar(storage_t<Q> q) {
        return dequantize_value<Q>(q, Q::zero_point, quant_consts<Q>::scale);
    }
    template<class Out, std::size_t N>
    requires(simd_quant<Q>&& vec<float, N>::simd) static vec<float, N> on_vec(const vec<storage_t<Q>, N>& q) {
        using B = xsimd::batch<float>;
        using E = expressed_t<Q>;
        alignas(64) std::array<storage_t<Q>, N> in;
        q.store_lanes(in.data());
        alignas(64) std::array<float, N> d; // stored - zero_point, exact in f32 for 16-bit storage
        for (std::size_t i = 0; i < N; ++i)
            d[i] = static_cast<float>(static_cast<std::int32_t>(in[i]) - static_cast<std::int32_t>(Q::zero_point));
        vec<float, N> r;
        const B s(quant_consts<Q>::scale);
        for (std::size_t k = 0; k < N / B::size; ++k)
            r.r.b[k] = round_batch_to<E>(round_batch_to<E>(B::load_aligned(d.data() + k * B::size)) * s);
        return r;
    }
};
// Per axis, the same in f32 lanes where stored - zero point converts to f32 with the scalar form's
// one rounding: up to 16-bit storage (the difference is exact in int32 and in f32, so a narrow
// expressed type rounds it once either way), or 32-bit storage of an f32 type whose zero points
// are all 0 (int32 -> f32 rounds to nearest even, as int64 -> f32 does). This is the dequantize of
// an i32 per-axis dot result (examples/quantized_mlp.cpp's hidden layer, dequantize + bias + relu +
// quantize of 256 x 512: 77 -> 37 us on one Zen 4 core).
template<class Q>
consteval bool simd_quant_axis() {
    using E = expressed_t<Q>;
    if constexpr (!std::is_same_v<compute_t<E>, float>)
        return false;
    else if constexpr (sizeof(storage_t<Q>) <= 2)
        return true;
    else if constexpr (!std::is_same_v<E, float>)
        return false;
    else {
        for (std::size_t i = 0; i < Q::axis_size; ++i)
            if (Q::zero_points[i] != 0) return false;
        return true;
    }
}
template<class Q>
struct dequantize_axis_fn {
    static constexpr double cost = 2;
    static compute_t<expressed_t<Q>> scalar(storage_t<Q> q, compute_t<expressed_t<Q>> scale, std::int64_t zero_point) {
        return dequantize_value<Q>(q, zero_point, scale);
    }
    template<class Out, std::size_t N>
    requires(simd_quant_axis<Q>() &&
             vec<float, N>::simd) static vec<float, N> on_vec(const vec<storage_t<Q>, N>& q, const vec<float, N>& scale,
                                                              const vec<std::int32_t, N>& zero_point) {
        using B = xsimd::batch<float>;
        using E = expressed_t<Q>;
        alignas(64) std::array<storage_t<Q>, N> in;
        alignas(64) std::array<std::int32_t, N> z;
        q.store_lanes(in.data());
        zero_point.store_lanes(z.data());
        alignas(64) std::array<float, N> d; // stored - zero_point: no wrap (see simd_quant_axis)
        for (std::size_t i = 0; i < N; ++i)
            d[i] = static_cast<float>(static_cast<std::int32_t>(in[i]) - z[i]);
        vec<float, N> r;
        for (std::size_t k = 0; k < N / B::size; ++k)
            r.r.b[k] = round_batch_to<E>(round_batch_to<E>(B::load_aligned(d.data() + k * B::size)) * scale.r.b[k]);
        return r;
    }
};
template<class Q>
struct quantize_fn {
    static constexpr double cost = 4;
    static storage_t<Q> scalar(compute_t<expressed_t<Q>> x) {
        return quantize_value<Q>(x, quant_consts<Q>::scale, quant_consts<Q>::zero_point);
    }
    template<class Out, std::size_t N>
    requires(simd_quant<Q>&& vec<float, N>::simd) static vec<storage_t<Q>, N> on_vec(const vec<float, N>& x) {
        using B = xsimd::batch<float>;
        using I = xsimd::batch<std::int32_t>;
        using E = expressed_t<Q>;
        static_assert(I::size == B::size);
        const B s(quant_consts<Q>::scale), z(quant_consts<Q>::zero_point);
        const B lo(expressed_const_int<E>(element_traits<Q>::storage_min));
        const B hi(expressed_const_int<E>(element_traits<Q>::storage_max));
        const I ilo(static_cast<std::int32_t>(element_traits<Q>::storage_min));
        const I ihi(static_cast<std::int32_t>(element_traits<Q>::storage_max));
        alignas(64) std::array<std::int32_t, N> ints;
        for (std::size_t k = 0; k < N / B::size; ++k) {
            B y = round_batch_to<E>(round_batch_to<E>(x.r.b[k] / s) + z);
            // The scalar form's NaN -> 0 first (+0.0f: its bits are 0), then clamp with min / max
            // (no NaN left), then round half to even and convert in one instruction (the default
            // rounding mode, as std::nearbyint): the same bits as the scalar form's steps, in
            // fewer instructions (the MLP's quantize of x, 256 x 784: 21 -> 15 us on a Zen 5 core).
            y = xsimd::select(xsimd::isnan(y), B(0.0f), y);
            y = xsimd::min(xsimd::max(y, lo), hi);
            // |y| <= 2^16: exact in i32; clamped as integers (a bf16 32767 is 32768, NaN's 0 may be
            // outside a storage range such as <1:255>)
            const I i = xsimd::nearbyint_as_int(y);
            xsimd::min(xsimd::max(i, ilo), ihi).store_aligned(ints.data() + k * B::size);
        }
        alignas(64) std::array<storage_t<Q>, N> out;
        for (std::size_t i = 0; i < N; ++i)
            out[i] = static_cast<storage_t<Q>>(ints[i]);
        return vec<storage_t<Q>, N>::from_lanes(out.data());
    }
};
template<class Q>
struct quantize_axis_fn {
    static constexpr double cost = 4;
    static storage_t<Q> scalar(compute_t<expressed_t<Q>> x, compute_t<expressed_t<Q>> scale,
                               compute_t<expressed_t<Q>> zero_point) {
        return quantize_value<Q>(x, scale, zero_point);
    }
};

// One of a per-axis type's parameter arrays, read along dimension Q::axis of an array of extents E.
template<class Q, std::size_t R, extents_t<R> E, class T, std::size_t N>
auto axis_operand(const std::array<T, N>& values) {
    using leaf = array_node<tensor<T, N>, false>;
    constexpr std::array<std::int64_t, 1> dim{Q::axis};
    return make_view<R, E, broadcast_map<1, extents_t<1>{N}, R, E, dim>()>(leaf{{}, values.data()});
}

// F(x, scales, zero points) of element type T: a per-axis type Q's parameter arrays along its
// quantization dimension of x's shape.
template<class F, class T, class Q, class X, class A, class B>
auto per_axis_map(X&& x, const A& scales, const B& zero_points) {
    using N = node_t<X>;
    return make_map<F, T>(as_node(std::forward<X>(x)), axis_operand<Q, N::rank, N::extents>(scales),
                          axis_operand<Q, N::rank, N::extents>(zero_points));
}

// C2 of uniform_quantize: the result type's expressed type against the operand's element type.
template<class Q, class T>
consteval bool quantize_types_ok() {
    if constexpr (!is_quantized<Q>)
        return false;
    else if constexpr (is_quantized<T>)
        return std::is_same_v<expressed_t<Q>, expressed_t<T>>;
    else
        return std::is_same_v<expressed_t<Q>, T>;
}

} // namespace xlet::detail

namespace xlet {

// uniform_dequantize(q): the real values of a quantized array, in its expressed type.
template<expression X>
auto uniform_dequantize(X&& x) {
    using T = detail::element_of<X>;
    static_assert(diag::got<is_quantized<T>, detail::shown_t<X>>::value,
                  "xlet::uniform_dequantize [C2]: the operand must be quantized (its expressed type is the "
                  "result's element type)");
    if constexpr (is_quantized<T>) {
        using E = expressed_t<T>;
        if constexpr (is_per_axis_quantized<T>) {
            using K = detail::axis_consts<T>;
            return detail::per_axis_map<detail::dequantize_axis_fn<T>, E, T>(std::forward<X>(x), K::scale,
                                                                             K::zero_point_int);
        } else {
            return detail::make_map<detail::dequantize_fn<T>, E>(detail::as_node(std::forward<X>(x)));
        }
    }
}

// uniform_quantize<Q>(x): x (floating, or quantized: requantization) quantized to type Q.
template<class Q, expression X>
auto uniform_quantize(X&& x) {
    using T = detail::element_of<X>;
    using N = detail::node_t<X>;
    constexpr bool c2 = detail::quantize_types_ok<Q, T>();
    static_assert(diag::got<c2, Q, detail::shown_t<X>>::value,
                  "xlet::uniform_quantize [C2]: the result type must be quantized, with the operand's element "
                  "type (or, for a quantized operand, its expressed type) as its expressed type");
    static_assert(diag::got<detail::quant_axis_in_rank<Q, N::rank>(), Q, detail::shown_t<X>>::value,
                  "xlet::quant::uniform_per_axis [C12]: the quantization dimension must be a dimension of the "
                  "tensor (< rank)");
    static_assert(diag::got<detail::quant_axis_sized<Q, N::rank>(N::extents), Q, detail::shown_t<X>>::value,
                  "xlet::quant::uniform_per_axis [C13]: the tensor's size along the quantization dimension must "
                  "equal the number of scales");
    if constexpr (c2 && detail::quant_axis_in_rank<Q, N::rank>() && detail::quant_axis_sized<Q, N::rank>(N::extents)) {
        if constexpr (is_quantized<T>) {
            // one op (quant/op_node.hpp) that computes quantize<Q>(dequantize(x)) in one pass
            return detail::make_quant_op<detail::requantize_op, Q>(detail::as_node(std::forward<X>(x)));
        } else if constexpr (is_per_axis_quantized<Q>) {
            using K = detail::axis_consts<Q>;
            return detail::per_axis_map<detail::quantize_axis_fn<Q>, Q, Q>(std::forward<X>(x), K::scale, K::zero_point);
        } else {
            return detail::make_map<detail::quantize_fn<Q>, Q>(detail::as_node(std::forward<X>(x)));
        }
    }
}

namespace detail {
// iota of a quantized type (ops/elementwise/iota.hpp sends it here): the spec's
// quantize(index, Q), i.e. uniform_quantize<Q> of the expressed type's iota (the index converted
// to it, one rounding). I1: Q is per-tensor (the spec's output type).
template<class Shape, std::int64_t IotaDimension>
auto quant_iota() {
    using Q = typename Shape::value_type;
    static_assert(diag::got<!is_per_axis_quantized<Q>, Shape>::value,
                  "xlet::iota [I1]: a quantized output must be per-tensor quantized (the spec's output type)");
    if constexpr (!is_per_axis_quantized<Q>) {
        using F = typename tensor_of_impl<expressed_t<Q>, Shape::extents, std::make_index_sequence<Shape::rank>>::type;
        return uniform_quantize<Q>(iota<F, IotaDimension>());
    }
}
} // namespace detail

} // namespace xlet

namespace xlet::trace {
// One op each; a per-axis type's scales and zero points are operands of the node (constant
// arrays), but the op's type holds them: only the first operand is the op's.
#define XLET_QUANT_FORM(fn, op)                                                                                        \
    template<class Q>                                                                                                  \
    struct form<detail::fn##_fn<Q>> : plain_form {                                                                     \
        static constexpr std::string_view name = op;                                                                   \
    };                                                                                                                 \
    template<class Q>                                                                                                  \
    struct form<detail::fn##_axis_fn<Q>> : form<detail::fn##_fn<Q>> {                                                  \
        static constexpr std::size_t arity = 1;                                                                        \
    };
XLET_QUANT_FORM(quantize, "stablehlo.uniform_quantize")
XLET_QUANT_FORM(dequantize, "stablehlo.uniform_dequantize")
#undef XLET_QUANT_FORM
} // namespace xlet::trace
