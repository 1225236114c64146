// xlet_ref convolution: StableHLO's `convolution` (XLA's ConvGeneralDilated and its shorter forms
// Conv, ConvWithGeneralPadding, ConvGeneral) read literally, on std::vector. Test code only.
//
// For every output element (b', o, q_0..q_{n-1}) the value is
//
//   sum over i in [0, ci) and every kernel tap k = (k_0..k_{n-1}) of
//       lhs[batch = bg * (N / batch_group_count) + b', feature = fg * ci + i, spatial = x_d / lhs_dilation_d]
//     * rhs[output feature = o, input feature = i, spatial = window_reversal_d ? K_d - 1 - k_d : k_d]
//
// where ci = dim(rhs, kernel_input_feature_dimension), O = dim(rhs, kernel_output_feature_dimension),
// fg = o / (O / feature_group_count) (the feature group of o), bg = o / (O / batch_group_count) (the
// batch group of o), and x_d = q_d * window_strides_d + k_d * rhs_dilation_d - padding_low_d is the
// coordinate in the lhs-dilated input; a tap is skipped (contributes zero) when x_d < 0 or x_d >=
// the dilated size (padding; a negative padding_low shifts x_d into the array, a negative
// padding_high only shrinks the number of windows) or x_d % lhs_dilation_d != 0 (a hole).
// This is StableHLO's definition: feature_group_count > 1 splits lhs along its feature dimension
// and rhs along its output feature dimension into that many slices, convolves slice i with slice i
// and concatenates along the output feature dimension; batch_group_count > 1 splits lhs along its
// batch dimension and rhs along its output feature dimension, convolves slice i with slice i and
// concatenates along the output feature dimension (so output features of group g read lhs batches
// [g N/Bg, (g+1) N/Bg), and output batch b' of them reads lhs batch g N/Bg + b'). window_reversal
// reverses the lhs window before the dot product, i.e. the window position k meets the kernel tap
// K - 1 - k. Products and the sum are computed in Acc (double or long double for floating tests).
//
// The output shape is StableHLO's C25 (conv_output_shape): batch N / batch_group_count, features O,
// spatial num_windows = empty ? 0 : floor((padded - dilated_window) / stride) + 1, with
// dilated = (size - 1) * dilation + 1 (0 for size 0), padded = pad_low + dilated input + pad_high,
// empty = padded <= 0 || dilated_window > padded.
//
// Every constraint of StableHLO's convolution that concerns shapes and attributes (C1-C25, the
// quantization ones aside) is checked; a violation throws std::invalid_argument.
#pragma once
#include <algorithm>
#include <string>

#include "reference.hpp"
#include "reference_dot.hpp" // dot_as, dot_abs

