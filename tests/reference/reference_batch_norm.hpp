// xlet_ref batch normalisation: the spec's formulas (BatchNormTraining, BatchNormInference,
// BatchNormGrad) read literally, in long double, over multi-indices: the feature of an element is
// its index along feature_index, every other dimension is summed over. Test code only.
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include "reference.hpp"

namespace xlet_ref {

struct bn_moments_t {
    std::vector<long double> mean, var;
};

// Feature of every element of an array of dims `dims`.
inline std::vector<std::size_t> bn_features(const dims_t& dims, std::size_t f) {
    const auto n = element_count(dims);
    std::vector<std::size_t> feat(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        feat[static_cast<std::size_t>(i)] = static_cast<std::size_t>(unflatten(i, dims)[f]);
    return feat;
}

// mu_l = sum(x_l) / m, sigma2_l = sum((x_l - mu_l)^2) / m (biased), m = elements per feature.
inline bn_moments_t bn_moments(const array<double>& x, std::size_t f) {
    const std::size_t C = static_cast<std::size_t>(x.dims[f]);
    const auto feat = bn_features(x.dims, f);
    const long double m = static_cast<long double>(x.size()) / static_cast<long double>(C);
    bn_moments_t r{std::vector<long double>(C, 0), std::vector<long double>(C, 0)};
    for (std::size_t i = 0; i < x.data.size(); ++i)
        r.mean[feat[i]] += x.data[i];
    for (auto& v : r.mean)
        v /= m;
    for (std::size_t i = 0; i < x.data.size(); ++i) {
        const long double d = x.data[i] - r.mean[feat[i]];
        r.var[feat[i]] += d * d;
    }
    for (auto& v : r.var)
        v /= m;
    return r;
}

// y = gamma_l (x - mu_l) / sqrt(sigma2_l + eps) + beta_l.
inline std::vector<long double> bn_normalize(const array<double>& x, std::size_t f,
                                             const std::vector<long double>& scale,
                                             const std::vector<long double>& offset,
                                             const std::vector<long double>& mean, const std::vector<long double>& var,
                                             long double eps) {
    const auto feat = bn_features(x.dims, f);
    std::vector<long double> y(x.data.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        const std::size_t l = feat[i];
        y[i] = scale[l] * (x.data[i] - mean[l]) / std::sqrt(var[l] + eps) + offset[l];
    }
    return y;
}

struct bn_grad_t {
    std::vector<long double> grad_operand, grad_scale, grad_offset;
};

// BatchNormGrad's five formulas, with the given mean and variance.
inline bn_grad_t bn_grad(const array<double>& x, std::size_t f, const std::vector<long double>& scale,
                         const std::vector<long double>& mean, const std::vector<long double>& var,
                         const std::vector<double>& gy, long double eps) {
    const std::size_t C = static_cast<std::size_t>(x.dims[f]);
    const auto feat = bn_features(x.dims, f);
    const long double m = static_cast<long double>(x.size()) / static_cast<long double>(C);
    std::vector<long double> c(C, 0), d(C, 0), gs(C, 0), gb(C, 0);
    for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::size_t l = feat[i];
        c[l] += gy[i] * (x.data[i] - mean[l]) / (var[l] + eps);
        d[l] += gy[i];
        gs[l] += gy[i] * (x.data[i] - mean[l]) / std::sqrt(var[l] + eps);
        gb[l] += gy[i];
    }
    for (std::size_t l = 0; l < C; ++l) {
        c[l] /= m;
        d[l] /= m;
    }
    bn_grad_t r{std::vector<long double>(x.data.size()), gs, gb};
    for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::size_t l = feat[i];
        r.grad_operand[i] = scale[l] / std::sqrt(var[l] + eps) * (gy[i] - d[l] - c[l] * (x.data[i] - mean[l]));
    }
    return r;
}

} // namespace xlet_ref
