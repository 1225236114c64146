// Bluestein's chirp-z for one long transform whose length has a prime factor above 13: the
// power-of-two cyclic convolution runs on the four-step, so it uses full vectors. (Batches of such
// transforms run Bluestein inside the column kernel: fft_block in stockham.hpp.)
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <complex>
#include <cstddef>

#include "../../core/block_cache.hpp"
#include "driver.hpp"
#include "four_step.hpp"
#include "plan.hpp"

namespace xlet::detail {

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

} // namespace xlet::detail
