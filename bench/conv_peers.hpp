// The peers of conv_bench.cpp and what its cases share: the case description and its inputs, the
// reference checks (a direct sum in double, im2col_openblas's output), the peers im2col + OpenBLAS,
// the depthwise loop and oneDNN (described in conv_bench.cpp's header), and the benchmark body that
// sets the thread counts, checks a peer's output and times it. conv_bench.cpp holds the cases,
// xlet's side and the registration.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#if defined(XLET_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif
#include "bench_common.hpp"
#include "bench_dnnl.hpp"

namespace xlet_bench {
// Unnamed, as in the benchmark file that includes this header (its only includer): the same linkage,
// so the compiler sees the same program as when all of it was in that file.
namespace {

struct conv_case {
    const char* name;
    bool nchw;  // data NCHW / weights OIHW; otherwise data NHWC / weights HWIO
    bool dgrad; // the data gradient of the forward convolution described below
    int n, c, h, w, k, kh, kw, stride, pad, groups;
    bool bias_relu = false; // (NHWC forward) y = max(conv + bias[k], 0): the epilogue after the convolution
    int oh() const { return (h + 2 * pad - kh) / stride + 1; }
    int ow() const { return (w + 2 * pad - kw) / stride + 1; }
    double flops() const { return 2.0 * n * oh() * ow() * k * (c / groups) * kh * kw; }
    // The operand sizes: input (dy for the data gradient), weights, output (dx).
    std::size_t in_size() const { return static_cast<std::size_t>(n) * (dgrad ? k * oh() * ow() : c * h * w); }
    std::size_t w_size() const { return static_cast<std::size_t>(kh) * kw * (c / groups) * k; }
    std::size_t out_size() const { return static_cast<std::size_t>(n) * (dgrad ? c * h * w : k * oh() * ow()); }
};

// A case's inputs (make_inputs) and im2col_openblas's output.
struct case_data {
    buffer<float> x, w, b;  // b: the bias (bias_relu cases)
    std::vector<float> ref; // im2col_openblas's output, computed once (reference for the others)
};

// Inputs in [-1, 1]: x (or dy) and the weights in the case's user layout (HWIO or OIHW; grouped:
// HWIO with I = C / groups, output features g * K / groups ... of group g). The seeds follow the
// case's index `id` in conv_bench.cpp's table.
void make_inputs(case_data& d, const conv_case& cs, int id) {
    d.x = make_buffer<float>(cs.in_size());
    d.w = make_buffer<float>(cs.w_size());
    fill(d.x.get(), cs.in_size(),
         [&](std::size_t i) { return gen(i, 100u + static_cast<std::uint32_t>(id), -1.0f, 1.0f); });
    fill(d.w.get(), cs.w_size(),
         [&](std::size_t i) { return gen(i, 200u + static_cast<std::uint32_t>(id), -1.0f, 1.0f); });
    if (cs.bias_relu) {
        d.b = make_buffer<float>(static_cast<std::size_t>(cs.k));
        fill(d.b.get(), static_cast<std::size_t>(cs.k),
             [&](std::size_t i) { return gen(i, 300u + static_cast<std::uint32_t>(id), -0.5f, 0.5f); });
    }
}

void set_flops(benchmark::State& st, double per_iteration) {
    st.counters["FLOP/s"] =
        benchmark::Counter(per_iteration * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

// A peer: setup in the constructor (outside timing), run() is what the timed loop calls, out()
// the result in the case's layout (NHWC / NCHW; the data gradient: dx NHWC).
struct peer {
    virtual ~peer() = default;
    virtual void run() = 0;
    virtual const float* out() = 0;
    std::string label;
};

std::size_t uz(int v) { return static_cast<std::size_t>(v); }

// The bias + ReLU epilogue of an NHWC result, as a pass of its own (TBB over rows of features).
void bias_relu_pass(const conv_case& cs, const float* b, float* y) {
    static_parallel(cs.out_size() / uz(cs.k), [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t o = 0; o < uz(cs.k); ++o)
                y[r * uz(cs.k) + o] = std::max(y[r * uz(cs.k) + o] + b[o], 0.0f);
    });
}

// ---- a direct sum in double at one output element: the check of the im2col peer --------------------

double direct(const conv_case& cs, const float* x, const float* w, std::size_t flat) {
    const int cg = cs.c / cs.groups, kg = cs.k / cs.groups;
    double s = 0;
    if (cs.dgrad) { // dx[n][ih][iw][ci] = sum dy[n][oh][ow][o] w[kh][kw][ci][o], oh = ih + pad - kh (stride 1)
        const int ci = static_cast<int>(flat % uz(cs.c)), iw = static_cast<int>(flat / uz(cs.c) % uz(cs.w)),
                  ih = static_cast<int>(flat / uz(cs.c * cs.w) % uz(cs.h)),
                  n = static_cast<int>(flat / uz(cs.c * cs.w * cs.h));
        for (int a = 0; a < cs.kh; ++a)
            for (int b = 0; b < cs.kw; ++b) {
                const int oh = ih + cs.pad - a, ow = iw + cs.pad - b;
                if (oh < 0 || oh >= cs.oh() || ow < 0 || ow >= cs.ow()) continue;
                for (int o = 0; o < cs.k; ++o)
                    s += double(x[((uz(n) * uz(cs.oh()) + uz(oh)) * uz(cs.ow()) + uz(ow)) * uz(cs.k) + uz(o)]) *
                         double(w[((uz(a) * uz(cs.kw) + uz(b)) * uz(cs.c) + uz(ci)) * uz(cs.k) + uz(o)]);
            }
        return s;
    }
    int n, o, oh, ow;
    if (cs.nchw) {
        ow = static_cast<int>(flat % uz(cs.ow()));
        oh = static_cast<int>(flat / uz(cs.ow()) % uz(cs.oh()));
        o = static_cast<int>(flat / uz(cs.ow() * cs.oh()) % uz(cs.k));
        n = static_cast<int>(flat / uz(cs.ow() * cs.oh() * cs.k));
    } else {
        o = static_cast<int>(flat % uz(cs.k));
        ow = static_cast<int>(flat / uz(cs.k) % uz(cs.ow()));
        oh = static_cast<int>(flat / uz(cs.k * cs.ow()) % uz(cs.oh()));
        n = static_cast<int>(flat / uz(cs.k * cs.ow() * cs.oh()));
    }
    const int g = o / kg;
    for (int i = 0; i < cg; ++i)
        for (int a = 0; a < cs.kh; ++a)
            for (int b = 0; b < cs.kw; ++b) {
                const int ih = oh * cs.stride + a - cs.pad, iw = ow * cs.stride + b - cs.pad, ci = g * cg + i;
                if (ih < 0 || ih >= cs.h || iw < 0 || iw >= cs.w) continue;
                const std::size_t xi = cs.nchw ? ((uz(n) * uz(cs.c) + uz(ci)) * uz(cs.h) + uz(ih)) * uz(cs.w) + uz(iw)
                                               : ((uz(n) * uz(cs.h) + uz(ih)) * uz(cs.w) + uz(iw)) * uz(cs.c) + uz(ci);
                const std::size_t wi = cs.nchw ? ((uz(o) * uz(cg) + uz(i)) * uz(cs.kh) + uz(a)) * uz(cs.kw) + uz(b)
                                               : ((uz(a) * uz(cs.kw) + uz(b)) * uz(cg) + uz(i)) * uz(cs.k) + uz(o);
                s += double(x[xi]) * double(w[wi]);
            }
    return s;
}

// max |y - ref| / max |ref| over all elements.
double rel_err(const float* y, const float* ref, std::size_t n) {
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
        diff = std::max(diff, std::fabs(double(y[i]) - double(ref[i])));
        scale = std::max(scale, std::fabs(double(ref[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

// ---- im2col + OpenBLAS ------------------------------------------------------------------------------

#if defined(XLET_BENCH_HAVE_OPENBLAS)
struct im2col_peer final : peer {
    const conv_case& cs;
    const float *x, *w, *b;
    buffer<float> cols, y;
    explicit im2col_peer(const conv_case& c, const case_data& d) : cs(c), x(d.x.get()), w(d.w.get()), b(d.b.get()) {
        const std::size_t m = uz(cs.n) * uz(cs.oh()) * uz(cs.ow());
        const bool identity =
            !cs.dgrad && !cs.nchw && cs.kh == 1 && cs.kw == 1 && cs.stride == 1 && cs.pad == 0 && cs.groups == 1;
        if (!identity) cols = make_buffer<float>(m * uz(cs.kh * cs.kw) * uz(cs.c)); // c/g per group, g groups
        y = make_buffer<float>(cs.out_size());
        label = cs.dgrad        ? "sgemm + col2im"
                : identity      ? "sgemm (1x1: no im2col)"
                : cs.groups > 1 ? "im2col + sgemm per group"
                                : "im2col + sgemm";
        if (cs.bias_relu) label += " + bias/relu pass";
    }
    const float* out() override { return y.get(); }

    void run() override {
        if (cs.dgrad)
            run_dgrad();
        else if (cs.nchw)
            run_nchw();
        else
            run_nhwc();
        if (cs.bias_relu) bias_relu_pass(cs, b, y.get());
    }

    // cols[g][m][(a KW + b) cg + i] = x[n][oh s + a - p][ow s + b - p][g cg + i], m = (n OH + oh) OW + ow.
    void run_nhwc() {
        const int OH = cs.oh(), OW = cs.ow(), G = cs.groups, cg = cs.c / G, kg = cs.k / G;
        const std::size_t m = uz(cs.n) * uz(OH) * uz(OW), kk = uz(cs.kh * cs.kw * cg);
        const float* a = x;
        if (cols) {
            float* cl = cols.get();
            static_parallel(m, [&](std::size_t r0, std::size_t r1) {
                for (std::size_t r = r0; r < r1; ++r) {
                    const int ow = static_cast<int>(r % uz(OW)), oh = static_cast<int>(r / uz(OW) % uz(OH)),
                              n = static_cast<int>(r / uz(OW * OH));
                    for (int ka = 0; ka < cs.kh; ++ka)
                        for (int kb = 0; kb < cs.kw; ++kb) {
                            const int ih = oh * cs.stride + ka - cs.pad, iw = ow * cs.stride + kb - cs.pad;
                            const bool in = ih >= 0 && ih < cs.h && iw >= 0 && iw < cs.w;
                            const float* src =
                                in ? x + ((uz(n) * uz(cs.h) + uz(ih)) * uz(cs.w) + uz(iw)) * uz(cs.c) : nullptr;
                            for (int g = 0; g < G; ++g) {
                                float* dst = cl + (uz(g) * m + r) * kk + uz(ka * cs.kw + kb) * uz(cg);
                                if (in)
                                    std::copy_n(src + g * cg, cg, dst);
                                else
                                    std::fill_n(dst, cg, 0.0f);
                            }
                        }
                }
            });
            a = cl;
        }
        for (int g = 0; g < G; ++g)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), kg, static_cast<int>(kk), 1.0f,
                        a + uz(g) * m * kk, static_cast<int>(kk), w + g * kg, cs.k, 0.0f, y.get() + g * kg, cs.k);
    }

    // Per image: cols_n[(c KH + a) KW + b][oh OW + ow] = x[n][c][oh s + a - p][ow s + b - p];
    // y_n [K, OH OW] = W [K, C KH KW] x cols_n.
    void run_nchw() {
        const int OH = cs.oh(), OW = cs.ow();
        const std::size_t kk = uz(cs.c * cs.kh * cs.kw), pix = uz(OH) * uz(OW);
        float* cl = cols.get();
        static_parallel(uz(cs.n) * uz(cs.c), [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const std::size_t n = r / uz(cs.c), c = r % uz(cs.c);
                const float* src = x + r * uz(cs.h) * uz(cs.w);
                for (int ka = 0; ka < cs.kh; ++ka)
                    for (int kb = 0; kb < cs.kw; ++kb) {
                        float* dst = cl + n * kk * pix + ((c * uz(cs.kh) + uz(ka)) * uz(cs.kw) + uz(kb)) * pix;
                        for (int oh = 0; oh < OH; ++oh) {
                            const int ih = oh * cs.stride + ka - cs.pad;
                            for (int ow = 0; ow < OW; ++ow) {
                                const int iw = ow * cs.stride + kb - cs.pad;
                                dst[uz(oh) * uz(OW) + uz(ow)] = (ih >= 0 && ih < cs.h && iw >= 0 && iw < cs.w)
                                                                    ? src[uz(ih) * uz(cs.w) + uz(iw)]
                                                                    : 0.0f;
                            }
                        }
                    }
            }
        });
        for (int n = 0; n < cs.n; ++n)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, cs.k, static_cast<int>(pix), static_cast<int>(kk),
                        1.0f, w, static_cast<int>(kk), cl + uz(n) * kk * pix, static_cast<int>(pix), 0.0f,
                        y.get() + uz(n) * uz(cs.k) * pix, static_cast<int>(pix));
    }

    // dcols [N OH OW, KH KW C] = dy [N OH OW, K] x W^T (W = HWIO as [KH KW C, K]); then
    // dx[n][oh + a - p][ow + b - p][:] += dcols[m][(a KW + b) C : +C] (stride 1), images in parallel.
    void run_dgrad() {
        const int OH = cs.oh(), OW = cs.ow();
        const std::size_t m = uz(cs.n) * uz(OH) * uz(OW), kk = uz(cs.kh * cs.kw * cs.c);
        float* cl = cols.get();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(kk), cs.k, 1.0f, x,
                    cs.k, w, cs.k, 0.0f, cl, static_cast<int>(kk));
        const std::size_t img = uz(cs.h) * uz(cs.w) * uz(cs.c);
        static_parallel(uz(cs.n), [&](std::size_t n0, std::size_t n1) {
            for (std::size_t n = n0; n < n1; ++n) {
                float* dx = y.get() + n * img;
                std::fill_n(dx, img, 0.0f);
                for (int oh = 0; oh < OH; ++oh)
                    for (int ow = 0; ow < OW; ++ow) {
                        const float* src = cl + ((n * uz(OH) + uz(oh)) * uz(OW) + uz(ow)) * kk;
                        for (int ka = 0; ka < cs.kh; ++ka)
                            for (int kb = 0; kb < cs.kw; ++kb) {
                                const int ih = oh * cs.stride + ka - cs.pad, iw = ow * cs.stride + kb - cs.pad;
                                if (ih < 0 || ih >= cs.h || iw < 0 || iw >= cs.w) continue;
                                float* d = dx + (uz(ih) * uz(cs.w) + uz(iw)) * uz(cs.c);
                                const float* s = src + uz(ka * cs.kw + kb) * uz(cs.c);
                                for (int c = 0; c < cs.c; ++c)
                                    d[c] += s[c];
                            }
                    }
            }
        });
    }
};
#endif

// ---- direct loop (depthwise NHWC) --------------------------------------------------------------------

struct dw_loop_peer final : peer {
    const conv_case& cs;
    const float *x, *w;
    buffer<float> y;
    explicit dw_loop_peer(const conv_case& c, const case_data& d) : cs(c), x(d.x.get()), w(d.w.get()) {
        y = make_buffer<float>(cs.out_size());
        label = "direct loop, SIMD over channels";
    }
    const float* out() override { return y.get(); }
    void run() override {
        const int OH = cs.oh(), OW = cs.ow(), C = cs.c;
        static_parallel(uz(cs.n) * uz(OH), [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const int oh = static_cast<int>(r % uz(OH));
                const std::size_t n = r / uz(OH);
                for (int ow = 0; ow < OW; ++ow) {
                    float* acc = y.get() + (r * uz(OW) + uz(ow)) * uz(C);
                    std::fill_n(acc, C, 0.0f);
                    for (int ka = 0; ka < cs.kh; ++ka) {
                        const int ih = oh * cs.stride + ka - cs.pad;
                        if (ih < 0 || ih >= cs.h) continue;
                        for (int kb = 0; kb < cs.kw; ++kb) {
                            const int iw = ow * cs.stride + kb - cs.pad;
                            if (iw < 0 || iw >= cs.w) continue;
                            const float* xs = x + ((n * uz(cs.h) + uz(ih)) * uz(cs.w) + uz(iw)) * uz(C);
                            const float* ws = w + uz(ka * cs.kw + kb) * uz(C);
                            for (int c = 0; c < C; ++c)
                                acc[c] += xs[c] * ws[c];
                        }
                    }
                }
            }
        });
    }
};

// ---- oneDNN -----------------------------------------------------------------------------------------

#if defined(XLET_BENCH_HAVE_DNNL)
struct onednn_peer final : peer {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const conv_case& cs;
    dnnl::engine eng{dnnl::engine::kind::cpu, 0};
    dnnl::stream strm{eng};
    dnnl::primitive prim;
    dnnl::memory src, wei, dst, user_dst, bias;
    int src_arg = DNNL_ARG_SRC, dst_arg = DNNL_ARG_DST;
    buffer<float> y;
    bool blocked;

