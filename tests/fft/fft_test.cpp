// Fft through the op: the spec's shape rules (RFFT of 16 and 17 give 9 outputs, IRFFT restores
// fft_length), known transforms (delta, constant, single tone), round trips, Parseval, linearity,
// multi-axis transforms against the cascade of 1-D ones, RFFT / IRFFT against the complex
// transforms, expression operands, and bitwise thread-count independence. The kernels on every
// length 1..128 and on large lengths against an O(n^2) DFT in long double: fft_diff_test.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <xlet/xlet.hpp>

#include <cmath>
#include <complex>
#include <random>

#include <tbb/task_arena.h>

using namespace xlet;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {
template<class Tn>
Tn random_tensor(unsigned seed) {
    Tn t;
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    using V = typename Tn::value_type;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if constexpr (std::is_floating_point_v<V>)
            t.data()[i] = V(u(g));
        else
            t.data()[i] = V(typename V::value_type(u(g)), typename V::value_type(u(g)));
    }
    return t;
}
template<class A, class B>
double max_diff(const A& a, const B& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        m = std::max(m, double(std::abs(a.data()[i] - b.data()[i])));
    return m;
}
template<class A, class B>
bool same_bits(const A& a, const B& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a.data()[i] == b.data()[i])) return false;
    return true;
}
constexpr double pi = 3.14159265358979323846;
} // namespace

TEST_CASE("shape rules: RFFT of 16 and of 17 give 9 outputs; IRFFT restores fft_length; FFT keeps the shape") {
    f32<3, 16> a;
    f32<3, 17> b;
    static_assert(std::is_same_v<decltype(fft<fft_type::rfft, 16>(a)), c64<3, 9>>);
    static_assert(std::is_same_v<decltype(fft<fft_type::rfft, 17>(b)), c64<3, 9>>);
    c64<3, 9> z;
    static_assert(std::is_same_v<decltype(fft<fft_type::irfft, 16>(z)), f32<3, 16>>);
    static_assert(std::is_same_v<decltype(fft<fft_type::irfft, 17>(z)), f32<3, 17>>);
    c128<2, 4, 8> w;
    static_assert(std::is_same_v<decltype(fft<fft_type::fft, 4, 8>(w)), c128<2, 4, 8>>);
    static_assert(std::is_same_v<decltype(fft<fft_type::rfft, 4, 6>(f64<2, 4, 6>{})), c128<2, 4, 4>>);
    CHECK(true);
}

TEST_CASE("known transforms: delta, constant, single tone, and IFFT's 1/N") {
    c64<8> delta{};
    delta(0) = cf(1, 0);
    auto d = fft<fft_type::fft, 8>(delta);
    for (std::size_t k = 0; k < 8; ++k)
        CHECK(std::abs(d(k) - cf(1, 0)) < 1e-6f);
    c64<12> one;
    for (std::size_t i = 0; i < 12; ++i)
        one(i) = cf(2, 0);
    auto c = fft<fft_type::fft, 12>(one);
    CHECK(std::abs(c(0) - cf(24, 0)) < 1e-5f);
    for (std::size_t k = 1; k < 12; ++k)
        CHECK(std::abs(c(k)) < 1e-5f);
    // x_n = exp(2 pi i 3 n / 30): X_3 = 30, others 0
    c64<30> tone;
    for (std::size_t n = 0; n < 30; ++n)
        tone(n) = cf(float(std::cos(2 * pi * 3 * n / 30)), float(std::sin(2 * pi * 3 * n / 30)));
    auto t = fft<fft_type::fft, 30>(tone);
    for (std::size_t k = 0; k < 30; ++k)
        CHECK(std::abs(t(k) - (k == 3 ? cf(30, 0) : cf(0, 0))) < 2e-5f);
    // IFFT of a delta at k = 0 is the constant 1 / N
    auto i = fft<fft_type::ifft, 8>(delta);
    for (std::size_t n = 0; n < 8; ++n)
        CHECK(std::abs(i(n) - cf(0.125f, 0)) < 1e-7f);
    // a real cosine through RFFT: bins 2 and (mirrored, not stored) 14 of 16
    f64<16> cosine;
    for (std::size_t n = 0; n < 16; ++n)
        cosine(n) = std::cos(2 * pi * 2 * n / 16);
    auto r = fft<fft_type::rfft, 16>(cosine);
    for (std::size_t k = 0; k < 9; ++k)
        CHECK(std::abs(r(k) - (k == 2 ? cd(8, 0) : cd(0, 0))) < 1e-12);
}

