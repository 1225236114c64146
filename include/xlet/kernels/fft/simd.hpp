// The vector vocabulary of the FFT kernels: compile-time unrolling, a "vector of V columns" (an
// xsimd batch or a scalar), the complex twiddle multiply, and a lane reversal (used by the real
// transforms of ops/fft/fft.hpp). Everything else in kernels/fft/ is written in these terms.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <cstddef>
#include <type_traits>
#include <utility>

// Forces the inlining of the unrolled lambdas of the register kernels: GCC otherwise leaves some
// bodies (a DFT16's) as calls, and their arrays of vectors go through memory.
#define XLET_FFT_INLINE __attribute__((always_inline))

namespace xlet::detail {

// f(integral_constant<i>) for i < N, unrolled (the register transposes below must not become
// loops over an array in memory).
template<std::size_t N, class F>
[[gnu::always_inline]] inline void fft_unroll(F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) XLET_FFT_INLINE {
        (f(std::integral_constant<std::size_t, I>{}), ...);
    }
    (std::make_index_sequence<N>{});
}

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

} // namespace xlet::detail

#undef XLET_FFT_INLINE
