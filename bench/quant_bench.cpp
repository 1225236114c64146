// Quantized-type benchmarks (issue #26). Counter "ops/s": 2 m n k per product (a multiply and an
// add per k, integer or float alike), so the int8 and f32 rows compare directly.
//
//   BM_i8_1024/<case>/<impl>/threads:<t>   [1024, 1024] x [1024, 1024], row-major, 1 and 2 threads
//     s8s8_s32/xlet       dot_general<{1}, {0}, std::int32_t>(s8 lhs, s8 rhs): the 8-bit GEMM
//     u8s8_s32/xlet       detail::gemm_i8<u8, s8> (dot_general takes one element type for both
//                         operands; mixed u8 x s8 is the kernel a quantized op calls)
//     f32/xlet            dot(f32, f32): the f32 GEMM the targets are measured against
//     <case>/onednn       oneDNN's matmul primitive, u8 x s8 -> s32 and s8 x s8 -> s32, row-major
//                         source, weights and destination (format_tag::ab: the same data as xlet
//                         reads, packed by oneDNN inside every call as xlet packs inside its own)
//     <case>/onednn_any   the same with format_tag::any weights, reordered once outside the loop
//                         to oneDNN's blocked layout: its best case for constant weights
//   BM_peak_<kind>/threads:<t>   the core's ceiling: independent FMAs (f32) or the 8-bit GEMM's
//                         multiply-add instruction (vpdpbusd with VNNI, vpmaddwd + vpaddd on AVX2)
//                         on the register tile's number of accumulators, per thread.
// Data: every byte value of the type (uniform over [-128, 127] and [0, 255]). Each oneDNN row
// compares its result with xlet's s8 x s8 or u8 x s8 product (outside the timed loop, every
// element; exact integer sums must be equal): counter "wrong" = the elements that differ, label
// "NOT EXACT" if any (oneDNN's AVX2 kernels, ONEDNN_MAX_CPU_ISA=AVX2, use vpmaddubsw, which
// saturates on full-range data; xlet's tests check xlet against a plain loop).
//   BM_qmlp/<impl>/threads:<t>   the MLP of examples/mlp.cpp (256 x 784 -> 512 relu -> 10, softmax
//                         cross-entropy) forward, examples/quantized_mlp_model.hpp: f32 is mlp::loss,
//                         int8 qmlp::loss (s8 per-tensor activations, s8 per-axis weights, i32
//                         per-axis dot results). ops/s: 2 B (784 512 + 512 10) per forward, for both.
//                         The int8 row times an f32 forward after each int8 one in its loop (this
//                         machine's speed drifts between runs): counters f32_ops/s and ratio, the
//                         median of the per-iteration ratios int8 ops/s / f32 ops/s (the issue's
//                         target: >= 2.5 with VNNI, >= 1.5 on AVX2); its time is the int8 forward's.
//   BM_qconv/<case>/<impl>/threads:<t>   quantized convolution, batch 1, NHWC input and result,
//                         HWIO kernel, s8 input, kernel and result (per-tensor, zero points 0, so
//                         that oneDNN computes the same function); ops/s: 2 (output elements) taps ci
//     3x3_56              56x56 64 -> 64, 3x3 stride 1 padding 1 (a ResNet block's)
//     stem_224            224x224 3 -> 64, 7x7 stride 2 padding 3 -> 112x112 (the ResNet stem)
//     impl: direct / im2col (xlet, detail::quant_conv_path forcing quant/conv.hpp's evaluation),
//     f32 (xlet's float convolution on the dequantized values), onednn (oneDNN's convolution
//     primitive, s8 x s8 -> s8 with the same f32 output scale; weights format_tag::any, reordered
//     once outside the loop). Counter "differ": the result elements where oneDNN's stored
//     integers differ from xlet's (its rounding of acc * scale may differ in the last place).
// Threads: TBB's global_control for xlet; oneDNN (Debian's libdnnl 2.6.3, OpenMP runtime) takes
// omp_set_num_threads before its primitive is created (see conv_bench.cpp). Results and the command:
// docs/performance.md.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <xlet/xlet.hpp>

