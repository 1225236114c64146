// One transform of N = W x W points (W = the batch width: 256 for f32 on AVX-512, 64 for f32 on
// AVX2 or f64 on AVX-512, 16 for f64 on AVX2) entirely in registers, straight from and to the
// interleaved complex memory: rows j1 of x viewed as [W][W] are loaded and split into re / im
// (lane = j2), DFT_W over j1, times W_N^(j2 k1), a W x W register transpose, DFT_W over j2, and
// the rows k2 (lane = k1) interleaved and stored: X[k1 + W k2]. No block buffer: the batched-rows
// path's transposing loads, two buffer passes and transposing stores cost twice the butterflies
// on Zen 4, whose 32 KiB L1 a block of W transforms of 256 fills. f32 transforms of 4 W^2 points
// take one radix-4 step onto four of these (fft_square4_one), of 16 W^2 two steps
// (fft_square16_one).
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <cmath>
#include <complex>
#include <cstddef>
#include <utility>

#include "driver.hpp"
#include "simd.hpp"
#include "transpose.hpp"
#include "two_pass.hpp"

#define XLET_FFT_INLINE __attribute__((always_inline)) // why: see simd.hpp

namespace xlet::detail {

// Whether the square kernel is used for T on this target: AVX2 or AVX-512 (measured there; the
// permutes below are generic, the W x W register transposes are not), and fft_dft_small needs W in
// {4, 8, 16}.
template<class T>
constexpr bool fft_square_ok() {
    [[maybe_unused]] constexpr std::size_t W = xsimd::batch<T>::size;
#if defined(__AVX512F__)
    if constexpr (sizeof(xsimd::batch<T>) == 64) return W == 8 || W == 16;
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(xsimd::batch<T>) == 32) return W == 4 || W == 8;
#endif
    return false;
}

// Lane i of the result is lane map(i) of the 2W lanes (a, b): one two-source permute.
template<class T, class Map, std::size_t... I>
[[gnu::always_inline]] inline xsimd::batch<T> fft_permute2(const xsimd::batch<T>& a, const xsimd::batch<T>& b,
                                                           std::index_sequence<I...>) {
    using R = typename xsimd::batch<T>::register_type;
    const R x = a, y = b;
    return xsimd::batch<T>(R(__builtin_shufflevector(x, y, Map::at(I)...)));
}
template<class T, class Map>
[[gnu::always_inline]] inline xsimd::batch<T> fft_permute2(const xsimd::batch<T>& a, const xsimd::batch<T>& b) {
    return fft_permute2<T, Map>(a, b, std::make_index_sequence<xsimd::batch<T>::size>{});
}
template<std::size_t Odd>
struct fft_lanes_split { // re (Odd = 0) or im (Odd = 1) of W interleaved complex
    static constexpr int at(std::size_t i) { return static_cast<int>(2 * i + Odd); }
};
template<std::size_t W, std::size_t Half>
struct fft_lanes_zip { // complex Half * W / 2 + i / 2 of (re, im), interleaved
    static constexpr int at(std::size_t i) { return static_cast<int>((i % 2) * W + Half * W / 2 + i / 2); }
};

// (lo, hi): 2W values of W interleaved complex -> re, im.
template<class T>
[[gnu::always_inline]] inline void fft_split(const xsimd::batch<T>& lo, const xsimd::batch<T>& hi, xsimd::batch<T>& re,
                                             xsimd::batch<T>& im) {
    re = fft_permute2<T, fft_lanes_split<0>>(lo, hi);
    im = fft_permute2<T, fft_lanes_split<1>>(lo, hi);
}

// The reverse: re, im -> (lo, hi) interleaved.
template<class T>
[[gnu::always_inline]] inline void fft_interleave(const xsimd::batch<T>& re, const xsimd::batch<T>& im,
                                                  xsimd::batch<T>& lo, xsimd::batch<T>& hi) {
    constexpr std::size_t W = xsimd::batch<T>::size;
    lo = fft_permute2<T, fft_lanes_zip<W, 0>>(re, im);
    hi = fft_permute2<T, fft_lanes_zip<W, 1>>(re, im);
}

