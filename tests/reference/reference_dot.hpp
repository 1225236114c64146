// xlet_ref dot_general: the spec's DotGeneral read literally, on std::vector. For every output
// index (batch, lhs free, rhs free, in that order) the contracting multi-index runs over all its
// values and the products are summed in the accumulator type Acc (double for floating tests, so the
// reference is far more exact than the library; uint64_t for integers, which wraps exactly like
// any narrower two's complement accumulator; std::complex<double> for complex). Test code only.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>

#include "reference.hpp"

namespace xlet_ref {

struct dot_dims_t {
    dims_t lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};

// An element as the accumulator type: signed integers sign-extend, f16/bf16 through float.
template<class Acc, class T>
Acc dot_as(T x) {
    if constexpr (is_complex_v<Acc>) {
        if constexpr (is_complex_v<T>)
            return Acc(static_cast<typename Acc::value_type>(x.real()),
                       static_cast<typename Acc::value_type>(x.imag()));
        else
            return Acc(static_cast<typename Acc::value_type>(static_cast<double>(x)));
    } else if constexpr (std::is_integral_v<Acc>) {
        if constexpr (std::is_signed_v<T>)
            return static_cast<Acc>(static_cast<std::int64_t>(x));
        else
            return static_cast<Acc>(static_cast<std::uint64_t>(x));
    } else if constexpr (is_storage_float_v<T>) {
        return static_cast<Acc>(static_cast<float>(x));
    } else {
        return static_cast<Acc>(x);
    }
}

// |x| as a double (for error bounds).
template<class T>
double dot_abs(T x) {
    if constexpr (is_complex_v<T>)
        return std::abs(std::complex<double>(x.real(), x.imag()));
    else if constexpr (is_storage_float_v<T>)
        return std::fabs(static_cast<double>(static_cast<float>(x)));
    else
        return std::fabs(static_cast<double>(x));
}

inline dims_t dot_free_dims(std::int64_t rank, const dims_t& batch, const dims_t& contracting) {
    dims_t f;
    for (std::int64_t d = 0; d < rank; ++d)
        if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
            std::find(contracting.begin(), contracting.end(), d) == contracting.end())
            f.push_back(d);
    return f;
}

// Sum over contracting indices of Acc(lhs) * Acc(rhs); with Abs, of |lhs| * |rhs| (as double).
template<class Acc, class T, bool Abs = false>
array<std::conditional_t<Abs, double, Acc>> dot_general(const array<T>& lhs, const array<T>& rhs, const dot_dims_t& d) {
    using R = std::conditional_t<Abs, double, Acc>;
    if (d.lhs_batch.size() != d.rhs_batch.size() || d.lhs_contracting.size() != d.rhs_contracting.size())
        fail("dot_general: list sizes differ");
    const dims_t lf = dot_free_dims(lhs.rank(), d.lhs_batch, d.lhs_contracting);
    const dims_t rf = dot_free_dims(rhs.rank(), d.rhs_batch, d.rhs_contracting);
    dims_t out_dims, cdims;
    for (std::size_t i = 0; i < d.lhs_batch.size(); ++i) {
        const std::int64_t s = lhs.dims[static_cast<std::size_t>(d.lhs_batch[i])];
        if (s != rhs.dims[static_cast<std::size_t>(d.rhs_batch[i])]) fail("dot_general: batch sizes differ");
        out_dims.push_back(s);
    }
    for (auto x : lf)
        out_dims.push_back(lhs.dims[static_cast<std::size_t>(x)]);
    for (auto x : rf)
        out_dims.push_back(rhs.dims[static_cast<std::size_t>(x)]);
    for (std::size_t i = 0; i < d.lhs_contracting.size(); ++i) {
        const std::int64_t s = lhs.dims[static_cast<std::size_t>(d.lhs_contracting[i])];
        if (s != rhs.dims[static_cast<std::size_t>(d.rhs_contracting[i])])
            fail("dot_general: contracting sizes differ");
        cdims.push_back(s);
    }
    const std::size_t nb = d.lhs_batch.size();
    array<R> out(out_dims, std::vector<R>(static_cast<std::size_t>(element_count(out_dims))));
    for (std::int64_t o = 0; o < element_count(out_dims); ++o) {
        const dims_t oi = unflatten(o, out_dims);
        dims_t li(lhs.dims.size()), ri(rhs.dims.size());
        for (std::size_t i = 0; i < nb; ++i) {
            li[static_cast<std::size_t>(d.lhs_batch[i])] = oi[i];
            ri[static_cast<std::size_t>(d.rhs_batch[i])] = oi[i];
        }
        for (std::size_t i = 0; i < lf.size(); ++i)
            li[static_cast<std::size_t>(lf[i])] = oi[nb + i];
        for (std::size_t i = 0; i < rf.size(); ++i)
            ri[static_cast<std::size_t>(rf[i])] = oi[nb + lf.size() + i];
        R acc{};
        for (std::int64_t c = 0; c < element_count(cdims); ++c) {
            const dims_t ci = unflatten(c, cdims);
            for (std::size_t i = 0; i < ci.size(); ++i) {
                li[static_cast<std::size_t>(d.lhs_contracting[i])] = ci[i];
                ri[static_cast<std::size_t>(d.rhs_contracting[i])] = ci[i];
            }
            if constexpr (Abs)
                acc += dot_abs(lhs.at(li)) * dot_abs(rhs.at(ri));
            else if constexpr (std::is_integral_v<Acc>)
                acc = static_cast<Acc>(acc + static_cast<Acc>(dot_as<Acc>(lhs.at(li)) * dot_as<Acc>(rhs.at(ri))));
            else
                acc += dot_as<Acc>(lhs.at(li)) * dot_as<Acc>(rhs.at(ri));
        }
        out.data[static_cast<std::size_t>(o)] = acc;
    }
    return out;
}

} // namespace xlet_ref
