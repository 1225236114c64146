// Batch normalisation benchmarks (issue #14): xlet beside a plain two-pass loop and a read-only
// pass over the same bytes (the read bandwidth bound), in one executable.
//   BM_bn_training_nhwc  batch_norm_training<3> on f32 [32,56,56,64] (features last)
//   BM_bn_training_nchw  batch_norm_training<1> on f32 [32,64,56,56] (features in dimension 1)
//   BM_bn_inference_nhwc batch_norm_inference<3> on the NHWC shape (one fused pass)
//   BM_bn_read_only      a vectorised sum over the same 25.7 MB (reads only)
// Bytes processed: the operand's bytes (read once), for every case, so the figures compare
// directly with the read-only pass. The plain loop makes three passes (mean, variance, output).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <xlet/xlet.hpp> // first: see core/simd.hpp (GCC 12 AVX-512 false warnings)

#include <tbb/parallel_reduce.h>

#include "bench_common.hpp"

namespace xlet_bench {
namespace {

constexpr std::size_t bn = 32, bh = 56, bw = 56, bc = 64, n_all = bn * bh * bw * bc;
constexpr std::int64_t bytes_all = 4 * static_cast<std::int64_t>(n_all);
using nhwc_t = xlet::f32<bn, bh, bw, bc>;
using nchw_t = xlet::f32<bn, bc, bh, bw>;
using vec_t = xlet::f32<bc>;

struct data {
    std::unique_ptr<nhwc_t> nhwc = std::make_unique<nhwc_t>();
    std::unique_ptr<nchw_t> nchw = std::make_unique<nchw_t>();
    std::unique_ptr<nhwc_t> out = std::make_unique<nhwc_t>();
    vec_t scale, offset;
    data() {
        fill(nhwc->data(), n_all, [](std::size_t i) { return gen(i, 1, -1.0f, 3.0f); });
        fill(nchw->data(), n_all, [](std::size_t i) { return gen(i, 2, -1.0f, 3.0f); });
        fill(scale.data(), bc, [](std::size_t i) { return gen(i, 3, 0.5f, 2.0f); });
        fill(offset.data(), bc, [](std::size_t i) { return gen(i, 4, -1.0f, 1.0f); });
    }
};
data& in() {
    static data d;
    return d;
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "batch_norm_bench: %s differs from the plain loop\n", what);
    std::abort();
}

// The plain loop: mean pass, variance pass (around the mean), output pass; f32 accumulators per
// feature, features last (NHWC) or in dimension 1 (NCHW: per-feature runs of hw elements).
void loop_nhwc(const float* x, float* y, const float* g, const float* b, float* mean, float* var) {
    const std::size_t rows = n_all / bc;
    std::vector<float> s(bc, 0.0f), q(bc, 0.0f), a(bc);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < bc; ++c)
            s[c] += x[r * bc + c];
    for (std::size_t c = 0; c < bc; ++c)
        mean[c] = s[c] / static_cast<float>(rows);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < bc; ++c) {
            const float d = x[r * bc + c] - mean[c];
            q[c] += d * d;
        }
    for (std::size_t c = 0; c < bc; ++c) {
        var[c] = q[c] / static_cast<float>(rows);
        a[c] = g[c] / std::sqrt(var[c] + 1e-5f);
    }
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < bc; ++c)
            y[r * bc + c] = (x[r * bc + c] - mean[c]) * a[c] + b[c];
}
void loop_nchw(const float* x, float* y, const float* g, const float* b, float* mean, float* var) {
    constexpr std::size_t hw = bh * bw;
    for (std::size_t c = 0; c < bc; ++c) {
        float acc[16] = {};
        for (std::size_t n = 0; n < bn; ++n) {
            const float* p = x + (n * bc + c) * hw;
            for (std::size_t i = 0; i + 16 <= hw; i += 16)
                for (std::size_t l = 0; l < 16; ++l)
                    acc[l] += p[i + l];
        }
        float s = 0;
        for (float v : acc)
            s += v;
        mean[c] = s / static_cast<float>(bn * hw);
        float sq[16] = {};
        for (std::size_t n = 0; n < bn; ++n) {
            const float* p = x + (n * bc + c) * hw;
            for (std::size_t i = 0; i + 16 <= hw; i += 16)
                for (std::size_t l = 0; l < 16; ++l) {
                    const float d = p[i + l] - mean[c];
                    sq[l] += d * d;
                }
        }
        float q = 0;
        for (float v : sq)
            q += v;
        var[c] = q / static_cast<float>(bn * hw);
        const float a = g[c] / std::sqrt(var[c] + 1e-5f);
        for (std::size_t n = 0; n < bn; ++n) {
            const float* p = x + (n * bc + c) * hw;
            float* o = y + (n * bc + c) * hw;
            for (std::size_t i = 0; i < hw; ++i)
                o[i] = (p[i] - mean[c]) * a + b[c];
        }
    }
}
static_assert((bh * bw) % 16 == 0);

