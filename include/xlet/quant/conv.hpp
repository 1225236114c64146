// Convolution on quantized operands (StableHLO convolution "for quantized types" and "for hybrid
// quantized types"); ops/conv/conv.hpp sends conv_general_dilated and its shorter forms here:
//   conv_general_dilated<cfg, R>(qx, qw)   qx per-tensor quantized, qw quantized per tensor or per
//                                          axis along kernel_output_feature_dimension, R the
//                                          quantized result type (per axis when qw is, along
//                                          output_feature_dimension); R may be left out when qx and
//                                          qw have one type
//   conv_general_dilated<cfg>(x, qw)       hybrid: x floating (qw's expressed type), result x's type
// Semantics (docs/semantics.md "Quantization"): as quantized dot_general, the window sums exact in
// int32, acc = sum (x - zx)(w - zw_o), then requantized per output feature o with the f32 combined
// scale M_o = float(double(sx) * double(sw_o) / double(sr_o)). Padding and lhs-dilation holes hold
// the lhs zero point (the stored integer of the real 0, as the spec pads the dequantized lhs with
// 0), so they add nothing. rhs zero points may be nonzero here (the spec's convolution has no
// dot_general C15): their term zw_o * (sum of the window) is subtracted per row.
// Evaluation: the lhs's stored integers in the canonical padded buffer of ops/conv/conv.hpp
// (kernels/conv.hpp's conv_pack_input, filled with the zero point), the kernel in [taps][ci][o]
// (window reversal applied), then one of two paths (quant_conv_path; the same bits, the sums being
// exact mod 2^32 and the requantization one function):
//   direct  (8-bit storage with spatial dimensions; automatic when a line has at least MR output
//           positions) kernels/conv_i8.hpp: the float convolution's direct scheme on gemm_i8's
//           register tile, the input read in place (VNNI: its bytes xor 0x80, undone by a
//           per-feature term of the kernel's column sums folded into the requantization offsets;
//           AVX2: widened to int16), the kernel packed once; each finished tile gets the rhs
//           zero-point term and requantize_block into the result's layout.
//   im2col  (16/32-bit storage, no spatial dimensions, lines shorter than a tile) in blocks of
//           output positions, per group: the windows (the runs of kernels/conv.hpp: contiguous
//           stretches of a window) into a scratch [positions][taps * ci] matrix, the integer GEMM
//           (kernels/gemm_q.hpp: gemm_i8 for 8-bit storage) into an int32 block, the SIMD
//           requantization.
// Hybrid: the kernel dequantized once, then the float convolution.
// Rules (StableHLO convolution numbering), after the shape rules C1-C25 (ops/conv/conv.hpp):
//   I1  lhs is a tensor or a per-tensor quantized tensor
//   C28 with a quantized operand, rhs is quantized and the result quantized exactly when lhs is;
//       quantized operands of different types need the result type
//   C29 a per-axis rhs is quantized along kernel_output_feature_dimension
//   C30 a per-axis result is quantized along output_feature_dimension
//   C31 quantized lhs and rhs: the same storage type
//   C32 quantized lhs, rhs and result: the same expressed type
//   C33 a per-tensor rhs gives a per-tensor result
//   C34 hybrid (float lhs): element_type(lhs) = expressed_type(rhs) = element_type(result)
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "../kernels/conv_i8.hpp"
#include "../ops/conv/conv.hpp"
#include "dot.hpp"

