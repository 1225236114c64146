// FFT kernels (no op-level API; ops/fft/fft.hpp drives them).
//
// One building block: the column kernel. It applies a length-R DFT down the rows of a block of V
// columns held in split form (re[R][V], im[R][V], V = the SIMD width or 1), so every butterfly
// works on whole vectors of independent columns and no stage needs a shuffle. Everything else is
// a way of feeding it:
//   - a transform axis with contiguous elements after it (any axis but the innermost, or the
//     columns of a 2-D transform): blocks of V adjacent columns, loaded straight from the array;
//   - the innermost axis of many transforms (a batch): V transforms at a time, moved into and out
//     of the block by V x V register transposes (powers of two up to 256: a two-pass in-place
//     kernel with whole DFT16s in registers, so the block stays in L1);
//   - one long transform along the innermost axis: the four-step decomposition N = N1 x N2
//     (column DFTs of length N1 over N2 columns, twiddles W_N^(n2 k1) applied as they are stored;
//     then DFTs of length N2 along those rows, read through the register transposes and written
//     down the columns of the result), both steps on the kernel.
// A column block's first stage reads the caller's interleaved complex data and its last writes
// it (load / store policies), so no pass only deinterleaves or interleaves.
// Inside the kernel: a self-sorting mixed-radix Stockham DIT pass per factor (radix 4, 2, and odd
// radices 3, 5, 7, 11, 13 by their symmetric form), ping-ponging between two block buffers.
// Lengths with a prime factor above 13 take Bluestein's chirp-z: a length-M (power of two >= 2R-1)
// cyclic convolution with a precomputed transformed chirp, so every length is O(N log N); a single
// such transform runs its convolution on the four-step.
// Plans (factors, twiddles computed in long double, the Bluestein chirp and its transform) are
// built once per (element type, length) in a function-local static: thread-safe, immutable.
// Inverse transforms conjugate on the way in and out (conj(DFT(conj(x)))) and scale by 1/N once,
// on the way out. Determinism: each column's arithmetic depends only on the plan, never on the
// thread count or on which block it falls in.
#pragma once
#include "../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <mutex>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include "../core/block_cache.hpp"
#include "../eval/parallel.hpp"

// Forces the inlining of the unrolled lambdas of the register kernels: GCC otherwise leaves some
// bodies (a DFT16's) as calls, and their arrays of vectors go through memory.
#define XLET_FFT_INLINE __attribute__((always_inline))

namespace xlet::detail {

// ---- plans ------------------------------------------------------------------------------------

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

// ---- register transposes ---------------------------------------------------------------------

// f(integral_constant<i>) for i < N, unrolled (the register transposes below must not become
// loops over an array in memory).
template<std::size_t N, class F>
[[gnu::always_inline]] inline void fft_unroll(F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) XLET_FFT_INLINE {
        (f(std::integral_constant<std::size_t, I>{}), ...);
    }
    (std::make_index_sequence<N>{});
}

// In-register transpose of a W x W matrix of T, W = xsimd::batch<T>::size: r[i] holds row i on
// entry and column i on return. It moves W transforms of interleaved complex data between
// "one transform per row" and the kernel's split "one transform per lane" without a memory pass.
// AVX-512 f32: unpacks and lane shuffles; AVX-512 f64: log2(W) rounds of two-source permutes,
// each swapping the off-diagonal b x b blocks of every 2b x 2b block; AVX: the unpack / shuffle /
// lane-swap sequence; other targets via memory.
#if defined(__AVX512F__)
template<class T, std::size_t W, std::size_t b>
struct fft_perm_index {
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    static constexpr std::array<I, W> make(bool high) {
        std::array<I, W> a{};
        for (std::size_t p = 0; p < W; ++p)
            a[p] = static_cast<I>(high ? ((p & b) ? p + W : p + b) : ((p & b) ? p - b + W : p));
        return a;
    }
    static constexpr std::array<I, W> lo = make(false), hi = make(true);
};
#endif

template<class T>
[[gnu::always_inline]] inline void fft_transpose_regs(xsimd::batch<T>* r) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    if constexpr (W == 1) {
        return;
#if defined(__AVX512F__)
    } else if constexpr (sizeof(B) == 64 && sizeof(T) == 4) {
        // in-lane unpacks transpose the 4 x 4 blocks inside each 128-bit lane; two rounds of
        // lane shuffles transpose the 4 x 4 matrix of blocks (cheaper than permutes throughout).
        // The all-ones masked forms: GCC 12 warns about the unmasked ones' undefined source.
        __m512 t[16], u[16];
        fft_unroll<8>([&](auto ic) XLET_FFT_INLINE {
            constexpr std::size_t i = 2 * decltype(ic)::value;
            t[i] = _mm512_mask_unpacklo_ps(r[i], 0xFFFF, r[i], r[i + 1]);
            t[i + 1] = _mm512_mask_unpackhi_ps(r[i], 0xFFFF, r[i], r[i + 1]);
        });
        fft_unroll<4>([&](auto ic) XLET_FFT_INLINE {
            constexpr std::size_t i = 4 * decltype(ic)::value;
            auto pd = [](__m512 v) { return _mm512_castps_pd(v); };
            u[i] = _mm512_castpd_ps(_mm512_mask_unpacklo_pd(pd(t[i]), 0xFF, pd(t[i]), pd(t[i + 2])));
            u[i + 1] = _mm512_castpd_ps(_mm512_mask_unpackhi_pd(pd(t[i]), 0xFF, pd(t[i]), pd(t[i + 2])));
            u[i + 2] = _mm512_castpd_ps(_mm512_mask_unpacklo_pd(pd(t[i + 1]), 0xFF, pd(t[i + 1]), pd(t[i + 3])));
            u[i + 3] = _mm512_castpd_ps(_mm512_mask_unpackhi_pd(pd(t[i + 1]), 0xFF, pd(t[i + 1]), pd(t[i + 3])));
        });
        fft_unroll<4>([&](auto cc) XLET_FFT_INLINE {
            constexpr std::size_t c = decltype(cc)::value;
            const __m512 v0 = _mm512_mask_shuffle_f32x4(u[c], 0xFFFF, u[c], u[4 + c], 0x44);
            const __m512 v1 = _mm512_mask_shuffle_f32x4(u[c], 0xFFFF, u[c], u[4 + c], 0xEE);
            const __m512 v2 = _mm512_mask_shuffle_f32x4(u[8 + c], 0xFFFF, u[8 + c], u[12 + c], 0x44);
            const __m512 v3 = _mm512_mask_shuffle_f32x4(u[8 + c], 0xFFFF, u[8 + c], u[12 + c], 0xEE);
            r[c] = _mm512_mask_shuffle_f32x4(v0, 0xFFFF, v0, v2, 0x88);
            r[4 + c] = _mm512_mask_shuffle_f32x4(v0, 0xFFFF, v0, v2, 0xDD);
            r[8 + c] = _mm512_mask_shuffle_f32x4(v1, 0xFFFF, v1, v3, 0x88);
            r[12 + c] = _mm512_mask_shuffle_f32x4(v1, 0xFFFF, v1, v3, 0xDD);
        });
    } else if constexpr (sizeof(B) == 64) {
        auto round = [&](auto bc) {
            constexpr std::size_t b = decltype(bc)::value;
            using PI = fft_perm_index<T, W, b>;
            const __m512i il = _mm512_loadu_si512(PI::lo.data()), ih = _mm512_loadu_si512(PI::hi.data());
            fft_unroll<W / 2>([&](auto kc) XLET_FFT_INLINE {
                constexpr std::size_t k = decltype(kc)::value, i = (k / b) * 2 * b + k % b;
                const B a = r[i], c = r[i + b];
                if constexpr (sizeof(T) == 4) {
                    r[i] = _mm512_permutex2var_ps(a, il, c);
                    r[i + b] = _mm512_permutex2var_ps(a, ih, c);
                } else {
                    r[i] = _mm512_permutex2var_pd(a, il, c);
                    r[i + b] = _mm512_permutex2var_pd(a, ih, c);
                }
            });
        };
        round(std::integral_constant<std::size_t, 1>{});
        round(std::integral_constant<std::size_t, 2>{});
        round(std::integral_constant<std::size_t, 4>{});
        if constexpr (W == 16) round(std::integral_constant<std::size_t, 8>{});
#endif
#if defined(__AVX__)
    } else if constexpr (sizeof(B) == 32 && sizeof(T) == 4) {
        __m256 t[8], u[8];
        fft_unroll<4>([&](auto ic) XLET_FFT_INLINE {
            constexpr std::size_t i = 2 * decltype(ic)::value;
            t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
            t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
        });
        fft_unroll<2>([&](auto ic) XLET_FFT_INLINE {
            constexpr std::size_t i = 4 * decltype(ic)::value;
            u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
            u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
            u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
            u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
        });
        fft_unroll<4>([&](auto ic) XLET_FFT_INLINE {
            constexpr std::size_t i = decltype(ic)::value;
            r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
            r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
        });
    } else if constexpr (sizeof(B) == 32 && sizeof(T) == 8) {
        const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
        const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
        r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
        r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
        r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
        r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
#endif
    } else {
        alignas(64) T m[W * W];
        for (std::size_t i = 0; i < W; ++i)
            r[i].store_aligned(m + i * W);
        for (std::size_t i = 0; i < W; ++i)
            for (std::size_t j = i + 1; j < W; ++j)
                std::swap(m[i * W + j], m[j * W + i]);
        for (std::size_t i = 0; i < W; ++i)
            r[i] = B::load_aligned(m + i * W);
    }
}

