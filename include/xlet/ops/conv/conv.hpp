// Convolution (spec: Conv, ConvWithGeneralPadding, ConvWithGeneralDimensions, ConvGeneral,
// ConvGeneralDilated; StableHLO convolution):
//   conv_general_dilated<conv_config{.window_strides = {2, 2}, .padding_low = {1, 1}, .padding_high = {1, 1},
//                                    .lhs_dilation = {1, 1}, .rhs_dilation = {2, 2},
//                                    .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
//                                    .feature_group_count = 1, .batch_group_count = 1}>(lhs, rhs)
//   conv_general_dilated<cfg, std::int32_t>(s8 lhs, s8 rhs)      preferred_element_type: the result type
//   conv<conv_config{.window_strides = {1, 1}, .mode = pad_mode::same}>(lhs, rhs)   default dimension numbers
//   conv_with_general_padding<cfg>, conv_with_general_dimensions<cfg>, conv_general<cfg>: the same op,
//   each accepting the attributes its XLA form has (a compile error names the form to use otherwise).
// Attributes (conv_config): empty lists mean the defaults (strides 1, padding 0, dilations 1, no
// reversal); pad_mode::same / valid is XLA's Padding enum (same: ceil(size / stride) outputs from
// the dilated input and window, low = total / 2). conv_dims is ConvolutionDimensionNumbers; its
// spatial lists default to the remaining dimensions in increasing order, and conv_layout("NCHW",
// "OIHW", "NCHW") builds it from layout strings (N/C batch/feature of lhs and result, O/I of the
// kernel, any other letters are spatial and pair up by letter, in the kernel string's order, as JAX).
// Semantics: StableHLO's. feature_group_count splits lhs features and result features into
// groups (depthwise: one input feature per group); batch_group_count splits the lhs batch and the
// result features (filter gradients). Accumulation (docs/semantics.md): as dot_general (f32/f64,
// f16/bf16 in f32 rounded once; integers wrap; complex by the textbook product), k in the order
// (kernel taps row-major, input feature), one FMA per term on the f32/f64 kernel.
// Evaluation: the lhs expression is evaluated once, straight into a padded, lhs-dilated,
// channels-last buffer (one fused pass: convert, transpose, pad); the kernel into [taps][ci][o]
// (reversed where window_reversal says); the result is computed channels-last and transposed
// once more only when the output layout is not [batch, spatial..., feature]. Kernels:
// kernels/conv.hpp (direct register-tile convolution on the GEMM micro-kernel's tile, a depthwise
// SIMD loop, a plain loop for other types). The result is a tensor that fuses like a leaf.
//
// Rules (StableHLO convolution numbering; N = rank(lhs)):
//   C1  rank(lhs) = rank(rhs) >= 2                     C2/C3  window_strides: empty or N-2 entries, > 0
//   C4  padding_low/high: empty or N-2 entries each, only with pad_mode::explicit_
//   C5/C6 lhs_dilation: empty or N-2 entries, > 0     C7/C8  rhs_dilation: empty or N-2 entries, > 0
//   C9  window_reversal: empty or N-2 entries, each 0 or 1
//   C10 lhs batch divisible by batch_group_count      C11 lhs features divisible by feature_group_count
//   C12/C13 input dimension numbers: N-2 spatial, and batch + spatial + feature a permutation of 0..N-1
//   C14 kernel input features * feature_group_count = lhs features
//   C15 kernel output features divisible by batch_group_count
//   C16 kernel output features divisible by feature_group_count
//   C17/C18 kernel dimension numbers, C19/C20 output dimension numbers: as C12/C13
//   C21 feature_group_count > 0                        C22 batch_group_count > 0
//   C23 feature_group_count = 1 or batch_group_count = 1
//   C25 (xlet) every padded, dilated input dimension is >= 0 and holds the dilated window (XLA
//       would give an empty dimension; here it is a compile error)
//   C27 lhs and rhs have the same element type, an integer, floating or complex type
//   C28 (xlet) the preferred element type is of the operands' kind (as dot_general's C14)
//   Quantized operands (the quantized and hybrid forms, their rules I1, C28-C34): quant/conv.hpp.
//   The thin forms add one rule each (their C1): which attributes they accept.
#pragma once
#include <type_traits>

#include "../../kernels/conv.hpp"
#include "../elementwise/convert.hpp"
#include "../elementwise/elementwise.hpp"
#include "../layout/layout.hpp"
#include "../layout/pad.hpp"
#include "../linalg/dot.hpp"