#include <xlet/bench.hpp> // fma_loop: the f32 ceiling

#include "../examples/quantized_mlp_model.hpp"

#include "bench_common.hpp"
#include "bench_dnnl.hpp"

namespace xlet_bench {
namespace {

void set_ops(benchmark::State& st, double per_iteration) {
    st.counters["ops/s"] =
        benchmark::Counter(per_iteration * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

// ---- the 8-bit GEMM: 1024^3 --------------------------------------------------------------------

constexpr std::size_t n_sq = 1024;
constexpr double sq_ops = 2.0 * n_sq * n_sq * n_sq;
constexpr xlet::dot_dims mm{.lhs_contracting = {1}, .rhs_contracting = {0}};

template<class T>
std::unique_ptr<xlet::tensor<T, n_sq, n_sq>> make_bytes(std::uint32_t seed) {
    auto t = std::make_unique<xlet::tensor<T, n_sq, n_sq>>();
    fill(t->data(), t->size(), [&](std::size_t i) { return static_cast<T>(mix(i, seed) >> 24); });
    return t;
}
struct i8_data {
    std::unique_ptr<xlet::s8<n_sq, n_sq>> s8a = make_bytes<std::int8_t>(1), s8b = make_bytes<std::int8_t>(2);
    std::unique_ptr<xlet::u8<n_sq, n_sq>> u8a = make_bytes<std::uint8_t>(3);
    std::unique_ptr<xlet::f32<n_sq, n_sq>> fa = std::make_unique<xlet::f32<n_sq, n_sq>>(),
                                           fb = std::make_unique<xlet::f32<n_sq, n_sq>>();
    i8_data() {
        fill(fa->data(), fa->size(), [](std::size_t i) { return gen(i, 4, -1.0f, 1.0f); });
        fill(fb->data(), fb->size(), [](std::size_t i) { return gen(i, 5, -1.0f, 1.0f); });
    }
};
i8_data& i8() {
    static i8_data d;
    return d;
}

// xlet's u8 x s8 product into c (the kernel with its row-major strides).
void u8s8_xlet(std::int32_t* c) {
    auto& d = i8();
    constexpr auto n = static_cast<std::ptrdiff_t>(n_sq);
    xlet::detail::gemm_i8<std::uint8_t, std::int8_t>(n_sq, n_sq, n_sq, d.u8a->data(), n, 1, d.s8b->data(), n, 1, c, n);
}
// The reference results of the int8 rows (computed once, by xlet; the tests check xlet).
const std::int32_t* reference(bool u8_lhs) {
    static const auto ss = [] {
        auto r = make_buffer<std::int32_t>(n_sq * n_sq);
        auto c = xlet::dot_general<mm, std::int32_t>(*i8().s8a, *i8().s8b);
        std::memcpy(r.get(), c.data(), sizeof(std::int32_t) * n_sq * n_sq);
        return r;
    }();
    static const auto us = [] {
        auto r = make_buffer<std::int32_t>(n_sq * n_sq);
        u8s8_xlet(r.get());
        return r;
    }();
    return u8_lhs ? us.get() : ss.get();
}

void BM_s8s8_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = i8();
    for (auto _ : st) {
        auto c = xlet::dot_general<mm, std::int32_t>(*d.s8a, *d.s8b);
        benchmark::DoNotOptimize(c.data());
    }
    set_ops(st, sq_ops);
}

void BM_u8s8_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto c = make_buffer<std::int32_t>(n_sq * n_sq);
    for (auto _ : st) {
        u8s8_xlet(c.get());
        benchmark::DoNotOptimize(c.get());
    }
    set_ops(st, sq_ops);
}

void BM_f32_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = i8();
    for (auto _ : st) {
        auto c = xlet::dot(*d.fa, *d.fb);
        benchmark::DoNotOptimize(c.data());
    }
    set_ops(st, sq_ops);
}

#if defined(XLET_BENCH_HAVE_DNNL)
// oneDNN's matmul, [n, n] x [n, n] -> s32 row-major; weights in `wtag` (ab, or any: reordered once).
template<bool U8Src, bool AnyWeights>
void BM_onednn(benchmark::State& st, int threads) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    set_dnnl_threads(threads);
    tbb_threads t(threads);
    auto& d = i8();
    const auto n = static_cast<dnnl::memory::dim>(n_sq);
    try {
        dnnl::engine eng{dnnl::engine::kind::cpu, 0};
        dnnl::stream strm{eng};
        const dnnl::memory::desc a_md({n, n}, U8Src ? dt::u8 : dt::s8, tag::ab);
        const dnnl::memory::desc w_user({n, n}, dt::s8, tag::ab);
        const dnnl::memory::desc c_md({n, n}, dt::s32, tag::ab);
        const dnnl::matmul::desc md(a_md, AnyWeights ? dnnl::memory::desc({n, n}, dt::s8, tag::any) : w_user, c_md);
        const dnnl::matmul::primitive_desc pd(md, eng);
        const dnnl::matmul prim(pd);
        void* a_ptr = U8Src ? static_cast<void*>(d.u8a->data()) : static_cast<void*>(d.s8a->data());
        dnnl::memory a(a_md, eng, a_ptr), w_mem(w_user, eng, d.s8b->data());
        dnnl::memory w = w_mem;
        if (pd.weights_desc() != w_user) {
            w = dnnl::memory(pd.weights_desc(), eng);
            dnnl::reorder(w_mem, w).execute(strm, w_mem, w);
            strm.wait();
        }
        auto out = make_buffer<std::int32_t>(n_sq * n_sq);
        dnnl::memory c(c_md, eng, out.get());
        for (auto _ : st) {
            prim.execute(strm, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, c}});
            strm.wait();
        }
        set_ops(st, sq_ops);
        const std::int32_t* want = reference(U8Src);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n_sq * n_sq; ++i)
            wrong += out.get()[i] != want[i];
        st.counters["wrong"] = static_cast<double>(wrong);
        st.SetLabel(std::string(pd.impl_info_str()) + (wrong ? " NOT EXACT" : ""));
    } catch (const dnnl::error& e) {
        st.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
    }
}
#endif