// Rows [0, n) of `cnt` <= W transforms (transform t at src + t * ist, contiguous complex) into a
// block in split form (ar / ai: [n][W], lane t = transform t; lanes >= cnt zero), imaginary parts
// negated for an inverse: W x W transposes of H = W / 2 complex of every transform at a time.
template<class T>
inline void fft_load_rows(const std::complex<T>* src, std::size_t ist, std::size_t cnt, std::size_t n, T* ar, T* ai,
                          bool conj) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size, H = W / 2;
    std::size_t j0 = 0;
    for (; j0 + H <= n; j0 += H) {
        B r[W];
        if (cnt == W)
            fft_unroll<W>([&](auto tc) XLET_FFT_INLINE {
                r[tc] = B::load_unaligned(reinterpret_cast<const T*>(src + tc * ist + j0));
            });
        else
            fft_unroll<W>([&](auto tc) XLET_FFT_INLINE {
                r[tc] = tc < cnt ? B::load_unaligned(reinterpret_cast<const T*>(src + tc * ist + j0)) : B(T(0));
            });
        fft_transpose_regs<T>(r);
        fft_unroll<H>([&](auto jc) XLET_FFT_INLINE {
            constexpr std::size_t j = decltype(jc)::value;
            r[2 * j].store_aligned(ar + (j0 + j) * W);
            (conj ? B(T(0)) - r[2 * j + 1] : r[2 * j + 1]).store_aligned(ai + (j0 + j) * W);
        });
    }
    T* pr = ar + j0 * W;
    T* pi = ai + j0 * W;
    for (std::size_t j = 0; j < H && j0 + j < n; ++j) // fewer than H rows left
        for (std::size_t t = 0; t < W; ++t) {
            const std::complex<T> z = t < cnt ? src[t * ist + j0 + j] : std::complex<T>{};
            pr[j * W + t] = z.real();
            pi[j * W + t] = conj ? T(0) - z.imag() : z.imag();
        }
}

struct fft_same_row {
    std::size_t operator()(std::size_t k) const { return k; }
};

// The reverse: rows [0, n) of a split block (lanes t < cnt) to transform t at dst + t * ost,
// conjugated for an inverse and times `scale`; output k is block row row_of(k).
template<class T, class RowOf = fft_same_row>
inline void fft_store_rows(const T* rr, const T* ri, std::size_t n, std::complex<T>* dst, std::size_t ost,
                           std::size_t cnt, bool conj, T scale, RowOf row_of = {}) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size, H = W / 2;
    const B sc(scale), sci(conj ? T(0) - scale : scale);
    std::size_t k0 = 0;
    for (; k0 + H <= n; k0 += H) {
        B r[W];
        fft_unroll<H>([&](auto kc) XLET_FFT_INLINE {
            constexpr std::size_t k = decltype(kc)::value;
            const std::size_t row = row_of(k0 + k);
            r[2 * k] = B::load_aligned(rr + row * W);
            r[2 * k + 1] = B::load_aligned(ri + row * W);
            if (scale != T(1)) {
                r[2 * k] = r[2 * k] * sc;
                r[2 * k + 1] = r[2 * k + 1] * sci;
            } else if (conj) {
                r[2 * k + 1] = B(T(0)) - r[2 * k + 1];
            }
        });
        fft_transpose_regs<T>(r);
        if (cnt == W)
            fft_unroll<W>([&](auto tc)
                              XLET_FFT_INLINE { r[tc].store_unaligned(reinterpret_cast<T*>(dst + tc * ost + k0)); });
        else
            for (std::size_t t = 0; t < cnt; ++t)
                r[t].store_unaligned(reinterpret_cast<T*>(dst + t * ost + k0));
    }
    for (std::size_t k = k0; k < n && k - k0 < H; ++k) // fewer than H rows left
        for (std::size_t t = 0; t < cnt; ++t) {
            T re = rr[row_of(k) * W + t], im = ri[row_of(k) * W + t];
            if (scale != T(1)) {
                re = re * scale;
                im = im * (conj ? T(0) - scale : scale);
            } else if (conj) {
                im = T(0) - im;
            }
            dst[t * ost + k] = std::complex<T>(re, im);
        }
}

// ---- the column kernel ------------------------------------------------------------------------

// A "vector" of V columns: an xsimd batch, or a plain scalar for V = 1.
template<class Vt>
struct fft_vec;
template<class T, class A>
struct fft_vec<xsimd::batch<T, A>> {
    using B = xsimd::batch<T, A>;
    static constexpr std::size_t V = B::size;
    static B load(const T* p) { return B::load_aligned(p); }
    static void store(const B& v, T* p) { v.store_aligned(p); }
};
template<class T>
requires std::is_floating_point_v<T>
struct fft_vec<T> {
    static constexpr std::size_t V = 1;
    static T load(const T* p) { return *p; }
    static void store(T v, T* p) { *p = v; }
};

// (re, im) *= (c, s), with fused multiply-adds (explicit: the build does not contract).
template<class Vt>
[[gnu::always_inline]] inline void fft_twiddle(Vt& re, Vt& im, const Vt& c, const Vt& s) {
    const Vt x = xsimd::fms(re, c, im * s);
    im = xsimd::fma(re, s, im * c);
    re = x;
}

