// Materialised transpose: dst[t * dst_stride + i] = src[i * src_stride + t] for t < nt, i < ni.
// 64×64 tiles keep both sides in L1 (measured: 64 beats 32 by ~12% on 4096², docs/performance.md); inside a tile, 8×8 blocks of 4-byte elements are transposed
// in AVX registers (unpack/shuffle/permute), other element sizes and the edges copy element by
// element. TBB splits the tiles above a size threshold (a pure copy: any split gives the same
// result). Destination rows are written with plain stores: streaming each tile out through an
// L1 buffer with non-temporal stores measured 5-10% slower on 4096² f32 (2026-11-24).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>

#include <tbb/blocked_range2d.h>
#include "../eval/parallel.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace xlet::detail {

template<class T>
inline void transpose_scalar(const T* src, std::ptrdiff_t ss, T* dst, std::ptrdiff_t ds, std::size_t t0, std::size_t t1,
                             std::size_t i0, std::size_t i1) {
    for (std::size_t t = t0; t < t1; ++t)
        for (std::size_t i = i0; i < i1; ++i)
            dst[static_cast<std::ptrdiff_t>(t) * ds + static_cast<std::ptrdiff_t>(i)] = src[static_cast<std::ptrdiff_t>(i) * ss + static_cast<std::ptrdiff_t>(t)];
}

#if defined(__AVX__)
// One 8×8 block of 4-byte elements: rows i..i+7 of src (columns t..t+7) become rows t..t+7 of dst.
inline void transpose8x8_4byte(const void* src, std::ptrdiff_t ss_bytes, void* dst, std::ptrdiff_t ds_bytes) {
    auto ld = [&](int k) { return _mm256_loadu_ps(reinterpret_cast<const float*>(static_cast<const char*>(src) + k * ss_bytes)); };
    __m256 r0 = ld(0), r1 = ld(1), r2 = ld(2), r3 = ld(3), r4 = ld(4), r5 = ld(5), r6 = ld(6), r7 = ld(7);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    auto st = [&](int k, __m256 v) { _mm256_storeu_ps(reinterpret_cast<float*>(static_cast<char*>(dst) + k * ds_bytes), v); };
    st(0, _mm256_permute2f128_ps(u0, u4, 0x20));
    st(1, _mm256_permute2f128_ps(u1, u5, 0x20));
    st(2, _mm256_permute2f128_ps(u2, u6, 0x20));
    st(3, _mm256_permute2f128_ps(u3, u7, 0x20));
    st(4, _mm256_permute2f128_ps(u0, u4, 0x31));
    st(5, _mm256_permute2f128_ps(u1, u5, 0x31));
    st(6, _mm256_permute2f128_ps(u2, u6, 0x31));
    st(7, _mm256_permute2f128_ps(u3, u7, 0x31));
}
#endif

template<class T>
inline void transpose_tile(const T* src, std::ptrdiff_t ss, T* dst, std::ptrdiff_t ds, std::size_t t0, std::size_t t1, std::size_t i0,
                           std::size_t i1) {
#if defined(__AVX__)
    if constexpr (sizeof(T) == 4 && std::is_trivially_copyable_v<T>) {
        std::size_t tb = t0 + (t1 - t0) / 8 * 8, ib = i0 + (i1 - i0) / 8 * 8;
        for (std::size_t t = t0; t < tb; t += 8)
            for (std::size_t i = i0; i < ib; i += 8)
                transpose8x8_4byte(src + static_cast<std::ptrdiff_t>(i) * ss + static_cast<std::ptrdiff_t>(t), ss * 4,
                                   dst + static_cast<std::ptrdiff_t>(t) * ds + static_cast<std::ptrdiff_t>(i), ds * 4);
        transpose_scalar(src, ss, dst, ds, t0, tb, ib, i1);
        transpose_scalar(src, ss, dst, ds, tb, t1, i0, i1);
        return;
    }
#endif
    transpose_scalar(src, ss, dst, ds, t0, t1, i0, i1);
}

inline constexpr std::size_t transpose_tile_size = 64;
inline constexpr std::size_t transpose_parallel_elements = 1 << 16;

template<class T>
void transpose_2d(const T* src, std::ptrdiff_t ss, T* dst, std::ptrdiff_t ds, std::size_t nt, std::size_t ni) {
    constexpr std::size_t B = transpose_tile_size;
    auto run = [&](std::size_t ta, std::size_t tb, std::size_t ia, std::size_t ib) {
        for (std::size_t t = ta; t < tb; t += B)
            for (std::size_t i = ia; i < ib; i += B) transpose_tile(src, ss, dst, ds, t, std::min(tb, t + B), i, std::min(ib, i + B));
    };
    if (nt * ni >= transpose_parallel_elements) {
        run_parallel(tbb::blocked_range2d<std::size_t>(0, nt, B * 4, 0, ni, B * 4),
                          [&](const tbb::blocked_range2d<std::size_t>& r) { run(r.rows().begin(), r.rows().end(), r.cols().begin(), r.cols().end()); });
    } else {
        run(0, nt, 0, ni);
    }
}

} // namespace xlet::detail