TEST_CASE("round trips: ifft(fft(x)) and irfft(rfft(x)), even, odd, prime and Bluestein lengths") {
    auto x = random_tensor<c64<4, 1000>>(1);
    CHECK(max_diff(fft<fft_type::ifft, 1000>(fft<fft_type::fft, 1000>(x)), x) < 1e-5);
    auto p = random_tensor<c128<1009>>(2);
    CHECK(max_diff(fft<fft_type::ifft, 1009>(fft<fft_type::fft, 1009>(p)), p) < 1e-13);
    auto r = random_tensor<f32<3, 64>>(3);
    CHECK(max_diff(fft<fft_type::irfft, 64>(fft<fft_type::rfft, 64>(r)), r) < 1e-6);
    auto o = random_tensor<f64<2, 17>>(4);
    CHECK(max_diff(fft<fft_type::irfft, 17>(fft<fft_type::rfft, 17>(o)), o) < 1e-14);
    auto q = random_tensor<f64<5, 6, 10>>(5);
    CHECK(max_diff(fft<fft_type::irfft, 6, 10>(fft<fft_type::rfft, 6, 10>(q)), q) < 1e-14);
}

TEST_CASE("Parseval and linearity") {
    auto x = random_tensor<c128<384>>(6);
    auto y = random_tensor<c128<384>>(7);
    auto X = fft<fft_type::fft, 384>(x);
    double ex = 0, eX = 0;
    for (std::size_t i = 0; i < 384; ++i) {
        ex += std::norm(x(i));
        eX += std::norm(X(i));
    }
    CHECK(eX / 384 == doctest::Approx(ex).epsilon(1e-13));
    const cd a(0.5, -2), b(3, 0.25);
    c128<384> comb = x * a + y * b;
    auto lhs = fft<fft_type::fft, 384>(comb);
    auto Y = fft<fft_type::fft, 384>(y);
    c128<384> rhs = X * a + Y * b;
    CHECK(max_diff(lhs, rhs) < 1e-12);
}

TEST_CASE("multi-axis transforms equal the cascade of 1-D transforms") {
    auto x = random_tensor<c64<3, 12, 20>>(8);
    auto two = fft<fft_type::fft, 12, 20>(x);
    // cascade: innermost, then axis 1 through a transpose
    auto inner = fft<fft_type::fft, 20>(x);
    c64<3, 20, 12> t = transpose(inner, dims<0, 2, 1>);
    auto outer = fft<fft_type::fft, 12>(t);
    c64<3, 12, 20> cascade = transpose(outer, dims<0, 2, 1>);
    CHECK(max_diff(two, cascade) < 2e-5);
    auto x3 = random_tensor<c128<4, 6, 10>>(9);
    auto three = fft<fft_type::fft, 4, 6, 10>(x3);
    auto a = fft<fft_type::fft, 6, 10>(x3);
    c128<6, 10, 4> at = transpose(a, dims<1, 2, 0>);
    auto b = fft<fft_type::fft, 4>(at);
    c128<4, 6, 10> c3 = transpose(b, dims<2, 0, 1>);
    CHECK(max_diff(three, c3) < 1e-12);
    auto inv = fft<fft_type::ifft, 4, 6, 10>(three);
    CHECK(max_diff(inv, x3) < 1e-14);
}

