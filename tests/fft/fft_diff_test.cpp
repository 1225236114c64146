// The FFT kernels against an O(n^2) DFT in long double, on run-time lengths: the square kernels of
// W^2 and 4 W^2 points; every length 1..128 through each path (1 or W + 1 or W + 3 transforms: the batched
// rows path with full and partial groups; a transform axis followed by 5, 11 or W + 5 columns: the
// column path with full and partial blocks), the four-step for long smooth lengths, and large
// lengths incl. primes and products of large primes (Bluestein, on the vector kernel and on the
// four-step). Bound (stated in docs/semantics.md): max_k |X_k - DFT_k| <= 8 eps log2(m) ||x||_2,
// eps the unit roundoff of the element type, m the longest transform actually run (n, or the
// Bluestein length), ||x||_2 the input's 2-norm (a DFT entry is at most sqrt(n) ||x||_2).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <xlet/xlet.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

using namespace xlet;
namespace d = xlet::detail;
using LD = long double;

namespace {

template<class T>
std::vector<std::complex<T>> random_vec(std::size_t n, unsigned seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::complex<T>> v(n);
    for (auto& z : v)
        z = std::complex<T>(T(u(g)), T(u(g)));
    return v;
}

// X_k = sum_j x_j exp(-+2 pi i j k / n), long double, angle reduced exactly (j k mod n).
template<class T>
std::vector<std::complex<LD>> dft(const std::complex<T>* x, std::size_t n, std::size_t stride, bool inverse) {
    const LD pi = 3.141592653589793238462643383279502884L;
    std::vector<std::complex<LD>> c(n), out(n);
    for (std::size_t j = 0; j < n; ++j) {
        const LD a = 2 * pi * static_cast<LD>(j) / static_cast<LD>(n);
        c[j] = std::complex<LD>(std::cos(a), inverse ? std::sin(a) : -std::sin(a));
    }
    for (std::size_t k = 0; k < n; ++k) {
        std::complex<LD> s = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const auto& z = x[j * stride];
            s += std::complex<LD>(z.real(), z.imag()) * c[(j * k) % n];
        }
        out[k] = inverse ? s / static_cast<LD>(n) : s;
    }
    return out;
}

template<class T>
double bound(const std::complex<T>* x, std::size_t n, std::size_t stride) {
    const auto& P = d::fft_plan_for<T>(n);
    const std::size_t m = P.bluestein ? P.m : n;
    LD norm = 0;
    for (std::size_t j = 0; j < n; ++j)
        norm += std::norm(std::complex<LD>(x[j * stride].real(), x[j * stride].imag()));
    const double eps = std::numeric_limits<T>::epsilon() / 2;
    return 8 * eps * std::max(1.0, std::log2(double(m))) * double(std::sqrt(norm)) + 1e-300;
}

// Worst |y - DFT(x)| / bound over `count` contiguous transforms of length n, of which y keeps the
// first `kept` outputs each (RFFT: n / 2 + 1).
template<class T>
double worst_vs_dft(const std::complex<T>* x, const std::complex<T>* y, std::size_t n, std::size_t count, bool inverse,
                    std::size_t kept = 0) {
    kept = kept == 0 ? n : kept;
    double worst = 0;
    for (std::size_t t = 0; t < count; ++t) {
        const auto ref = dft(x + t * n, n, 1, inverse);
        const double b = bound(x + t * n, n, 1) / (inverse ? double(n) : 1.0);
        for (std::size_t k = 0; k < kept; ++k) {
            const auto& v = y[t * kept + k];
            worst = std::max(worst, double(std::abs(std::complex<LD>(v.real(), v.imag()) - ref[k])) / b);
        }
    }
    return worst;
}

// Every transform of `count` (rows path) against the DFT; returns the worst error / bound.
template<class T>
double check_rows(std::size_t n, std::size_t count, bool inverse, unsigned seed) {
    auto x = random_vec<T>(n * count, seed);
    std::vector<std::complex<T>> y(n * count);
    d::fft_axis_rows<T>(d::fft_plan_for<T>(n), x.data(), y.data(), count,
                        d::fft_io{inverse, inverse ? 1.0 / double(n) : 1.0});
    return worst_vs_dft(x.data(), y.data(), n, count, inverse);
}

