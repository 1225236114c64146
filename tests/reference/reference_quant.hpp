// xlet_ref: quantize and dequantize as the spec writes them ("Quantization computations":
// compute_scales, compute_zero_points, dequantize, quantize), on run-time quantization parameters.
// Test code only, independent of include/xlet (float16.hpp for the f16/bf16 storage types).
//
// Every step is an op of the expressed type E: f16/bf16 compute in float and round to E once per
// op (as reference.hpp's ops do), f32 and f64 natively. The one departure from the literal
// formula, as in xlet and in StableHLO's lowering: stored - zero_point is an exact 64-bit
// integer (the spec subtracts in the storage type, which wraps for i8 127 - (-128)).
// convert(x_rounded, result_type): NaN → 0; the value is then clamped to [storage_min,
// storage_max] (it only leaves it for i32 storage, whose maximum rounds up to 2^31 in f32).
//
// Quantized dot_general and convolution (below): the exact integer sum of (x - zx)(w - zw) over
// the spec's index sets (the reference dot_general / convolution on int64 arrays), then xlet's
// requantization written from docs/semantics.md (requantize_sum); and the spec's own formula on
// the real values (dequantize in double, the float op in double, quantize in double: spec_round).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reference.hpp"
#include "reference_conv.hpp"
#include "reference_dot.hpp"