namespace xlet::detail {

template<conv_config Cf, class L, class R, class Out>
struct quant_conv_rules {
    using shape = conv_rules<Cf, L, R, Out>;
    using TR = element_of<R>;
    using types = quant_dot_types<element_of<L>, TR, Out>;
    using result = typename types::result;
    static constexpr bool c29 = !is_per_axis_quantized<TR> || !shape::dims_ok || quant_axis<TR>() == shape::ker.a;
    static constexpr bool c30 =
        !is_per_axis_quantized<result> || !shape::dims_ok || quant_axis<result>() == shape::out.b;
    static constexpr bool ok = shape::shape_ok && types::ok && c29 && c30;
};

// The lhs's stored integers in the canonical padded buffer [nb][p_0..p_{s-1}][c] (padding and
// holes: fill).
template<class P, class S, class X>
void quant_conv_input(X&& x, S fill, S* dst) {
    using Rules = typename P::Rules;
    const auto& arr = as_array(std::forward<X>(x));
    const S* src = stored_integers(arr.data());
    if constexpr (P::NS > 0) {
        conv_pack_input(conv_pack_of<P, true, S>, src, dst, fill);
    } else { // [nb][c] from any layout of a rank-2 lhs
        constexpr auto st = row_major_strides(Rules::le);
        constexpr auto sb = st[static_cast<std::size_t>(Rules::in.a)], sf = st[static_cast<std::size_t>(Rules::in.b)];
        for (std::size_t n = 0; n < Rules::lb; ++n)
            for (std::size_t f = 0; f < Rules::lf; ++f)
                dst[n * Rules::lf + f] = src[static_cast<std::ptrdiff_t>(n) * sb + static_cast<std::ptrdiff_t>(f) * sf];
    }
}

// The kernel's stored integers as [taps][ci][o] (taps row-major, reversed where window_reversal
// says), from any layout.
template<class P, class S, class X>
void quant_conv_kernel(X&& x, S* dst) {
    using Rules = typename P::Rules;
    constexpr auto& G = P::geom;
    using Lay = conv_layout_of<G>;
    const auto& arr = as_array(std::forward<X>(x));
    const S* src = stored_integers(arr.data());
    constexpr auto st = row_major_strides(Rules::re);
    constexpr auto si = st[static_cast<std::size_t>(Rules::ker.b)], so = st[static_cast<std::size_t>(Rules::ker.a)];
    for (std::size_t t = 0; t < Lay::taps; ++t) {
        std::ptrdiff_t off = 0;
        std::size_t rest = t;
        for (std::size_t d = G.ns; d-- > 0;) {
            const std::size_t kd = rest % G.k[d];
            rest /= G.k[d];
            const std::size_t k = P::sp.rev[d] ? G.k[d] - 1 - kd : kd;
            off += static_cast<std::ptrdiff_t>(k) * st[static_cast<std::size_t>(Rules::ker.sp[d])];
        }
        for (std::size_t i = 0; i < G.ci; ++i)
            for (std::size_t o = 0; o < G.o; ++o)
                dst[(t * G.ci + i) * G.o + o] =
                    src[off + static_cast<std::ptrdiff_t>(i) * si + static_cast<std::ptrdiff_t>(o) * so];
    }
}

// Output positions per block: the im2col block and the int32 block stay within a few MiB.
inline constexpr std::size_t quant_conv_block_bytes = std::size_t{4} << 20;

// Which evaluation the quantized convolution takes (see the header comment): automatic (the direct
// kernel where quant_conv_direct_auto says so), im2col, or direct (wherever the direct kernel
// exists: 8-bit storage, spatial dimensions, an 8-bit GEMM kernel for the ISA; else im2col). Both
// give the same bits. For tests and benchmarks: set it between calls, not during one.
enum class quant_conv_path_kind { automatic, im2col, direct };
inline std::atomic<quant_conv_path_kind> quant_conv_path{quant_conv_path_kind::automatic};
// Room after the input buffer for the direct kernel's last words (conv_i8_spare).
inline constexpr std::size_t quant_conv_spare = 4;

template<class P, class S>
consteval bool quant_conv_direct_exists() {
#ifdef XLET_GEMM_I8_KERNEL
    return gemm_i8_operand<S> && P::NS > 0 && conv_layout_of<P::geom>::K > 0;
#else
    return false;
#endif
}
// Automatic: the direct kernel for lines of at least a tile's rows (shorter ones leave most of the
// tile's rows empty, which the im2col GEMM fills with positions of other lines).
template<class P, class S>
consteval bool quant_conv_direct_auto() {
#ifdef XLET_GEMM_I8_KERNEL
    if constexpr (quant_conv_direct_exists<P, S>()) return conv_layout_of<P::geom>::ow >= gemm_i8_blocking::MR;
#endif
    return false;
}

// im2col: in blocks of output positions, per group, the windows' stored integers into a
// [positions][K] matrix, the integer GEMM into an int32 block, the requantization.
template<class P, class K, class S, class SO>
void quant_conv_im2col(const S* in, const S* w, const requant_table& t, SO* out) {
    constexpr auto& G = P::geom;
    using Lay = conv_layout_of<G>;
    constexpr std::size_t NS = P::NS;
    constexpr std::size_t KK = Lay::K, O = G.o, og = Lay::og, ow = Lay::ow;
    constexpr std::size_t rows = Lay::out_size / O; // output positions
    constexpr std::ptrdiff_t RS = NS == 0 ? 0 : static_cast<std::ptrdiff_t>(G.s[NS - 1] * G.c);
    using Rn = conv_runs<G, std::size_t(-1)>;
    auto out_offset = [](std::size_t r) { // result offset of output position r (group 0's lines)
        std::ptrdiff_t off = Lay::line(r / ow).out;
        if constexpr (NS > 0) off += static_cast<std::ptrdiff_t>(r % ow) * G.oss[NS - 1];
        return off;
    };
    const std::size_t block =
        std::clamp<std::size_t>(quant_conv_block_bytes / std::max(KK + 4 * O, std::size_t{1}), std::size_t{1}, rows);
    scratch<S> a(block * KK);
    scratch<std::int32_t> acc(block * O);
    for (std::size_t r0 = 0; r0 < rows; r0 += block) {
        const std::size_t nr = std::min(block, rows - r0);
        for (std::size_t g = 0; g < G.groups; ++g) {
            // im2col: row r of group g reads the window of output position r0 + r
            quant_rows(nr, KK, true, [&](std::size_t i0, std::size_t i1) {
                for (std::size_t i = i0; i < i1; ++i) {
                    const std::size_t r = r0 + i;
                    const S* base = in + Lay::line(g * (G.nb_out * Lay::outer) + r / ow).in +
                                    static_cast<std::ptrdiff_t>(r % ow) * RS;
                    S* dst = a.data() + i * KK;
                    for (const conv_run& run : Rn::runs) {
                        std::copy_n(base + run.off, run.len, dst);
                        dst += run.len;
                    }
                }
            });
            qgemm_raw(nr, og, KK, a.data(), static_cast<std::ptrdiff_t>(KK), 1, w + g * og,
                      static_cast<std::ptrdiff_t>(O), 1, acc.data() + g * og, static_cast<std::ptrdiff_t>(O));
            if constexpr (!K::zb_zero) { // - zw_o * (sum of the window), per row
                quant_rows(nr, KK, true, [&](std::size_t i0, std::size_t i1) {
                    for (std::size_t i = i0; i < i1; ++i) {
                        const std::int32_t s = qgemm_row_sum(KK, a.data() + i * KK, 1);
                        std::int32_t* c = acc.data() + i * O + g * og;
                        for (std::size_t j = 0; j < og; ++j)
                            c[j] = wrap_add(c[j], wrap_mul(-K::zb[K::channels == 1 ? 0 : g * og + j], s));
                    }
                });
            }
        }
        quant_rows(nr, O, true, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i)
                requantize_row(acc.data() + i * O, O, t, K::range, out + out_offset(r0 + i), G.osf);
        });
    }
}

