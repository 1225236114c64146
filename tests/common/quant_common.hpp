// Shared by the quantization tests (tests/quant/quant_test.cpp, quant_layout_test.cpp): the
// quantization parameters of a type as the reference evaluator's run-time qtype, conversions
// between xlet arrays and reference arrays, and a fixed-seed generator of inputs that hit ties,
// the storage bounds and the special values.
#pragma once
#include <doctest/doctest.h>

#include <xlet/xlet.hpp>

#include "reference/reference_quant.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace xlet;
namespace r = xlet_ref;

namespace qt {

// Q's parameters for the reference.
template<class Q>
r::qtype qtype_of() {
    r::qtype q;
    q.storage_min = Q::storage_min;
    q.storage_max = Q::storage_max;
    if constexpr (Q::per_axis) {
        q.axis = Q::axis;
        for (std::size_t i = 0; i < Q::axis_size; ++i) {
            q.scales.push_back(Q::scales[i]);
            q.zero_points.push_back(Q::zero_points[i]);
        }
    } else {
        q.scales = {Q::scale};
        q.zero_points = {Q::zero_point};
    }
    return q;
}

template<class A>
r::dims_t dims_of() {
    return r::dims_t(A::extents.begin(), A::extents.end());
}

// The stored integers of a quantized array, and an array from stored integers.
template<class A>
r::array<std::int64_t> stored(const A& a) {
    std::vector<std::int64_t> v;
    for (const auto& e : a)
        v.push_back(static_cast<std::int64_t>(e.stored));
    return r::array<std::int64_t>(dims_of<A>(), std::move(v));
}
template<class A>
A from_stored(const r::array<std::int64_t>& x) {
    A a;
    for (std::size_t i = 0; i < a.size(); ++i)
        a.data()[i].stored = static_cast<decltype(a.data()[i].stored)>(x.data[i]);
    return a;
}
template<class A>
r::array<typename A::value_type> ref_of(const A& a) {
    return r::array<typename A::value_type>(dims_of<A>(), std::vector<typename A::value_type>(a.begin(), a.end()));
}
template<class A>
A from_ref(const r::array<typename A::value_type>& x) {
    A a;
    std::copy(x.data.begin(), x.data.end(), a.begin());
    return a;
}

// Bitwise equality of floats (NaN payloads, -0).
template<class E>
bool same_bits(E a, E b) {
    return std::memcmp(&a, &b, sizeof(E)) == 0;
}
template<class A>
std::size_t bit_mismatches(const A& got, const r::array<typename A::value_type>& want) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!same_bits(got.data()[i], want.data[i])) ++n;
    return n;
}
inline std::size_t int_mismatches(const r::array<std::int64_t>& got, const r::array<std::int64_t>& want,
                                  std::int64_t tolerance = 0) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < got.data.size(); ++i)
        if (std::abs(got.data[i] - want.data[i]) > tolerance) ++n;
    return n;
}

template<class E>
E expressed(double v) {
    if constexpr (std::is_same_v<E, float> || std::is_same_v<E, double>)
        return static_cast<E>(v);
    else
        return E(v);
}

// Inputs for quantize: values around every stored integer of the range (and 16 beyond it) at
// offsets 0, exactly +-1/2 (ties, as far as the expressed type holds them), and random, and the
// special values: +-0, +-inf, NaN, huge, tiny. Per-axis: the parameters of each element's slice.
template<class Q, class A>
A quantize_inputs(std::uint32_t seed) {
    using E = typename A::value_type;
    const auto q = qtype_of<Q>();
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> frac(-0.5, 0.5);
    A a;
    const auto dims = dims_of<A>();
    r::dims_t idx(dims.size(), 0);
    for (std::size_t f = 0; f < a.size(); ++f) {
        const std::size_t p = q.axis < 0 ? 0 : static_cast<std::size_t>(idx[static_cast<std::size_t>(q.axis)]);
        const double s = q.scales[p];
        const auto lo = static_cast<double>(q.storage_min) - 16, hi = static_cast<double>(q.storage_max) + 16;
        const double k = std::floor(lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(g));
        const double zp = static_cast<double>(q.zero_points[p]);
        double v;
        switch (f % 7) {
        case 0:
            v = (k - zp) * s;
            break;
        case 1:
            v = (k - zp + 0.5) * s;
            break;
        case 2:
            v = (k - zp - 0.5) * s;
            break;
        case 3:
            v = (k - zp + frac(g)) * s;
            break;
        case 4: {
            const double special[] = {0.0,
                                      -0.0,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::nan(""),
                                      1e300,
                                      -1e300,
                                      1e-300};
            v = special[(f / 7) % 8];
            break;
        }
        default:
            v = (k - zp + frac(g)) * s;
            break;
        }
        a.data()[f] = expressed<E>(v);
        r::detail_quant::next_index(idx, dims);
    }
    return a;
}

// Random stored integers over the whole storage range.
template<class Q, class A>
A random_stored(std::uint32_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_int_distribution<std::int64_t> d(Q::storage_min, Q::storage_max);
    A a;
    for (auto& e : a)
        e.stored = static_cast<decltype(e.stored)>(d(g));
    a.data()[0].stored = static_cast<decltype(a.data()[0].stored)>(Q::storage_min);
    a.data()[a.size() - 1].stored = static_cast<decltype(a.data()[0].stored)>(Q::storage_max);
    return a;
}

} // namespace qt
