// Register transposes: W x W in-register transposes of a batch (per ISA), and the loads and stores
// built on them that move W transforms of interleaved complex rows into and out of a split block
// (one transform per lane) without a separate memory pass. The batched-rows path, the two-pass
// kernel and the four-step's row step feed the column kernels through these.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "simd.hpp"

#define XLET_FFT_INLINE __attribute__((always_inline)) // why: see simd.hpp

namespace xlet::detail {

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

} // namespace xlet::detail

#undef XLET_FFT_INLINE