namespace xlet_ref {

// ConvGeneralDilated's attributes. Empty lists take the defaults: window_strides, lhs_dilation and
// rhs_dilation all 1, padding_low / padding_high all 0, window_reversal all false.
struct conv_desc {
    dims_t window_strides, padding_low, padding_high, lhs_dilation, rhs_dilation;
    std::vector<bool> window_reversal;
    std::int64_t input_batch_dimension = 0, input_feature_dimension = 1;
    dims_t input_spatial_dimensions;
    std::int64_t kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0;
    dims_t kernel_spatial_dimensions;
    std::int64_t output_batch_dimension = 0, output_feature_dimension = 1;
    dims_t output_spatial_dimensions;
    std::int64_t feature_group_count = 1, batch_group_count = 1;
};

// Dimension numbers from layout strings, JAX's convention (lax.conv_general_dilated): the lhs and
// the output name their batch 'N' and feature 'C', the kernel its output feature 'O' and input
// feature 'I'; every other character is a spatial dimension. The spatial dimensions are taken in
// the order they appear in the kernel string; the lhs and output spatial dimension with the same
// character is matched to each. conv_layout("NHWC", "HWIO", "NHWC"), conv_layout("NCHW", "OIHW",
// "NCHW"), conv_layout("NCW", "OIW", "NCW"). Only the dimension numbers are set.
inline conv_desc conv_layout(const std::string& lhs, const std::string& rhs, const std::string& out) {
    auto pos = [](const std::string& s, char c, const char* what) {
        const auto p = s.find(c);
        if (p == std::string::npos || s.find(c, p + 1) != std::string::npos)
            fail(std::string("conv_layout: ") + what + " needs exactly one '" + c + "'");
        return static_cast<std::int64_t>(p);
    };
    if (lhs.size() != rhs.size() || out.size() != rhs.size()) fail("conv_layout: strings of different lengths");
    conv_desc d;
    d.input_batch_dimension = pos(lhs, 'N', "lhs");
    d.input_feature_dimension = pos(lhs, 'C', "lhs");
    d.kernel_output_feature_dimension = pos(rhs, 'O', "rhs");
    d.kernel_input_feature_dimension = pos(rhs, 'I', "rhs");
    d.output_batch_dimension = pos(out, 'N', "out");
    d.output_feature_dimension = pos(out, 'C', "out");
    for (char c : rhs) {
        if (c == 'O' || c == 'I') continue;
        if (c == 'N' || c == 'C') fail("conv_layout: 'N' or 'C' in the kernel string");
        d.kernel_spatial_dimensions.push_back(pos(rhs, c, "rhs"));
        d.input_spatial_dimensions.push_back(pos(lhs, c, "lhs"));
        d.output_spatial_dimensions.push_back(pos(out, c, "out"));
    }
    return d;
}

namespace conv_detail {

inline std::size_t u(std::int64_t i) { return static_cast<std::size_t>(i); }

// d with the default lists filled in, every attribute checked against the operand shapes.
inline conv_desc checked(const dims_t& lhs, const dims_t& rhs, conv_desc d) {
    const std::size_t n = d.input_spatial_dimensions.size();
    auto fill = [n](dims_t& v, std::int64_t def, const char* name) {
        if (v.empty()) v.assign(n, def);
        if (v.size() != n) fail(std::string("conv: ") + name + " must have one entry per spatial dimension");
    };
    fill(d.window_strides, 1, "window_strides"); // C2
    fill(d.padding_low, 0, "padding_low");       // C4
    fill(d.padding_high, 0, "padding_high");     // C4
    fill(d.lhs_dilation, 1, "lhs_dilation");     // C5
    fill(d.rhs_dilation, 1, "rhs_dilation");     // C7
    if (d.window_reversal.empty()) d.window_reversal.assign(n, false);
    if (d.window_reversal.size() != n) fail("conv: window_reversal must have one entry per spatial dimension"); // C9
    for (std::size_t i = 0; i < n; ++i) {
        if (d.window_strides[i] <= 0) fail("conv: window_strides must be positive"); // C3
        if (d.lhs_dilation[i] <= 0) fail("conv: lhs_dilation must be positive");     // C6
        if (d.rhs_dilation[i] <= 0) fail("conv: rhs_dilation must be positive");     // C8
    }
    const auto rank = static_cast<std::int64_t>(lhs.size());
    if (rank != static_cast<std::int64_t>(n) + 2) fail("conv: rank(lhs) must be the spatial dimensions + 2"); // C12
    if (rhs.size() != lhs.size()) fail("conv: rank(lhs) != rank(rhs)");                                       // C1
    auto distinct = [rank](dims_t all, const char* what) {
        for (auto x : all)
            if (x < 0 || x >= rank) fail(std::string("conv: ") + what + " dimension out of range");
        std::sort(all.begin(), all.end());
        if (std::adjacent_find(all.begin(), all.end()) != all.end())
            fail(std::string("conv: ") + what + " dimensions are not unique");
    };
    dims_t in{d.input_batch_dimension, d.input_feature_dimension};
    in.insert(in.end(), d.input_spatial_dimensions.begin(), d.input_spatial_dimensions.end());
    distinct(in, "input");                                                                     // C13
    if (d.kernel_spatial_dimensions.size() != n) fail("conv: kernel_spatial_dimensions size"); // C17
    dims_t ke{d.kernel_input_feature_dimension, d.kernel_output_feature_dimension};
    ke.insert(ke.end(), d.kernel_spatial_dimensions.begin(), d.kernel_spatial_dimensions.end());
    distinct(ke, "kernel");                                                                    // C18
    if (d.output_spatial_dimensions.size() != n) fail("conv: output_spatial_dimensions size"); // C19
    dims_t ou{d.output_batch_dimension, d.output_feature_dimension};
    ou.insert(ou.end(), d.output_spatial_dimensions.begin(), d.output_spatial_dimensions.end());
    distinct(ou, "output"); // C20
    const std::int64_t G = d.feature_group_count, B = d.batch_group_count;
    if (G <= 0) fail("conv: feature_group_count must be positive");                         // C21
    if (B <= 0) fail("conv: batch_group_count must be positive");                           // C22
    if (G != 1 && B != 1) fail("conv: feature_group_count or batch_group_count must be 1"); // C23
    const std::int64_t N = lhs[u(d.input_batch_dimension)], C = lhs[u(d.input_feature_dimension)];
    const std::int64_t ci = rhs[u(d.kernel_input_feature_dimension)], O = rhs[u(d.kernel_output_feature_dimension)];
    if (N % B != 0) fail("conv: batch_group_count must divide the input batch");                  // C10
    if (C % G != 0) fail("conv: feature_group_count must divide the input features");             // C11
    if (C / G != ci) fail("conv: kernel input features != input features / feature_group_count"); // C14
    if (O % B != 0) fail("conv: batch_group_count must divide the kernel output features");       // C15
    if (O % G != 0) fail("conv: feature_group_count must divide the kernel output features");     // C16
    return d;
}

inline std::int64_t dilated(std::int64_t size, std::int64_t dilation) {
    return size == 0 ? 0 : (size - 1) * dilation + 1;
}

} // namespace conv_detail

// The result's shape (StableHLO C25).
inline dims_t conv_output_shape(const dims_t& lhs, const dims_t& rhs, const conv_desc& desc) {
    using conv_detail::u;
    const conv_desc d = conv_detail::checked(lhs, rhs, desc);
    dims_t out(lhs.size());
    out[u(d.output_batch_dimension)] = lhs[u(d.input_batch_dimension)] / d.batch_group_count;
    out[u(d.output_feature_dimension)] = rhs[u(d.kernel_output_feature_dimension)];
    for (std::size_t s = 0; s < d.input_spatial_dimensions.size(); ++s) {
        const std::int64_t padded = d.padding_low[s] +
                                    conv_detail::dilated(lhs[u(d.input_spatial_dimensions[s])], d.lhs_dilation[s]) +
                                    d.padding_high[s];
        const std::int64_t window = conv_detail::dilated(rhs[u(d.kernel_spatial_dimensions[s])], d.rhs_dilation[s]);
        const bool empty = padded <= 0 || window > padded;
        out[u(d.output_spatial_dimensions[s])] = empty ? 0 : (padded - window) / d.window_strides[s] + 1;
    }
    return out;
}

namespace conv_detail {

// The direct definition above; with Abs, the sum of |lhs| * |rhs| over the same taps (as double):
// a bound for the rounding error of any evaluation order.
template<class Acc, bool Abs, class L, class R>
array<std::conditional_t<Abs, double, Acc>> conv_impl(const array<L>& lhs, const array<R>& rhs, const conv_desc& desc) {
    using Res = std::conditional_t<Abs, double, Acc>;
    const conv_desc d = checked(lhs.dims, rhs.dims, desc);
    const dims_t out_dims = conv_output_shape(lhs.dims, rhs.dims, d);
    const std::size_t n = d.input_spatial_dimensions.size();
    const std::int64_t N = lhs.dims[u(d.input_batch_dimension)];
    const std::int64_t ci = rhs.dims[u(d.kernel_input_feature_dimension)];
    const std::int64_t O = rhs.dims[u(d.kernel_output_feature_dimension)];
    const std::int64_t per_fg = O / d.feature_group_count, per_bg = O / d.batch_group_count;
    const std::int64_t nb = N / d.batch_group_count;
    dims_t taps(n), in_dilated(n);
    for (std::size_t s = 0; s < n; ++s) {
        taps[s] = rhs.dims[u(d.kernel_spatial_dimensions[s])];
        in_dilated[s] = dilated(lhs.dims[u(d.input_spatial_dimensions[s])], d.lhs_dilation[s]);
    }
    array<Res> out(out_dims, std::vector<Res>(u(element_count(out_dims))));
    for (std::int64_t flat = 0; flat < element_count(out_dims); ++flat) {
        const dims_t oi = unflatten(flat, out_dims);
        const std::int64_t b = oi[u(d.output_batch_dimension)], o = oi[u(d.output_feature_dimension)];
        const std::int64_t fg = o / per_fg, bg = o / per_bg;
        dims_t li(lhs.dims.size()), ri(rhs.dims.size());
        li[u(d.input_batch_dimension)] = bg * nb + b;
        ri[u(d.kernel_output_feature_dimension)] = o;
        Res acc{};
        for (std::int64_t i = 0; i < ci; ++i) {
            li[u(d.input_feature_dimension)] = fg * ci + i;
            ri[u(d.kernel_input_feature_dimension)] = i;
            for (std::int64_t t = 0; t < element_count(taps); ++t) {
                const dims_t k = unflatten(t, taps);
                bool inside = true;
                for (std::size_t s = 0; s < n && inside; ++s) {
                    const std::int64_t q = oi[u(d.output_spatial_dimensions[s])];
                    const std::int64_t x = q * d.window_strides[s] + k[s] * d.rhs_dilation[s] - d.padding_low[s];
                    if (x < 0 || x >= in_dilated[s] || x % d.lhs_dilation[s] != 0) {
                        inside = false; // padding or a hole: a zero
                    } else {
                        li[u(d.input_spatial_dimensions[s])] = x / d.lhs_dilation[s];
                        ri[u(d.kernel_spatial_dimensions[s])] = d.window_reversal[s] ? taps[s] - 1 - k[s] : k[s];
                    }
                }
                if (!inside) continue;
                if constexpr (Abs)
                    acc += dot_abs(lhs.at(li)) * dot_abs(rhs.at(ri));
                else if constexpr (std::is_integral_v<Acc>)
                    acc = static_cast<Acc>(acc + static_cast<Acc>(dot_as<Acc>(lhs.at(li)) * dot_as<Acc>(rhs.at(ri))));
                else
                    acc += dot_as<Acc>(lhs.at(li)) * dot_as<Acc>(rhs.at(ri));
            }
        }
        out.data[u(flat)] = acc;
    }
    return out;
}

} // namespace conv_detail

// ConvGeneralDilated(lhs, rhs, desc) computed in Acc; the result has conv_output_shape's dims.
// Integer operands: Acc = std::uint64_t wraps like any narrower two's complement accumulator.
template<class Acc = double, class L, class R>
array<Acc> conv(const array<L>& lhs, const array<R>& rhs, const conv_desc& desc) {
    return conv_detail::conv_impl<Acc, false>(lhs, rhs, desc);
}

// The same sum over |lhs| * |rhs|, in double: the scale of a floating result's rounding error.
template<class L, class R>
array<double> conv_abs(const array<L>& lhs, const array<R>& rhs, const conv_desc& desc) {
    return conv_detail::conv_impl<double, true>(lhs, rhs, desc);
}

} // namespace xlet_ref