// The column path: a [n][cols] array transformed down its columns.
template<class T>
double check_columns(std::size_t n, std::size_t cols, unsigned seed) {
    auto x = random_vec<T>(n * cols, seed);
    std::vector<std::complex<T>> y(n * cols);
    d::fft_axis_columns<T>(d::fft_plan_for<T>(n), x.data(), y.data(), 1, cols, d::fft_io{});
    double worst = 0;
    for (std::size_t c = 0; c < cols; ++c) {
        const auto ref = dft(x.data() + c, n, cols, false);
        const double b = bound(x.data() + c, n, cols);
        for (std::size_t k = 0; k < n; ++k)
            worst = std::max(
                worst, double(std::abs(std::complex<LD>(y[k * cols + c].real(), y[k * cols + c].imag()) - ref[k])) / b);
    }
    return worst;
}

template<class T>
double check_four_step(std::size_t n, bool inverse, unsigned seed) {
    auto x = random_vec<T>(n, seed);
    std::vector<std::complex<T>> y(n);
    const d::fft_four_plan<T> F(n);
    REQUIRE(F.n1 >= 2);
    d::fft_four_step<T>(F, x.data(), y.data(), d::fft_io{inverse, inverse ? 1.0 / double(n) : 1.0});
    return worst_vs_dft(x.data(), y.data(), n, 1, inverse);
}

// The batched two-pass kernel of a power of two N <= 256 (fft_axis_inner's path for many rows).
template<class T, std::size_t N>
double check_two_pass(std::size_t count, bool inverse, unsigned seed) {
    auto x = random_vec<T>(N * count, seed);
    std::vector<std::complex<T>> y(N * count);
    d::fft_axis_rows_two_pass<T, N>(x.data(), y.data(), count, d::fft_io{inverse, inverse ? 1.0 / double(N) : 1.0},
                                    true);
    return worst_vs_dft(x.data(), y.data(), N, count, inverse);
}

// The square kernel of N = W^2 (R = 1), its radix-4 step for N = 4 W^2 (R = 4, f32) and two
// radix-4 steps for N = 16 W^2 (R = 16, f32), out of place and in place: fft_axis_inner's paths
// for those lengths.
template<class T, std::size_t R>
double check_square(std::size_t count, bool inverse, bool in_place, unsigned seed) {
    constexpr std::size_t W = xsimd::batch<T>::size, N = R * W * W;
    auto x = random_vec<T>(N * count, seed);
    std::vector<std::complex<T>> y(N * count);
    const d::fft_io io{inverse, inverse ? 1.0 / double(N) : 1.0};
    if (in_place) y = x;
    const std::complex<T>* src = in_place ? y.data() : x.data();
    if constexpr (R == 1)
        d::fft_axis_rows_square<T>(src, y.data(), count, io, true);
    else if constexpr (R == 4)
        d::fft_axis_rows_square4<T>(src, y.data(), count, io, true);
    else
        d::fft_axis_rows_square16<T>(src, y.data(), count, io, true);
    return worst_vs_dft(x.data(), y.data(), N, count, inverse);
}

// One Bluestein transform with its convolution on the four-step (single long prime lengths).
template<class T>
double check_bluestein_one(std::size_t n, bool inverse, unsigned seed) {
    auto x = random_vec<T>(n, seed);
    std::vector<std::complex<T>> y(n);
    const auto& P = d::fft_plan_for<T>(n);
    REQUIRE(P.bluestein);
    const d::fft_four_plan<T> F(P.m);
    REQUIRE(F.n1 >= 2);
    d::fft_bluestein_one<T>(P, F, x.data(), y.data(), d::fft_io{inverse, inverse ? 1.0 / double(n) : 1.0});
    return worst_vs_dft(x.data(), y.data(), n, 1, inverse);
}

} // namespace

TEST_CASE("every length 1..128, f32 and f64, forward and inverse, each kernel path") {
    constexpr std::size_t W = xsimd::batch<float>::size;
    double worst = 0;
    for (std::size_t n = 1; n <= 128; ++n) {
        const auto s = static_cast<unsigned>(n);
        worst = std::max(worst, check_rows<float>(n, 1, false, s));
        worst = std::max(worst, check_rows<float>(n, W + 3, true, s + 1000));
        worst = std::max(worst, check_columns<float>(n, 5, s + 2000));
        worst = std::max(worst, check_columns<float>(n, W + 5, s + 5000));
        worst = std::max(worst, check_rows<double>(n, 1, true, s + 3000));
        worst = std::max(worst, check_columns<double>(n, 11, s + 4000));
        worst = std::max(worst, check_rows<double>(n, W + 1, false, s + 6000));
    }
    MESSAGE("worst error / bound over 1..128: " << worst);
    CHECK(worst <= 1.0);
}