#ifdef XLET_GEMM_I8_KERNEL
// Direct (kernels/conv_i8.hpp): in holds the stored integers and room for conv_i8_spare more (it
// is changed); t the parameters for the stored integers' sums (the VNNI flip's correction, from
// the kernel's column sums, is added to its offsets).
template<class P, class K, class S, class SO>
void quant_conv_direct(S* in, const S* w, const std::int32_t* col_sums, requant_table& t, SO* out) {
    static_assert(conv_i8_spare <= quant_conv_spare);
    constexpr auto& G = P::geom;
    using Lay = conv_layout_of<G>;
    using Ly = conv_i8_layout<G>;
    constexpr std::size_t NS = P::NS, O = G.o, og = Lay::og, ow = Lay::ow, NR = Ly::NR;
    constexpr std::size_t in_size = G.nb_in * static_cast<std::size_t>(Lay::in_batch_stride);
    constexpr std::ptrdiff_t RS = static_cast<std::ptrdiff_t>(G.s[NS - 1] * G.c);
    constexpr std::ptrdiff_t CR = G.oss[NS - 1], CF = G.osf;
    // - zw_o * (sum of the window of each output position), from the stored integers
    scratch<std::int32_t> ws(K::zb_zero ? 0 : Lay::lines * ow);
    if constexpr (!K::zb_zero)
        quant_rows(Lay::lines, ow * Lay::K, true, [&](std::size_t l0, std::size_t l1) {
            for (std::size_t l = l0; l < l1; ++l) {
                const S* base = in + Lay::line(l).in;
                for (std::size_t x = 0; x < ow; ++x) {
                    std::uint32_t s = 0;
                    for (const conv_run& run : Ly::Rn::runs)
                        s += static_cast<std::uint32_t>(
                            qgemm_row_sum(run.len, base + static_cast<std::ptrdiff_t>(x) * RS + run.off, 1));
                    ws[l * ow + x] = static_cast<std::int32_t>(s);
                }
            }
        });
    static constexpr std::array<std::int32_t, O> nzb = [] {
        std::array<std::int32_t, O> r{};
        for (std::size_t f = 0; f < O; ++f)
            r[f] = -K::zb[K::channels == 1 ? 0 : f];
        return r;
    }();
    if constexpr (conv_i8_correction<S> != 0)
        for (std::size_t f = 0; f < O; ++f)
            t.off[f] = wrap_add(t.off[f], wrap_mul(conv_i8_correction<S>, col_sums[f]));
    scratch<conv_i8_elem> wide(gemm_i8_isa::vnni ? 0 : in_size + conv_i8_spare);
    const conv_i8_elem* a = conv_i8_prepare(in, in_size, wide.data());
    scratch<std::uint32_t> packed(Ly::packed_words);
    conv_i8_pack<G>(w, packed.data());
    conv_i8_direct<G, S>(
        a, packed.data(),
        [&](std::size_t l, std::size_t x0, std::size_t j0, const std::int32_t* s, std::ptrdiff_t lds, std::size_t mr,
            std::size_t nr) {
            const auto at = Lay::line(l);
            const std::size_t f0 = at.group * og + j0;
            const requant_cols cols = t.cols(f0);
            SO* o = out + at.out + static_cast<std::ptrdiff_t>(x0) * CR + static_cast<std::ptrdiff_t>(j0) * CF;
            if constexpr (!K::zb_zero) {
                alignas(64) std::int32_t fixed[gemm_i8_blocking::MR * NR];
                for (std::size_t i = 0; i < mr; ++i) {
                    const std::int32_t sw = ws[l * ow + x0 + i];
                    for (std::size_t j = 0; j < nr; ++j)
                        fixed[i * NR + j] =
                            wrap_add(s[static_cast<std::ptrdiff_t>(i) * lds + static_cast<std::ptrdiff_t>(j)],
                                     wrap_mul(nzb[f0 + j], sw));
                }
                requantize_block(fixed, static_cast<std::ptrdiff_t>(NR), mr, nr, cols, K::range, o, CR, CF);
            } else {
                requantize_block(s, lds, mr, nr, cols, K::range, o, CR, CF);
            }
        });
}
#endif