// Where a stage reads its rows and writes its results. The middle stages use the split block
// (fft_split_rows); the first stage may read the caller's interleaved complex rows and the last
// write them (fft_complex_in / fft_complex_out), so a column transform makes no separate
// deinterleave or interleave pass over the block.
template<class Vt, class T>
struct fft_split_rows {
    using F = fft_vec<Vt>;
    T* r;
    T* i;
    void load(std::size_t row, Vt& re, Vt& im) const {
        re = F::load(r + row * F::V);
        im = F::load(i + row * F::V);
    }
    void store(std::size_t row, const Vt& re, const Vt& im) const {
        F::store(re, r + row * F::V);
        F::store(im, i + row * F::V);
    }
};
// Row j: W complex at p + j * stride; conjugated for an inverse.
template<class T>
struct fft_complex_in {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    const std::complex<T>* p;
    std::size_t stride;
    bool conj;
    void load(std::size_t row, B& re, B& im) const {
        const CB v = CB::load_unaligned(p + row * stride);
        re = v.real();
        im = conj ? B(T(0)) - v.imag() : v.imag();
    }
};
// Row k: W complex to p + k * stride, conjugated for an inverse, times tw[k * stride] (optional,
// split tables, conjugated for an inverse) and the scale.
template<class T>
struct fft_complex_out {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    std::complex<T>* p;
    std::size_t stride;
    bool conj;
    T scale;
    const T* twr = nullptr;
    const T* twi = nullptr;
    void store(std::size_t row, B re, B im) const {
        if (conj) im = B(T(0)) - im;
        if (twr) {
            const B c = B::load_unaligned(twr + row * stride), d = B::load_unaligned(twi + row * stride);
            fft_twiddle(re, im, c, conj ? B(T(0)) - d : d);
        }
        if (scale != T(1)) {
            re = re * B(scale);
            im = im * B(scale);
        }
        CB(re, im).store_unaligned(p + row * stride);
    }
};

// An odd radix R = 2h + 1 stage (R known at compile time, so the butterfly lives in registers):
// s_t = a_t + a_{R-t}, d_t = a_t - a_{R-t}; b_k = a0 + sum s_t cos(2pi tk/R) - i sum d_t
// sin(2pi tk/R), b_{R-k} the same with + i.
template<std::size_t R, class Vt, class T, class Src, class Dst>
inline void fft_stage_odd(const fft_plan<T>& P, const fft_stage<T>& S, const Src& src, const Dst& dst) {
    constexpr std::size_t h = (R - 1) / 2;
    const std::size_t M = S.M, Lp = S.L / R, Mp = M * R, q = Lp * M;
    const T* twr = P.twr.data() + S.tw;
    const T* twi = P.twi.data() + S.tw;
    const T* cs = P.cs.data() + S.cs;
    Vt c[h][h], sn[h][h]; // c[k-1][t-1] = cos(2pi tk/R), sn likewise
    fft_unroll<h>([&](auto kc) {
        fft_unroll<h>([&](auto tc) {
            c[kc][tc] = Vt(cs[(kc * h + tc) * 2]);
            sn[kc][tc] = Vt(cs[(kc * h + tc) * 2 + 1]);
        });
    });
    for (std::size_t k1 = 0; k1 < Lp; ++k1) {
        const T* wr = twr + k1 * (R - 1);
        const T* wi = twi + k1 * (R - 1);
        for (std::size_t p = 0; p < M; ++p) {
            const std::size_t i0 = k1 * Mp + p, o = k1 * M + p;
            Vt ar[R], ai[R];
            fft_unroll<R>([&](auto tc) { src.load(i0 + tc * M, ar[tc], ai[tc]); });
            if (k1 != 0)
                fft_unroll<R - 1>([&](auto tc) { fft_twiddle(ar[tc + 1], ai[tc + 1], Vt(wr[tc]), Vt(wi[tc])); });
            Vt s_r[h], s_i[h], d_r[h], d_i[h];
            Vt b0r = ar[0], b0i = ai[0];
            fft_unroll<h>([&](auto tc) {
                constexpr std::size_t t = decltype(tc)::value + 1;
                s_r[t - 1] = ar[t] + ar[R - t];
                s_i[t - 1] = ai[t] + ai[R - t];
                d_r[t - 1] = ar[t] - ar[R - t];
                d_i[t - 1] = ai[t] - ai[R - t];
                b0r = b0r + s_r[t - 1];
                b0i = b0i + s_i[t - 1];
            });
            dst.store(o, b0r, b0i);
            fft_unroll<h>([&](auto kc) {
                constexpr std::size_t k = decltype(kc)::value + 1;
                Vt xr = ar[0], xi = ai[0], yr = d_r[0] * sn[k - 1][0], yi = d_i[0] * sn[k - 1][0];
                xr = xsimd::fma(s_r[0], c[k - 1][0], xr);
                xi = xsimd::fma(s_i[0], c[k - 1][0], xi);
                fft_unroll<h - 1>([&](auto tc) {
                    constexpr std::size_t t = decltype(tc)::value + 1;
                    xr = xsimd::fma(s_r[t], c[k - 1][t], xr);
                    xi = xsimd::fma(s_i[t], c[k - 1][t], xi);
                    yr = xsimd::fma(d_r[t], sn[k - 1][t], yr);
                    yi = xsimd::fma(d_i[t], sn[k - 1][t], yi);
                });
                dst.store(o + k * q, xr + yi, xi - yr);       // x - i y
                dst.store(o + (R - k) * q, xr - yi, xi + yr); // x + i y
            });
        }
    }
}