template<bool Nchw>
void check_against_loop() {
    auto& d = in();
    const float* x = Nchw ? d.nchw->data() : d.nhwc->data();
    std::vector<float> y(n_all), mean(bc), var(bc);
    (Nchw ? loop_nchw : loop_nhwc)(x, y.data(), d.scale.data(), d.offset.data(), mean.data(), var.data());
    auto check = [&](const auto& t) {
        const auto& [yy, mm, vv] = t;
        for (std::size_t c = 0; c < bc; ++c)
            if (std::abs(mm(c) - mean[c]) > 1e-4f || std::abs(vv(c) - var[c]) > 1e-4f * var[c]) fail("mean/var");
        for (std::size_t i = 0; i < n_all; i += 997)
            if (std::abs(yy.data()[i] - y[i]) > 1e-3f) fail("output");
    };
    if constexpr (Nchw)
        check(xlet::batch_norm_training<1>(*d.nchw, d.scale, d.offset, 1e-5f));
    else
        check(xlet::batch_norm_training<3>(*d.nhwc, d.scale, d.offset, 1e-5f));
}

template<bool Nchw>
void BM_training_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    check_against_loop<Nchw>();
    auto& d = in();
    for (auto _ : st) {
        if constexpr (Nchw)
            benchmark::DoNotOptimize(xlet::batch_norm_training<1>(*d.nchw, d.scale, d.offset, 1e-5f));
        else
            benchmark::DoNotOptimize(xlet::batch_norm_training<3>(*d.nhwc, d.scale, d.offset, 1e-5f));
    }
    set_bytes(st, bytes_all);
}
template<bool Nchw>
void BM_training_loop(benchmark::State& st, int) {
    auto& d = in();
    std::vector<float> mean(bc), var(bc);
    for (auto _ : st) {
        (Nchw ? loop_nchw : loop_nhwc)(Nchw ? d.nchw->data() : d.nhwc->data(), d.out->data(), d.scale.data(),
                                       d.offset.data(), mean.data(), var.data());
        benchmark::DoNotOptimize(d.out->data());
    }
    set_bytes(st, bytes_all);
}
void BM_inference_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = in();
    const vec_t mean = vec_t::filled(1.0f), var = vec_t::filled(1.3f);
    for (auto _ : st) {
        *d.out = xlet::batch_norm_inference<3>(*d.nhwc, d.scale, d.offset, mean, var, 1e-5f);
        benchmark::DoNotOptimize(d.out->data());
    }
    set_bytes(st, bytes_all);
}
// The read bandwidth bound: 32 independent accumulators, TBB-split when threads > 1.
float sum_range(const float* p, std::size_t b, std::size_t e) {
    float acc[32] = {};
    for (std::size_t i = b; i + 32 <= e; i += 32)
        for (std::size_t k = 0; k < 32; ++k)
            acc[k] += p[i + k];
    float s = 0;
    for (float v : acc)
        s += v;
    return s;
}
void BM_read_only(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* p = in().nhwc->data();
    for (auto _ : st) {
        const float s = threads == 1 ? sum_range(p, 0, n_all)
                                     : tbb::parallel_reduce(
                                           tbb::blocked_range<std::size_t>(0, n_all, 1 << 16), 0.0f,
                                           [&](const tbb::blocked_range<std::size_t>& r, float v) {
                                               return v + sum_range(p, r.begin(), r.end());
                                           },
                                           [](float x, float y) { return x + y; }, tbb::static_partitioner{});
        benchmark::DoNotOptimize(s);
    }
    set_bytes(st, bytes_all);
}

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_bn_read_only/loop", BM_read_only, t);
        reg("BM_bn_training_nhwc/xlet", BM_training_xlet<false>, t);
        reg("BM_bn_training_nchw/xlet", BM_training_xlet<true>, t);
        reg("BM_bn_inference_nhwc/xlet", BM_inference_xlet, t);
    }
    reg("BM_bn_training_nhwc/loop", BM_training_loop<false>, 1);
    reg("BM_bn_training_nchw/loop", BM_training_loop<true>, 1);
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
