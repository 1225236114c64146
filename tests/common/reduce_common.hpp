// Shared by the reduce tests: the reference reductions, tolerance checks for reassociated float
// sums, and dimension sets given as bit masks (so a test can walk every subset of a rank).
#pragma once
#include "layout_common.hpp"
#include "reference/reference_reduce.hpp"

#include <cmath>

namespace rt {

// dims_t<...> of the set bits of Mask, for rank R.
template<std::size_t R, unsigned Mask>
struct mask_dims {
    static constexpr std::size_t count = static_cast<std::size_t>(std::popcount(Mask));
    static constexpr auto list = [] {
        std::array<std::int64_t, count> a{};
        std::size_t k = 0;
        for (std::size_t d = 0; d < R; ++d)
            if (Mask & (1u << d)) a[k++] = static_cast<std::int64_t>(d);
        return a;
    }();
    template<std::size_t... I> static auto make(std::index_sequence<I...>) { return dims_t<list[I]...>{}; }
    using type = decltype(make(std::make_index_sequence<count>{}));
};

// The reference's scalar semantics of the monoid tags, written independently of the library.
inline float ieee_max(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    if (a == b) return std::signbit(a) ? b : a;
    return a < b ? b : a;
}
inline float ieee_min(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    if (a == b) return std::signbit(a) ? a : b;
    return b < a ? b : a;
}
template<class T> T wrap_add(T a, T b) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}

// NaN payloads and signs may differ between the paths (x + NaN); compare NaN as NaN.
inline bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

template<class T>
r::array<double> to_double(const r::array<T>& a, bool absolute = false) {
    std::vector<double> v;
    for (auto x : a.data) v.push_back(absolute ? std::abs(static_cast<double>(x)) : static_cast<double>(x));
    return r::array<double>(a.dims, std::move(v));
}

// A float sum in a different association order, against the sum in double: within
// n * 2^-23 * sum|x| of it (the standard bound for any summation order, n terms).
template<class Tn>
void check_sum_close(const Tn& got, const r::array<double>& want, const r::array<double>& abs_sum, std::size_t n) {
    REQUIRE(got.size() == want.data.size());
    std::size_t bad = 0;
    std::ostringstream os;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double tol = static_cast<double>(n) * 0x1p-23 * abs_sum.data[i];
        if (!(std::abs(static_cast<double>(got.data()[i]) - want.data[i]) <= tol)) {
            if (bad < 4) os << " at " << i << " got " << got.data()[i] << " want " << want.data[i] << " tol " << tol << ";";
            ++bad;
        }
    }
    CHECK_MESSAGE(bad == 0, bad << " of " << got.size() << " sums outside the bound:" << os.str());
}

} // namespace rt
