// FFT plans: the factorisation of a length into Stockham stages (radix 8 / 4 / 2, odd radices 3 to
// 13) with their twiddles, and for a length with a larger prime factor the Bluestein chirp and the
// transform of its convolution kernel. Every table is computed in long double; a plan is built once
// per (element type, length) and never changes, so passes on any thread share it read-only.
#pragma once
#include <cmath>
#include <complex>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace xlet::detail {

inline constexpr std::size_t fft_max_radix = 13; // larger prime factors: Bluestein
#if defined(__AVX512F__)
inline constexpr bool fft_radix8 = true;
#else
inline constexpr bool fft_radix8 = false; // 16 vector registers: radix-8 would spill
#endif

constexpr bool fft_smooth(std::size_t n) {
    for (std::size_t p : {2, 3, 5, 7, 11, 13})
        while (n % p == 0 && n > 1)
            n /= p;
    return n <= 1;
}
constexpr std::size_t fft_pow2_at_least(std::size_t n) {
    std::size_t m = 1;
    while (m < n)
        m *= 2;
    return m;
}

template<class T>
struct fft_stage {
    std::size_t r = 0, L = 0, M = 0; // radix, sub-transform length after the stage, stride
    std::size_t tw = 0;              // offset of the stage's twiddles: (L / r) x (r - 1) complex
    std::size_t cs = 0;              // offset of the odd radix's cos / sin table
};

template<class T>
struct fft_plan {
    std::size_t n = 0;
    std::vector<fft_stage<T>> stages;
    std::vector<T> twr, twi; // stage twiddles
    std::vector<T> cs;       // odd radix constants: cos(2 pi t k / r), sin(2 pi t k / r), t, k in [1, h]
    // Bluestein (n not smooth): the chirp c_j = exp(-i pi j^2 / n), j < n, and the length-m DFT of
    // the convolution kernel conj(c), pre-scaled by 1 / m.
    bool bluestein = false;
    std::size_t m = 0;
    std::vector<T> chr, chi, kr, ki;
    std::vector<std::complex<T>> chc, kc; // the same, interleaved (the single-transform path)
    const fft_plan* inner = nullptr;      // the length-m plan

    explicit fft_plan(std::size_t len);
};

template<class T>
const fft_plan<T>& fft_plan_for(std::size_t n);