    onednn_peer(const conv_case& c, const case_data& d, bool blocked_layout) : cs(c), blocked(blocked_layout) {
        using dims = dnnl::memory::dims;
        const dnnl::memory::dim N = cs.n, C = cs.c, H = cs.h, W = cs.w, K = cs.k, KH = cs.kh, KW = cs.kw, OH = cs.oh(),
                                OW = cs.ow(), G = cs.groups;
        const tag data_tag = cs.nchw ? tag::nchw : tag::nhwc;
        // Logical dims (oneDNN orders them N C H W, O I H W, or G O/G I/G H W) with the user's strides.
        dnnl::memory::desc user_w;
        if (G > 1)
            user_w = dnnl::memory::desc({G, K / G, C / G, KH, KW}, dt::f32,
                                        dims{K / G, 1, K, KW * (C / G) * K, (C / G) * K});
        else if (cs.nchw)
            user_w = dnnl::memory::desc({K, C, KH, KW}, dt::f32, tag::oihw);
        else
            user_w = dnnl::memory::desc({K, C, KH, KW}, dt::f32, dims{1, K, KW * C * K, C * K});
        const dnnl::memory::desc x_md({N, C, H, W}, dt::f32, blocked ? tag::any : data_tag),
            y_md({N, K, OH, OW}, dt::f32, blocked ? tag::any : data_tag);
        const dnnl::memory::desc w_any(user_w.dims(), dt::f32, tag::any);
        const dims strides{cs.stride, cs.stride}, pad{cs.pad, cs.pad};
        y = make_buffer<float>(cs.out_size());
        dnnl::memory::desc in_md, out_md, w_md;
        if (cs.dgrad) {
            const dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_training,
                                                     dnnl::algorithm::convolution_direct, x_md, w_any, y_md, strides,
                                                     pad, pad);
            const dnnl::convolution_forward::primitive_desc fpd(fd, eng);
            const dnnl::convolution_backward_data::desc bd(dnnl::algorithm::convolution_direct, x_md, w_any, y_md,
                                                           strides, pad, pad);
            const dnnl::convolution_backward_data::primitive_desc pd(bd, eng, fpd);
            prim = dnnl::convolution_backward_data(pd);
            in_md = pd.diff_dst_desc();
            out_md = pd.diff_src_desc();
            w_md = pd.weights_desc();
            label = pd.impl_info_str();
            src_arg = DNNL_ARG_DIFF_DST;
            dst_arg = DNNL_ARG_DIFF_SRC;
        } else if (cs.bias_relu) { // the bias and a ReLU post-op, fused by oneDNN
            const dnnl::memory::desc b_md({K}, dt::f32, tag::a);
            const dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, x_md, w_any, b_md, y_md,
                                                     strides, pad, pad);
            dnnl::post_ops po;
            po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
            dnnl::primitive_attr attr;
            attr.set_post_ops(po);
            const dnnl::convolution_forward::primitive_desc pd(fd, attr, eng);
            prim = dnnl::convolution_forward(pd);
            in_md = pd.src_desc();
            out_md = pd.dst_desc();
            w_md = pd.weights_desc();
            label = pd.impl_info_str() + std::string(" + bias/relu post-op");
            bias = dnnl::memory(b_md, eng, d.b.get());
        } else {
            const dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, x_md, w_any, y_md, strides,
                                                     pad, pad);
            const dnnl::convolution_forward::primitive_desc pd(fd, eng);
            prim = dnnl::convolution_forward(pd);
            in_md = pd.src_desc();
            out_md = pd.dst_desc();
            w_md = pd.weights_desc();
            label = pd.impl_info_str();
        }
        const dnnl::memory::desc user_in = cs.dgrad ? dnnl::memory::desc({N, K, OH, OW}, dt::f32, data_tag) : x_md;
        const dnnl::memory::desc user_out = cs.dgrad ? dnnl::memory::desc({N, C, H, W}, dt::f32, data_tag)
                                                     : dnnl::memory::desc({N, K, OH, OW}, dt::f32, data_tag);
        // Reorders once, outside timing: weights to the primitive's choice; with blocked, the input too.
        dnnl::memory user_w_mem(user_w, eng, d.w.get());
        wei = dnnl::memory(w_md, eng);
        dnnl::reorder(user_w_mem, wei).execute(strm, user_w_mem, wei);
        dnnl::memory user_in_mem(blocked ? dnnl::memory::desc({N, C, H, W}, dt::f32, data_tag) : user_in, eng,
                                 d.x.get());
        if (in_md == user_in_mem.get_desc()) {
            src = user_in_mem;
        } else {
            src = dnnl::memory(in_md, eng);
            dnnl::reorder(user_in_mem, src).execute(strm, user_in_mem, src);
        }
        user_dst = dnnl::memory(user_out, eng, y.get());
        dst = out_md == user_out ? user_dst : dnnl::memory(out_md, eng);
        strm.wait();
        if (blocked) label += " (blocked src/dst, reorders untimed)";
    }
    void run() override {
        if (cs.bias_relu)
            prim.execute(strm, {{src_arg, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {dst_arg, dst}});
        else
            prim.execute(strm, {{src_arg, src}, {DNNL_ARG_WEIGHTS, wei}, {dst_arg, dst}});
        strm.wait();
    }
    const float* out() override {
        if (dst != user_dst) {
            dnnl::reorder(dst, user_dst).execute(strm, dst, user_dst);
            strm.wait();
        }
        return y.get();
    }
};
#endif