namespace xlet_ref {

struct qtype {
    std::int64_t storage_min, storage_max;
    std::vector<double> scales;            // as written; one per slice of `axis`, or one
    std::vector<std::int64_t> zero_points; // likewise
    std::int64_t axis = -1;                // -1: per-tensor
};

namespace detail_quant {
// One op of E: operands as float (double for f64), one rounding to E.
template<class E>
E e_of(double v) {
    if constexpr (std::is_same_v<E, double>)
        return v;
    else if constexpr (std::is_same_v<E, float>)
        return static_cast<float>(v);
    else
        return E(v);
}
template<class E>
E e_of_int(std::int64_t v) {
    if constexpr (std::is_same_v<E, double>)
        return static_cast<double>(v);
    else if constexpr (std::is_same_v<E, float>)
        return static_cast<float>(v);
    else
        return E(v); // xlet::half / bfloat16: one rounding from the integer
}
template<class E>
auto wide(E x) {
    if constexpr (std::is_same_v<E, double>)
        return x;
    else
        return static_cast<float>(x);
}
template<class E>
E mul(E a, E b) {
    return E(wide(a) * wide(b));
}
template<class E>
E div(E a, E b) {
    return E(wide(a) / wide(b));
}
template<class E>
E add(E a, E b) {
    return E(wide(a) + wide(b));
}
// clamp(min, x, max) = min(max(x, min), max), IEEE: NaN propagates.
template<class E>
E clamp(E lo, E x, E hi) {
    auto v = wide(x);
    if (std::isnan(v)) return x;
    if (v < wide(lo)) return lo;
    if (v > wide(hi)) return hi;
    return x;
}

// compute_scales / compute_zero_points at one multi-index.
inline std::size_t param_index(const qtype& q, const dims_t& idx) {
    return q.axis < 0 ? 0 : static_cast<std::size_t>(idx[static_cast<std::size_t>(q.axis)]);
}
inline void next_index(dims_t& idx, const dims_t& dims) {
    for (std::size_t k = dims.size(); k-- > 0;) {
        if (++idx[k] < dims[k]) return;
        idx[k] = 0;
    }
}
} // namespace detail_quant

// dequantize(x): x holds stored integers.
template<class E>
array<E> dequantize(const array<std::int64_t>& x, const qtype& q) {
    using namespace detail_quant;
    array<E> r(x.dims, std::vector<E>(x.data.size()));
    dims_t idx(x.dims.size(), 0);
    for (std::size_t f = 0; f < x.data.size(); ++f, next_index(idx, x.dims)) {
        const std::size_t p = param_index(q, idx);
        const E sub = e_of_int<E>(x.data[f] - q.zero_points[p]); // convert(x_storage_sub)
        r.data[f] = mul(sub, e_of<E>(q.scales[p]));              // * compute_scales
    }
    return r;
}

// quantize(x, q): the stored integers.
template<class E>
array<std::int64_t> quantize(const array<E>& x, const qtype& q) {
    using namespace detail_quant;
    array<std::int64_t> r(x.dims, std::vector<std::int64_t>(x.data.size()));
    const E lo = e_of_int<E>(q.storage_min), hi = e_of_int<E>(q.storage_max);
    dims_t idx(x.dims.size(), 0);
    for (std::size_t f = 0; f < x.data.size(); ++f, next_index(idx, x.dims)) {
        const std::size_t p = param_index(q, idx);
        const E scaled = div(x.data[f], e_of<E>(q.scales[p]));
        const E with_zp = add(scaled, e_of_int<E>(q.zero_points[p]));
        const E clamped = clamp(lo, with_zp, hi);
        const auto rounded = std::nearbyint(wide(clamped)); // round_nearest_even
        std::int64_t i = std::isnan(rounded) ? 0 : static_cast<std::int64_t>(rounded);
        r.data[f] = std::clamp(i, q.storage_min, q.storage_max);
    }
    return r;
}

// ---- quantized dot_general and convolution --------------------------------------------------

// The stored integers minus their zero points (per-axis: the slice's), as exact integers.
inline array<std::int64_t> centered(const array<std::int64_t>& x, const qtype& q) {
    array<std::int64_t> r = x;
    dims_t idx(x.dims.size(), 0);
    for (std::size_t f = 0; f < x.data.size(); ++f, detail_quant::next_index(idx, x.dims))
        r.data[f] = x.data[f] - q.zero_points[detail_quant::param_index(q, idx)];
    return r;
}
// The real values in double: (stored - zero_point) * scale, the scales as given (the caller gives
// them rounded to the expressed type).
inline array<double> real_values(const array<std::int64_t>& x, const qtype& q) {
    array<double> r(x.dims, std::vector<double>(x.data.size()));
    dims_t idx(x.dims.size(), 0);
    for (std::size_t f = 0; f < x.data.size(); ++f, detail_quant::next_index(idx, x.dims)) {
        const std::size_t p = detail_quant::param_index(q, idx);
        r.data[f] = static_cast<double>(x.data[f] - q.zero_points[p]) * q.scales[p];
    }
    return r;
}

// xlet's requantization of an exact sum (docs/semantics.md "Quantization"): the sum modulo 2^32 as
// an int32; M = f32(sa * sb / sr) computed in double; 32-bit storage with M = 1: acc + zr modulo
// 2^32, clamped to the storage range; else f32(acc) * M, + f32(zr) (two f32 operations), clamped
// to the f32 values within [storage_min, storage_max], rounded half to even, converted.
inline std::int64_t requantize_sum(std::int64_t sum, double sa, double sb, double sr, std::int64_t zr,
                                   std::int64_t storage_min, std::int64_t storage_max, bool wide) {
    const auto acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
    const float m = static_cast<float>(sa * sb / sr);
    std::int64_t i;
    if (wide && m == 1.0f) {
        i = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) + static_cast<std::uint32_t>(zr));
    } else {
        float lo = static_cast<float>(storage_min), hi = static_cast<float>(storage_max);
        if (static_cast<double>(lo) < static_cast<double>(storage_min))
            lo = std::nextafter(lo, std::numeric_limits<float>::infinity());
        if (static_cast<double>(hi) > static_cast<double>(storage_max))
            hi = std::nextafter(hi, -std::numeric_limits<float>::infinity());
        const float prod = static_cast<float>(acc) * m;
        const float f = prod + static_cast<float>(zr);
        const float c = std::isnan(f) ? f : std::min(std::max(f, lo), hi);
        const float r = std::nearbyint(c);
        i = std::isnan(r) ? 0 : static_cast<std::int64_t>(r);
    }
    return std::clamp(i, storage_min, storage_max);
}
// The spec's quantize of a real value in double (the reference for "at most one unit apart").
inline std::int64_t spec_round(double real, double sr, std::int64_t zr, std::int64_t storage_min,
                               std::int64_t storage_max) {
    const double y = std::clamp(real / sr + static_cast<double>(zr), static_cast<double>(storage_min),
                                static_cast<double>(storage_max));
    return static_cast<std::int64_t>(std::nearbyint(y));
}