template<class T>
fft_plan<T>::fft_plan(std::size_t len) : n(len) {
    using LD = long double;
    const LD pi = 3.141592653589793238462643383279502884L;
    if (n <= 1) return;
    if (!fft_smooth(n)) {
        bluestein = true;
        m = fft_pow2_at_least(2 * n - 1);
        inner = &fft_plan_for<T>(m);
        chr.resize(n);
        chi.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
            // j^2 mod 2n keeps the angle's argument exact
            const auto q = static_cast<unsigned long long>(j) * j % (2ull * n);
            const LD a = pi * static_cast<LD>(q) / static_cast<LD>(n);
            chr[j] = static_cast<T>(std::cos(a));
            chi[j] = static_cast<T>(-std::sin(a));
        }
        // kernel b_j = conj(c_j) for |j| < n (circular in m), transformed once, times 1 / m
        std::vector<std::complex<LD>> b(m), bf(m);
        for (std::size_t j = 0; j < n; ++j) {
            const auto q = static_cast<unsigned long long>(j) * j % (2ull * n);
            const LD a = pi * static_cast<LD>(q) / static_cast<LD>(n);
            b[j] = std::complex<LD>(std::cos(a), std::sin(a));
            if (j > 0) b[m - j] = b[j];
        }
        // The kernel's transform in long double by a plain radix-2 FFT (m is a power of two).
        for (std::size_t i = 0; i < m; ++i) {
            std::size_t r = 0;
            for (std::size_t s = 1, t = i; s < m; s *= 2, t /= 2)
                r = r * 2 + (t & 1);
            bf[r] = b[i];
        }
        for (std::size_t len2 = 2; len2 <= m; len2 *= 2) {
            for (std::size_t i = 0; i < m; i += len2)
                for (std::size_t j = 0; j < len2 / 2; ++j) {
                    const LD a = -2 * pi * static_cast<LD>(j) / static_cast<LD>(len2);
                    const std::complex<LD> w(std::cos(a), std::sin(a));
                    const auto u = bf[i + j], v = bf[i + j + len2 / 2] * w;
                    bf[i + j] = u + v;
                    bf[i + j + len2 / 2] = u - v;
                }
        }
        kr.resize(m);
        ki.resize(m);
        for (std::size_t j = 0; j < m; ++j) {
            kr[j] = static_cast<T>(bf[j].real() / static_cast<LD>(m));
            ki[j] = static_cast<T>(bf[j].imag() / static_cast<LD>(m));
            kc.emplace_back(kr[j], ki[j]);
        }
        for (std::size_t j = 0; j < n; ++j)
            chc.emplace_back(chr[j], chi[j]);
        return;
    }
    // Factors: 8s (with 32 vector registers: a radix-8 pass holds 16 vectors of inputs), 4s, then a
    // 2, then odd primes in increasing order.
    std::vector<std::size_t> f;
    std::size_t rest = n;
    if constexpr (fft_radix8)
        while (rest % 8 == 0) {
            f.push_back(8);
            rest /= 8;
        }
    while (rest % 4 == 0) {
        f.push_back(4);
        rest /= 4;
    }
    if (rest % 2 == 0) {
        f.push_back(2);
        rest /= 2;
    }
    for (std::size_t p = 3; p <= fft_max_radix; p += 2)
        while (rest % p == 0) {
            f.push_back(p);
            rest /= p;
        }
    std::size_t L = 1, M = n;
    for (std::size_t r : f) {
        fft_stage<T> s;
        s.r = r;
        const std::size_t Lp = L;
        L *= r;
        M /= r;
        s.L = L;
        s.M = M;
        s.tw = twr.size();
        for (std::size_t k1 = 0; k1 < Lp; ++k1)
            for (std::size_t t = 1; t < r; ++t) {
                const LD a = -2 * pi * static_cast<LD>(t * k1) / static_cast<LD>(L);
                twr.push_back(static_cast<T>(std::cos(a)));
                twi.push_back(static_cast<T>(std::sin(a)));
            }
        if (r % 2 == 1) {
            s.cs = cs.size();
            const std::size_t h = (r - 1) / 2;
            for (std::size_t k = 1; k <= h; ++k)
                for (std::size_t t = 1; t <= h; ++t) {
                    const LD a = 2 * pi * static_cast<LD>(t * k % r) / static_cast<LD>(r);
                    cs.push_back(static_cast<T>(std::cos(a)));
                    cs.push_back(static_cast<T>(std::sin(a)));
                }
        }
        stages.push_back(s);
    }
}

// One plan per (type, length), built on first use (thread-safe) and never changed.
template<class T>
const fft_plan<T>& fft_plan_for(std::size_t n) {
    // Lengths are static shapes, so few distinct lengths exist; a small locked registry holds them.
    struct registry {
        std::mutex mu;
        std::vector<std::unique_ptr<fft_plan<T>>> plans;
    };
    static registry reg;
    {
        std::lock_guard<std::mutex> lock(reg.mu);
        for (const auto& p : reg.plans)
            if (p->n == n) return *p;
    }
    auto p = std::make_unique<fft_plan<T>>(n); // may build (and lock for) its Bluestein inner plan
    std::lock_guard<std::mutex> lock(reg.mu);
    for (const auto& q : reg.plans)
        if (q->n == n) return *q;
    reg.plans.push_back(std::move(p));
    return *reg.plans.back();
}

// The plan of a compile-time length: a function-local static per (type, length).
template<class T, std::size_t N>
const fft_plan<T>& fft_plan_of() {
    static const fft_plan<T>& p = fft_plan_for<T>(N);
    return p;
}

} // namespace xlet::detail
