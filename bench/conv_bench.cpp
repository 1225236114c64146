// Convolution benchmarks (issue #14): f32 convolutions of common CNN shapes, each at 1 and 2
// threads, GFLOP/s in the counter "FLOP/s" (2 N OH OW K (C / groups) KH KW per convolution; the
// data gradient counts the forward convolution's FLOPs). Names: BM_conv_<case>/<peer>/threads:<t>.
//
//   resnet3x3_nhwc / _nchw   N=8 C=64 56x56 K=64 3x3 stride 1 pad 1 (weights HWIO / OIHW)
//   stem7x7_nhwc / _nchw     N=1 C=3 224x224 K=64 7x7 stride 2 pad 3 -> 112x112
//   dw3x3_nhwc               depthwise: N=8 C=256 28x28 3x3 stride 1 pad 1, feature_group_count 256
//                            (weights HWIO [3,3,1,256])
//   1x1_nhwc                 N=8 C=256 14x14 K=512 1x1
//   dgrad3x3_nhwc            the data gradient (transposed convolution) of resnet3x3_nhwc:
//                            dx[8,56,56,64] from dy[8,56,56,64] and the forward's HWIO weights
//   resnet3x3_bias_relu_nhwc, dw3x3_bias_relu_nhwc
//                            those convolutions followed by y = max(y + bias[k], 0) (FLOP/s counts
//                            the convolution's FLOPs only)
//
// Peers:
//   onednn           oneDNN's convolution primitive (forward_inference; the data gradient:
//                    convolution_backward_data with a forward_training hint) on the case's memory
//                    formats (nhwc / nchw) for source and destination, format_tag::any for the
//                    weights as oneDNN's users do: the weights are reordered once to the layout the
//                    primitive picked. Primitive creation and that reorder are outside the timed
//                    loop, which times execute + stream wait only. The label names the
//                    implementation oneDNN chose (impl_info_str).
//   onednn_blocked   (resnet3x3 only) oneDNN with format_tag::any for source and destination too:
//                    its native blocked layout (nChw16c), input reordered once outside the loop.
//                    oneDNN's best case, not a like-for-like layout: a network would stay blocked.
//   im2col_openblas  im2col (TBB static_parallel over output rows) + cblas_sgemm, the im2col
//                    buffer allocated outside the loop, im2col + sgemm timed. NHWC: one sgemm
//                    [N OH OW, KH KW C] x [KH KW C, K] (1x1: im2col is the identity, x is the A
//                    operand); groups: Caffe's scheme, one im2col panel and one sgemm per group
//                    (depthwise: 256 sgemms with n = 1). NCHW: per image [K, C KH KW] x
//                    [C KH KW, OH OW]. Data gradient: col2im, i.e. dcols = dy [N OH OW, K] x W^T
//                    [K, KH KW C] (one sgemm), then a scatter-add of dcols into dx (TBB over images).
//   loop             (depthwise only) a direct loop, SIMD over the channels by the compiler.
//   xlet             (added when <xlet/ops/conv/conv.hpp> exists) conv_general_dilated assigned
//                    into an existing tensor; bias_relu: with the epilogue as its third argument
//                    (run by the kernel on each task's output lines while they are in cache).
//   xlet_two_pass    (bias_relu) max(add(conv_general_dilated(x, w), b, dims<3>), 0.0f): the
//                    convolution, then the element-wise pass, as a user writes it without the
//                    epilogue argument.
//   oneDNN on bias_relu: the primitive with a bias and an eltwise_relu post-op (fused by oneDNN);
//   im2col_openblas: im2col + sgemm, then a bias/relu pass (TBB over output rows).
//
// Threads: xlet and the TBB loops of the im2col and loop peers run under tbb::global_control;
// OpenBLAS (Debian's pthread build) under openblas_set_num_threads. oneDNN: Debian's libdnnl 2.6.3
// is built with DNNL_CPU_RUNTIME = OMP (libgomp): its thread count is omp_get_max_threads() in the
// calling thread, which the benchmark sets with omp_set_num_threads(t) before it creates the
// primitive (oneDNN's JIT kernels fix their thread partition when the primitive is created). A TBB
// build would be limited by the same tbb::global_control as xlet; a sequential build runs the
// 1-thread cases only.
//
// Paired form: BM_conv_<case>/paired_with_onednn/threads:<t> runs xlet and oneDNN alternately in
// one timed loop (bench_common.hpp, run_paired); the counter `ratio` is the median of the
// per-iteration speed ratios (> 1: xlet faster), which the host's drift does not move. libgomp's
// threads spin for a while after each parallel region (OMP_WAIT_POLICY active) and took the cores
// from xlet's TBB workers right after each oneDNN call (2 threads: ratio 0.70 instead of 0.93), so
// main() re-executes the benchmark with OMP_WAIT_POLICY=passive unless the variable is set
// (libgomp reads it when it is loaded, before main). oneDNN's own time did not change with it.
//
// Correctness (outside timing): every peer's output is compared with im2col_openblas's over all
// elements and reported as the counter rel_err = max |y - y_im2col| / max |y_im2col|; a run with
// rel_err > 1e-4 is marked as an error. rel_err = 0 means bit-identical: that peer sums each
// output's products in im2col's order (taps, then input features) with the same FMAs.
// im2col_openblas itself is checked against a direct sum in double at 257 sampled output elements
// (counter rel_err there).
//
// The peers, the checks and the benchmark body: conv_peers.hpp.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <unistd.h>