TEST_CASE("the two-pass kernel: powers of two 4..256, f32 and f64, full and partial groups") {
    constexpr std::size_t W = xsimd::batch<float>::size;
    double worst = 0;
    auto each = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
        worst = std::max(worst, check_two_pass<float, N>(W + 3, false, N));
        worst = std::max(worst, check_two_pass<float, N>(1, true, N + 1));
        worst = std::max(worst, check_two_pass<double, N>(W + 1, true, N + 2));
    };
    each(std::integral_constant<std::size_t, 4>{});
    each(std::integral_constant<std::size_t, 8>{});
    each(std::integral_constant<std::size_t, 16>{});
    each(std::integral_constant<std::size_t, 32>{});
    each(std::integral_constant<std::size_t, 64>{});
    each(std::integral_constant<std::size_t, 128>{});
    each(std::integral_constant<std::size_t, 256>{});
    MESSAGE("worst error / bound, two-pass: " << worst);
    CHECK(worst <= 1.0);
}

TEST_CASE("the square kernels: N = W^2 in registers, 4 W^2 and 16 W^2, forward and inverse, in place") {
    double worst = 0;
    auto each = [&]<class T>(T) {
        if constexpr (d::fft_square_ok<T>()) {
            worst = std::max(worst, check_square<T, 1>(1, false, false, 11));
            worst = std::max(worst, check_square<T, 1>(37, true, false, 12)); // 37: TBB splits it
            worst = std::max(worst, check_square<T, 1>(5, false, true, 13));
            worst = std::max(worst, check_square<T, 1>(3, true, true, 14));
        } else {
            MESSAGE("no square kernel for this element type on this target");
        }
        if constexpr (d::fft_square4_ok<T>()) {
            worst = std::max(worst, check_square<T, 4>(1, false, false, 15));
            worst = std::max(worst, check_square<T, 4>(11, true, false, 16));
            worst = std::max(worst, check_square<T, 4>(2, true, true, 17));
        }
        if constexpr (d::fft_square16_ok<T>()) {
            worst = std::max(worst, check_square<T, 16>(1, false, false, 18));
            worst = std::max(worst, check_square<T, 16>(7, true, false, 19)); // 7: TBB splits it
            worst = std::max(worst, check_square<T, 16>(2, false, true, 20));
            worst = std::max(worst, check_square<T, 16>(1, true, true, 21));
        }
    };
    each(float{});
    each(double{});
    MESSAGE("worst error / bound, square kernel: " << worst);
    CHECK(worst <= 1.0);
}

TEST_CASE("large lengths: smooth, primes, products of large primes, the four-step") {
    double worst = 0;
    for (std::size_t n : {1000u, 1009u, 2187u, 4099u, 323u, 10403u, 12600u, 7919u, 2u * 4099u})
        worst = std::max(worst, check_rows<float>(n, 1, n % 2 == 1, static_cast<unsigned>(n)));
    for (std::size_t n : {1009u, 10403u, 4096u})
        worst = std::max(worst, check_rows<double>(n, 1, false, static_cast<unsigned>(n) + 1));
    for (std::size_t n : {256u, 1000u, 4096u, 12600u, 1u << 14})
        worst = std::max(worst, check_four_step<float>(n, n == 1000u, static_cast<unsigned>(n) + 2));
    worst = std::max(worst, check_four_step<double>(4096, true, 5));
    for (std::size_t n : {37u, 1009u, 7919u, 10403u})
        worst = std::max(worst, check_bluestein_one<float>(n, n % 2 == 1 && n != 1009u, static_cast<unsigned>(n) + 7));
    worst = std::max(worst, check_bluestein_one<double>(1031, true, 8));
    worst = std::max(worst, check_columns<float>(1031, 17, 6));
    MESSAGE("worst error / bound over the large lengths: " << worst);
    CHECK(worst <= 1.0);
}

TEST_CASE("the bound is tight enough to catch a wrong twiddle") {
    // A transform with one input perturbed by 100 eps relative is far outside the bound's scale
    // only if the bound is not loose: compare against the DFT of a different input.
    auto x = random_vec<float>(64, 1);
    auto x2 = x;
    x2[5] *= 1.001f;
    std::vector<std::complex<float>> y(64);
    d::fft_axis_rows<float>(d::fft_plan_for<float>(64), x2.data(), y.data(), 1, d::fft_io{});
    CHECK(worst_vs_dft(x.data(), y.data(), 64, 1, false) > 1.0); // y is x2's transform
}