// The square kernel's twiddles are the two-pass kernel's for R1 = R2 = W (fft_two_pass_tw): the
// table W_N^(j2 k1) is symmetric, so row k1 (lane j2) is wr + k1 * W.
template<class T>
const fft_two_pass_tw<T>& fft_square_tw() {
    constexpr std::size_t W = xsimd::batch<T>::size;
    static const fft_two_pass_tw<T> tw(W, W);
    return tw;
}

// The outputs' conjugation (inverse) and scale, on a pair of registers.
template<class T>
[[gnu::always_inline]] inline void fft_out_scale(xsimd::batch<T>& r, xsimd::batch<T>& i, bool conj, T scale) {
    using B = xsimd::batch<T>;
    if (scale != T(1)) {
        r = r * B(scale);
        i = i * B(conj ? T(0) - scale : scale);
    } else if (conj) {
        i = B(T(0)) - i;
    }
}

// The butterflies of one transform in registers: rows j1 (lane j2) in, rows k2 (lane k1) out.
template<class T>
[[gnu::always_inline]] inline void fft_square_core(xsimd::batch<T>* re, xsimd::batch<T>* im,
                                                   const fft_two_pass_tw<T>& tw) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    fft_dft_small<W>(re, im);
    fft_unroll<W - 1>([&](auto kc) XLET_FFT_INLINE {
        constexpr std::size_t k1 = decltype(kc)::value + 1;
        fft_twiddle(re[k1], im[k1], B::load_unaligned(tw.wr.data() + k1 * W), B::load_unaligned(tw.wi.data() + k1 * W));
    });
    fft_transpose_regs<T>(re);
    fft_transpose_regs<T>(im);
    fft_dft_small<W>(re, im);
}

// One transform src -> dst (may be equal): conjugated in and out for an inverse, times `scale`.
template<class T>
[[gnu::always_inline]] inline void fft_square_one(const std::complex<T>* src, std::complex<T>* dst,
                                                  const fft_two_pass_tw<T>& tw, bool conj, T scale) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    B re[W], im[W];
    const T* s = reinterpret_cast<const T*>(src);
    fft_unroll<W>([&](auto jc) XLET_FFT_INLINE {
        constexpr std::size_t j1 = decltype(jc)::value;
        fft_split<T>(B::load_unaligned(s + 2 * W * j1), B::load_unaligned(s + 2 * W * j1 + W), re[j1], im[j1]);
        if (conj) im[j1] = B(T(0)) - im[j1];
    });
    fft_square_core<T>(re, im, tw);
    T* d = reinterpret_cast<T*>(dst);
    fft_unroll<W>([&](auto kc) XLET_FFT_INLINE {
        constexpr std::size_t k2 = decltype(kc)::value;
        B r = re[k2], i = im[k2];
        fft_out_scale<T>(r, i, conj, scale);
        B lo, hi;
        fft_interleave<T>(r, i, lo, hi);
        lo.store_unaligned(d + 2 * W * k2);
        hi.store_unaligned(d + 2 * W * k2 + W);
    });
}

// The next transform's input and output lines, requested while this one computes, with 256-bit
// vectors: out of place in L3 (a batch of 4096 x 256 f32, 16 MiB), AVX2's square4 took 320 ns per
// transform instead of 200 in cache, waiting on loads and on the output's read-for-ownership (Zen
// 4); 230-240 with these. With AVX-512 (a line per load) they cost 5-10% instead: not there.
template<std::size_t N, class T>
[[gnu::always_inline]] inline void fft_prefetch_next([[maybe_unused]] const std::complex<T>* src,
                                                     [[maybe_unused]] std::complex<T>* dst) {
    if constexpr (sizeof(xsimd::batch<T>) == 32)
        for (std::size_t b = 0; b < N * sizeof(std::complex<T>); b += 64) {
            __builtin_prefetch(reinterpret_cast<const char*>(src) + b);
            __builtin_prefetch(reinterpret_cast<const char*>(dst) + b, 1);
        }
}

