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

// ---- scaled_dot and ragged_dot (ops/linalg/scaled_dot.hpp, ops/linalg/ragged_dot.hpp) -------------------------

// ScaledDot's effective operand, in double: x[i] * s[i_0 / b_0, ...], b_d = dims(x)_d / dims(s)_d.
template<class T, class S>
array<double> dequantise(const array<T>& x, const array<S>& s) {
    if (x.rank() != s.rank()) fail("dequantise: ranks differ");
    array<double> out(x.dims, std::vector<double>(x.data.size()));
    for (std::int64_t i = 0; i < x.size(); ++i) {
        dims_t xi = unflatten(i, x.dims), si(xi.size());
        for (std::size_t d = 0; d < xi.size(); ++d)
            si[d] = xi[d] / (x.dims[d] / s.dims[d]);
        out.data[static_cast<std::size_t>(i)] =
            dot_as<double>(x.data[static_cast<std::size_t>(i)]) * dot_as<double>(s.at(si));
    }
    return out;
}

// x with every element whose index along `dim` is outside [b, e) set to zero.
template<class T>
array<T> mask_dim(const array<T>& x, std::int64_t dim, std::int64_t b, std::int64_t e) {
    array<T> out = x;
    for (std::int64_t i = 0; i < x.size(); ++i) {
        const std::int64_t v = unflatten(i, x.dims)[static_cast<std::size_t>(dim)];
        if (v < b || v >= e) out.data[static_cast<std::size_t>(i)] = T{};
    }
    return out;
}

// x[..., g, ...] along `dim`, that dimension removed.
template<class T>
array<T> take_dim(const array<T>& x, std::int64_t dim, std::int64_t g) {
    dims_t od;
    for (std::size_t d = 0; d < x.dims.size(); ++d)
        if (static_cast<std::int64_t>(d) != dim) od.push_back(x.dims[d]);
    array<T> out(od, std::vector<T>(static_cast<std::size_t>(element_count(od))));
    for (std::int64_t i = 0; i < out.size(); ++i) {
        dims_t oi = unflatten(i, od);
        oi.insert(oi.begin() + dim, g);
        out.data[static_cast<std::size_t>(i)] = x.at(oi);
    }
    return out;
}

// RaggedDot per group, read off chlo.ragged_dot: the group g of lhs is lhs with the ragged
// dimension masked to [start_g, start_g + size_g); then
//   mode 1 (ragged free dim):        out = sum_g dot_general(group g of lhs, rhs[g] along rhs_group)
//                                    (the groups are disjoint: each output row gets one product)
//   mode 2 (ragged contracting dim): out[g] = dot_general(group g of lhs, rhs)
//   mode 3 (ragged batch dim):       out = dot_general(lhs, rhs)
// With Abs, the same with |lhs| |rhs| (error bounds).
template<class Acc, class T, bool Abs = false>
array<std::conditional_t<Abs, double, Acc>> ragged_dot(const array<T>& lhs, const array<T>& rhs,
                                                       const std::vector<std::int64_t>& sizes, const dot_dims_t& d,
                                                       std::int64_t ragged, const dims_t& rhs_group) {
    using R = std::conditional_t<Abs, double, Acc>;
    const auto contains = [](const dims_t& l, std::int64_t x) { return std::find(l.begin(), l.end(), x) != l.end(); };
    if (contains(d.lhs_batch, ragged)) return dot_general<Acc, T, Abs>(lhs, rhs, d);
    std::vector<std::int64_t> start{0};
    for (auto s : sizes)
        start.push_back(start.back() + s);
    if (contains(d.lhs_contracting, ragged)) {
        std::vector<R> data;
        dims_t od;
        for (std::size_t g = 0; g < sizes.size(); ++g) {
            const auto p = dot_general<Acc, T, Abs>(mask_dim(lhs, ragged, start[g], start[g + 1]), rhs, d);
            od = p.dims;
            data.insert(data.end(), p.data.begin(), p.data.end());
        }
        if (sizes.empty()) od = dot_general<Acc, T, Abs>(lhs, rhs, d).dims;
        od.insert(od.begin(), static_cast<std::int64_t>(sizes.size()));
        return array<R>(od, data);
    }
    const std::int64_t gd = rhs_group.at(0);
    dot_dims_t d1 = d; // rhs's dimension numbers once its group dimension is taken out
    for (auto* l : {&d1.rhs_batch, &d1.rhs_contracting})
        for (auto& x : *l)
            if (x > gd) --x;
    array<R> out = dot_general<Acc, T, Abs>(mask_dim(lhs, ragged, 0, 0), take_dim(rhs, gd, 0), d1);
    for (std::size_t g = 0; g < sizes.size(); ++g) {
        const auto p = dot_general<Acc, T, Abs>(mask_dim(lhs, ragged, start[g], start[g + 1]),
                                                take_dim(rhs, gd, static_cast<std::int64_t>(g)), d1);
        for (std::size_t i = 0; i < out.data.size(); ++i)
            out.data[i] += p.data[i];
    }
    return out;
}

} // namespace xlet_ref