namespace xlet {

// ConvolutionDimensionNumbers (proto field names). Empty spatial lists: the dimensions that are
// neither batch nor feature, in increasing order (so the default is [b, f, spatial...] for lhs
// and result, [o, i, spatial...] for the kernel).
struct conv_dims {
    std::int64_t input_batch_dimension = 0;
    std::int64_t input_feature_dimension = 1;
    dim_list input_spatial_dimensions{};
    std::int64_t kernel_input_feature_dimension = 1;
    std::int64_t kernel_output_feature_dimension = 0;
    dim_list kernel_spatial_dimensions{};
    std::int64_t output_batch_dimension = 0;
    std::int64_t output_feature_dimension = 1;
    dim_list output_spatial_dimensions{};
};

// Dimension numbers from layout strings: conv_layout("NHWC", "HWIO", "NHWC"). lhs and result
// use N (batch) and C (feature), the kernel O (output feature) and I (input feature); every other
// letter is a spatial dimension, matched by letter across the three strings, in the kernel
// string's order (JAX's lax.conv_general_dilated convention). A string that breaks this is not a
// constant expression (a compile error at the call).
template<std::size_t A, std::size_t B, std::size_t C>
consteval conv_dims conv_layout(const char (&lhs)[A], const char (&rhs)[B], const char (&out)[C]) {
    auto find = [](const char* s, std::size_t n, char c) -> std::int64_t {
        for (std::size_t i = 0; i + 1 < n; ++i)
            if (s[i] == c) return static_cast<std::int64_t>(i);
        throw "conv_layout: a letter is missing from a layout string";
    };
    if (A != B || A != C) throw "conv_layout: the three layout strings must have the same length";
    conv_dims d;
    d.input_batch_dimension = find(lhs, A, 'N');
    d.input_feature_dimension = find(lhs, A, 'C');
    d.kernel_output_feature_dimension = find(rhs, B, 'O');
    d.kernel_input_feature_dimension = find(rhs, B, 'I');
    d.output_batch_dimension = find(out, C, 'N');
    d.output_feature_dimension = find(out, C, 'C');
    dim_list is, ks, os;
    for (std::size_t i = 0; i + 1 < B; ++i) {
        const char c = rhs[i];
        if (c == 'O' || c == 'I') continue;
        is.v[is.n++] = find(lhs, A, c);
        ks.v[ks.n++] = static_cast<std::int64_t>(i);
        os.v[os.n++] = find(out, C, c);
    }
    d.input_spatial_dimensions = is;
    d.kernel_spatial_dimensions = ks;
    d.output_spatial_dimensions = os;
    return d;
}

// The attributes of ConvGeneralDilated (and of its shorter forms).
struct conv_config {
    dim_list window_strides{}; // empty: 1
    dim_list padding_low{};    // empty: 0 (explicit mode)
    dim_list padding_high{};   // empty: 0
    pad_mode mode = pad_mode::explicit_;
    dim_list lhs_dilation{}; // empty: 1
    dim_list rhs_dilation{}; // empty: 1
    conv_dims dimension_numbers{};
    std::int64_t feature_group_count = 1;
    std::int64_t batch_group_count = 1;
    dim_list window_reversal{}; // empty: none; else 0 or 1 per spatial dimension
    precision_config precision{};
};

namespace detail {

// One side's dimension numbers resolved: batch (or output feature), feature, spatial.
struct conv_side {
    std::int64_t a = 0, b = 0;
    dim_list sp{};
};
template<std::size_t N>
constexpr conv_side conv_resolve(std::int64_t a, std::int64_t b, const dim_list& sp) {
    conv_side s{a, b, sp};
    if (sp.size() == 0)
        for (std::size_t d = 0; d < N; ++d)
            if (static_cast<std::int64_t>(d) != a && static_cast<std::int64_t>(d) != b)
                s.sp.v[s.sp.n++] = static_cast<std::int64_t>(d);
    return s;
}
// n - 2 spatial dimensions, and the whole a permutation of 0..n-1.
template<std::size_t N>
constexpr bool conv_side_sized(const conv_side& s) {
    return N >= 2 && s.sp.size() == N - 2;
}
template<std::size_t N>
constexpr bool conv_side_perm(const conv_side& s) {
    if (!conv_side_sized<N>(s)) return true; // reported by the size rule
    dim_list all = s.sp;
    all.v[all.n++] = s.a;
    all.v[all.n++] = s.b;
    return all.in_range(N) && all.unique();
}

template<conv_config Cf, class L, class R, class Out>
struct conv_rules {
    using T = element_of<L>;
    static constexpr std::size_t N = shape_of<L>::rank, NS = N >= 2 ? N - 2 : 0;
    static constexpr auto le = shape_of<L>::extents;
    static constexpr auto re = shape_of<R>::extents;
    static constexpr conv_dims D = Cf.dimension_numbers;
    static constexpr conv_side in =
        conv_resolve<N>(D.input_batch_dimension, D.input_feature_dimension, D.input_spatial_dimensions);
    static constexpr conv_side ker = conv_resolve<N>(D.kernel_output_feature_dimension,
                                                     D.kernel_input_feature_dimension, D.kernel_spatial_dimensions);
    static constexpr conv_side out =
        conv_resolve<N>(D.output_batch_dimension, D.output_feature_dimension, D.output_spatial_dimensions);
    static constexpr bool sized(const dim_list& l) { return l.size() == 0 || l.size() == NS; }
    static constexpr bool positive(const dim_list& l) {
        for (std::size_t i = 0; i < l.size(); ++i)
            if (l[i] <= 0) return false;
        return true;
    }
    static constexpr std::int64_t at(const dim_list& l, std::size_t d, std::int64_t dflt) {
        return l.size() == 0 ? dflt : l[d];
    }

    static constexpr bool c1 = N == shape_of<R>::rank && N >= 2;
    static constexpr bool c2 = sized(Cf.window_strides);
    static constexpr bool c3 = positive(Cf.window_strides);
    static constexpr bool c4 =
        sized(Cf.padding_low) && sized(Cf.padding_high) &&
        (Cf.mode == pad_mode::explicit_ || (Cf.padding_low.size() == 0 && Cf.padding_high.size() == 0));
    static constexpr bool c5 = sized(Cf.lhs_dilation);
    static constexpr bool c6 = positive(Cf.lhs_dilation);
    static constexpr bool c7 = sized(Cf.rhs_dilation);
    static constexpr bool c8 = positive(Cf.rhs_dilation);
    static constexpr bool c9 = sized(Cf.window_reversal) && [] {
        for (std::size_t i = 0; i < Cf.window_reversal.size(); ++i)
            if (Cf.window_reversal[i] != 0 && Cf.window_reversal[i] != 1) return false;
        return true;
    }();
    static constexpr bool c12 = !c1 || conv_side_sized<N>(in);
    static constexpr bool c13 = !c1 || conv_side_perm<N>(in);
    static constexpr bool c17 = !c1 || conv_side_sized<N>(ker);
    static constexpr bool c18 = !c1 || conv_side_perm<N>(ker);
    static constexpr bool c19 = !c1 || conv_side_sized<N>(out);
    static constexpr bool c20 = !c1 || conv_side_perm<N>(out);
    static constexpr bool c21 = Cf.feature_group_count > 0;
    static constexpr bool c22 = Cf.batch_group_count > 0;
    static constexpr bool c23 = Cf.feature_group_count == 1 || Cf.batch_group_count == 1;
    static constexpr bool dims_ok = c1 && c12 && c13 && c17 && c18 && c19 && c20 && c21 && c22;
    static constexpr std::size_t lb = dims_ok ? le[static_cast<std::size_t>(in.a)] : 0;
    static constexpr std::size_t lf = dims_ok ? le[static_cast<std::size_t>(in.b)] : 0;
    static constexpr std::size_t ko = dims_ok ? re[static_cast<std::size_t>(ker.a)] : 0;
    static constexpr std::size_t ki = dims_ok ? re[static_cast<std::size_t>(ker.b)] : 0;
    static constexpr auto fgc = static_cast<std::size_t>(Cf.feature_group_count > 0 ? Cf.feature_group_count : 1);
    static constexpr auto bgc = static_cast<std::size_t>(Cf.batch_group_count > 0 ? Cf.batch_group_count : 1);
    static constexpr bool c10 = !dims_ok || lb % bgc == 0;
    static constexpr bool c11 = !dims_ok || lf % fgc == 0;
    static constexpr bool c14 = !dims_ok || ki * fgc == lf;
    static constexpr bool c15 = !dims_ok || ko % bgc == 0;
    static constexpr bool c16 = !dims_ok || ko % fgc == 0;
    static constexpr bool attrs_ok = c2 && c3 && c4 && c5 && c6 && c7 && c8 && c9;