// `count` transforms of N = W^2 along the innermost axis, src to data (may be equal).
template<class T>
void fft_axis_rows_square(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                          bool parallel) {
    constexpr std::size_t W = xsimd::batch<T>::size, N = W * W;
    const auto& tw = fft_square_tw<T>();
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        for (std::size_t t = t0; t < t1; ++t) {
            if (t + 1 < t1) fft_prefetch_next<N>(src + (t + 1) * N, data + (t + 1) * N);
            fft_square_one<T>(src + t * N, data + t * N, tw, io.inverse, scale);
        }
    };
    // Grain: a few transforms per task, so that a small batch stays on one thread.
    fft_for(parallel && count * N * 5 >= fft_parallel_work, count, 16, run);
}

// f32 transforms of N = 4 W^2 (1024 on AVX-512, 256 on AVX2): one radix-4 decimation-in-frequency
// step splits a transform into four of W^2 on the square kernel. y_r[m] = W_N^(m r) sum_q x[m +
// S q] W_4^(q r) (S = W^2, m = W j1 + j2: rows j1 of y_r are made W points at a time straight
// from the interleaved input), X[4 k + r] = DFT_S(y_r)[k]; the four results are interleaved by a
// 4 x W transpose of complex values (as 64-bit lanes) on the way out. The four sub-transforms
// wait in an 8 KiB stack buffer in split form (L1).
template<class T>
constexpr bool fft_square4_ok() {
    return sizeof(T) == 4 && fft_square_ok<T>();
}

// Twiddles of a radix-4 step onto sub-transforms of S points: [r - 1][m] = W_4S^(m r), r = 1..3,
// m < S, split.
template<class T, std::size_t S>
struct fft_radix4_tw {
    alignas(64) T wr[3 * S], wi[3 * S];
    fft_radix4_tw() {
        using LD = long double;
        const LD pi = 3.141592653589793238462643383279502884L;
        for (std::size_t r = 1; r < 4; ++r)
            for (std::size_t m = 0; m < S; ++m) {
                const LD a = -2 * pi * static_cast<LD>(m * r) / static_cast<LD>(4 * S);
                wr[(r - 1) * S + m] = static_cast<T>(std::cos(a));
                wi[(r - 1) * S + m] = static_cast<T>(std::sin(a));
            }
    }
};
template<class T>
using fft_square4_tw = fft_radix4_tw<T, xsimd::batch<T>::size * xsimd::batch<T>::size>;

// The radix-4 step itself, W points of each y_r at a time: load(q, j, re, im) gives x[q S + W j ..
// + W) split, put(j, re, im) receives y_r[W j .. W j + W) for r < 4 (re[r], im[r]), j < S / W.
template<class T, std::size_t S, class Load, class Put>
[[gnu::always_inline]] inline void fft_radix4_step(Load&& load, const fft_radix4_tw<T, S>& t4, Put&& put) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    for (std::size_t j = 0; j < S / W; ++j) {
        B re[4], im[4];
        fft_unroll<4>([&](auto qc) XLET_FFT_INLINE { load(std::size_t{qc}, j, re[qc], im[qc]); });
        fft_dft_small<4>(re, im);
        fft_unroll<3>([&](auto rc) XLET_FFT_INLINE {
            constexpr std::size_t r = decltype(rc)::value + 1;
            fft_twiddle(re[r], im[r], B::load_aligned(t4.wr + (r - 1) * S + W * j),
                        B::load_aligned(t4.wi + (r - 1) * S + W * j));
        });
        put(j, re, im);
    }
}