namespace {
// RFFT of `rows` real rows of length N (the half-length complex transform and its SIMD post-pass)
// against the DFT of (x, 0); returns the worst error / bound over the N / 2 + 1 outputs.
template<class T, std::size_t N>
double check_rfft(std::size_t rows, unsigned seed) {
    auto z = random_vec<T>(N * rows, seed);
    std::vector<T> x(N * rows);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = z[i].real();
        z[i] = std::complex<T>(x[i], T(0)); // the same signal as a complex one, for the reference
    }
    std::vector<std::complex<T>> y(rows * (N / 2 + 1));
    d::fft_rfft_even<T, N>(x.data(), y.data(), rows);
    return worst_vs_dft(z.data(), y.data(), N, rows, false, N / 2 + 1);
}
} // namespace

namespace {
// f(integral_constant<N>) for the even lengths of the RFFT / IRFFT cases (SIMD bodies with and
// without scalar edges, both widths' tails).
template<class F>
void for_even_lengths(const F& f) {
    [&]<std::size_t... N>(std::index_sequence<N...>) { (f(std::integral_constant<std::size_t, N>{}), ...); }
    (std::index_sequence<2, 6, 18, 34, 66, 100, 258, 1000>{});
}

// run(out) on 1 and then 2 threads: the same bytes.
template<class V, class Run>
bool same_on_1_and_2_threads(std::size_t n, const Run& run) {
    std::vector<V> a(n), b(n);
    {
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        run(a.data());
    }
    {
        tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
        run(b.data());
    }
    return std::memcmp(a.data(), b.data(), n * sizeof(V)) == 0;
}
} // namespace

TEST_CASE("rfft: even lengths through the SIMD post-pass, one long row split by k") {
    double worst = 0;
    for_even_lengths([&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
        worst = std::max(worst, check_rfft<float, N>(3, N));
        worst = std::max(worst, check_rfft<double, N>(2, N + 1));
    });
    worst = std::max(worst, check_rfft<float, 16384>(1, 9)); // h = 8192: the post-pass split by k
    MESSAGE("worst error / bound, rfft: " << worst);
    CHECK(worst <= 1.0);
    // the same bits on 1 and 2 threads (the long row's post-pass and a parallel batch of rows)
    auto x = random_vec<float>(16384 * 4, 3);
    std::vector<float> r(x.size());
    for (std::size_t i = 0; i < r.size(); ++i)
        r[i] = x[i].real();
    using C = std::complex<float>;
    CHECK(same_on_1_and_2_threads<C>(8193, [&](C* y) { d::fft_rfft_even<float, 16384>(r.data(), y, 1); }));
    CHECK(same_on_1_and_2_threads<C>(32 * 1001, [&](C* y) { d::fft_rfft_even<float, 2000>(r.data(), y, 32); }));
}

namespace {
// IRFFT of `rows` random spectra (imaginary DC and Nyquist parts included: they are ignored)
// against the real part of the inverse DFT of the Hermitian extension, in long double.
template<class T, std::size_t N>
double check_irfft(std::size_t rows, unsigned seed) {
    constexpr std::size_t h = N / 2 + 1;
    auto X = random_vec<T>(rows * h, seed);
    std::vector<T> y(rows * N);
    d::fft_irfft_even<T, N>(X.data(), y.data(), rows);
    double worst = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        std::vector<std::complex<T>> ext(N);
        for (std::size_t k = 0; k < N; ++k)
            ext[k] = k < h ? X[r * h + k] : std::conj(X[r * h + N - k]);
        const auto ref = dft(ext.data(), N, 1, true);
        const double b = bound(ext.data(), N, 1) / double(N);
        for (std::size_t j = 0; j < N; ++j)
            worst = std::max(worst, double(std::abs(LD(y[r * N + j]) - ref[j].real())) / b);
    }
    return worst;
}
} // namespace

TEST_CASE("irfft: even lengths through the SIMD pre-pass and the half-length inverse") {
    double worst = 0;
    for_even_lengths([&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
        worst = std::max(worst, check_irfft<float, N>(3, N + 7));
        worst = std::max(worst, check_irfft<double, N>(2, N + 8));
    });
    worst = std::max(worst, check_irfft<float, 16384>(1, 10)); // h = 8192: the pre-pass split by k
    MESSAGE("worst error / bound, irfft: " << worst);
    CHECK(worst <= 1.0);
    // the same bits on 1 and 2 threads
    auto X = random_vec<float>(8193 * 4, 4);
    CHECK(same_on_1_and_2_threads<float>(16384, [&](float* y) { d::fft_irfft_even<float, 16384>(X.data(), y, 1); }));
    CHECK(
        same_on_1_and_2_threads<float>(32 * 2000, [&](float* y) { d::fft_irfft_even<float, 2000>(X.data(), y, 32); }));
}
