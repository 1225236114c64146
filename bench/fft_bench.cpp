// FFT (issue #15): xlet's fft beside FFTW 3.3 (libfftw3-dev, single precision) in the same run.
//   BM_fft_<case>/xlet/threads:<t>            y = fft<...>(x) into an existing tensor
//   BM_fft_<case>/fftw_estimate/threads:<t>   fftwf_execute of a FFTW_ESTIMATE plan (out of place)
//   BM_fft_<case>/fftw_measure/threads:<t>    the same with FFTW_MEASURE (plan made before the loop)
// Cases: c2c 1024, 1000, 1009 (prime), 2^20; r2c and c2r 2^20; a batch of 4096 x 256; 2-D 1024 x 1024.
// FFTW's threads: fftwf_plan_with_nthreads(t) before each plan (libfftw3f_threads); xlet's: a TBB
// global_control. Counter FLOP/s = 5 n log2(n) per complex transform (2.5 n log2 n for real ones),
// the usual "FFT flops" convention, so the ratio of two entries is the ratio of their times.
// Without FFTW (XLET_BENCH_HAVE_FFTW undefined: bench/CMakeLists.txt did not find libfftw3-dev) the
// executable has the xlet rows only.
#if defined(XLET_BENCH_HAVE_FFTW)
#include <fftw3.h>
#endif

#include "bench_common.hpp"

#include <cmath>
#include <complex>
#include <cstring>

#include <xlet/xlet.hpp>