TEST_CASE("RFFT is the first half of the complex FFT of the real input; IRFFT uses the conjugate symmetry") {
    auto r = random_tensor<f64<5, 8, 14>>(10);
    c128<5, 8, 14> rc = convert_element_type<cd>(r);
    auto full = fft<fft_type::fft, 8, 14>(rc);
    auto half = fft<fft_type::rfft, 8, 14>(r);
    static_assert(std::is_same_v<decltype(half), c128<5, 8, 8>>);
    double m = 0;
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 8; ++j)
            for (std::size_t k = 0; k < 8; ++k)
                m = std::max(m, std::abs(half(i, j, k) - full(i, j, k)));
    CHECK(m < 1e-12);
    // IRFFT of a spectrum whose DC and Nyquist bins have imaginary parts: they are ignored
    c128<9> z;
    for (std::size_t k = 0; k < 9; ++k)
        z(k) = cd(double(k) + 1, 0.5 * double(k));
    auto y = fft<fft_type::irfft, 16>(z);
    c128<9> zr = z;
    zr(0) = cd(zr(0).real(), 0);
    zr(8) = cd(zr(8).real(), 0);
    auto y2 = fft<fft_type::irfft, 16>(zr);
    CHECK(max_diff(y, y2) < 1e-14);
    // and equals the real part of the IFFT of the Hermitian extension
    c128<16> ext;
    for (std::size_t k = 0; k < 16; ++k)
        ext(k) = k < 9 ? zr(k) : std::conj(zr(16 - k));
    auto e = fft<fft_type::ifft, 16>(ext);
    for (std::size_t n = 0; n < 16; ++n)
        CHECK(std::abs(y(n) - e(n).real()) < 1e-14);
}

TEST_CASE("operands are expressions: fft(x * window) equals the FFT of the evaluated product") {
    auto x = random_tensor<c64<2, 256>>(11);
    c64<2, 256> win;
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t n = 0; n < 256; ++n)
            win(i, n) = cf(float(0.5 - 0.5 * std::cos(2 * pi * n / 256)), 0);
    auto fused = fft<fft_type::fft, 256>(x * win);
    c64<2, 256> prod = x * win;
    CHECK(same_bits(fused, fft<fft_type::fft, 256>(prod)));
    f32<> scale(2.0f);
    auto r = random_tensor<f32<100>>(12);
    auto rr = fft<fft_type::rfft, 100>(r * scale);
    f32<100> r2 = r * scale;
    CHECK(same_bits(rr, fft<fft_type::rfft, 100>(r2)));
}

TEST_CASE("results are bitwise identical for 1 and 2 threads (batch, columns, four-step, Bluestein)") {
    auto b = random_tensor<c64<300, 64>>(13);
    auto m = random_tensor<c64<64, 96>>(14);
    auto s = random_tensor<c64<1 << 16>>(15);
    auto p = random_tensor<c64<40, 1031>>(16);
    auto q = random_tensor<c64<1031>>(18);
    c64<1031> q1, q2;
    c64<300, 64> b1, b2;
    c64<64, 96> m1, m2;
    c64<1 << 16> s1, s2;
    c64<40, 1031> p1, p2;
    tbb::task_arena(1).execute([&] {
        b1 = fft<fft_type::fft, 64>(b);
        m1 = fft<fft_type::fft, 64, 96>(m);
        s1 = fft<fft_type::ifft, 1 << 16>(s);
        p1 = fft<fft_type::fft, 1031>(p);
        q1 = fft<fft_type::ifft, 1031>(q);
    });
    tbb::task_arena(2).execute([&] {
        b2 = fft<fft_type::fft, 64>(b);
        m2 = fft<fft_type::fft, 64, 96>(m);
        s2 = fft<fft_type::ifft, 1 << 16>(s);
        p2 = fft<fft_type::fft, 1031>(p);
        q2 = fft<fft_type::ifft, 1031>(q);
    });
    CHECK(same_bits(b1, b2));
    CHECK(same_bits(m1, m2));
    CHECK(same_bits(s1, s2));
    CHECK(same_bits(p1, p2));
    CHECK(same_bits(q1, q2));
    // and a value of the long transform against its definition
    std::complex<long double> acc = 0;
    for (std::size_t n = 0; n < (1u << 16); ++n) {
        const long double a =
            2 * 3.141592653589793238462643383279502884L * (long double)((n * 777) % (1u << 16)) / (1u << 16);
        acc +=
            std::complex<long double>(s(n).real(), s(n).imag()) * std::complex<long double>(std::cos(a), std::sin(a));
    }
    acc /= (long double)(1u << 16);
    CHECK(std::abs(std::complex<double>(double(acc.real()), double(acc.imag())) - cd(s1(777))) < 1e-6);
}

TEST_CASE("zero-length and unit-length axes") {
    c64<3, 1> one = random_tensor<c64<3, 1>>(17);
    CHECK(same_bits(fft<fft_type::fft, 1>(one), one));
    f32<2, 0> none;
    auto r = fft<fft_type::rfft, 0>(none);
    static_assert(std::is_same_v<decltype(r), c64<2, 0>>);
    CHECK(r.size() == 0);
}