    // Per spatial dimension d (in lhs order): padding, padded input and output sizes.
    struct spatial_t {
        std::array<std::int64_t, conv_max_spatial> lo{}, hi{}, ld{}, rd{}, s{}, win{}, padded{}, dwin{};
        std::array<std::size_t, conv_max_spatial> q{};
        std::array<bool, conv_max_spatial> rev{};
        bool fits = true;
    };
    static constexpr spatial_t sp = [] {
        spatial_t r;
        if (!(dims_ok && attrs_ok)) return r;
        for (std::size_t d = 0; d < NS; ++d) {
            const auto n = static_cast<std::int64_t>(le[static_cast<std::size_t>(in.sp[d])]);
            const auto k = static_cast<std::int64_t>(re[static_cast<std::size_t>(ker.sp[d])]);
            r.s[d] = at(Cf.window_strides, d, 1);
            r.ld[d] = at(Cf.lhs_dilation, d, 1);
            r.rd[d] = at(Cf.rhs_dilation, d, 1);
            r.rev[d] = at(Cf.window_reversal, d, 0) == 1;
            r.win[d] = k;
            const std::int64_t base = n == 0 ? 0 : (n - 1) * r.ld[d] + 1;
            const std::int64_t dw = k == 0 ? 0 : (k - 1) * r.rd[d] + 1;
            if (Cf.mode == pad_mode::same) {
                const std::int64_t o = (base + r.s[d] - 1) / r.s[d];
                const std::int64_t total = o > 0 ? std::max<std::int64_t>((o - 1) * r.s[d] + dw - base, 0) : 0;
                r.lo[d] = total / 2;
                r.hi[d] = total - r.lo[d];
            } else if (Cf.mode == pad_mode::explicit_) {
                r.lo[d] = at(Cf.padding_low, d, 0);
                r.hi[d] = at(Cf.padding_high, d, 0);
            }
            const std::int64_t padded = base + r.lo[d] + r.hi[d];
            r.padded[d] = padded;
            r.dwin[d] = dw;
            if (padded < 0 || dw > padded) {
                r.fits = false;
                continue;
            }
            r.q[d] = padded == 0 ? 0 : static_cast<std::size_t>((padded - dw) / r.s[d] + 1);
        }
        return r;
    }();
    static constexpr bool c25 = !(dims_ok && attrs_ok) || sp.fits;
    static constexpr bool c27 = std::is_same_v<element_of<L>, element_of<R>> && dot_numeric<T>;
    static constexpr bool c28 = dot_out_fits<T, Out>;
    // The rules on shapes and attributes (C1-C25), which quantized operands share, and all of them.
    static constexpr bool shape_ok = dims_ok && attrs_ok && c10 && c11 && c14 && c15 && c16 && c23 && c25;
    static constexpr bool ok = shape_ok && c27 && c28;