// ---- the benchmark body -------------------------------------------------------------------------------

// Stores im2col_openblas's output for the case (computed once, by the first benchmark of the case
// that needs it) and checks it against the direct sum in double at 257 sampled elements (the last
// element included); returns max |diff| / max |direct| over those samples.
double reference_check(const conv_case& cs, case_data& d, peer& im2col) {
    const std::size_t n = cs.out_size();
    if (d.ref.empty()) {
        im2col.run();
        d.ref.assign(im2col.out(), im2col.out() + n);
    }
    double diff = 0, scale = 0;
    for (std::size_t s = 0; s <= 256; ++s) {
        const std::size_t i = s == 256 ? n - 1 : mix(s, 7u) % n;
        double e = direct(cs, d.x.get(), d.w.get(), i);
        if (cs.bias_relu) e = std::max(e + double(d.b[i % uz(cs.k)]), 0.0);
        diff = std::max(diff, std::fabs(double(d.ref[i]) - e));
        scale = std::max(scale, std::fabs(e));
    }
    return diff / scale;
}

// Every runtime a peer may use on `threads` threads (TBB's limit for as long as the object lives).
struct peer_threads {
    tbb_threads tbb;
    explicit peer_threads(int threads) : tbb(threads) {
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        openblas_set_num_threads(threads);
#endif
#if defined(XLET_BENCH_HAVE_DNNL)
        set_dnnl_threads(threads);
#endif
    }
};