// Loads of the radix-4 steps: from interleaved memory of S-point quarters (conjugated for an
// inverse), or from split planes.
template<class T, std::size_t S>
auto fft_load_interleaved(const T* s, bool conj) {
    using B = xsimd::batch<T>;
    return [s, conj](std::size_t q, std::size_t j, B& re, B& im) XLET_FFT_INLINE {
        constexpr std::size_t W = B::size;
        const T* p = s + 2 * (q * S + W * j);
        fft_split<T>(B::load_unaligned(p), B::load_unaligned(p + W), re, im);
        if (conj) im = B(T(0)) - im;
    };
}

// The 4 x D complex transpose of the radix-4 outputs: a_r[k] (D = W / 2 complex
// per vector, r < 4) -> groups of four complex (a_0[k], a_1[k], a_2[k], a_3[k]), group k stored
// at out + k * Stride (floats; 8: contiguous). Complex values are moved as 64-bit lanes.
template<class T, std::size_t Stride>
[[gnu::always_inline]] inline void fft_interleave4([[maybe_unused]] const xsimd::batch<T>* a, [[maybe_unused]] T* out) {
    using B [[maybe_unused]] = xsimd::batch<T>;
#if defined(__AVX512F__)
    if constexpr (sizeof(B) == 64) {
        const __m512d a0 = _mm512_castps_pd(a[0]), a1 = _mm512_castps_pd(a[1]);
        const __m512d a2 = _mm512_castps_pd(a[2]), a3 = _mm512_castps_pd(a[3]);
        const __m512d p0 = __builtin_shufflevector(a0, a1, 0, 8, 1, 9, 2, 10, 3, 11);
        const __m512d p1 = __builtin_shufflevector(a0, a1, 4, 12, 5, 13, 6, 14, 7, 15);
        const __m512d q0 = __builtin_shufflevector(a2, a3, 0, 8, 1, 9, 2, 10, 3, 11);
        const __m512d q1 = __builtin_shufflevector(a2, a3, 4, 12, 5, 13, 6, 14, 7, 15);
        const __m512d v[4] = {__builtin_shufflevector(p0, q0, 0, 1, 8, 9, 2, 3, 10, 11),
                              __builtin_shufflevector(p0, q0, 4, 5, 12, 13, 6, 7, 14, 15),
                              __builtin_shufflevector(p1, q1, 0, 1, 8, 9, 2, 3, 10, 11),
                              __builtin_shufflevector(p1, q1, 4, 5, 12, 13, 6, 7, 14, 15)};
        for (std::size_t i = 0; i < 4; ++i) { // vector i: groups 2 i, 2 i + 1
            if constexpr (Stride == 8) {
                _mm512_storeu_pd(reinterpret_cast<double*>(out + 16 * i), v[i]);
            } else {
                _mm256_storeu_pd(reinterpret_cast<double*>(out + 2 * i * Stride), _mm512_castpd512_pd256(v[i]));
                _mm256_storeu_pd(reinterpret_cast<double*>(out + (2 * i + 1) * Stride),
                                 _mm512_extractf64x4_pd(v[i], 1));
            }
        }
        return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(B) == 32) {
        const __m256d a0 = _mm256_castps_pd(a[0]), a1 = _mm256_castps_pd(a[1]);
        const __m256d a2 = _mm256_castps_pd(a[2]), a3 = _mm256_castps_pd(a[3]);
        const __m256d p0 = __builtin_shufflevector(a0, a1, 0, 4, 1, 5),
                      p1 = __builtin_shufflevector(a0, a1, 2, 6, 3, 7);
        const __m256d q0 = __builtin_shufflevector(a2, a3, 0, 4, 1, 5),
                      q1 = __builtin_shufflevector(a2, a3, 2, 6, 3, 7);
        _mm256_storeu_pd(reinterpret_cast<double*>(out), __builtin_shufflevector(p0, q0, 0, 1, 4, 5));
        _mm256_storeu_pd(reinterpret_cast<double*>(out + Stride), __builtin_shufflevector(p0, q0, 2, 3, 6, 7));
        _mm256_storeu_pd(reinterpret_cast<double*>(out + 2 * Stride), __builtin_shufflevector(p1, q1, 0, 1, 4, 5));
        _mm256_storeu_pd(reinterpret_cast<double*>(out + 3 * Stride), __builtin_shufflevector(p1, q1, 2, 3, 6, 7));
    }
#endif
}