// One Stockham stage: src row k1 * Mp + p + M t -> dst row (k1 + Lp k2) M + p.
template<class Vt, class T, class Src, class Dst>
inline void fft_stage_run(const fft_plan<T>& P, const fft_stage<T>& S, const Src& src, const Dst& dst) {
    const std::size_t r = S.r, M = S.M, Lp = S.L / r, Mp = M * r, q = Lp * M;
    const T* twr = P.twr.data() + S.tw;
    const T* twi = P.twi.data() + S.tw;
    if (r == 4) {
        for (std::size_t k1 = 0; k1 < Lp; ++k1) {
            const Vt w1r(twr[k1 * 3]), w1i(twi[k1 * 3]), w2r(twr[k1 * 3 + 1]), w2i(twi[k1 * 3 + 1]),
                w3r(twr[k1 * 3 + 2]), w3i(twi[k1 * 3 + 2]);
            for (std::size_t p = 0; p < M; ++p) {
                const std::size_t i0 = k1 * Mp + p;
                Vt a0r, a0i, a1r, a1i, a2r, a2i, a3r, a3i;
                src.load(i0, a0r, a0i);
                src.load(i0 + M, a1r, a1i);
                src.load(i0 + 2 * M, a2r, a2i);
                src.load(i0 + 3 * M, a3r, a3i);
                if (k1 != 0) {
                    fft_twiddle(a1r, a1i, w1r, w1i);
                    fft_twiddle(a2r, a2i, w2r, w2i);
                    fft_twiddle(a3r, a3i, w3r, w3i);
                }
                const Vt s02r = a0r + a2r, s02i = a0i + a2i, d02r = a0r - a2r, d02i = a0i - a2i;
                const Vt s13r = a1r + a3r, s13i = a1i + a3i, d13r = a1r - a3r, d13i = a1i - a3i;
                const std::size_t o = k1 * M + p;
                dst.store(o, s02r + s13r, s02i + s13i);
                dst.store(o + q, d02r + d13i, d02i - d13r); // (a0 - a2) - i (a1 - a3)
                dst.store(o + 2 * q, s02r - s13r, s02i - s13i);
                dst.store(o + 3 * q, d02r - d13i, d02i + d13r); // (a0 - a2) + i (a1 - a3)
            }
        }
        return;
    }
    if (r == 8) {
        // DFT8 = two DFT4s (even and odd inputs) joined by w8^k: X_k = E_k + w8^k O_k,
        // X_{k+4} = E_k - w8^k O_k, w8 = (1 - i) / sqrt 2.
        const Vt h(static_cast<T>(0.70710678118654752440084436210484904L));
        for (std::size_t k1 = 0; k1 < Lp; ++k1) {
            for (std::size_t p = 0; p < M; ++p) {
                const std::size_t i0 = k1 * Mp + p;
                Vt ar[8], ai[8];
                fft_unroll<8>([&](auto tc) { src.load(i0 + tc * M, ar[tc], ai[tc]); });
                if (k1 != 0)
                    fft_unroll<7>([&](auto tc) {
                        fft_twiddle(ar[tc + 1], ai[tc + 1], Vt(twr[k1 * 7 + tc]), Vt(twi[k1 * 7 + tc]));
                    });
                // E = DFT4(a0, a2, a4, a6), O = DFT4(a1, a3, a5, a7)
                Vt er[4], ei[4], orr[4], oi[4];
                fft_unroll<2>([&](auto qc) {
                    constexpr std::size_t u = decltype(qc)::value;
                    Vt* yr = u ? orr : er;
                    Vt* yi = u ? oi : ei;
                    const Vt s02r = ar[u] + ar[u + 4], s02i = ai[u] + ai[u + 4];
                    const Vt d02r = ar[u] - ar[u + 4], d02i = ai[u] - ai[u + 4];
                    const Vt s13r = ar[u + 2] + ar[u + 6], s13i = ai[u + 2] + ai[u + 6];
                    const Vt d13r = ar[u + 2] - ar[u + 6], d13i = ai[u + 2] - ai[u + 6];
                    yr[0] = s02r + s13r;
                    yi[0] = s02i + s13i;
                    yr[1] = d02r + d13i;
                    yi[1] = d02i - d13r;
                    yr[2] = s02r - s13r;
                    yi[2] = s02i - s13i;
                    yr[3] = d02r - d13i;
                    yi[3] = d02i + d13r;
                });
                // w8^1 O1 = ((x + y) + i (y - x)) / sqrt2; w8^2 O2 = y - i x; w8^3 O3 = ((y - x) - i (x + y)) / sqrt2
                const Vt t1r = (orr[1] + oi[1]) * h, t1i = (oi[1] - orr[1]) * h;
                const Vt t2r = oi[2], t2i = Vt(T(0)) - orr[2];
                const Vt t3r = (oi[3] - orr[3]) * h, t3i = Vt(T(0)) - (orr[3] + oi[3]) * h;
                const std::size_t o = k1 * M + p;
                dst.store(o, er[0] + orr[0], ei[0] + oi[0]);
                dst.store(o + q, er[1] + t1r, ei[1] + t1i);
                dst.store(o + 2 * q, er[2] + t2r, ei[2] + t2i);
                dst.store(o + 3 * q, er[3] + t3r, ei[3] + t3i);
                dst.store(o + 4 * q, er[0] - orr[0], ei[0] - oi[0]);
                dst.store(o + 5 * q, er[1] - t1r, ei[1] - t1i);
                dst.store(o + 6 * q, er[2] - t2r, ei[2] - t2i);
                dst.store(o + 7 * q, er[3] - t3r, ei[3] - t3i);
            }
        }
        return;
    }
    if (r == 2) {
        for (std::size_t k1 = 0; k1 < Lp; ++k1) {
            const Vt wr(twr[k1]), wi(twi[k1]);
            for (std::size_t p = 0; p < M; ++p) {
                const std::size_t i0 = k1 * Mp + p;
                Vt a0r, a0i, a1r, a1i;
                src.load(i0, a0r, a0i);
                src.load(i0 + M, a1r, a1i);
                if (k1 != 0) fft_twiddle(a1r, a1i, wr, wi);
                const std::size_t o = k1 * M + p;
                dst.store(o, a0r + a1r, a0i + a1i);
                dst.store(o + q, a0r - a1r, a0i - a1i);
            }
        }
        return;
    }
    switch (r) {
    case 3:
        fft_stage_odd<3, Vt>(P, S, src, dst);
        break;
    case 5:
        fft_stage_odd<5, Vt>(P, S, src, dst);
        break;
    case 7:
        fft_stage_odd<7, Vt>(P, S, src, dst);
        break;
    case 11:
        fft_stage_odd<11, Vt>(P, S, src, dst);
        break;
    default:
        fft_stage_odd<13, Vt>(P, S, src, dst);
        break;
    }
}

// The length-P.n DFT of the block (re, im: [n][V]); a and b are ping-pong buffers of at least
// n rows (Bluestein: P.m rows each, plus a third pair c). Returns which buffer holds the result.
template<class Vt, class T>
struct fft_block_bufs {
    T *ar, *ai, *br, *bi, *cr, *ci;
};

template<class Vt, class T>
inline void fft_block(const fft_plan<T>& P, fft_block_bufs<Vt, T>& B, bool& in_b) {
    using F = fft_vec<Vt>;
    using SR = fft_split_rows<Vt, T>;
    constexpr std::size_t V = F::V;
    if (P.n <= 1) return;
    if (P.bluestein) {
        // a_j = x_j c_j (zero-padded to m), A = DFT_m(a), A *= K, conj -> DFT_m -> conj (inverse,
        // the 1/m is in K), X_k = c_k C_k.
        T* xr = in_b ? B.br : B.ar;
        T* xi = in_b ? B.bi : B.ai;
        const std::size_t n = P.n, m = P.m;
        for (std::size_t j = 0; j < n; ++j) {
            const Vt vr = F::load(xr + j * V), vi = F::load(xi + j * V), cr(P.chr[j]), ci(P.chi[j]);
            F::store(vr * cr - vi * ci, B.cr + j * V);
            F::store(vr * ci + vi * cr, B.ci + j * V);
        }
        std::fill(B.cr + n * V, B.cr + m * V, T(0));
        std::fill(B.ci + n * V, B.ci + m * V, T(0));
        fft_block_bufs<Vt, T> inner{B.cr, B.ci, xr == B.ar ? B.br : B.ar, xr == B.ar ? B.bi : B.ai, nullptr, nullptr};
        bool ib = false;
        fft_block<Vt, T>(*P.inner, inner, ib);
        T* yr = ib ? inner.br : inner.ar;
        T* yi = ib ? inner.bi : inner.ai;
        for (std::size_t j = 0; j < m; ++j) { // times K, conjugated for the inverse transform
            const Vt vr = F::load(yr + j * V), vi = F::load(yi + j * V), kr(P.kr[j]), ki(P.ki[j]);
            F::store(vr * kr - vi * ki, yr + j * V);
            F::store(T(0) - (vr * ki + vi * kr), yi + j * V);
        }
        fft_block_bufs<Vt, T> again{yr, yi, ib ? inner.ar : inner.br, ib ? inner.ai : inner.bi, nullptr, nullptr};
        bool ib2 = false;
        fft_block<Vt, T>(*P.inner, again, ib2);
        const T* zr = ib2 ? again.br : again.ar;
        const T* zi = ib2 ? again.bi : again.ai;
        for (std::size_t k = 0; k < n; ++k) { // X_k = c_k conj(z_k)
            const Vt vr = F::load(zr + k * V), vi = T(0) - F::load(zi + k * V), cr(P.chr[k]), ci(P.chi[k]);
            F::store(vr * cr - vi * ci, xr + k * V);
            F::store(vr * ci + vi * cr, xi + k * V);
        }
        return;
    }
    for (const auto& S : P.stages) {
        if (in_b)
            fft_stage_run<Vt>(P, S, SR{B.br, B.bi}, SR{B.ar, B.ai});
        else
            fft_stage_run<Vt>(P, S, SR{B.ar, B.ai}, SR{B.br, B.bi});
        in_b = !in_b;
    }
}

