// Small powers of two in registers: DFTs of 2, 4, 8 and 16 points with constant twiddles, and the
// two-pass kernel that transforms a block of 4 <= n <= 256 rows in place with every butterfly in
// registers (one buffer instead of Stockham's two, so a block of W transforms stays in L1). The
// batched-rows path (rows.hpp) uses it for those lengths.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "simd.hpp"

#define XLET_FFT_INLINE __attribute__((always_inline)) // why: see simd.hpp

namespace xlet::detail {

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

} // namespace xlet::detail

#undef XLET_FFT_INLINE