    static consteval bool check() {
        using SL = shown_t<L>;
        using SR = shown_t<R>;
        check_shape();
        static_assert(diag::got<c27, SL, SR>::value, "xlet::conv_general_dilated [C27]: lhs and rhs must have the "
                                                     "same element type, an integer, floating or complex type");
        static_assert(diag::got<c28, SL, SR, Out>::value,
                      "xlet::conv_general_dilated [C28]: the preferred element type must be of the operands' kind "
                      "(integer, floating or complex)");
        return ok;
    }
    static consteval bool check_shape() {
        using SL = shown_t<L>;
        using SR = shown_t<R>;
        static_assert(diag::got<c1, SL, SR>::value,
                      "xlet::conv_general_dilated [C1]: lhs and rhs must have the same rank, at least 2");
        static_assert(diag::got<c2, SL, SR>::value,
                      "xlet::conv_general_dilated [C2]: window_strides must be empty or have rank - 2 entries");
        static_assert(diag::got<c3, SL, SR>::value, "xlet::conv_general_dilated [C3]: window_strides must be > 0");
        static_assert(diag::got<c4, SL, SR>::value,
                      "xlet::conv_general_dilated [C4]: padding_low/high must be empty or have rank - 2 entries, "
                      "and only with pad_mode::explicit_");
        static_assert(diag::got<c5, SL, SR>::value,
                      "xlet::conv_general_dilated [C5]: lhs_dilation must be empty or have rank - 2 entries");
        static_assert(diag::got<c6, SL, SR>::value, "xlet::conv_general_dilated [C6]: lhs_dilation must be > 0");
        static_assert(diag::got<c7, SL, SR>::value,
                      "xlet::conv_general_dilated [C7]: rhs_dilation must be empty or have rank - 2 entries");
        static_assert(diag::got<c8, SL, SR>::value, "xlet::conv_general_dilated [C8]: rhs_dilation must be > 0");
        static_assert(diag::got<c9, SL, SR>::value,
                      "xlet::conv_general_dilated [C9]: window_reversal must be empty or have rank - 2 entries, "
                      "each 0 or 1");
        static_assert(diag::got<c12, SL, SR>::value,
                      "xlet::conv_general_dilated [C12]: input_spatial_dimensions must have rank - 2 entries");
        static_assert(diag::got<c13, SL, SR>::value,
                      "xlet::conv_general_dilated [C13]: the input batch, feature and spatial dimensions must be a "
                      "permutation of the lhs dimensions");
        static_assert(diag::got<c17, SL, SR>::value,
                      "xlet::conv_general_dilated [C17]: kernel_spatial_dimensions must have rank - 2 entries");
        static_assert(diag::got<c18, SL, SR>::value,
                      "xlet::conv_general_dilated [C18]: the kernel output feature, input feature and spatial "
                      "dimensions must be a permutation of the rhs dimensions");
        static_assert(diag::got<c19, SL, SR>::value,
                      "xlet::conv_general_dilated [C19]: output_spatial_dimensions must have rank - 2 entries");
        static_assert(diag::got<c20, SL, SR>::value,
                      "xlet::conv_general_dilated [C20]: the output batch, feature and spatial dimensions must be a "
                      "permutation of the result dimensions");
        static_assert(diag::got<c21, SL, SR>::value,
                      "xlet::conv_general_dilated [C21]: feature_group_count must be > 0");
        static_assert(diag::got<c22, SL, SR>::value, "xlet::conv_general_dilated [C22]: batch_group_count must be > 0");
        static_assert(diag::got<c10, SL, SR>::value,
                      "xlet::conv_general_dilated [C10]: the lhs batch size must be divisible by batch_group_count");
        static_assert(diag::got<c11, SL, SR>::value, "xlet::conv_general_dilated [C11]: the lhs feature size must be "
                                                     "divisible by feature_group_count");
        static_assert(diag::got<c14, SL, SR>::value,
                      "xlet::conv_general_dilated [C14]: kernel input features * feature_group_count must equal the "
                      "lhs features");
        static_assert(diag::got<c15, SL, SR>::value, "xlet::conv_general_dilated [C15]: kernel output features must "
                                                     "be divisible by batch_group_count");
        static_assert(diag::got<c16, SL, SR>::value, "xlet::conv_general_dilated [C16]: kernel output features must "
                                                     "be divisible by feature_group_count");
        static_assert(diag::got<c23, SL, SR>::value, "xlet::conv_general_dilated [C23]: feature_group_count or "
                                                     "batch_group_count must be 1");
        static_assert(diag::got<c25, SL, SR>::value,
                      "xlet::conv_general_dilated [C25]: the dilated window must fit in the padded, dilated input "
                      "in every spatial dimension");
        return shape_ok;
    }
};

template<auto Perm, std::size_t... I>
constexpr auto conv_dims_of(std::index_sequence<I...>) {
    return dims<Perm[I]...>;
}
template<auto Arr>
constexpr auto conv_dims_value() {
    return conv_dims_of<Arr>(std::make_index_sequence<Arr.size()>{});
}

// Everything the implementation needs, as constants.
template<conv_config Cf, class L, class R, class Out>
struct conv_plan {
    using Rules = conv_rules<Cf, L, R, Out>;
    using T = element_of<L>;
    using Ty = dot_types<T, Out>;
    using O = typename Ty::out;
    using Acc = typename Ty::acc;
    static constexpr bool fast = gemm_fast<Acc> && Rules::NS > 0;
    using A = std::conditional_t<fast, Acc, T>; // canonical buffers' element type
    static constexpr std::size_t N = Rules::N, NS = Rules::NS;
    static constexpr auto sp = Rules::sp;
    // Canonical orders: lhs [b, spatial..., f], kernel [spatial..., i, o], result [b, spatial..., f].
    static constexpr std::array<std::int64_t, N> lhs_perm = [] {
        std::array<std::int64_t, N> p{};
        p[0] = Rules::in.a;
        for (std::size_t d = 0; d < NS; ++d)
            p[1 + d] = Rules::in.sp[d];
        p[N - 1] = Rules::in.b;
        return p;
    }();
    static constexpr std::array<std::int64_t, N> rhs_perm = [] {
        std::array<std::int64_t, N> p{};
        for (std::size_t d = 0; d < NS; ++d)
            p[d] = Rules::ker.sp[d];
        p[N - 2] = Rules::ker.b;
        p[N - 1] = Rules::ker.a;
        return p;
    }();
    static constexpr std::size_t nrev = [] {
        std::size_t n = 0;
        for (std::size_t d = 0; d < NS; ++d)
            n += sp.rev[d];
        return n;
    }();
    static constexpr std::array<std::int64_t, nrev> rev_dims = [] {
        std::array<std::int64_t, nrev> r{};
        std::size_t n = 0;
        for (std::size_t d = 0; d < NS; ++d)
            if (sp.rev[d]) r[n++] = static_cast<std::int64_t>(d);
        return r;
    }();
    static constexpr padding_config<N> pad = [] {
        padding_config<N> c{};
        for (std::size_t d = 0; d < NS; ++d) {
            c.edge_padding_low[1 + d] = sp.lo[d];
            c.edge_padding_high[1 + d] = sp.hi[d];
            c.interior_padding[1 + d] = sp.ld[d] - 1;
        }
        return c;
    }();
    static constexpr bool identity(const std::array<std::int64_t, N>& p) {
        for (std::size_t d = 0; d < N; ++d)
            if (p[d] != static_cast<std::int64_t>(d)) return false;
        return true;
    }
    static constexpr bool no_pad = [] {
        for (std::size_t d = 0; d < N; ++d)
            if (pad.edge_padding_low[d] != 0 || pad.edge_padding_high[d] != 0 || pad.interior_padding[d] != 0)
                return false;
        return true;
    }();
    // The result's extents in the requested layout.
    static constexpr extents_t<N> out_extents = [] {
        extents_t<N> e{};
        if constexpr (Rules::shape_ok) {
            e[static_cast<std::size_t>(Rules::out.a)] = Rules::lb / Rules::bgc;
            e[static_cast<std::size_t>(Rules::out.b)] = Rules::ko;
            for (std::size_t d = 0; d < NS; ++d)
                e[static_cast<std::size_t>(Rules::out.sp[d])] = sp.q[d];
        }
        return e;
    }();
    static constexpr conv_geom geom = [] {
        conv_geom g;
        g.ns = NS;
        g.nb_in = Rules::lb;
        g.c = Rules::lf;
        const auto ost = row_major_strides(out_extents);
        for (std::size_t d = 0; d < NS; ++d) {
            g.p[d] = static_cast<std::size_t>(sp.padded[d]);
            g.k[d] = static_cast<std::size_t>(sp.win[d]);
            g.q[d] = sp.q[d];
            g.s[d] = static_cast<std::size_t>(sp.s[d]);
            g.rd[d] = static_cast<std::size_t>(sp.rd[d]);
            g.oss[d] = ost[static_cast<std::size_t>(Rules::out.sp[d])];
        }
        g.ci = Rules::ki;
        g.o = Rules::ko;
        g.nb_out = Rules::lb / Rules::bgc;
        g.batch_groups = Rules::bgc > 1;
        g.groups = g.batch_groups ? Rules::bgc : Rules::fgc;
        g.osb = ost[static_cast<std::size_t>(Rules::out.a)];
        g.osf = ost[static_cast<std::size_t>(Rules::out.b)];
        return g;
    }();
    static constexpr bool depthwise =
        fast && !geom.batch_groups && geom.groups == geom.c && geom.ci == 1 && geom.o == geom.c && [] {
            for (std::size_t d = 0; d < NS; ++d)
                if (sp.ld[d] != 1) return false;
            return true;
        }();
    // The depthwise kernel reads the unpadded input: its sizes and low padding.
    static constexpr conv_border border = [] {
        conv_border b;
        for (std::size_t d = 0; d < NS; ++d) {
            b.n[d] = Rules::le[static_cast<std::size_t>(Rules::in.sp[d])];
            b.lo[d] = sp.lo[d];
        }
        return b;
    }();
};

// The lhs as the canonical padded buffer. An array (of the kernel's element type) is packed by
// kernels/conv.hpp's conv_pack_input (row copies or register transposes, zeroing only padding and
// holes), or read in place when it already is canonical; another expression is evaluated once:
// straight into the padded buffer when it is already channels-last (one fused pass), else in its
// own layout first (its natural order) and then packed. Lazy (the direct kernel's input): an array
// that would only be packed is passed as a conv_source, and the kernel's tasks pack the rows they
// read (kernels/conv.hpp).
template<class P, bool Padded, class T = typename P::A>
inline constexpr auto conv_pack_of = [] {
    using Rules = typename P::Rules;
    conv_pack_desc<T> d;
    constexpr auto st = row_major_strides(Rules::le);
    d.ns = P::NS;
    d.nb = Rules::lb;
    d.c = Rules::lf;
    d.sb = st[static_cast<std::size_t>(Rules::in.a)];
    d.sf = st[static_cast<std::size_t>(Rules::in.b)];
    for (std::size_t i = 0; i < P::NS; ++i) {
        const auto dim = static_cast<std::size_t>(Rules::in.sp[i]);
        d.n[i] = Rules::le[dim];
        d.ss[i] = st[dim];
        d.p[i] = Padded ? static_cast<std::size_t>(P::sp.padded[i]) : d.n[i];
        d.ld[i] = Padded ? static_cast<std::size_t>(P::sp.ld[i]) : 1;
        d.lo[i] = Padded ? P::sp.lo[i] : 0;
    }
    return d;
}();

template<class P, bool Padded, bool Lazy = false, class X>
decltype(auto) conv_lhs(X&& x) {
    using A = typename P::A;
    using XT = std::remove_cvref_t<X>;
    constexpr auto perm = conv_dims_value<P::lhs_perm>();
    constexpr bool same = std::is_same_v<element_of<X>, A>;
    constexpr bool canonical = P::identity(P::lhs_perm) && (P::no_pad || !Padded);
    static constexpr auto PE = [] {
        extents_t<P::N> e{};
        e[0] = P::Rules::lb;
        for (std::size_t d = 0; d < P::NS; ++d)
            e[1 + d] = Padded ? static_cast<std::size_t>(P::sp.padded[d])
                              : P::Rules::le[static_cast<std::size_t>(P::Rules::in.sp[d])];
        e[P::N - 1] = P::Rules::lf;
        return e;
    }();
    using canon_t = typename tensor_of_impl<A, PE, std::make_index_sequence<P::N>>::type;
    auto pack = [](const auto& arr) {
        canon_t c(no_init);
        conv_pack_input(conv_pack_of<P, Padded>, arr.data(), c.data());
        return c;
    };
    if constexpr (canonical && same && is_array_leaf<XT>)
        return static_cast<const XT&>(x);
    else if constexpr (Lazy && Padded && P::NS > 0 && same && is_array_leaf<XT>)
        return conv_source<A>{x.data(), &conv_pack_of<P, Padded>};
    else if constexpr (P::NS > 0 && same && is_array_leaf<XT>)
        return pack(x);
    else if constexpr (!Padded) {
        if constexpr (same)
            return eval(transpose(std::forward<X>(x), perm));
        else
            return eval(transpose(convert_element_type<A>(std::forward<X>(x)), perm));
    } else if constexpr (P::identity(P::lhs_perm) || P::NS == 0) {
        if constexpr (same)
            return eval(pad<P::pad>(transpose(std::forward<X>(x), perm), A(0)));
        else
            return eval(pad<P::pad>(transpose(convert_element_type<A>(std::forward<X>(x)), perm), A(0)));
    } else if constexpr (same) {
        return pack(eval(std::forward<X>(x)));
    } else {
        return pack(eval(convert_element_type<A>(std::forward<X>(x))));
    }
}

// What conv_direct reads: a conv_source as it is, a buffer by its data.
template<class T>
conv_source<T> conv_in(const conv_source<T>& s) {
    return s;
}
template<class A>
auto conv_in(const A& a) {
    return a.data();
}

template<class P, class X>
decltype(auto) conv_rhs(X&& x) {
    using A = typename P::A;
    using XT = std::remove_cvref_t<X>;
    constexpr auto perm = conv_dims_value<P::rhs_perm>();
    constexpr auto rd = conv_dims_value<P::rev_dims>();
    if constexpr (P::identity(P::rhs_perm) && P::nrev == 0 && std::is_same_v<element_of<X>, A> && is_array_leaf<XT>)
        return static_cast<const XT&>(x);
    else if constexpr (std::is_same_v<element_of<X>, A>)
        return eval(rev(transpose(std::forward<X>(x), perm), rd));
    else
        return eval(rev(transpose(convert_element_type<A>(std::forward<X>(x)), perm), rd));
}

// StableHLO's attributes of a convolution: dimension numbers in the compact form
// ([b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]), the padding pad_mode chose, explicit.
template<class Rules>
std::string conv_attrs(const conv_config& c) {
    constexpr std::size_t N = Rules::N, NS = Rules::NS;
    auto side = [&](const conv_side& sd, char a, char b) {
        std::string s = "[";
        for (std::size_t p = 0; p < N; ++p) {
            if (p) s += ", ";
            const auto d = static_cast<std::int64_t>(p);
            if (d == sd.a) {
                s += a;
            } else if (d == sd.b) {
                s += b;
            } else {
                for (std::size_t k = 0; k < sd.sp.size(); ++k)
                    if (sd.sp[k] == d) s += std::to_string(k);
            }
        }
        return s + "]";
    };
    std::string pad = "dense<";
    if (NS) {
        pad += "[";
        for (std::size_t d = 0; d < NS; ++d)
            pad += (d ? ", [" : "[") + std::to_string(Rules::sp.lo[d]) + ", " + std::to_string(Rules::sp.hi[d]) + "]";
        pad += "]";
    }
    pad += "> : tensor<" + std::to_string(NS) + "x2xi64>";
    std::vector<std::int64_t> strides, ld, rd;
    std::string rev;
    bool any_rev = false;
    for (std::size_t d = 0; d < NS; ++d) {
        strides.push_back(Rules::sp.s[d]);
        ld.push_back(Rules::sp.ld[d]);
        rd.push_back(Rules::sp.rd[d]);
        rev += std::string(d ? ", " : ": ") + (Rules::sp.rev[d] ? "true" : "false");
        any_rev = any_rev || Rules::sp.rev[d];
    }
    return trace::join_attrs(
        {"window_strides = " + trace::i64_array(strides), "padding = " + pad, "lhs_dilation = " + trace::i64_array(ld),
         "rhs_dilation = " + trace::i64_array(rd), any_rev ? "window_reversal = array<i1" + rev + ">" : "",
         "dimension_numbers = #stablehlo.conv<" + side(Rules::in, 'b', 'f') + "x" + side(Rules::ker, 'o', 'i') + "->" +
             side(Rules::out, 'b', 'f') + ">",
         "feature_group_count = " + std::to_string(c.feature_group_count) + " : i64",
         "batch_group_count = " + std::to_string(c.batch_group_count) + " : i64", trace::precision_attr(c.precision)});
}

template<conv_config Cf, class Out, class L, class R>
auto conv_impl(L&& lhs, R&& rhs) {
    using P = conv_plan<Cf, L, R, Out>;
    using O = typename P::O;
    using Acc = typename P::Acc;
    constexpr std::size_t N = P::N;
    using out_t = typename tensor_of_impl<O, P::out_extents, std::make_index_sequence<N>>::type;
    constexpr auto& G = P::geom;
    constexpr std::size_t total = conv_layout_of<G>::out_size;
    constexpr bool writes_all = total > 0 && conv_layout_of<G>::K > 0;
    out_t res = [] {
        if constexpr (writes_all)
            return out_t(no_init);
        else
            return out_t(); // zeros: an empty window sums nothing
    }();
    if constexpr (writes_all) {
        constexpr bool lazy = P::fast && !P::depthwise; // (conv_direct packs the input per task)
        const auto& a = conv_lhs<P, !P::depthwise, lazy>(std::forward<L>(lhs));
        const auto& w = conv_rhs<P>(std::forward<R>(rhs));
        if constexpr (P::fast) {
            auto run = [&](Acc* dst) {
                if constexpr (P::depthwise)
                    conv_depthwise<G, P::border>(a.data(), w.data(), dst);
                else
                    conv_direct<G>(conv_in(a), w.data(), dst);
            };
            if constexpr (std::is_same_v<O, Acc>) {
                run(res.data());
            } else {
                scratch<Acc> tmp(total);
                run(tmp.data());
                for (std::size_t i = 0; i < total; ++i)
                    res.data()[i] = static_cast<O>(convert_fn<O>::scalar(tmp[i]));
            }
        } else {
            auto to_out = [](const Acc& v) { return static_cast<O>(convert_fn<O>::scalar(v)); };
            conv_generic<G, Acc>(a.data(), w.data(), res.data(), to_out);
        }
    }
    return res;
}

// Quantized operands (either one): quant/conv.hpp (<xlet/quant.hpp>, in <xlet/xlet.hpp>) defines
// it, with its own rules (docs/ops.md, ConvGeneralDilated).
template<conv_config Cf, class Out, class L, class R>
auto quant_conv(L&& lhs, R&& rhs);

// The thin forms' extra rule: which attributes they take.
struct conv_form_attrs {
    bool explicit_padding, dims, dilation;
};
template<conv_config Cf>
constexpr bool conv_form_ok(conv_form_attrs f) {
    const bool pad_ok = f.explicit_padding ? Cf.mode == pad_mode::explicit_ : Cf.mode != pad_mode::explicit_;
    const conv_dims d{};
    const conv_dims& x = Cf.dimension_numbers;
    const bool dims_default =
        x.input_batch_dimension == d.input_batch_dimension && x.input_feature_dimension == d.input_feature_dimension &&
        x.kernel_input_feature_dimension == d.kernel_input_feature_dimension &&
        x.kernel_output_feature_dimension == d.kernel_output_feature_dimension &&
        x.output_batch_dimension == d.output_batch_dimension &&
        x.output_feature_dimension == d.output_feature_dimension && x.input_spatial_dimensions.size() == 0 &&
        x.kernel_spatial_dimensions.size() == 0 && x.output_spatial_dimensions.size() == 0;
    auto ones = [](const dim_list& l) {
        for (std::size_t i = 0; i < l.size(); ++i)
            if (l[i] != 1) return false;
        return true;
    };
    auto zeros = [](const dim_list& l) {
        for (std::size_t i = 0; i < l.size(); ++i)
            if (l[i] != 0) return false;
        return true;
    };
    const bool no_dilation = ones(Cf.lhs_dilation) && ones(Cf.rhs_dilation) && zeros(Cf.window_reversal);
    return pad_ok && (f.dims || dims_default) && (f.dilation || no_dilation);
}

} // namespace detail

// ConvGeneralDilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
// dimension_numbers, feature_group_count, batch_group_count, precision_config,
// preferred_element_type, window_reversal): every attribute in conv_config; Out is
// preferred_element_type (default: the operands' type).
template<conv_config Cf, class Out = void, expression L, expression R>
auto conv_general_dilated(L&& lhs, R&& rhs) {
    if constexpr (detail::quantized_operands<L, R>) {
        return detail::quant_conv<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
    } else {
        using Rules = detail::conv_rules<Cf, L, R, Out>;
        if constexpr (Rules::check())
            return trace::heavy(
                "stablehlo.convolution", [] { return detail::conv_attrs<Rules>(Cf); },
                [&] { return detail::conv_impl<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs)); }, lhs, rhs);
    }
}