namespace xlet_bench {
namespace {

using cf = std::complex<float>;

enum class impl { xlet, estimate, measure };

// XLET_FFTW_PLAN(call): the case's FFTW plan, a function of (in, out, flags) returning `call`;
// without FFTW a placeholder that run_case never uses.
#if defined(XLET_BENCH_HAVE_FFTW)
#define XLET_FFTW_PLAN(...) [](void* in, void* out, unsigned flags) { return __VA_ARGS__; }
#else
struct no_fftw {};
#define XLET_FFTW_PLAN(...) (no_fftw{})
#endif

template<class Tx, class Ty, class Run, class Plan>
// fftw_scale: FFTW's inverse transforms are not normalised (xlet's are, by 1 / n, as XLA's).
void run_case(benchmark::State& st, impl which, int threads, double flops, Run xlet_run, Plan make_plan,
              double fftw_scale = 1) {
    static Tx x;
    static Ty y;
    fill(x.data(), x.size(), [](std::size_t i) {
        if constexpr (std::is_same_v<typename Tx::value_type, float>)
            return gen(i, 3, -1.0f, 1.0f);
        else
            return cf(gen(i, 1, -1.0f, 1.0f), gen(i, 2, -1.0f, 1.0f));
    });
    if (which == impl::xlet) {
        tbb_threads limit(threads);
        for (auto _ : st) {
            xlet_run(x, y);
            benchmark::DoNotOptimize(y.data());
        }
    } else {
#if defined(XLET_BENCH_HAVE_FFTW)
        fftwf_plan_with_nthreads(threads);
        const std::size_t in_bytes = x.size() * sizeof(typename Tx::value_type);
        void* in = fftwf_malloc(in_bytes);
        void* out = fftwf_malloc(y.size() * sizeof(typename Ty::value_type));
        fftwf_plan p = make_plan(in, out, which == impl::measure ? FFTW_MEASURE : FFTW_ESTIMATE);
        std::memcpy(in, x.data(), in_bytes); // MEASURE overwrites the arrays while planning
        for (auto _ : st) {
            fftwf_execute(p);
            benchmark::DoNotOptimize(out);
        }
        // once, outside the timing: FFTW and xlet agree
        xlet_run(x, y);
        double m = 0, ref = 0;
        auto* o = static_cast<typename Ty::value_type*>(out);
        for (std::size_t i = 0; i < y.size(); ++i) {
            m = std::max(m, double(std::abs(o[i] * static_cast<float>(fftw_scale) - y.data()[i])));
            ref = std::max(ref, double(std::abs(o[i])) * fftw_scale);
        }
        st.counters["rel_err"] = m / std::max(ref, 1e-30);
        fftwf_destroy_plan(p);
        fftwf_free(in);
        fftwf_free(out);
#else
        (void)make_plan;
        (void)fftw_scale;
#endif
    }
    st.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

template<class F>
void reg(const std::string& name, F f) {
    // (the FFTW rows only where FFTW is found)
    static constexpr std::pair<impl, const char*> impls[] = {
        {impl::xlet, "xlet"},
#if defined(XLET_BENCH_HAVE_FFTW)
        {impl::estimate, "fftw_estimate"},
        {impl::measure, "fftw_measure"},
#endif
    };
    for (int t : {1, 2})
        for (auto [which, tag] : impls) {
            const std::string full = "BM_fft_" + name + "/" + tag + "/threads:" + std::to_string(t);
            benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& st) { f(st, which, t); })->UseRealTime();
        }
}

double cflops(double n, double count = 1) { return 5 * n * std::log2(n) * count; }

template<std::size_t N>
void c2c_1d(benchmark::State& st, impl which, int t) {
    run_case<xlet::c64<N>, xlet::c64<N>>(
        st, which, t, cflops(N), [](auto& x, auto& y) { y = xlet::fft<xlet::fft_type::fft, N>(x); },
        XLET_FFTW_PLAN(fftwf_plan_dft_1d(int(N), static_cast<fftwf_complex*>(in), static_cast<fftwf_complex*>(out),
                                         FFTW_FORWARD, flags)));
}
template<std::size_t N>
void r2c_1d(benchmark::State& st, impl which, int t) {
    run_case<xlet::f32<N>, xlet::c64<N / 2 + 1>>(
        st, which, t, cflops(N) / 2, [](auto& x, auto& y) { y = xlet::fft<xlet::fft_type::rfft, N>(x); },
        XLET_FFTW_PLAN(
            fftwf_plan_dft_r2c_1d(int(N), static_cast<float*>(in), static_cast<fftwf_complex*>(out), flags)));
}
// c2r: FFTW's c2r overwrites its input unless told otherwise; FFTW_PRESERVE_INPUT keeps the
// repeated executions on the same spectrum (xlet's fft reads its operand only).
template<std::size_t N>
void c2r_1d(benchmark::State& st, impl which, int t) {
    run_case<xlet::c64<N / 2 + 1>, xlet::f32<N>>(
        st, which, t, cflops(N) / 2, [](auto& x, auto& y) { y = xlet::fft<xlet::fft_type::irfft, N>(x); },
        XLET_FFTW_PLAN(fftwf_plan_dft_c2r_1d(int(N), static_cast<fftwf_complex*>(in), static_cast<float*>(out),
                                             flags | FFTW_PRESERVE_INPUT)),
        1.0 / N);
}
template<std::size_t B, std::size_t N>
void c2c_batch(benchmark::State& st, impl which, int t) {
    [[maybe_unused]] static constexpr int n = int(N); // FFTW takes the lengths by pointer
    run_case<xlet::c64<B, N>, xlet::c64<B, N>>(
        st, which, t, cflops(N, B), [](auto& x, auto& y) { y = xlet::fft<xlet::fft_type::fft, N>(x); },
        XLET_FFTW_PLAN(fftwf_plan_many_dft(1, &n, int(B), static_cast<fftwf_complex*>(in), nullptr, 1, n,
                                           static_cast<fftwf_complex*>(out), nullptr, 1, n, FFTW_FORWARD, flags)));
}
template<std::size_t N1, std::size_t N2>
void c2c_2d(benchmark::State& st, impl which, int t) {
    run_case<xlet::c64<N1, N2>, xlet::c64<N1, N2>>(
        st, which, t, cflops(double(N1) * N2), [](auto& x, auto& y) { y = xlet::fft<xlet::fft_type::fft, N1, N2>(x); },
        XLET_FFTW_PLAN(fftwf_plan_dft_2d(int(N1), int(N2), static_cast<fftwf_complex*>(in),
                                         static_cast<fftwf_complex*>(out), FFTW_FORWARD, flags)));
}

void register_all() {
#if defined(XLET_BENCH_HAVE_FFTW)
    fftwf_init_threads();
#endif
    reg("c2c_1024", c2c_1d<1024>);
    reg("c2c_1000", c2c_1d<1000>);
    reg("c2c_1009", c2c_1d<1009>);
    reg("c2c_2p20", c2c_1d<1 << 20>);
    reg("r2c_2p20", r2c_1d<1 << 20>);
    reg("c2r_2p20", c2r_1d<1 << 20>);
    reg("batch_4096x256", c2c_batch<4096, 256>);
    reg("2d_1024x1024", c2c_2d<1024, 1024>);
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