// The same with the first stage reading `src` and the last writing `dst` (load / store policies
// as above): no pass of its own to fill or empty the block. Bluestein plans and lengths <= 1 go
// through the block.
template<class Vt, class T, class Src, class Dst>
inline void fft_block_io(const fft_plan<T>& P, fft_block_bufs<Vt, T> B, const Src& src, const Dst& dst) {
    using SR = fft_split_rows<Vt, T>;
    const std::size_t ns = P.stages.size();
    if (P.bluestein || ns == 0) {
        const std::size_t n = P.n;
        const SR a{B.ar, B.ai};
        for (std::size_t j = 0; j < n; ++j) {
            Vt re, im;
            src.load(j, re, im);
            a.store(j, re, im);
        }
        bool in_b = false;
        fft_block<Vt, T>(P, B, in_b);
        const SR res = in_b ? SR{B.br, B.bi} : SR{B.ar, B.ai};
        for (std::size_t k = 0; k < n; ++k) {
            Vt re, im;
            res.load(k, re, im);
            dst.store(k, re, im);
        }
        return;
    }
    if (ns == 1) {
        fft_stage_run<Vt>(P, P.stages[0], src, dst);
        return;
    }
    fft_stage_run<Vt>(P, P.stages[0], src, SR{B.ar, B.ai});
    bool in_b = false;
    for (std::size_t i = 1; i + 1 < ns; ++i) {
        if (in_b)
            fft_stage_run<Vt>(P, P.stages[i], SR{B.br, B.bi}, SR{B.ar, B.ai});
        else
            fft_stage_run<Vt>(P, P.stages[i], SR{B.ar, B.ai}, SR{B.br, B.bi});
        in_b = !in_b;
    }
    fft_stage_run<Vt>(P, P.stages[ns - 1], in_b ? SR{B.br, B.bi} : SR{B.ar, B.ai}, dst);
}

// ---- small powers of two in registers ---------------------------------------------------------

// (re, im) *= W16^E = exp(-2 pi i E / 16), E known at compile time: the multiples of pi / 4 cost
// no multiply or two, the others a complex multiply by constants.
template<std::size_t E, class Vt>
[[gnu::always_inline]] inline void fft_mul_w16(Vt& re, Vt& im) {
    using T = typename Vt::value_type;
    constexpr std::size_t e = E % 16;
    const Vt h(static_cast<T>(0.70710678118654752440084436210484904L));
    const Vt zero(T(0));
    if constexpr (e == 0) {
    } else if constexpr (e == 4) { // -i
        const Vt t = re;
        re = im;
        im = zero - t;
    } else if constexpr (e == 8) {
        re = zero - re;
        im = zero - im;
    } else if constexpr (e == 12) { // +i
        const Vt t = re;
        re = zero - im;
        im = t;
    } else if constexpr (e == 2 || e == 6 || e == 10 || e == 14) {
        const Vt a = (re + im) * h, b = (im - re) * h; // times (1 - i) / sqrt 2
        if constexpr (e == 2) {
            re = a;
            im = b;
        } else if constexpr (e == 6) { // (1 - i) / sqrt2 times -i
            re = b;
            im = zero - a;
        } else if constexpr (e == 10) {
            re = zero - a;
            im = zero - b;
        } else {
            re = zero - b;
            im = a;
        }
    } else {
        constexpr long double c1 = 0.92387953251128675612818318939678829L; // cos(pi / 8)
        constexpr long double s1 = 0.38268343236508977172845998403039887L; // sin(pi / 8)
        // cos / sin of 2 pi e / 16 for odd e: quadrant of e, then pi/8 or 3pi/8
        constexpr long double cb = (e % 4 == 1) ? c1 : s1, sb = (e % 4 == 1) ? s1 : c1;
        constexpr int quad = static_cast<int>(e / 4);
        constexpr long double cv = quad == 0 ? cb : quad == 1 ? -sb : quad == 2 ? -cb : sb;
        constexpr long double sv = quad == 0 ? sb : quad == 1 ? cb : quad == 2 ? -sb : -cb;
        fft_twiddle(re, im, Vt(static_cast<T>(cv)), Vt(static_cast<T>(-sv)));
    }
}

// In-register DFT of R = 2, 4, 8 or 16 points (x[t] = (re[t], im[t]), natural order in and out):
// R = 4 x R2: DFT4s of the R2 interleaved subsequences, twiddles W_R^(t2 k1), DFT_R2s.
template<std::size_t R, class Vt>
[[gnu::always_inline]] inline void fft_dft_small(Vt* re, Vt* im) {
    if constexpr (R == 2) {
        const Vt r0 = re[0], i0 = im[0];
        re[0] = r0 + re[1];
        im[0] = i0 + im[1];
        re[1] = r0 - re[1];
        im[1] = i0 - im[1];
    } else if constexpr (R == 4) {
        const Vt s02r = re[0] + re[2], s02i = im[0] + im[2], d02r = re[0] - re[2], d02i = im[0] - im[2];
        const Vt s13r = re[1] + re[3], s13i = im[1] + im[3], d13r = re[1] - re[3], d13i = im[1] - im[3];
        re[0] = s02r + s13r;
        im[0] = s02i + s13i;
        re[1] = d02r + d13i; // (a0 - a2) - i (a1 - a3)
        im[1] = d02i - d13r;
        re[2] = s02r - s13r;
        im[2] = s02i - s13i;
        re[3] = d02r - d13i;
        im[3] = d02i + d13r;
    } else {
        // t = R2 t1 + t2 (R2 = R / 4): DFT4 over t1 for each t2, times W_R^(t2 k1), then DFT_R2
        // over t2 for each k1: X[k1 + 4 k2].
        constexpr std::size_t R2 = R / 4;
        Vt ar[R2][4], ai[R2][4];
        fft_unroll<R2>([&](auto t2c) XLET_FFT_INLINE {
            constexpr std::size_t t2 = decltype(t2c)::value;
            fft_unroll<4>([&](auto t1c) XLET_FFT_INLINE {
                ar[t2][t1c] = re[R2 * t1c + t2];
                ai[t2][t1c] = im[R2 * t1c + t2];
            });
            fft_dft_small<4>(ar[t2], ai[t2]);
            fft_unroll<4>([&](auto k1c) XLET_FFT_INLINE {
                fft_mul_w16<(16 / R) * t2* decltype(k1c)::value>(ar[t2][k1c], ai[t2][k1c]);
            });
        });
        fft_unroll<4>([&](auto k1c) XLET_FFT_INLINE {
            constexpr std::size_t k1 = decltype(k1c)::value;
            Vt br[R2], bi[R2];
            fft_unroll<R2>([&](auto t2c) XLET_FFT_INLINE {
                br[t2c] = ar[t2c][k1];
                bi[t2c] = ai[t2c][k1];
            });
            fft_dft_small<R2>(br, bi);
            fft_unroll<R2>([&](auto k2c) XLET_FFT_INLINE {
                re[k1 + 4 * k2c] = br[k2c];
                im[k1 + 4 * k2c] = bi[k2c];
            });
        });
    }
}