// A quantized dot_general or convolution's two references: `exact` (xlet's semantics, equal bits
// expected) and `spec` (the spec's formula on real values, within one unit). channel(oi): the rhs
// parameter index and the result parameter index of output element oi.
struct quant_dot_ref {
    array<std::int64_t> exact, spec;
};
template<class Channel>
quant_dot_ref requantize_all(const array<std::int64_t>& sums, const array<double>& reals, const qtype& l,
                             const qtype& r, const qtype& res, bool wide, const Channel& channel) {
    quant_dot_ref out{sums, sums};
    for (std::int64_t f = 0; f < sums.size(); ++f) {
        const auto [rc, oc] = channel(unflatten(f, sums.dims));
        const auto u = static_cast<std::size_t>(f);
        out.exact.data[u] = requantize_sum(sums.data[u], l.scales[0], r.scales[rc], res.scales[oc], res.zero_points[oc],
                                           res.storage_min, res.storage_max, wide);
        out.spec.data[u] =
            spec_round(reals.data[u], res.scales[oc], res.zero_points[oc], res.storage_min, res.storage_max);
    }
    return out;
}

// dot_general of stored integers with per-tensor lhs l, rhs r (per-axis along a non-contracting
// dimension) and result res (per-axis: its axis is a result dimension).
inline quant_dot_ref quant_dot_general(const array<std::int64_t>& lhs, const qtype& l, const array<std::int64_t>& rhs,
                                       const qtype& r, const qtype& res, bool wide, const dot_dims_t& d) {
    const auto sums = dot_general<std::int64_t>(centered(lhs, l), centered(rhs, r), d);
    const auto reals = dot_general<double>(real_values(lhs, l), real_values(rhs, r), d);
    // the result dimension of rhs's quantization dimension: its batch position, or after the
    // batch and lhs free dimensions among rhs's free ones
    std::int64_t rdim = -1;
    if (r.axis >= 0) {
        const dims_t rf = dot_free_dims(rhs.rank(), d.rhs_batch, d.rhs_contracting);
        const auto nlf = static_cast<std::int64_t>(dot_free_dims(lhs.rank(), d.lhs_batch, d.lhs_contracting).size());
        for (std::size_t i = 0; i < d.rhs_batch.size(); ++i)
            if (d.rhs_batch[i] == r.axis) rdim = static_cast<std::int64_t>(i);
        for (std::size_t i = 0; i < rf.size(); ++i)
            if (rf[i] == r.axis)
                rdim = static_cast<std::int64_t>(d.rhs_batch.size()) + nlf + static_cast<std::int64_t>(i);
        if (rdim < 0) fail("quant_dot_general: rhs quantized along a contracting dimension");
    }
    return requantize_all(sums, reals, l, r, res, wide, [&](const dims_t& oi) {
        const std::size_t rc = rdim < 0 ? 0 : static_cast<std::size_t>(oi[static_cast<std::size_t>(rdim)]);
        const std::size_t oc = res.axis < 0 ? 0 : static_cast<std::size_t>(oi[static_cast<std::size_t>(res.axis)]);
        return std::pair{rc, oc};
    });
}

// convolution of stored integers: padding and holes are the real 0 (the centered values' 0); rhs
// per-axis along its output feature dimension, the result along its output feature dimension.
inline quant_dot_ref quant_conv(const array<std::int64_t>& lhs, const qtype& l, const array<std::int64_t>& rhs,
                                const qtype& r, const qtype& res, bool wide, const conv_desc& d) {
    const auto sums = conv<std::int64_t>(centered(lhs, l), centered(rhs, r), d);
    const auto reals = conv<double>(real_values(lhs, l), real_values(rhs, r), d);
    return requantize_all(sums, reals, l, r, res, wide, [&](const dims_t& oi) {
        const auto o = static_cast<std::size_t>(oi[static_cast<std::size_t>(d.output_feature_dimension)]);
        return std::pair{r.axis < 0 ? std::size_t{0} : o, res.axis < 0 ? std::size_t{0} : o};
    });
}

} // namespace xlet_ref