// ---- quantized convolution ---------------------------------------------------------------------

template<std::int64_t H, std::int64_t C, std::int64_t KH, std::int64_t O, std::int64_t S, std::int64_t PAD>
struct qconv_case {
    static constexpr std::size_t OH = static_cast<std::size_t>((H + 2 * PAD - KH) / S + 1);
    static constexpr double ops = 2.0 * OH * OH * O * KH * KH * C;
    static constexpr xlet::conv_config cfg{.window_strides = {S, S},
                                           .padding_low = {PAD, PAD},
                                           .padding_high = {PAD, PAD},
                                           .dimension_numbers = xlet::conv_layout("NHWC", "HWIO", "NHWC")};
    using QX = xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.05), 0>;
    using QW = xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.01), 0>;
    // results mostly inside the s8 range: acc ~ sqrt(taps ci) 74^2 for uniform bytes
    using QY = std::conditional_t<KH == 3, xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(1.6), 0>,
                                  xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.8), 0>>;
    static constexpr auto h = static_cast<std::size_t>(H), c = static_cast<std::size_t>(C),
                          kh = static_cast<std::size_t>(KH), o = static_cast<std::size_t>(O);
    std::unique_ptr<xlet::tensor<QX, 1, h, h, c>> x = std::make_unique<xlet::tensor<QX, 1, h, h, c>>();
    std::unique_ptr<xlet::tensor<QW, kh, kh, c, o>> w = std::make_unique<xlet::tensor<QW, kh, kh, c, o>>();
    std::unique_ptr<xlet::f32<1, h, h, c>> xf = std::make_unique<xlet::f32<1, h, h, c>>();
    std::unique_ptr<xlet::f32<kh, kh, c, o>> wf = std::make_unique<xlet::f32<kh, kh, c, o>>();
    qconv_case() {
        for (std::size_t i = 0; i < x->size(); ++i)
            x->data()[i].stored = static_cast<std::int8_t>(mix(i, 11) >> 24);
        for (std::size_t i = 0; i < w->size(); ++i)
            w->data()[i].stored = static_cast<std::int8_t>(mix(i, 12) >> 24);
        *xf = xlet::uniform_dequantize(*x);
        *wf = xlet::uniform_dequantize(*w);
    }
    static qconv_case& get() {
        static qconv_case d;
        return d;
    }
    auto run() const { return xlet::conv_general_dilated<cfg, QY>(*x, *w); }
};