// A transform of 4 W^2 points into split planes (re, im: four quarters of W^2, row * W + lane)
// and in place there: the radix-4 step from `load`, then the square kernel on each quarter. Quarter
// r then holds DFT_S(y_r) as rows k2, lanes k1 (index k1 + W k2). The step may run in place on the
// planes: row j of every quarter is read before row j is written.
template<class T, class Load>
[[gnu::always_inline]] inline void fft_square4_planes(Load&& load, T* pre, T* pim, const fft_square4_tw<T>& t4,
                                                      const fft_two_pass_tw<T>& tw) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size, S = W * W;
    fft_radix4_step<T, S>(load, t4, [&](std::size_t j1, const B* re, const B* im) XLET_FFT_INLINE {
        fft_unroll<4>([&](auto rc) XLET_FFT_INLINE {
            re[rc].store_aligned(pre + rc * S + W * j1);
            im[rc].store_aligned(pim + rc * S + W * j1);
        });
    });
    for (std::size_t r = 0; r < 4; ++r) {
        B re[W], im[W];
        fft_unroll<W>([&](auto jc) XLET_FFT_INLINE {
            re[jc] = B::load_aligned(pre + r * S + W * jc);
            im[jc] = B::load_aligned(pim + r * S + W * jc);
        });
        fft_square_core<T>(re, im, tw);
        fft_unroll<W>([&](auto kc) XLET_FFT_INLINE {
            re[kc].store_aligned(pre + r * S + W * kc);
            im[kc].store_aligned(pim + r * S + W * kc);
        });
    }
}

// Row k2 of four W^2 sub-results in planes (pre, pim), `Apart` floats apart, conjugated and
// scaled, as interleaved complex (lo: lanes k1 < W / 2, hi: the rest) stored by fft_interleave4:
// output k1 + W k2 of sub-result r goes to group k1 + W k2 of `out` (Stride floats per group),
// position r in the group.
template<class T, std::size_t Apart, std::size_t Stride>
[[gnu::always_inline]] inline void fft_square4_out_row(const T* pre, const T* pim, std::size_t k2, T* out, bool conj,
                                                       T scale) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    B lo[4], hi[4];
    fft_unroll<4>([&](auto rc) XLET_FFT_INLINE {
        B re = B::load_aligned(pre + rc * Apart + W * k2), im = B::load_aligned(pim + rc * Apart + W * k2);
        fft_out_scale<T>(re, im, conj, scale);
        fft_interleave<T>(re, im, lo[rc], hi[rc]);
    });
    fft_interleave4<T, Stride>(lo, out + W * k2 * Stride);
    fft_interleave4<T, Stride>(hi, out + (W * k2 + W / 2) * Stride);
}

template<class T>
inline void fft_square4_one(const std::complex<T>* src, std::complex<T>* dst, const fft_square4_tw<T>& t4,
                            const fft_two_pass_tw<T>& tw, bool conj, T scale) {
    constexpr std::size_t W = xsimd::batch<T>::size, S = W * W;
    alignas(64) T buf[2][4 * S]; // [re / im][quarter * S + row * W + lane]
    fft_square4_planes<T>(fft_load_interleaved<T, S>(reinterpret_cast<const T*>(src), conj), buf[0], buf[1], t4, tw);
    T* d = reinterpret_cast<T*>(dst);
    for (std::size_t k2 = 0; k2 < W; ++k2) // outputs 4 (W k2 + k1) + r
        fft_square4_out_row<T, S, 8>(buf[0], buf[1], k2, d, conj, scale);
}