// Twiddles W_n^(j2 k1), j2 < R2, k1 < R1, of the two-pass kernel below (n = R1 R2), split.
template<class T>
struct fft_two_pass_tw {
    std::vector<T> wr, wi;
    fft_two_pass_tw(std::size_t r1, std::size_t r2) : wr(r1 * r2), wi(r1 * r2) {
        using LD = long double;
        const LD pi = 3.141592653589793238462643383279502884L;
        const std::size_t n = r1 * r2;
        for (std::size_t j2 = 0; j2 < r2; ++j2)
            for (std::size_t k1 = 0; k1 < r1; ++k1) {
                const LD a = -2 * pi * static_cast<LD>(j2 * k1) / static_cast<LD>(n);
                wr[j2 * r1 + k1] = static_cast<T>(std::cos(a));
                wi[j2 * r1 + k1] = static_cast<T>(std::sin(a));
            }
    }
};

struct fft_no_step {
    void operator()(std::size_t) const {}
};

// DFT of n = R1 R2 (R1, R2 in {2, 4, 8, 16}) on the block in place, in two passes with the whole
// butterfly in registers: j = R2 j1 + j2; pass 1, for each j2: DFT_R1 over j1 times W_n^(j2 k1),
// back to rows j2 + R2 k1; pass 2, for each k1: DFT_R2 over the R2 contiguous rows R2 k1 + j2.
// X[k1 + R1 k2] ends in row R2 k1 + k2 (fft_two_pass_row). One buffer instead of the Stockham
// ping-pong keeps a block of W transforms of 256 (32 KiB for f32 on AVX-512) in L1.
template<std::size_t R1, std::size_t R2, class T, class Step = fft_no_step>
inline void fft_two_pass(T* ar, T* ai, const fft_two_pass_tw<T>& tw, const Step& step = {}) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    for (std::size_t j2 = 0; j2 < R2; ++j2) {
        step(j2);
        B re[R1], im[R1];
        fft_unroll<R1>([&](auto tc) XLET_FFT_INLINE {
            re[tc] = B::load_aligned(ar + (j2 + R2 * tc) * W);
            im[tc] = B::load_aligned(ai + (j2 + R2 * tc) * W);
        });
        fft_dft_small<R1>(re, im);
        if (j2 != 0)
            fft_unroll<R1 - 1>([&](auto kc) XLET_FFT_INLINE {
                constexpr std::size_t k = decltype(kc)::value + 1;
                fft_twiddle(re[k], im[k], B(tw.wr[j2 * R1 + k]), B(tw.wi[j2 * R1 + k]));
            });
        fft_unroll<R1>([&](auto kc) XLET_FFT_INLINE {
            re[kc].store_aligned(ar + (j2 + R2 * kc) * W);
            im[kc].store_aligned(ai + (j2 + R2 * kc) * W);
        });
    }
    for (std::size_t k1 = 0; k1 < R1; ++k1) {
        step(R2 + k1);
        B re[R2], im[R2];
        fft_unroll<R2>([&](auto tc) XLET_FFT_INLINE {
            re[tc] = B::load_aligned(ar + (R2 * k1 + tc) * W);
            im[tc] = B::load_aligned(ai + (R2 * k1 + tc) * W);
        });
        fft_dft_small<R2>(re, im);
        fft_unroll<R2>([&](auto kc) XLET_FFT_INLINE {
            re[kc].store_aligned(ar + (R2 * k1 + kc) * W);
            im[kc].store_aligned(ai + (R2 * k1 + kc) * W);
        });
    }
}
template<std::size_t R1, std::size_t R2>
struct fft_two_pass_row {
    std::size_t operator()(std::size_t k) const { return R2 * (k % R1) + k / R1; }
};

// The two-pass split of a power of two 4 <= N <= 256 (R1 >= R2), or {0, 0}.
constexpr std::pair<std::size_t, std::size_t> fft_two_pass_split(std::size_t n) {
    for (std::size_t r1 : {16, 8, 4, 2})
        if (n % r1 == 0 && n / r1 >= 2 && n / r1 <= r1) {
            const std::size_t r2 = n / r1;
            if (r2 == 2 || r2 == 4 || r2 == 8 || r2 == 16) return {r1, r2};
        }
    return {0, 0};
}

// Rows of block scratch for a plan (Bluestein needs m rows in each of three buffer pairs).
template<class T>
std::size_t fft_block_rows(const fft_plan<T>& P) {
    return P.bluestein ? P.m : std::max<std::size_t>(P.n, 1);
}

// ---- drivers ----------------------------------------------------------------------------------

// Work (elements x log) from which a pass uses TBB.
inline constexpr std::size_t fft_parallel_work = std::size_t{1} << 15;

template<class F>
void fft_for(bool par, std::size_t n, std::size_t grain, const F& f) {
    if (!par || n <= grain) {
        f(std::size_t{0}, n);
        return;
    }
    tbb::this_task_arena::isolate([&] {
        run_parallel(tbb::blocked_range<std::size_t>(0, n, grain),
                     [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
    });
}

// Per-task block scratch: three buffer pairs of `rows` x V values, 64-byte aligned.
template<class T>
struct fft_scratch {
    scratch<T> mem;
    T* p;
    std::size_t stride;
    fft_scratch(std::size_t rows, std::size_t V) : mem(6 * rows * V + 16), stride(rows * V) {
        auto a = reinterpret_cast<std::uintptr_t>(mem.data());
        p = reinterpret_cast<T*>((a + 63) & ~std::uintptr_t{63});
    }
    template<class Vt>
    fft_block_bufs<Vt, T> bufs() {
        return {p, p + stride, p + 2 * stride, p + 3 * stride, p + 4 * stride, p + 5 * stride};
    }
};

// How a complex value is read from and written to memory by a pass: the forward/inverse
// conjugation and the 1/N scale are applied here.
struct fft_io {
    bool inverse = false;
    double scale = 1; // applied on store
};

// DFT along an axis (plan P, length n) with `cols` contiguous columns after it, for `outer`
// slabs: element (o, j, c) at (o * n + j) * cols + c, read from src and written to dst (which may
// be src: every block is read whole before it is written).
// One vector block: W columns read from in (row j at in + j * ist, interleaved complex; conjugated
// for an inverse), transformed, and written to out (row j at out + j * ost), times the optional
// twiddles tw[j * ost] (conjugated for an inverse) and the scale.
template<class T>
inline void fft_vector_block(const fft_plan<T>& P, fft_block_bufs<xsimd::batch<T>, T> bf, const std::complex<T>* in,
                             std::size_t ist, std::complex<T>* out, std::size_t ost, fft_io io, const T* twr,
                             const T* twi) {
    fft_block_io<xsimd::batch<T>, T>(P, bf, fft_complex_in<T>{in, ist, io.inverse},
                                     fft_complex_out<T>{out, ost, io.inverse, static_cast<T>(io.scale), twr, twi});
}

// tw (optional, four-step): each output (j, c) of slab 0 is multiplied by tw[j * cols + c] (split
// re / im tables; conjugated for an inverse transform) as it is stored.
template<class T>
void fft_axis_columns(const fft_plan<T>& P, const std::complex<T>* src, std::complex<T>* dst, std::size_t outer,
                      std::size_t cols, fft_io io, bool parallel = true, const T* twr = nullptr,
                      const T* twi = nullptr) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    const std::size_t n = P.n;
    const std::size_t rows = fft_block_rows(P);
    // Blocks of W columns; the last partial one (cols % W) is padded with zero columns (copied in
    // and out one value at a time) so that it also runs on vectors.
    const std::size_t vblocks = cols / W, tail = cols % W;
    const std::size_t per_slab = vblocks + (tail ? 1 : 0);
    const T scale = static_cast<T>(io.scale);
    const bool scaled = io.scale != 1;
    auto run = [&](std::size_t t0, std::size_t t1) {
        fft_scratch<T> sv(rows, W);
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t o = t / per_slab, b = t % per_slab;
            const std::complex<T>* in = src + o * n * cols;
            std::complex<T>* out = dst + o * n * cols;
            if (b == vblocks) { // the partial block
                auto bf = sv.template bufs<B>();
                const std::size_t c0 = b * W;
                const T sg = io.inverse ? T(-1) : T(1);
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t v = 0; v < W; ++v) {
                        const std::complex<T> z = v < tail ? in[j * cols + c0 + v] : std::complex<T>{};
                        bf.ar[j * W + v] = z.real();
                        bf.ai[j * W + v] = sg * z.imag();
                    }
                bool in_b = false;
                fft_block<B, T>(P, bf, in_b);
                const T* rr = in_b ? bf.br : bf.ar;
                const T* ri = in_b ? bf.bi : bf.ai;
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t v = 0; v < tail; ++v) {
                        T re = rr[j * W + v], im = sg * ri[j * W + v];
                        if (twr) {
                            const T c = twr[j * cols + c0 + v], d = sg * twi[j * cols + c0 + v];
                            const T x = re * c - im * d;
                            im = re * d + im * c;
                            re = x;
                        }
                        out[j * cols + c0 + v] =
                            scaled ? std::complex<T>(re * scale, im * scale) : std::complex<T>(re, im);
                    }
            } else {
                const std::size_t c0 = b * W;
                fft_vector_block<T>(P, sv.template bufs<B>(), in + c0, cols, out + c0, cols, io,
                                    twr ? twr + c0 : nullptr, twi ? twi + c0 : nullptr);
            }
        }
    };
    const std::size_t tasks = outer * per_slab;
    const std::size_t work = outer * n * cols * 5;
    fft_for(parallel && work >= fft_parallel_work, tasks, 1, run);
}