namespace detail {
// Whether the epilogue E runs inside the kernel: the f32 / f64 kernels writing the result in its
// canonical order ([batch, spatial..., feature]: lines of all features are consecutive ranges),
// one feature group or depthwise (a line holds every feature), and an element-wise tree of the
// result's type and shape whose vectors fall as in a whole evaluation.
template<class P, class E>
consteval bool conv_epilogue_fusable() {
    using Rules = typename P::Rules;
    constexpr auto& G = P::geom;
    if constexpr (!P::fast || !std::is_same_v<typename P::O, typename P::Acc> || !Rules::shape_ok)
        return false;
    else if constexpr (!std::is_same_v<tensor_type_of<E>,
                                       typename tensor_of_impl<typename P::O, P::out_extents,
                                                               std::make_index_sequence<P::N>>::type>)
        return false;
    else {
        if (conv_layout_of<G>::out_size == 0 || conv_layout_of<G>::K == 0) return false;
        if (!P::depthwise && (G.groups != 1 || G.batch_groups)) return false;
        if (Rules::out.a != 0 || Rules::out.b != static_cast<std::int64_t>(P::N - 1)) return false;
        for (std::size_t d = 0; d < P::NS; ++d)
            if (Rules::out.sp[d] != static_cast<std::int64_t>(d + 1)) return false;
        using Ev = evaluator<typename P::O, node_t<const E&>>;
        // (the depthwise kernel calls it on whole positions, when its features are whole vectors)
        return Ev::rangeable && Ev::range_aligned(conv_layout_of<G>::ow * G.o) &&
               (!P::depthwise || Ev::range_aligned(G.o));
    }
}
// A per-feature epilogue: an element-wise tree whose leaves are the result itself (read in place),
// vectors of the features (a rank-1 array broadcast along the last dimension: a bias, a scale) and
// scalars. Its value at a position's features [f, f + W) is then a function of the accumulators'
// vector alone, which the depthwise and the direct kernels apply before they store them (oneDNN's
// post-ops do the same); the same vector operations as the evaluation of the range (apply_vec), so
// the same values. (The direct kernel's 3x3 with bias + ReLU on Zen 4: 0.96-0.97 of oneDNN as a
// pass over each line, 0.97-0.98 on the registers.)
template<class N, std::size_t R>
inline constexpr bool feature_epilogue_node = false;
template<class N, std::size_t R>
inline constexpr bool feature_epilogue_node<ref_node<N>, R> = feature_epilogue_node<N, R>;
template<class A, bool Own, std::size_t R> // the result (checked at run time: the pointer)
inline constexpr bool feature_epilogue_node<array_node<A, Own>, R> = A::rank == R;
template<class C, std::size_t R, auto E, auto Map, class T, std::size_t Ro>
inline constexpr bool feature_epilogue_node<view_node<C, R, E, Map, T>, Ro> = [] {
    if constexpr (R != Ro || !std::is_same_v<T, typename C::value_type>)
        return false;
    else if constexpr (is_scalar_node<C>::value)
        return true;
    else if constexpr (
        requires { C::rank; } && C::rank == 1 && requires(const C& c) { c.ptr(); })
        return Map.src[0] == static_cast<int>(R - 1) && Map.scale[0] == 1 && Map.offset[0] == 0;
    else
        return false;
}();
template<class F, class T, class... C, std::size_t R>
inline constexpr bool feature_epilogue_node<map_node<F, T, C...>, R> = (feature_epilogue_node<C, R> && ...);

// Whether every array leaf that is not a feature vector is the result at `res`.
template<class A, bool Own, class T>
bool feature_epilogue_reads(const array_node<A, Own>& n, const T* res) {
    return static_cast<const void*>(n.ptr()) == static_cast<const void*>(res);
}
template<class C, std::size_t R, auto E, auto Map, class S, class T>
bool feature_epilogue_reads(const view_node<C, R, E, Map, S>&, const T*) {
    return true; // a feature vector or a scalar
}
template<class F, class S, class... C, class T>
bool feature_epilogue_reads(const map_node<F, S, C...>& n, const T* res) {
    return detail::apply([&](const auto&... c) { return (feature_epilogue_reads(c, res) && ...); }, n.kids);
}
template<class N, class T>
bool feature_epilogue_reads(const ref_node<N>& n, const T* res) {
    return feature_epilogue_reads(*n.n, res);
}

// The tree's vector at a position's features [f, f + W), acc the result's.
template<std::size_t W, class A, bool Own, class V>
XLET_ALWAYS_INLINE V feature_epilogue_value(const array_node<A, Own>&, const V& acc, std::size_t) {
    return acc;
}
template<std::size_t W, class C, std::size_t R, auto E, auto Map, class S, class V>
XLET_ALWAYS_INLINE vec<compute_t<S>, W> feature_epilogue_value(const view_node<C, R, E, Map, S>& n, const V&,
                                                               std::size_t f) {
    if constexpr (is_scalar_node<C>::value)
        return vec<compute_t<S>, W>::broadcast(n.child.value);
    else
        return load_vec<W, 1>(n.child.ptr() + f);
}
template<std::size_t W, class F, class S, class... C, class V>
XLET_ALWAYS_INLINE vec<compute_t<S>, W> feature_epilogue_value(const map_node<F, S, C...>& n, const V& acc,
                                                               std::size_t f) {
    return detail::apply(
        [&](const auto&... c) {
            return round_to_storage<S>(apply_vec<F, compute_t<S>, W>(feature_epilogue_value<W>(c, acc, f)...));
        },
        n.kids);
}
template<std::size_t W, class N, class V>
XLET_ALWAYS_INLINE auto feature_epilogue_value(const ref_node<N>& n, const V& acc, std::size_t f) {
    return feature_epilogue_value<W>(*n.n, acc, f);
}

// The kernel's epilogue for such a tree e of a result at res (conv_register_epilogue).
// (The tree by value: its leaves' pointers and scalars stay in registers across the kernel's stores.)
template<class E, class T>
struct conv_feature_epilogue {
    E e;
    void operator()(std::size_t, std::size_t) const {} // (everything was done on the registers)
    template<class B>
    XLET_ALWAYS_INLINE B on_registers(const B& acc, std::size_t f) const {
        vec<T, B::size> a;
        static_assert(decltype(a)::simd_regs::count == 1);
        a.r.b[0] = acc;
        return feature_epilogue_value<B::size>(e, a, f).r.b[0];
    }
};
} // namespace detail

