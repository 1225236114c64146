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
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reference.hpp"

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

} // namespace xlet_ref
