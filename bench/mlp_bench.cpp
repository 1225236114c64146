// Whole programs as a user writes them (issue #12 §4): the MLP forward pass with softmax
// cross-entropy of examples/mlp_model.hpp (x f32[256,784] -> dense 512 + relu -> dense 10), and
// single-head attention softmax(q kᵀ/8) v on [512,64]. Peers in the same executable: Eigen
// (matrices, OpenMP threads for its products) and OpenBLAS (cblas_sgemm for the products, plain
// loops for the rest). bench/mlp_numpy.py runs the same programs in NumPy for the third column.
// Every implementation allocates its results fresh per call, as the programs are written.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "../examples/mlp_model.hpp"

#if defined(XLET_BENCH_HAVE_EIGEN)
#include <Eigen/Core>
#endif
#if defined(XLET_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif

#if defined(XLET_BENCH_HAVE_TRANSLATED)
#include "mlp_loss_translated.hpp" // examples/stablehlo/mlp_loss.mlir through xlet-translate (B = 256)
#endif

#include "bench_common.hpp"

namespace xlet_bench {
namespace {

constexpr std::size_t B = 256, In = 784, Hid = 512, Out = 10, N = 512, D = 64;

template<class T>
void fill_t(T& t, std::uint32_t seed, float scale) {
    fill(t.data(), xlet::product(T::extents), [&](std::size_t i) { return scale * gen(i, seed, -1.0f, 1.0f); });
}

struct mlp_data {
    std::unique_ptr<mlp::params<B>> p = std::make_unique<mlp::params<B>>();
    std::unique_ptr<xlet::f32<B, In>> x = std::make_unique<xlet::f32<B, In>>();
    xlet::s32<B> labels;
    mlp_data() {
        fill_t(p->w1, 1, 0.05f), fill_t(p->b1, 2, 0.1f), fill_t(p->w2, 3, 0.05f), fill_t(p->b2, 4, 0.1f);
        fill_t(*x, 5, 1.0f);
        for (std::size_t i = 0; i < B; ++i)
            labels(i) = static_cast<std::int32_t>(i % 10);
    }
};
mlp_data& data() {
    static mlp_data d;
    return d;
}
struct att_data {
    std::unique_ptr<xlet::f32<N, D>> q = std::make_unique<xlet::f32<N, D>>(), k = std::make_unique<xlet::f32<N, D>>(),
                                     v = std::make_unique<xlet::f32<N, D>>();
    att_data() { fill_t(*q, 6, 1.0f), fill_t(*k, 7, 1.0f), fill_t(*v, 8, 1.0f); }
};
att_data& att() {
    static att_data d;
    return d;
}

// The products' FLOPs per call (2 m n k each; the element-wise work, not counted, adds 1-2%), the
// xlet rows' rate counter "FLOP/s" (bench/plot.py --roofline).
constexpr double mlp_flops = 2.0 * B * In * Hid + 2.0 * B * Hid * Out, attention_flops = 2.0 * 2 * N * N * D;
void set_flops(benchmark::State& st, double per_iteration) {
    st.counters["FLOP/s"] =
        benchmark::Counter(per_iteration * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

void BM_mlp_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = data();
    float l = 0;
    for (auto _ : st)
        benchmark::DoNotOptimize(l = mlp::loss(*d.p, *d.x, d.labels));
    st.counters["loss"] = l;
    set_flops(st, mlp_flops);
}

#if defined(XLET_BENCH_HAVE_TRANSLATED)
// The same loss imported from StableHLO (a symbolic-batch JAX export refined to 256) and translated.
void BM_mlp_translated(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = data();
    float l = 0;
    for (auto _ : st)
        benchmark::DoNotOptimize(l = mlp_translated::main(*d.x, d.p->w1, d.p->b1, d.p->w2, d.p->b2, d.labels)());
    st.counters["loss"] = l;
}
#endif

void BM_attention_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    auto& d = att();
    for (auto _ : st) {
        auto o = attention::forward(*d.q, *d.k, *d.v);
        benchmark::DoNotOptimize(o.data());
    }
    set_flops(st, attention_flops);
}

#if defined(XLET_BENCH_HAVE_EIGEN)
using emat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using evec = Eigen::Matrix<float, 1, Eigen::Dynamic>;
template<class T>
auto as_mat(const T& t, Eigen::Index r, Eigen::Index c) {
    return Eigen::Map<const emat>(t.data(), r, c);
}

void BM_mlp_eigen(benchmark::State& st, int threads) {
    Eigen::setNbThreads(threads);
    auto& d = data();
    auto x = as_mat(*d.x, B, In), w1 = as_mat(d.p->w1, In, Hid), w2 = as_mat(d.p->w2, Hid, Out);
    Eigen::Map<const evec> b1(d.p->b1.data(), Hid), b2(d.p->b2.data(), Out);
    float l = 0;
    for (auto _ : st) {
        emat h = ((x * w1).rowwise() + b1).cwiseMax(0.0f);
        emat z = (h * w2).rowwise() + b2;
        Eigen::VectorXf m = z.rowwise().maxCoeff();
        Eigen::VectorXf lse = ((z.colwise() - m).array().exp().rowwise().sum().log()).matrix() + m;
        float total = 0;
        for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(B); ++i)
            total += lse(i) - z(i, d.labels(static_cast<std::size_t>(i)));
        benchmark::DoNotOptimize(l = total / static_cast<float>(B));
    }
    st.counters["loss"] = l;
}

void BM_attention_eigen(benchmark::State& st, int threads) {
    Eigen::setNbThreads(threads);
    auto& d = att();
    auto q = as_mat(*d.q, N, D), k = as_mat(*d.k, N, D), v = as_mat(*d.v, N, D);
    for (auto _ : st) {
        emat s = (q * k.transpose()) * 0.125f;
        Eigen::VectorXf m = s.rowwise().maxCoeff();
        emat e = (s.colwise() - m).array().exp().matrix();
        Eigen::VectorXf sum = e.rowwise().sum();
        emat o = (e * v).array().colwise() / sum.array();
        benchmark::DoNotOptimize(o.data());
    }
}
#endif

#if defined(XLET_BENCH_HAVE_OPENBLAS)
// The same program with OpenBLAS for the products and straightforward loops for the rest.
void BM_mlp_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = data();
    float l = 0;
    for (auto _ : st) {
        std::vector<float> h(B * Hid), z(B * Out);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, Hid, In, 1.0f, d.x->data(), In, d.p->w1.data(), Hid,
                    0.0f, h.data(), Hid);
        for (std::size_t i = 0; i < B; ++i)
            for (std::size_t j = 0; j < Hid; ++j)
                h[i * Hid + j] = std::max(h[i * Hid + j] + d.p->b1(j), 0.0f);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, Out, Hid, 1.0f, h.data(), Hid, d.p->w2.data(), Out,
                    0.0f, z.data(), Out);
        float total = 0;
        for (std::size_t i = 0; i < B; ++i) {
            float m = -std::numeric_limits<float>::infinity();
            for (std::size_t j = 0; j < Out; ++j)
                m = std::max(m, z[i * Out + j] += d.p->b2(j));
            float s = 0;
            for (std::size_t j = 0; j < Out; ++j)
                s += std::exp(z[i * Out + j] - m);
            total += std::log(s) + m - z[i * Out + static_cast<std::size_t>(d.labels(i))];
        }
        benchmark::DoNotOptimize(l = total / static_cast<float>(B));
    }
    st.counters["loss"] = l;
}