template<class Case, xlet::detail::quant_conv_path_kind Path>
void BM_qconv_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = Case::get();
    xlet::detail::quant_conv_path = Path;
    for (auto _ : st) {
        auto y = d.run();
        benchmark::DoNotOptimize(y.data());
    }
    xlet::detail::quant_conv_path = xlet::detail::quant_conv_path_kind::automatic;
    set_ops(st, Case::ops);
}
template<class Case>
void BM_qconv_f32(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = Case::get();
    for (auto _ : st) {
        auto y = xlet::conv_general_dilated<Case::cfg>(*d.xf, *d.wf);
        benchmark::DoNotOptimize(y.data());
    }
    set_ops(st, Case::ops);
}

#if defined(XLET_BENCH_HAVE_DNNL)
template<class Case>
void BM_qconv_onednn(benchmark::State& st, int threads) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    using dims = dnnl::memory::dims;
    set_dnnl_threads(threads);
    tbb_threads t(threads);
    auto& d = Case::get();
    constexpr auto H = static_cast<dnnl::memory::dim>(Case::h), C = static_cast<dnnl::memory::dim>(Case::c),
                   KH = static_cast<dnnl::memory::dim>(Case::kh), O = static_cast<dnnl::memory::dim>(Case::o),
                   OH = static_cast<dnnl::memory::dim>(Case::OH);
    const auto& sp = Case::cfg;
    try {
        dnnl::engine eng{dnnl::engine::kind::cpu, 0};
        dnnl::stream strm{eng};
        const dnnl::memory::desc x_md({1, C, H, H}, dt::s8, tag::nhwc), y_md({1, O, OH, OH}, dt::s8, tag::nhwc);
        const dnnl::memory::desc w_user({O, C, KH, KH}, dt::s8, dims{1, O, KH * C * O, C * O});
        const dnnl::memory::desc w_any({O, C, KH, KH}, dt::s8, tag::any);
        const dims strides{sp.window_strides[0], sp.window_strides[1]}, pad{sp.padding_low[0], sp.padding_low[1]};
        // xlet's combined scale: float(sx sw / sy) from the scales rounded to f32
        const auto m = static_cast<float>(static_cast<double>(0.05f) * static_cast<double>(0.01f) /
                                          static_cast<double>(static_cast<float>(Case::QY::scale)));
        dnnl::primitive_attr attr;
        attr.set_output_scales(0, {m});
        const dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_inference,
                                                 dnnl::algorithm::convolution_direct, x_md, w_any, y_md, strides, pad,
                                                 pad);
        const dnnl::convolution_forward::primitive_desc pd(fd, attr, eng);
        const dnnl::convolution_forward prim(pd);
        dnnl::memory src(x_md, eng, xlet::detail::stored_integers(d.x->data()));
        dnnl::memory w_mem(w_user, eng, xlet::detail::stored_integers(d.w->data()));
        dnnl::memory wei(pd.weights_desc(), eng);
        dnnl::reorder(w_mem, wei).execute(strm, w_mem, wei);
        strm.wait();
        auto out = make_buffer<std::int8_t>(Case::OH * Case::OH * Case::o);
        dnnl::memory dst(y_md, eng, out.get());
        for (auto _ : st) {
            prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
            strm.wait();
        }
        set_ops(st, Case::ops);
        const auto want = d.run();
        std::size_t differ = 0;
        for (std::size_t i = 0; i < want.size(); ++i)
            differ += out.get()[i] != want.data()[i].stored;
        st.counters["differ"] = static_cast<double>(differ);
        st.SetLabel(pd.impl_info_str());
    } catch (const dnnl::error& e) {
        st.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
    }
}
#endif