// With an epilogue: conv_general_dilated<cfg>(lhs, rhs, epilogue) is
// eval(epilogue(conv_general_dilated<cfg>(lhs, rhs))), where epilogue maps the result (a tensor_map
// of it) to any expression: a bias and an activation, say
//   conv_general_dilated<cfg>(x, w, [&](auto y) { return max(add(y, bias, dims<3>), 0.0f); })
// When it is element-wise on the result (same type and shape, reading the result only in place)
// and the kernel writes the result in its canonical order, the kernel applies it to each range of
// the result as soon as it is written (its lines; the depthwise kernel's positions), while it is in
// cache, or on the kernel's registers when it is per feature (a bias, an activation): the same
// values as the two passes (the same vectors), one pass over memory.
// Otherwise, or while exporting (trace::recorder), the two ops run one after the other.
template<conv_config Cf, class Out = void, expression L, expression R, class F>
auto conv_general_dilated(L&& lhs, R&& rhs, F&& epilogue) {
    using res_t = decltype(conv_general_dilated<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs)));
    using map_t = typename detail::map_like<typename res_t::value_type, res_t>::type;
    static_assert(diag::got<std::is_invocable_v<F&, map_t>, map_t>::value,
                  "xlet::conv_general_dilated [epilogue]: the epilogue must be callable with the result (a tensor_map "
                  "of the convolution's type and shape)");
    if constexpr (std::is_invocable_v<F&, map_t>) {
        using E = std::remove_cvref_t<std::invoke_result_t<F&, map_t>>;
        if constexpr (!detail::quantized_operands<L, R>) {
            using P = detail::conv_plan<Cf, L, R, Out>;
            if constexpr (detail::conv_epilogue_fusable<P, E>()) {
                bool traced = false;
                if constexpr (trace::compiled_in) traced = trace::active != nullptr;
                if (!traced) { // (exported: the two ops, below)
                    constexpr auto& G = P::geom;
                    res_t res(detail::no_init);
                    const auto e = epilogue(map_t(res.data())); // the epilogue is called once on every path
                    const auto n = detail::as_node(e);
                    using Ev = detail::evaluator<typename P::O, std::remove_cvref_t<decltype(n)>>;
                    const auto& a = detail::conv_lhs<P, !P::depthwise, !P::depthwise>(std::forward<L>(lhs));
                    const auto& w = detail::conv_rhs<P>(std::forward<R>(rhs));
                    auto run = [&](const auto& epi) {
                        if constexpr (P::depthwise)
                            detail::conv_depthwise<G, P::border>(a.data(), w.data(), res.data(), true, epi);
                        else
                            detail::conv_direct<G>(detail::conv_in(a), w.data(), res.data(), true, epi);
                    };
                    if (!detail::may_alias(e, res.data(), res.data() + res.size())) {
                        if constexpr (detail::feature_epilogue_node<E, P::N> && std::is_same_v<typename P::O, float> &&
                                      (P::depthwise ? G.o % xsimd::batch<float>::size == 0 // (whole vectors)
                                                    : detail::conv_direct_register_epilogue_ok<G, float>)) {
                            if (detail::feature_epilogue_reads(e, res.data())) {
                                run(detail::conv_feature_epilogue<E, typename P::O>{e});
                                return res;
                            }
                        }
                        run([&](std::size_t b, std::size_t end) { Ev::run_range(res.data(), n, b, end); });
                        return res;
                    }
                    run(detail::conv_no_epilogue{}); // it reads the result elsewhere: after the convolution
                    return eval(e);
                }
            }
        }
        auto y = conv_general_dilated<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
        if constexpr (std::is_same_v<tensor_type_of<std::invoke_result_t<F&, map_t>>, res_t>) {
            y = epilogue(map_t(y.data())); // in place: no second result-sized array (a temporary only if it must)
            return y;
        } else {
            return eval(epilogue(map_t(y.data())));
        }
    }
}