// `count` transforms of N = 4 W^2 along the innermost axis, src to data (may be equal).
template<class T>
void fft_axis_rows_square4(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                           bool parallel) {
    constexpr std::size_t W = xsimd::batch<T>::size, N = 4 * W * W;
    const auto& tw = fft_square_tw<T>();
    static const fft_square4_tw<T> t4;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        for (std::size_t t = t0; t < t1; ++t) {
            if (t + 1 < t1) fft_prefetch_next<N>(src + (t + 1) * N, data + (t + 1) * N);
            fft_square4_one<T>(src + t * N, data + t * N, t4, tw, io.inverse, scale);
        }
    };
    fft_for(parallel && count * N * 5 >= fft_parallel_work, count, 4, run);
}

// f32 transforms of N = 16 W^2 (1024 on AVX2, where the four-step took twice FFTW's time; 4096 on
// AVX-512, where the batched rows took twice the four-step's): a radix-4 step (r) onto four
// transforms of 4 W^2 (r'), all in one pair of split planes on the stack (8 KiB on AVX2, 32 KiB
// on AVX-512), in place. X[16 k + 4 r' + r] = the k-th output of sub-transform (r, r'): each
// output group of four complex (r < 4) is one 32-byte store.
template<class T>
constexpr bool fft_square16_ok() {
    return fft_square4_ok<T>();
}

template<class T>
inline void fft_square16_one(const std::complex<T>* src, std::complex<T>* dst,
                             const fft_radix4_tw<T, 4 * xsimd::batch<T>::size * xsimd::batch<T>::size>& t16,
                             const fft_square4_tw<T>& t4, const fft_two_pass_tw<T>& tw, bool conj, T scale) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size, Q = W * W, S = 4 * Q;
    alignas(64) T buf[2][4 * S]; // [re / im][r * S + r' * Q + row * W + lane]
    fft_radix4_step<T, S>(fft_load_interleaved<T, S>(reinterpret_cast<const T*>(src), conj), t16,
                          [&](std::size_t j, const B* re, const B* im) XLET_FFT_INLINE {
                              fft_unroll<4>([&](auto rc) XLET_FFT_INLINE {
                                  re[rc].store_aligned(buf[0] + rc * S + W * j);
                                  im[rc].store_aligned(buf[1] + rc * S + W * j);
                              });
                          });
    for (std::size_t r = 0; r < 4; ++r) {
        T* pre = buf[0] + r * S;
        T* pim = buf[1] + r * S;
        auto load = [pre, pim](std::size_t q, std::size_t j, B& re, B& im) XLET_FFT_INLINE {
            re = B::load_aligned(pre + q * Q + W * j);
            im = B::load_aligned(pim + q * Q + W * j);
        };
        fft_square4_planes<T>(load, pre, pim, t4, tw);
    }
    T* d = reinterpret_cast<T*>(dst);
    for (std::size_t r2 = 0; r2 < 4; ++r2) // groups (r < 4) at 16 k + 4 r'
        for (std::size_t k2 = 0; k2 < W; ++k2)
            fft_square4_out_row<T, S, 32>(buf[0] + r2 * Q, buf[1] + r2 * Q, k2, d + 8 * r2, conj, scale);
}

// `count` transforms of N = 16 W^2 along the innermost axis, src to data (may be equal).
template<class T>
void fft_axis_rows_square16(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                            bool parallel) {
    constexpr std::size_t W = xsimd::batch<T>::size, N = 16 * W * W;
    const auto& tw = fft_square_tw<T>();
    static const fft_square4_tw<T> t4;
    static const fft_radix4_tw<T, 4 * W * W> t16;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        for (std::size_t t = t0; t < t1; ++t) {
            if (t + 1 < t1) fft_prefetch_next<N>(src + (t + 1) * N, data + (t + 1) * N);
            fft_square16_one<T>(src + t * N, data + t * N, t16, t4, tw, io.inverse, scale);
        }
    };
    fft_for(parallel && count * N * 5 >= fft_parallel_work, count, 1, run);
}

} // namespace xlet::detail

#undef XLET_FFT_INLINE
