// One transform of N = W x W points (W = the batch width: 256 for f32 on AVX-512, 64 for f32 on
// AVX2 or f64 on AVX-512, 16 for f64 on AVX2) entirely in registers, straight from and to the
// interleaved complex memory: rows j1 of x viewed as [W][W] are loaded and split into re / im
// (lane = j2), DFT_W over j1, times W_N^(j2 k1), a W x W register transpose, DFT_W over j2, and
// the rows k2 (lane = k1) interleaved and stored: X[k1 + W k2]. No block buffer: the batched-rows
// path's transposing loads, two buffer passes and transposing stores cost twice the butterflies
// on Zen 4, whose 32 KiB L1 a block of W transforms of 256 fills.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <cmath>
#include <complex>
#include <cstddef>

#include "driver.hpp"
#include "simd.hpp"
#include "transpose.hpp"
#include "two_pass.hpp"

#define XLET_FFT_INLINE __attribute__((always_inline)) // why: see simd.hpp

namespace xlet::detail {

// Whether the square kernel exists for T on this target: the split / interleave below need
// AVX-512 or AVX2 permutes, and fft_dft_small needs W in {4, 8, 16}.
template<class T>
constexpr bool fft_square_ok() {
    constexpr std::size_t W = xsimd::batch<T>::size;
#if defined(__AVX512F__)
    if constexpr (sizeof(xsimd::batch<T>) == 64) return W == 8 || W == 16;
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(xsimd::batch<T>) == 32) return W == 4 || W == 8;
#endif
    return false;
}

// (lo, hi): 2W values of W interleaved complex -> re, im.
template<class T>
[[gnu::always_inline]] inline void fft_split(const xsimd::batch<T>& lo, const xsimd::batch<T>& hi, xsimd::batch<T>& re,
                                             xsimd::batch<T>& im) {
    using B = xsimd::batch<T>;
#if defined(__AVX512F__)
    if constexpr (sizeof(B) == 64 && sizeof(T) == 4) {
        const __m512 a = lo, b = hi;
        re = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        im = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        return;
    } else if constexpr (sizeof(B) == 64) {
        const __m512d a = lo, b = hi;
        re = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
        im = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
        return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(B) == 32 && sizeof(T) == 4) {
        const __m256 a = lo, b = hi;
        re = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
        im = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
    } else if constexpr (sizeof(B) == 32) {
        const __m256d a = lo, b = hi;
        re = __builtin_shufflevector(a, b, 0, 2, 4, 6);
        im = __builtin_shufflevector(a, b, 1, 3, 5, 7);
    }
#endif
}

// The reverse: re, im -> (lo, hi) interleaved.
template<class T>
[[gnu::always_inline]] inline void fft_interleave(const xsimd::batch<T>& re, const xsimd::batch<T>& im,
                                                  xsimd::batch<T>& lo, xsimd::batch<T>& hi) {
    using B = xsimd::batch<T>;
#if defined(__AVX512F__)
    if constexpr (sizeof(B) == 64 && sizeof(T) == 4) {
        const __m512 a = re, b = im;
        lo = __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        hi = __builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        return;
    } else if constexpr (sizeof(B) == 64) {
        const __m512d a = re, b = im;
        lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
        hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
        return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(B) == 32 && sizeof(T) == 4) {
        const __m256 a = re, b = im;
        lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
        hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
    } else if constexpr (sizeof(B) == 32) {
        const __m256d a = re, b = im;
        lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
        hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
    }
#endif
}

// Twiddles of the square kernel: row k1 (lane j2) holds W_N^(j2 k1), N = W^2, split.
template<class T>
struct fft_square_tw {
    static constexpr std::size_t W = xsimd::batch<T>::size;
    alignas(64) T wr[W * W], wi[W * W];
    fft_square_tw() {
        using LD = long double;
        const LD pi = 3.141592653589793238462643383279502884L;
        for (std::size_t k1 = 0; k1 < W; ++k1)
            for (std::size_t j2 = 0; j2 < W; ++j2) {
                const LD a = -2 * pi * static_cast<LD>(j2 * k1) / static_cast<LD>(W * W);
                wr[k1 * W + j2] = static_cast<T>(std::cos(a));
                wi[k1 * W + j2] = static_cast<T>(std::sin(a));
            }
    }
};

// One transform src -> dst (may be equal): conjugated in and out for an inverse, times `scale`.
template<class T>
[[gnu::always_inline]] inline void fft_square_one(const std::complex<T>* src, std::complex<T>* dst,
                                                  const fft_square_tw<T>& tw, bool conj, T scale) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    B re[W], im[W];
    const T* s = reinterpret_cast<const T*>(src);
    fft_unroll<W>([&](auto jc) XLET_FFT_INLINE {
        constexpr std::size_t j1 = decltype(jc)::value;
        fft_split<T>(B::load_unaligned(s + 2 * W * j1), B::load_unaligned(s + 2 * W * j1 + W), re[j1], im[j1]);
        if (conj) im[j1] = B(T(0)) - im[j1];
    });
    fft_dft_small<W>(re, im);
    fft_unroll<W - 1>([&](auto kc) XLET_FFT_INLINE {
        constexpr std::size_t k1 = decltype(kc)::value + 1;
        fft_twiddle(re[k1], im[k1], B::load_aligned(tw.wr + k1 * W), B::load_aligned(tw.wi + k1 * W));
    });
    fft_transpose_regs<T>(re);
    fft_transpose_regs<T>(im);
    fft_dft_small<W>(re, im);
    const B sc(scale), sci(conj ? T(0) - scale : scale);
    T* d = reinterpret_cast<T*>(dst);
    fft_unroll<W>([&](auto kc) XLET_FFT_INLINE {
        constexpr std::size_t k2 = decltype(kc)::value;
        B r = re[k2], i = im[k2];
        if (scale != T(1)) {
            r = r * sc;
            i = i * sci;
        } else if (conj) {
            i = B(T(0)) - i;
        }
        B lo, hi;
        fft_interleave<T>(r, i, lo, hi);
        lo.store_unaligned(d + 2 * W * k2);
        hi.store_unaligned(d + 2 * W * k2 + W);
    });
}

// `count` transforms of N = W^2 along the innermost axis, src to data (may be equal).
template<class T>
void fft_axis_rows_square(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                          bool parallel) {
    constexpr std::size_t W = xsimd::batch<T>::size, N = W * W;
    static const fft_square_tw<T> tw;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        for (std::size_t t = t0; t < t1; ++t)
            fft_square_one<T>(src + t * N, data + t * N, tw, io.inverse, scale);
    };
    // Grain: a few transforms per task, so that a small batch stays on one thread.
    fft_for(parallel && count * N * 5 >= fft_parallel_work, count, 16, run);
}

} // namespace xlet::detail

#undef XLET_FFT_INLINE