using qconv_3x3 = qconv_case<56, 64, 3, 64, 1, 1>;
using qconv_stem = qconv_case<224, 3, 7, 64, 2, 3>;

template<class Case>
void register_qconv(const std::string& name, int t) {
    using xlet::detail::quant_conv_path_kind;
    reg("BM_qconv/" + name + "/direct", BM_qconv_xlet<Case, quant_conv_path_kind::direct>, t);
    reg("BM_qconv/" + name + "/im2col", BM_qconv_xlet<Case, quant_conv_path_kind::im2col>, t);
    reg("BM_qconv/" + name + "/f32", BM_qconv_f32<Case>, t);
#if defined(XLET_BENCH_HAVE_DNNL)
    if (t == 1 || dnnl_threaded) reg("BM_qconv/" + name + "/onednn", BM_qconv_onednn<Case>, t);
#endif
}

// ---- the core's ceilings ------------------------------------------------------------------------

// As dot_bench's BM_peak_fma (f32: xlet/bench.hpp's fma_loop): independent accumulators, as many
// as the register tile has.
inline constexpr int peak_acc = xlet::bench::detail::fma_chains;

#ifdef XLET_GEMM_I8_KERNEL
// The 8-bit GEMM's multiply-add (gemm_i8_isa::dot): 2 G W ops per instruction.
[[gnu::noinline]] std::int32_t peak_i8_loop(std::size_t steps) {
    using K = xlet::detail::gemm_i8_isa;
    K::vec acc[peak_acc];
#pragma GCC unroll 32
    for (int i = 0; i < peak_acc; ++i)
        acc[i] = K::set1(static_cast<std::uint32_t>(i));
    K::vec x = K::set1(0x01020304u);
    const K::vec y = K::set1(0x05060708u);
    for (std::size_t s = 0; s < steps; ++s) {
#pragma GCC unroll 32
        for (int i = 0; i < peak_acc; ++i) {
#if defined(__AVX512VNNI__)
            // in place (GCC 12 spills the intrinsic's sums here, copying each to a new register)
            asm("vpdpbusd %2, %1, %0" : "+v"(acc[i]) : "v"(x), "v"(y));
#else
            asm("" : "+v"(x)); // a new x to the compiler: one vpmaddwd per sum, not one shared
            acc[i] = K::dot(acc[i], x, y);
#endif
        }
    }
    K::vec sum = acc[0];
#pragma GCC unroll 32
    for (int i = 1; i < peak_acc; ++i)
        sum = K::add(sum, acc[i]);
    alignas(64) std::int32_t lanes[K::W];
    K::store(lanes, sum);
    return lanes[0];
}
#endif

template<bool Int8>
void BM_peak(benchmark::State& st, int threads) {
    constexpr std::size_t steps = 1 << 16;
    double per_step = 2.0 * peak_acc * xsimd::batch<float>::size;
    for (auto _ : st) {
        tbb::parallel_for(0, threads, [](int) {
#ifdef XLET_GEMM_I8_KERNEL
            if constexpr (Int8) {
                benchmark::DoNotOptimize(peak_i8_loop(steps));
                return;
            }
#endif
            benchmark::DoNotOptimize(xlet::bench::detail::fma_loop(static_cast<long>(steps), 1.0f));
        });
    }
#ifdef XLET_GEMM_I8_KERNEL
    if constexpr (Int8) per_step = 2.0 * peak_acc * xlet::detail::gemm_i8_isa::W * xlet::detail::gemm_i8_isa::G;
#endif
    set_ops(st, per_step * steps * threads);
}

// ---- the quantized MLP ----------------------------------------------------------------------------

constexpr std::size_t qmlp_batch = 256;
constexpr double qmlp_ops = 2.0 * qmlp_batch * (qmlp::In * qmlp::Hid + qmlp::Hid * qmlp::Out);
qmlp::model<qmlp_batch>& qmlp_data() {
    static const auto d = std::make_unique<qmlp::model<qmlp_batch>>();
    return *d;
}