// DFT along the innermost axis (contiguous) of `count` transforms (plan P, length n), src to data
// (may be equal): W transforms at a time go through register transposes straight into the split
// block and back (the last group may have fewer, on zero lanes).
template<class T>
void fft_axis_rows(const fft_plan<T>& P, const std::complex<T>* src, std::complex<T>* data, std::size_t count,
                   fft_io io, bool parallel = true) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    const std::size_t n = P.n;
    const std::size_t rows = fft_block_rows(P);
    const std::size_t groups = (count + W - 1) / W;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        fft_scratch<T> sv(rows, W);
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t cnt = std::min(W, count - t * W); // the last group may be partial
            auto bf = sv.template bufs<B>();
            fft_load_rows<T>(src + t * W * n, n, cnt, n, bf.ar, bf.ai, io.inverse);
            bool in_b = false;
            fft_block<B, T>(P, bf, in_b);
            fft_store_rows<T>(in_b ? bf.br : bf.ar, in_b ? bf.bi : bf.ai, n, data + t * W * n, n, cnt, io.inverse,
                              scale);
        }
    };
    const std::size_t work = count * n * 5;
    fft_for(parallel && work >= fft_parallel_work, groups, 1, run);
}

// The four-step decomposition of one long transform, n = n1 x n2 (both smooth, near sqrt(n)):
// x viewed as [n1][n2]; column DFTs of length n1 over the n2 columns, times W_n^(k1 j2) (a table
// laid out like x) as they are stored into t; DFTs of length n2 along the rows of t, W rows at a
// time transposed in registers, written to the columns of x: X[k2 n1 + k1] = Z[k1][k2].
template<class T>
struct fft_four_plan {
    std::size_t n1 = 0, n2 = 0;
    const fft_plan<T>* p1 = nullptr;
    const fft_plan<T>* p2 = nullptr;
    std::vector<T> wr, wi; // [n1][n2]
    explicit fft_four_plan(std::size_t n) {
        using LD = long double;
        const LD pi = 3.141592653589793238462643383279502884L;
        std::size_t best = 0;
        for (std::size_t a = 2; a * a <= n; ++a)
            if (n % a == 0 && fft_smooth(a) && fft_smooth(n / a)) best = a;
        n1 = best;
        n2 = best ? n / best : 0;
        if (!best) return;
        p1 = &fft_plan_for<T>(n1);
        p2 = &fft_plan_for<T>(n2);
        wr.resize(n);
        wi.resize(n);
        for (std::size_t k1 = 0; k1 < n1; ++k1)
            for (std::size_t j2 = 0; j2 < n2; ++j2) {
                const LD a = -2 * pi * static_cast<LD>(k1 * j2 % n) / static_cast<LD>(n);
                wr[k1 * n2 + j2] = static_cast<T>(std::cos(a));
                wi[k1 * n2 + j2] = static_cast<T>(std::sin(a));
            }
    }
};
template<class T, std::size_t N>
const fft_four_plan<T>& fft_four_of() {
    static const fft_four_plan<T> p(N);
    return p;
}

// Step 3 of the four-step: t is [n1][n2]; its rows, W at a time (register transposes into the
// split block), take DFTs of length n2 whose outputs are written down the columns of x:
// x[k2 * n1 + k1] = DFT(t[k1][.])[k2], conjugated for an inverse and scaled.
template<class T>
void fft_rows_to_columns(const fft_plan<T>& P, const std::complex<T>* t, std::complex<T>* x, std::size_t n1, fft_io io,
                         bool parallel) {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    constexpr std::size_t W = B::size;
    const std::size_t n2 = P.n, rows = fft_block_rows(P), blocks = (n1 + W - 1) / W;
    const T scale = static_cast<T>(io.scale);
    const B sc(scale), sci(io.inverse ? T(0) - scale : scale);
    auto run = [&](std::size_t b0, std::size_t b1) {
        fft_scratch<T> sv(rows, W);
        for (std::size_t b = b0; b < b1; ++b) {
            const std::size_t c0 = b * W, cnt = std::min(W, n1 - c0);
            auto bf = sv.template bufs<B>();
            fft_load_rows<T>(t + c0 * n2, n2, cnt, n2, bf.ar, bf.ai, io.inverse);
            if (cnt == W) { // the last stage writes x
                const fft_block_bufs<B, T> rest{bf.cr, bf.ci, bf.br, bf.bi, nullptr, nullptr};
                fft_block_io<B, T>(P, P.bluestein ? bf : rest, fft_split_rows<B, T>{bf.ar, bf.ai},
                                   fft_complex_out<T>{x + c0, n1, io.inverse, scale});
                continue;
            }
            bool in_b = false;
            fft_block<B, T>(P, bf, in_b);
            const T* rr = in_b ? bf.br : bf.ar;
            const T* ri = in_b ? bf.bi : bf.ai;
            for (std::size_t k = 0; k < n2; ++k) {
                B re = B::load_aligned(rr + k * W), im = B::load_aligned(ri + k * W);
                if (scale != T(1)) {
                    re = re * sc;
                    im = im * sci;
                } else if (io.inverse) {
                    im = B(T(0)) - im;
                }
                alignas(64) std::complex<T> tmp[W];
                CB(re, im).store_aligned(tmp);
                std::copy_n(tmp, cnt, x + k * n1 + c0);
            }
        }
    };
    fft_for(parallel && n1 * n2 * 5 >= fft_parallel_work, blocks, 1, run);
}

template<class T>
void fft_four_step(const fft_four_plan<T>& F, const std::complex<T>* src, std::complex<T>* x, fft_io io,
                   bool parallel = true) {
    const std::size_t n1 = F.n1, n2 = F.n2, n = n1 * n2;
    // step 1 (inverse: conj in, conj out, so t holds the unscaled inverse column transforms), with
    // step 2's twiddles W_n^(k1 j2) (conjugated for the inverse) applied as the columns are stored
    scratch<std::complex<T>> t(n);
    fft_axis_columns<T>(*F.p1, src, t.data(), 1, n2, fft_io{io.inverse, 1.0}, parallel, F.wr.data(), F.wi.data());
    // step 3: the rows of t into the columns of x (the transpose rides on the loads), scaled
    fft_rows_to_columns<T>(*F.p2, t.data(), x, n1, io, parallel);
}