template<conv_config Cf, class QO, class L, class R>
auto quant_conv_impl(L&& lhs, R&& rhs) {
    using P = conv_plan<Cf, L, R, QO>;
    using QL = element_of<L>;
    using QR = element_of<R>;
    using S = storage_t<QL>;
    using K = quant_dot_params<QL, QR, QO>;
    constexpr std::size_t N = P::N;
    using out_t = typename tensor_of_impl<QO, P::out_extents, std::make_index_sequence<N>>::type;
    constexpr auto& G = P::geom;
    using Lay = conv_layout_of<G>;
    constexpr std::size_t total = Lay::out_size;
    out_t res = [] {
        if constexpr (total > 0)
            return out_t(no_init); // every element is written below
        else
            return out_t();
    }();
    if constexpr (total > 0) {
        constexpr std::size_t KK = Lay::K, O = G.o;
        constexpr std::size_t in_size = G.nb_in * static_cast<std::size_t>(Lay::in_batch_stride);
        scratch<S> in(in_size + quant_conv_spare);
        quant_conv_input<P>(std::forward<L>(lhs), static_cast<S>(K::za), in.data());
        scratch<S> w(KK * O);
        quant_conv_kernel<P>(std::forward<R>(rhs), w.data());
        // per output feature: channel (per-axis rhs: the feature), correction from its column sum
        requant_table t(O);
        scratch<std::int32_t> sums(O);
        qgemm_col_sums(O, KK, w.data(), static_cast<std::ptrdiff_t>(O), 1, sums.data());
        for (std::size_t f = 0; f < O; ++f)
            K::set(t, f, K::channels == 1 ? 0 : f, KK, sums[f]);
        auto* out = stored_integers(res.data());
        if constexpr (quant_conv_direct_exists<P, S>()) {
            const quant_conv_path_kind path = quant_conv_path.load(std::memory_order_relaxed);
            if (path == quant_conv_path_kind::direct ||
                (path == quant_conv_path_kind::automatic && quant_conv_direct_auto<P, S>())) {
                quant_conv_direct<P, K>(in.data(), w.data(), sums.data(), t, out);
                return res;
            }
        }
        quant_conv_im2col<P, K>(in.data(), w.data(), t, out);
    }
    return res;
}