// Conv(lhs, rhs, window_strides, padding (SAME / VALID), feature_group_count, batch_group_count):
// default dimension numbers ([b, f, spatial...], kernel [o, i, spatial...]), no dilation.
template<conv_config Cf, class Out = void, expression L, expression R>
auto conv(L&& lhs, R&& rhs) {
    constexpr bool c1 = detail::conv_form_ok<Cf>({false, false, false});
    static_assert(diag::got<c1, detail::shown_t<L>, detail::shown_t<R>>::value,
                  "xlet::conv [C1]: conv takes pad_mode::same or valid, default dimension numbers and no dilation or "
                  "reversal (see conv_with_general_padding, conv_with_general_dimensions, conv_general_dilated)");
    if constexpr (c1) return conv_general_dilated<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
}

// ConvWithGeneralPadding: explicit (low, high) padding, default dimension numbers, no dilation.
template<conv_config Cf, class Out = void, expression L, expression R>
auto conv_with_general_padding(L&& lhs, R&& rhs) {
    constexpr bool c1 = detail::conv_form_ok<Cf>({true, false, false});
    static_assert(diag::got<c1, detail::shown_t<L>, detail::shown_t<R>>::value,
                  "xlet::conv_with_general_padding [C1]: explicit padding, default dimension numbers and no "
                  "dilation or reversal (see conv_general_dilated)");
    if constexpr (c1) return conv_general_dilated<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
}

// ConvWithGeneralDimensions: SAME / VALID padding, explicit dimension numbers, no dilation.
template<conv_config Cf, class Out = void, expression L, expression R>
auto conv_with_general_dimensions(L&& lhs, R&& rhs) {
    constexpr bool c1 = detail::conv_form_ok<Cf>({false, true, false});
    static_assert(diag::got<c1, detail::shown_t<L>, detail::shown_t<R>>::value,
                  "xlet::conv_with_general_dimensions [C1]: pad_mode::same or valid, any dimension numbers, no "
                  "dilation or reversal (see conv_general, conv_general_dilated)");
    if constexpr (c1) return conv_general_dilated<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
}

// ConvGeneral: explicit padding and dimension numbers, no dilation.
template<conv_config Cf, class Out = void, expression L, expression R>
auto conv_general(L&& lhs, R&& rhs) {
    constexpr bool c1 = detail::conv_form_ok<Cf>({true, true, false});
    static_assert(diag::got<c1, detail::shown_t<L>, detail::shown_t<R>>::value,
                  "xlet::conv_general [C1]: explicit padding, any dimension numbers, no dilation or reversal (see "
                  "conv_general_dilated)");
    if constexpr (c1) return conv_general_dilated<Cf, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
}

} // namespace xlet