void BM_attention_openblas(benchmark::State& st, int threads) {
    openblas_set_num_threads(threads);
    auto& d = att();
    for (auto _ : st) {
        std::vector<float> s(N * N), o(N * D);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, D, 0.125f, d.q->data(), D, d.k->data(), D, 0.0f,
                    s.data(), N);
        std::vector<float> sum(N);
        for (std::size_t i = 0; i < N; ++i) {
            float m = -std::numeric_limits<float>::infinity(), t = 0;
            for (std::size_t j = 0; j < N; ++j)
                m = std::max(m, s[i * N + j]);
            for (std::size_t j = 0; j < N; ++j)
                t += (s[i * N + j] = std::exp(s[i * N + j] - m));
            sum[i] = t;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, D, N, 1.0f, s.data(), N, d.v->data(), D, 0.0f,
                    o.data(), D);
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < D; ++j)
                o[i * D + j] /= sum[i];
        benchmark::DoNotOptimize(o.data());
    }
}
#endif

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_mlp/xlet", BM_mlp_xlet, t, t, benchmark::kMicrosecond);
#if defined(XLET_BENCH_HAVE_TRANSLATED)
        reg("BM_mlp/translated", BM_mlp_translated, t, t, benchmark::kMicrosecond);
#endif
#if defined(XLET_BENCH_HAVE_EIGEN)
        reg("BM_mlp/eigen", BM_mlp_eigen, t, t, benchmark::kMicrosecond);
#endif
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_mlp/openblas", BM_mlp_openblas, t, t, benchmark::kMicrosecond);
#endif
        reg("BM_attention/xlet", BM_attention_xlet, t, t, benchmark::kMicrosecond);
#if defined(XLET_BENCH_HAVE_EIGEN)
        reg("BM_attention/eigen", BM_attention_eigen, t, t, benchmark::kMicrosecond);
#endif
#if defined(XLET_BENCH_HAVE_OPENBLAS)
        reg("BM_attention/openblas", BM_attention_openblas, t, t, benchmark::kMicrosecond);
#endif
    }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