#if __has_include(<xlet/ops/conv/conv.hpp>)
#include <xlet/core/tensor.hpp>
#include <xlet/ops/conv/conv.hpp>
#include <xlet/ops/elementwise.hpp>
#define XLET_BENCH_HAVE_XLET_CONV 1
#endif

#include "conv_peers.hpp"

namespace xlet_bench {
namespace {

// ---- the cases ----------------------------------------------------------------------------------------

enum case_id {
    resnet_nhwc,
    resnet_nchw,
    stem_nhwc,
    stem_nchw,
    dw_nhwc,
    pw_nhwc,
    dgrad_nhwc,
    resnet_bias_relu,
    dw_bias_relu,
    n_cases
};
constexpr conv_case cases[n_cases] = {
    {"resnet3x3_nhwc", false, false, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1},
    {"resnet3x3_nchw", true, false, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1},
    {"stem7x7_nhwc", false, false, 1, 3, 224, 224, 64, 7, 7, 2, 3, 1},
    {"stem7x7_nchw", true, false, 1, 3, 224, 224, 64, 7, 7, 2, 3, 1},
    {"dw3x3_nhwc", false, false, 8, 256, 28, 28, 256, 3, 3, 1, 1, 256},
    {"1x1_nhwc", false, false, 8, 256, 14, 14, 512, 1, 1, 1, 0, 1},
    {"dgrad3x3_nhwc", false, true, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1},
    {"resnet3x3_bias_relu_nhwc", false, false, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1, true},
    {"dw3x3_bias_relu_nhwc", false, false, 8, 256, 28, 28, 256, 3, 3, 1, 1, 256, true},
};

// The inputs of case `id`, made on first use (conv_peers.hpp: make_inputs).
case_data& data(int id) {
    static std::unique_ptr<case_data> d[n_cases];
    if (!d[id]) {
        d[id] = std::make_unique<case_data>();
        make_inputs(*d[id], cases[id], id);
    }
    return *d[id];
}

// ---- xlet ----
// conv_general_dilated on static-shape tensors, assigned into an existing tensor. Each case gives its
// tensor types and conv_config; the inputs are copies of the peers' data, and the output is compared
// with im2col_openblas's like every peer's. The cases are registered in register_all() below.
#if defined(XLET_BENCH_HAVE_XLET_CONV)
// The bias_relu cases take the epilogue as conv_general_dilated's third argument (`epilogue`) or
// the plain expression, the convolution then an element-wise pass (`two_pass`).
enum class xlet_form { plain, epilogue, two_pass };
template<class X, class W, class Y, xlet::conv_config Cfg, xlet_form Form = xlet_form::plain>
struct xlet_peer final : peer {
    static constexpr bool bias = Form != xlet_form::plain;
    static constexpr std::size_t K = Y::extents[3]; // NHWC output features (the bias forms)
    std::unique_ptr<X> x = std::make_unique<X>();
    std::unique_ptr<W> w = std::make_unique<W>();
    std::unique_ptr<Y> y = std::make_unique<Y>();
    xlet::f32<bias ? K : 0> b;
    explicit xlet_peer(const conv_case& cs, const case_data& d) {
        if (x->size() != cs.in_size() || w->size() != cs.w_size() || y->size() != cs.out_size() ||
            bias != cs.bias_relu || (bias && static_cast<std::size_t>(cs.k) != K))
            throw std::logic_error("xlet_peer: tensor types do not match the case");
        std::copy_n(d.x.get(), x->size(), x->data());
        std::copy_n(d.w.get(), w->size(), w->data());
        if constexpr (bias) std::copy_n(d.b.get(), K, b.data());
        label = Form == xlet_form::plain      ? "conv_general_dilated"
                : Form == xlet_form::epilogue ? "conv_general_dilated(x, w, epilogue)"
                                              : "max(add(conv_general_dilated(x, w), b), 0)";
    }
    void run() override {
        if constexpr (Form == xlet_form::plain)
            *y = xlet::conv_general_dilated<Cfg>(*x, *w);
        else if constexpr (Form == xlet_form::epilogue)
            *y = xlet::conv_general_dilated<Cfg>(
                *x, *w, [&](auto v) { return xlet::max(xlet::add(v, b, xlet::dims<3>), 0.0f); });
        else
            *y = xlet::max(xlet::add(xlet::conv_general_dilated<Cfg>(*x, *w), b, xlet::dims<3>), 0.0f);
    }
    const float* out() override { return y->data(); }
};

using xlet::conv_config;
using xlet::conv_layout;
using xlet::f32;
constexpr conv_config cfg_resnet_nhwc{.window_strides = {1, 1},
                                      .padding_low = {1, 1},
                                      .padding_high = {1, 1},
                                      .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
constexpr conv_config cfg_resnet_nchw{.window_strides = {1, 1},
                                      .padding_low = {1, 1},
                                      .padding_high = {1, 1},
                                      .dimension_numbers = conv_layout("NCHW", "OIHW", "NCHW")};
constexpr conv_config cfg_stem_nhwc{.window_strides = {2, 2},
                                    .padding_low = {3, 3},
                                    .padding_high = {3, 3},
                                    .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
constexpr conv_config cfg_stem_nchw{.window_strides = {2, 2},
                                    .padding_low = {3, 3},
                                    .padding_high = {3, 3},
                                    .dimension_numbers = conv_layout("NCHW", "OIHW", "NCHW")};
constexpr conv_config cfg_dw{.window_strides = {1, 1},
                             .padding_low = {1, 1},
                             .padding_high = {1, 1},
                             .dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC"),
                             .feature_group_count = 256};
constexpr conv_config cfg_pw{.dimension_numbers = conv_layout("NHWC", "HWIO", "NHWC")};
// The data gradient as a convolution of dy with the forward's HWIO kernel read as HWOI (its I and O
// swapped) and both spatial dimensions reversed; padding K - 1 - pad = 1 on each side (stride 1).
constexpr conv_config cfg_dgrad{.padding_low = {1, 1},
                                .padding_high = {1, 1},
                                .dimension_numbers = conv_layout("NHWC", "HWOI", "NHWC"),
                                .window_reversal = {1, 1}};

using xlet_resnet_nhwc = xlet_peer<f32<8, 56, 56, 64>, f32<3, 3, 64, 64>, f32<8, 56, 56, 64>, cfg_resnet_nhwc>;
using xlet_resnet_nchw = xlet_peer<f32<8, 64, 56, 56>, f32<64, 64, 3, 3>, f32<8, 64, 56, 56>, cfg_resnet_nchw>;
using xlet_stem_nhwc = xlet_peer<f32<1, 224, 224, 3>, f32<7, 7, 3, 64>, f32<1, 112, 112, 64>, cfg_stem_nhwc>;
using xlet_stem_nchw = xlet_peer<f32<1, 3, 224, 224>, f32<64, 3, 7, 7>, f32<1, 64, 112, 112>, cfg_stem_nchw>;
using xlet_dw = xlet_peer<f32<8, 28, 28, 256>, f32<3, 3, 1, 256>, f32<8, 28, 28, 256>, cfg_dw>;
using xlet_pw = xlet_peer<f32<8, 14, 14, 256>, f32<1, 1, 256, 512>, f32<8, 14, 14, 512>, cfg_pw>;
using xlet_dgrad = xlet_peer<f32<8, 56, 56, 64>, f32<3, 3, 64, 64>, f32<8, 56, 56, 64>, cfg_dgrad>;
template<xlet_form Form>
using xlet_resnet_br = xlet_peer<f32<8, 56, 56, 64>, f32<3, 3, 64, 64>, f32<8, 56, 56, 64>, cfg_resnet_nhwc, Form>;
template<xlet_form Form>
using xlet_dw_br = xlet_peer<f32<8, 28, 28, 256>, f32<3, 3, 1, 256>, f32<8, 28, 28, 256>, cfg_dw, Form>;
#endif

// ---- the peers of a case, and the registration -------------------------------------------------------

enum class peer_kind { onednn, onednn_blocked, im2col_openblas, loop, xlet, xlet_two_pass };

std::unique_ptr<peer> make_peer(peer_kind k, int id) {
    const conv_case& cs = cases[id];
    case_data& d = data(id);
    switch (k) {
#if defined(XLET_BENCH_HAVE_OPENBLAS)
    case peer_kind::im2col_openblas:
        return std::make_unique<im2col_peer>(cs, d);
#endif
#if defined(XLET_BENCH_HAVE_DNNL)
    case peer_kind::onednn:
        return std::make_unique<onednn_peer>(cs, d, false);
    case peer_kind::onednn_blocked:
        return std::make_unique<onednn_peer>(cs, d, true);
#endif
    case peer_kind::loop:
        return std::make_unique<dw_loop_peer>(cs, d);
#if defined(XLET_BENCH_HAVE_XLET_CONV)
    case peer_kind::xlet:
        switch (id) {
        case resnet_nhwc:
            return std::make_unique<xlet_resnet_nhwc>(cs, d);
        case resnet_nchw:
            return std::make_unique<xlet_resnet_nchw>(cs, d);
        case stem_nhwc:
            return std::make_unique<xlet_stem_nhwc>(cs, d);
        case stem_nchw:
            return std::make_unique<xlet_stem_nchw>(cs, d);
        case dw_nhwc:
            return std::make_unique<xlet_dw>(cs, d);
        case pw_nhwc:
            return std::make_unique<xlet_pw>(cs, d);
        case dgrad_nhwc:
            return std::make_unique<xlet_dgrad>(cs, d);
        case resnet_bias_relu:
            return std::make_unique<xlet_resnet_br<xlet_form::epilogue>>(cs, d);
        case dw_bias_relu:
            return std::make_unique<xlet_dw_br<xlet_form::epilogue>>(cs, d);
        default:
            break;
        }
        break;
    case peer_kind::xlet_two_pass:
        if (id == resnet_bias_relu) return std::make_unique<xlet_resnet_br<xlet_form::two_pass>>(cs, d);
        if (id == dw_bias_relu) return std::make_unique<xlet_dw_br<xlet_form::two_pass>>(cs, d);
        break;
#endif
    default:
        break;
    }
    return nullptr;
}

void run_case(benchmark::State& st, int id, peer_kind kind, int threads) {
    run_peer(
        st, cases[id], kind == peer_kind::im2col_openblas, threads, [id]() -> case_data& { return data(id); },
        [kind, id] { return make_peer(kind, id); });
}

void reg_case(int id, peer_kind kind, const char* peer_name, int threads) {
    const std::string name =
        std::string("BM_conv_") + cases[id].name + "/" + peer_name + "/threads:" + std::to_string(threads);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [id, kind, threads](benchmark::State& st) { run_case(st, id, kind, threads); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

void reg_pair(int id, int threads) {
    const std::string name =
        std::string("BM_conv_") + cases[id].name + "/paired_with_onednn/threads:" + std::to_string(threads);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [id, threads](benchmark::State& st) {
                                     run_pair(
                                         st, threads, [id] { return make_peer(peer_kind::xlet, id); },
                                         [id] { return make_peer(peer_kind::onednn, id); });
                                 })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

void register_all() {
    for (int id = 0; id < n_cases; ++id)
        for (int t : {1, 2}) {
#if defined(XLET_BENCH_HAVE_XLET_CONV)
            reg_case(id, peer_kind::xlet, "xlet", t);
            if (cases[id].bias_relu) reg_case(id, peer_kind::xlet_two_pass, "xlet_two_pass", t);
#endif
#if defined(XLET_BENCH_HAVE_DNNL)
            if (t == 1 || dnnl_threaded) {
                reg_case(id, peer_kind::onednn, "onednn", t);
                if (id == resnet_nhwc) reg_case(id, peer_kind::onednn_blocked, "onednn_blocked", t);
#if defined(XLET_BENCH_HAVE_XLET_CONV)
                reg_pair(id, t);
#endif
            }
#endif
#if defined(XLET_BENCH_HAVE_OPENBLAS)
            reg_case(id, peer_kind::im2col_openblas, "im2col_openblas", t);
#endif
            if (id == dw_nhwc) reg_case(id, peer_kind::loop, "loop", t);
        }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) {
#if defined(XLET_BENCH_HAVE_DNNL)
    if (std::getenv("OMP_WAIT_POLICY") == nullptr && setenv("OMP_WAIT_POLICY", "passive", 1) == 0)
        execv("/proc/self/exe", argv); // (returns only on failure: then run as we are)
#endif
    return xlet_bench::bench_main(argc, argv, xlet_bench::register_all);
}