// The lanes of x in reverse order (one permute: __builtin_shufflevector, as the intrinsics'
// "undefined" pass-through trips GCC 12's bug 105593 under -Werror).
template<class T, class A>
inline xsimd::batch<T, A> fft_reverse(const xsimd::batch<T, A>& x) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t W = B::size;
#if defined(__AVX512F__)
    if constexpr (sizeof(B) == 64 && sizeof(T) == 4) {
        const __m512 v = x;
        return B(__builtin_shufflevector(v, v, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    } else if constexpr (sizeof(B) == 64 && sizeof(T) == 8) {
        const __m512d v = x;
        return B(__builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0));
    }
#endif
#if defined(__AVX__)
    if constexpr (sizeof(B) == 32 && sizeof(T) == 4) {
        const __m256 v = x;
        return B(__builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0));
    } else if constexpr (sizeof(B) == 32 && sizeof(T) == 8) {
        const __m256d v = x;
        return B(__builtin_shufflevector(v, v, 3, 2, 1, 0));
    }
#endif
    alignas(64) T m[W];
    x.store_aligned(m);
    for (std::size_t i = 0; i < W / 2; ++i)
        std::swap(m[i], m[W - 1 - i]);
    return B::load_aligned(m);
}

// dst[j] = conj?(a[j]) * b[j] * scale, j < n, interleaved complex (SIMD body, scalar tail).
template<class T>
inline void fft_cmul(const std::complex<T>* a, const std::complex<T>* b, std::complex<T>* dst, std::size_t n,
                     bool conj_a, bool conj_out, T scale) {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    constexpr std::size_t W = CB::size;
    const B sc(scale);
    std::size_t j = 0;
    for (; j + W <= n; j += W) {
        const CB x = CB::load_unaligned(a + j), y = CB::load_unaligned(b + j);
        const B xr = x.real(), xi = conj_a ? B(T(0)) - x.imag() : x.imag(), yr = y.real(), yi = y.imag();
        B re = xr * yr - xi * yi, im = xr * yi + xi * yr;
        if (conj_out) im = B(T(0)) - im;
        if (scale != T(1)) {
            re = re * sc;
            im = im * sc;
        }
        CB(re, im).store_unaligned(dst + j);
    }
    for (; j < n; ++j) {
        const T xr = a[j].real(), xi = conj_a ? T(0) - a[j].imag() : a[j].imag(), yr = b[j].real(), yi = b[j].imag();
        T re = xr * yr - xi * yi, im = xr * yi + xi * yr;
        if (conj_out) im = T(0) - im;
        if (scale != T(1)) {
            re = re * scale;
            im = im * scale;
        }
        dst[j] = std::complex<T>(re, im);
    }
}

// One Bluestein transform (P.bluestein) with its power-of-two convolution on the four-step F
// (length P.m), so a single long prime-length transform runs on full vectors instead of the
// one-column kernel: a = x c, A = DFT(a) K, z = DFT^-1 unscaled (K holds 1 / m), X = c z.
template<class T>
void fft_bluestein_one(const fft_plan<T>& P, const fft_four_plan<T>& F, const std::complex<T>* src,
                       std::complex<T>* dst, fft_io io, bool parallel = true) {
    using C = std::complex<T>;
    const std::size_t n = P.n, m = P.m;
    scratch<C> a(m);
    fft_cmul<T>(src, P.chc.data(), a.data(), n, io.inverse, false, T(1));
    std::fill(a.data() + n, a.data() + m, C{});
    fft_four_step<T>(F, a.data(), a.data(), fft_io{}, parallel);
    fft_cmul<T>(a.data(), P.kc.data(), a.data(), m, false, false, T(1));
    fft_four_step<T>(F, a.data(), a.data(), fft_io{true, 1.0}, parallel);
    fft_cmul<T>(a.data(), P.chc.data(), dst, n, false, io.inverse, static_cast<T>(io.scale));
}

// fft_axis_rows for a length N with a two-pass split (a power of two, 4 <= N <= 256): the same
// transposed loads and stores around fft_two_pass on one buffer.
template<class T, std::size_t N>
void fft_axis_rows_two_pass(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                            bool parallel) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    constexpr std::size_t R1 = fft_two_pass_split(N).first, R2 = fft_two_pass_split(N).second;
    static const fft_two_pass_tw<T> tw(R1, R2);
    const std::size_t groups = (count + W - 1) / W;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        fft_scratch<T> sv(N, W);
        T* ar = sv.p;
        T* ai = sv.p + sv.stride;
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t cnt = std::min(W, count - t * W);
            fft_load_rows<T>(src + t * W * N, N, cnt, N, ar, ai, io.inverse);
            // While the block is transformed, fetch its output lines for writing (prefetchw,
            // spread over the R1 + R2 steps): the stores then do not wait on a read for ownership
            // one line at a time, W transforms apart. Zen 5, 4096 x 256 c64: 1 thread 670 -> 500
            // us, 2 threads 284 -> 245 (prefetching the next block's input as well, or into L2
            // only, gained nothing more).
            constexpr std::size_t lines = W * N * sizeof(std::complex<T>) / 64, steps = R1 + R2;
            const char* o = reinterpret_cast<const char*>(data + t * W * N);
            fft_two_pass<R1, R2, T>(ar, ai, tw, [&](std::size_t s) XLET_FFT_INLINE {
                if (cnt == W)
                    for (std::size_t l = s * lines / steps; l < (s + 1) * lines / steps; ++l)
                        __builtin_prefetch(o + l * 64, 1, 2);
            });
            fft_store_rows<T>(ar, ai, N, data + t * W * N, N, cnt, io.inverse, scale, fft_two_pass_row<R1, R2>{});
        }
    };
    fft_for(parallel && count * N * 5 >= fft_parallel_work, groups, 1, run);
}

// DFT along the innermost axis of `count` transforms of length N, in place: the four-step for a
// few long transforms, else the batched transposing path.
template<class T, std::size_t N>
void fft_axis_inner(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                    bool parallel = true) {
    constexpr std::size_t W = xsimd::batch<T>::size;
    if constexpr (N <= 1) {
        for (std::size_t i = 0; i < count * N; ++i)
            data[i] = src[i] * static_cast<T>(io.scale);
    } else {
        if constexpr (N >= 256 && fft_smooth(N)) {
            if (count < W) {
                const auto& F = fft_four_of<T, N>();
                if (F.n1 >= 8) {
                    for (std::size_t i = 0; i < count; ++i)
                        fft_four_step<T>(F, src + i * N, data + i * N, io, parallel);
                    return;
                }
            }
        }
        if constexpr (N >= 32 && !fft_smooth(N)) {
            if (count < W) {
                const auto& P = fft_plan_of<T, N>();
                const auto& F = fft_four_of<T, fft_pow2_at_least(2 * N - 1)>();
                for (std::size_t i = 0; i < count; ++i)
                    fft_bluestein_one<T>(P, F, src + i * N, data + i * N, io, parallel);
                return;
            }
        }
        if constexpr (fft_two_pass_split(N).first != 0)
            fft_axis_rows_two_pass<T, N>(src, data, count, io, parallel);
        else
            fft_axis_rows<T>(fft_plan_of<T, N>(), src, data, count, io, parallel);
    }
}

} // namespace xlet::detail

#undef XLET_FFT_INLINE