void BM_qmlp_f32(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = qmlp_data();
    float l = 0;
    for (auto _ : st)
        benchmark::DoNotOptimize(l = mlp::loss(d.p, d.x, d.labels));
    st.counters["loss"] = l;
    set_ops(st, qmlp_ops);
}

void BM_qmlp_int8(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = qmlp_data();
    float l = 0, lf = 0;
    std::vector<double> ratios;
    double t_q = 0, t_f = 0;
    for (auto _ : st) {
        const auto t0 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(l = qmlp::loss(d.q, d.x, d.labels));
        const auto t1 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(lf = mlp::loss(d.p, d.x, d.labels));
        const auto t2 = std::chrono::steady_clock::now();
        const double q = std::chrono::duration<double>(t1 - t0).count(),
                     f = std::chrono::duration<double>(t2 - t1).count();
        st.SetIterationTime(q);
        t_q += q;
        t_f += f;
        ratios.push_back(f / q);
    }
    std::sort(ratios.begin(), ratios.end());
    const double it = static_cast<double>(st.iterations());
    st.counters["loss"] = l;
    st.counters["loss_diff"] = static_cast<double>(l - lf);
    st.counters["ops/s"] = qmlp_ops * it / t_q;
    st.counters["f32_ops/s"] = qmlp_ops * it / t_f;
    st.counters["ratio"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
}

void register_quant_add();

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_peak_fma_f32", BM_peak<false>, t);
#ifdef XLET_GEMM_I8_KERNEL
        reg("BM_peak_i8", BM_peak<true>, t);
#endif
    }
    for (int t : {1, 2}) {
        reg("BM_i8_1024/s8s8_s32/xlet", BM_s8s8_xlet, t);
        reg("BM_i8_1024/u8s8_s32/xlet", BM_u8s8_xlet, t);
        reg("BM_i8_1024/f32/xlet", BM_f32_xlet, t);
#if defined(XLET_BENCH_HAVE_DNNL)
        reg("BM_i8_1024/u8s8_s32/onednn", BM_onednn<true, false>, t);
        reg("BM_i8_1024/s8s8_s32/onednn", BM_onednn<false, false>, t);
        reg("BM_i8_1024/u8s8_s32/onednn_any", BM_onednn<true, true>, t);
        reg("BM_i8_1024/s8s8_s32/onednn_any", BM_onednn<false, true>, t);
#endif
    }
    for (int t : {1, 2}) {
        register_qconv<qconv_3x3>("3x3_56", t);
        register_qconv<qconv_stem>("stem_224", t);
    }
    for (int t : {1, 2}) {
        reg("BM_qmlp/f32", BM_qmlp_f32, t, t, benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_qmlp/int8/threads:" + std::to_string(t)).c_str(),
                                     [t](benchmark::State& st) { BM_qmlp_int8(st, t); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    }
    register_quant_add();
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }

// ---- quantized add ------------------------------------------------------------------------------
// (Quantized add on 2^24 elements: the integer path against dequantize-add-quantize in f32.)

namespace xlet_bench {
namespace {

// y = add(a, b) on 2^24 s8 elements (i8:f32, scale 0.5, zero point -3): the integer path (one scale
// and zero point: clamp(a + b - z) on the stored integers, quant/op_node.hpp) and the spec's float
// path (dequantize, add in f32, quantize), both one fused pass: the same program through
// passes::apply<legalize_quantized_op_to_qdq>, and add<Q>(a, c) of an operand with another scale.
// Each iteration also copies 2^24 bytes (memcpy; split over the threads like the plain loops):
// counters op_GBps (3 bytes an element: a, b in, y out), copy_GBps (2 bytes a byte) and ratio,
// the median of the per-iteration ratios op_GBps / copy_GBps.

constexpr std::size_t n_q = std::size_t{1} << 24;
using QA = xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.5), -3>;
using QC = xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.25), 5>;
using qvec = xlet::tensor<QA, n_q>;

struct qadd_data {
    std::unique_ptr<qvec> a = std::make_unique<qvec>(), b = std::make_unique<qvec>(), y = std::make_unique<qvec>();
    std::unique_ptr<xlet::tensor<QC, n_q>> c = std::make_unique<xlet::tensor<QC, n_q>>();
    buffer<std::uint8_t> from = make_buffer<std::uint8_t>(n_q), to = make_buffer<std::uint8_t>(n_q);
    qadd_data() {
        for (std::size_t i = 0; i < n_q; ++i) {
            a->data()[i].stored = static_cast<std::int8_t>(mix(i, 1));
            b->data()[i].stored = static_cast<std::int8_t>(mix(i, 2));
            c->data()[i].stored = static_cast<std::int8_t>(mix(i, 3));
            from[i] = static_cast<std::uint8_t>(mix(i, 4));
        }
    }
};

inline void copy_bytes(std::uint8_t* to, const std::uint8_t* from, std::size_t n, int threads) {
    if (threads == 1)
        std::memcpy(to, from, n);
    else
        static_parallel(n, [&](std::size_t i0, std::size_t i1) { std::memcpy(to + i0, from + i0, i1 - i0); });
}

// op() and a copy alternated in one timed loop (this machine's bandwidth drifts between runs).
template<class Op>
void qadd_against_copy(benchmark::State& st, qadd_data& d, int threads, Op op) {
    constexpr double op_bytes = 3.0 * n_q, copy_bytes_n = 2.0 * n_q;
    std::vector<double> ratios;
    double t_op = 0, t_copy = 0;
    for (auto _ : st) {
        const auto t0 = std::chrono::steady_clock::now();
        op();
        benchmark::ClobberMemory();
        const auto t1 = std::chrono::steady_clock::now();
        copy_bytes(d.to.get(), d.from.get(), n_q, threads);
        benchmark::ClobberMemory();
        const auto t2 = std::chrono::steady_clock::now();
        const double x = std::chrono::duration<double>(t1 - t0).count(),
                     c = std::chrono::duration<double>(t2 - t1).count();
        t_op += x;
        t_copy += c;
        ratios.push_back((op_bytes / x) / (copy_bytes_n / c));
    }
    std::sort(ratios.begin(), ratios.end());
    const double it = static_cast<double>(st.iterations());
    st.counters["op_GBps"] = op_bytes * it / t_op / 1e9;
    st.counters["copy_GBps"] = copy_bytes_n * it / t_copy / 1e9;
    st.counters["ratio"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
}

// Spot checks: the integer formula where it applies; the two float forms against each other.
inline bool qadd_ok(const qadd_data& d) {
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, n_q / 3, n_q / 2 + 7, n_q - 1}) {
        const int want = std::clamp(d.a->data()[i].stored + d.b->data()[i].stored + 3, -128, 127);
        if (d.y->data()[i].stored != want) return false;
    }
    return true;
}

