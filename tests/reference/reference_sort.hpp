// xlet_ref sorting: the spec's Sort and TopK read literally, on std::vector. Each 1-D slice along
// `dim` is copied out, std::stable_sort-ed (positions, with the comparator over 2n values) and
// copied back. XLA's total order is written here from its definition (NaN class, then value, then
// sign of zero, then NaN payload), independently of the library's radix keys. Test code only.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <tuple>

#include "reference.hpp"

namespace xlet_ref {

// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; NaNs of one sign by payload (larger magnitude
// farther from zero). Integers and pred: their usual order.
template<class T>
bool total_less(T a, T b) {
    if constexpr (is_float_v<T>) {
        const double x = static_cast<double>(static_cast<float>(a)), y = static_cast<double>(static_cast<float>(b));
        auto cls = [](double v) { return std::isnan(v) ? (std::signbit(v) ? -2 : 2) : 0; };
        if (cls(x) != cls(y)) return cls(x) < cls(y);
        if (cls(x) == 0) {
            if (x != y) return x < y;
            return std::signbit(x) && !std::signbit(y);
        }
        // Both NaN of one sign: by payload bits.
        std::uint64_t pa = 0, pb = 0;
        if constexpr (is_storage_float_v<T>) {
            pa = a.bits() & 0x7FFFu;
            pb = b.bits() & 0x7FFFu;
        } else if constexpr (sizeof(T) == 4) {
            pa = std::bit_cast<std::uint32_t>(a) & 0x7FFFFFFFu;
            pb = std::bit_cast<std::uint32_t>(b) & 0x7FFFFFFFu;
        } else {
            pa = std::bit_cast<std::uint64_t>(a) & 0x7FFFFFFFFFFFFFFFull;
            pb = std::bit_cast<std::uint64_t>(b) & 0x7FFFFFFFFFFFFFFFull;
        }
        return cls(x) > 0 ? pa < pb : pa > pb;
    } else {
        return a < b;
    }
}

// Positions [0, n) of each slice along dim, as flat offsets: calls f(offsets of one slice).
inline void for_each_slice(const dims_t& dims, std::int64_t dim,
                           const std::function<void(const std::vector<std::int64_t>&)>& f) {
    if (dim < 0 || dim >= static_cast<std::int64_t>(dims.size())) fail("sort: dimension out of range");
    dims_t outer = dims;
    outer[static_cast<std::size_t>(dim)] = 1;
    for (std::int64_t s = 0; s < element_count(outer); ++s) {
        dims_t idx = unflatten(s, outer);
        std::vector<std::int64_t> offs;
        for (std::int64_t r = 0; r < dims[static_cast<std::size_t>(dim)]; ++r) {
            idx[static_cast<std::size_t>(dim)] = r;
            offs.push_back(flatten(idx, dims));
        }
        f(offs);
    }
}

// Variadic stable sort: less(i, j) compares two flat offsets of one slice.
template<class... T, class Less>
std::tuple<array<T>...> sort(const std::tuple<array<T>...>& in, std::int64_t dim, Less less) {
    const dims_t& dims = std::get<0>(in).dims;
    std::apply(
        [&](const auto&... a) {
            if (((a.dims != dims) || ...)) fail("sort: operand shapes differ");
        },
        in);
    auto out = in;
    if (element_count(dims) == 0) return out;
    for_each_slice(dims, dim, [&](const std::vector<std::int64_t>& offs) {
        std::vector<std::size_t> perm(offs.size());
        std::iota(perm.begin(), perm.end(), std::size_t{0});
        std::stable_sort(perm.begin(), perm.end(),
                         [&](std::size_t i, std::size_t j) { return less(offs[i], offs[j]); });
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            for (std::size_t p = 0; p < offs.size(); ++p)
                ((std::get<K>(out).data[static_cast<std::size_t>(offs[p])] =
                      std::get<K>(in).data[static_cast<std::size_t>(offs[perm[p]])]),
                 ...);
        }
        (std::index_sequence_for<T...>{});
    });
    return out;
}

// TopK along the last dimension: the k first of each row under "a before b" = (largest ?
// b < a : a < b) in the total order, ties by lower index; std::partial_sort on positions.
template<class T>
std::pair<array<T>, array<std::int32_t>> top_k(const array<T>& a, std::int64_t k, bool largest) {
    if (a.dims.empty()) fail("top_k: rank 0");
    const std::int64_t n = a.dims.back();
    if (k < 0 || k > n) fail("top_k: k out of range");
    dims_t od = a.dims;
    od.back() = k;
    const std::int64_t rows = n == 0 ? element_count(od) / std::max<std::int64_t>(k, 1) : a.size() / n;
    std::vector<T> vals;
    std::vector<std::int32_t> idx;
    for (std::int64_t r = 0; r < rows && k > 0; ++r) {
        std::vector<std::int64_t> p(static_cast<std::size_t>(n));
        std::iota(p.begin(), p.end(), 0);
        const T* row = a.data.data() + r * n;
        std::partial_sort(p.begin(), p.begin() + k, p.end(), [&](std::int64_t i, std::int64_t j) {
            const T x = row[i], y = row[j];
            const bool before = largest ? total_less(y, x) : total_less(x, y);
            const bool after = largest ? total_less(x, y) : total_less(y, x);
            return before || (!after && i < j);
        });
        for (std::int64_t j = 0; j < k; ++j) {
            vals.push_back(row[p[static_cast<std::size_t>(j)]]);
            idx.push_back(static_cast<std::int32_t>(p[static_cast<std::size_t>(j)]));
        }
    }
    vals.resize(static_cast<std::size_t>(element_count(od)));
    idx.resize(static_cast<std::size_t>(element_count(od)));
    return {array<T>(od, vals), array<std::int32_t>(od, idx)};
}

} // namespace xlet_ref