// Declared in ops/conv/conv.hpp.
template<conv_config Cf, class Out, class L, class R>
auto quant_conv(L&& lhs, R&& rhs) {
    using Rules = quant_conv_rules<Cf, L, R, Out>;
    using Types = typename Rules::types;
    using Shape = typename Rules::shape;
    using SL = shown_t<L>;
    using SR = shown_t<R>;
    XLET_QUANT_DOT_TYPE_ASSERTS("xlet::conv_general_dilated", "C28", "C31", "C32", "C33", "C34", Types, SL, SR, Out);
    static_assert(diag::got<Rules::c29, SL, SR>::value,
                  "xlet::conv_general_dilated [C29]: a per-axis quantized rhs must be quantized along "
                  "kernel_output_feature_dimension");
    static_assert(diag::got<Rules::c30, SL, SR, Out>::value,
                  "xlet::conv_general_dilated [C30]: a per-axis quantized result must be quantized along "
                  "output_feature_dimension");
    if constexpr (Shape::check_shape() && Rules::ok) {
        using Res = typename Rules::result;
        return trace::heavy(
            "stablehlo.convolution", [] { return conv_attrs<Shape>(Cf); },
            [&] {
                if constexpr (is_quantized<Res>)
                    return quant_conv_impl<Cf, Res>(std::forward<L>(lhs), std::forward<R>(rhs));
                else // hybrid: the kernel dequantized once, then the float convolution
                    return conv_impl<Cf, void>(std::forward<L>(lhs), eval(uniform_dequantize(std::forward<R>(rhs))));
            },
            lhs, rhs);
    }
}

} // namespace xlet::detail