void BM_qadd_integer(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    qadd_data d;
    qadd_against_copy(st, d, threads, [&] { *d.y = xlet::add(*d.a, *d.b); });
    if (!qadd_ok(d)) st.SkipWithError("wrong result");
}
void BM_qadd_float(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    qadd_data d;
    qadd_against_copy(st, d, threads, [&] {
        *d.y = xlet::passes::apply<xlet::passes::legalize_quantized_op_to_qdq>(xlet::add(*d.a, *d.b));
    });
    if (!qadd_ok(d)) st.SkipWithError("wrong result"); // (the same bits as the integer path)
}
void BM_qadd_float_scales(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    qadd_data d;
    qadd_against_copy(st, d, threads, [&] { *d.y = xlet::add<QA>(*d.a, *d.c); });
    const qvec want = xlet::uniform_quantize<QA>(xlet::uniform_dequantize(*d.a) + xlet::uniform_dequantize(*d.c));
    if (std::memcmp(want.data(), d.y->data(), n_q) != 0) st.SkipWithError("wrong result");
}

void register_quant_add() {
    for (int t : {1, 2}) {
        reg("BM_qadd/integer", BM_qadd_integer, t);
        reg("BM_qadd/float", BM_qadd_float, t);
        reg("BM_qadd/float_scales", BM_qadd_float_scales, t);
    }
}

} // namespace
} // namespace xlet_bench