// The benchmark body of one case and one peer. The peer is made by `make` (outside timing; nullptr:
// not built here) after the thread counts are set; its whole output is checked against
// im2col_openblas's (made first if no benchmark of the case has made it yet), or, for im2col_openblas
// itself (`is_im2col`), that against the direct sum; then run() is timed. `data` gives the case's
// inputs (made on first use).
template<class Data, class Make>
void run_peer(benchmark::State& st, const conv_case& cs, [[maybe_unused]] bool is_im2col, int threads,
              [[maybe_unused]] Data data, Make make) {
    const peer_threads t(threads);
    std::unique_ptr<peer> p;
    double err = 0;
    try {
        p = make();
        if (!p) {
            st.SkipWithError("peer not available");
            return;
        }
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        if (is_im2col) {
            err = reference_check(cs, data(), *p);
        } else {
            if (data().ref.empty()) {
                im2col_peer ref(cs, data());
                reference_check(cs, data(), ref);
            }
            p->run();
            err = rel_err(p->out(), data().ref.data(), cs.out_size());
        }
#endif
    } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        return;
    }
    if (!(err <= 1e-4)) {
        std::fprintf(stderr, "BM_conv_%s: rel_err %.3g against im2col_openblas\n", cs.name, err);
        st.SkipWithError("result differs from im2col_openblas");
        return;
    }
    for (auto _ : st) {
        p->run();
        benchmark::ClobberMemory();
    }
    set_flops(st, cs.flops());
    st.counters["rel_err"] = err;
    st.SetLabel(p->label);
}

// The paired form (bench_common.hpp, run_paired): xlet and a peer alternate in one timed loop;
// `ratio` is the median of the per-iteration speed ratios (> 1: xlet faster), which the host's
// drift between benchmarks does not move. Both outputs are checked by their own rows above.
template<class MakeX, class MakeP>
void run_pair(benchmark::State& st, int threads, MakeX make_xlet, MakeP make_peer) {
    const peer_threads t(threads);
    std::unique_ptr<peer> x, p;
    try {
        x = make_xlet();
        p = make_peer();
    } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        return;
    }
    if (!x || !p) {
        st.SkipWithError("peer not available");
        return;
    }
    x->run(); // (first calls outside timing: mapped pages, made primitives)
    p->run();
    run_paired(
        st, 0, [&] { x->run(); }, [&] { p->run(); });
    st.counters.erase("xlet_GBps");
    st.counters.erase("peer_GBps");
    st.SetLabel(x->label + " | " + p->label);
}

} // namespace
} // namespace xlet_bench
