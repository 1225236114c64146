// Materialised transpose: dst[t * dst_stride + i] = src[i * src_stride + t] for t < nt, i < ni.
// 64×64 tiles keep both sides in L1 (measured: 64 beats 32 by ~12% on 4096², docs/performance.md); inside a tile, 8×8
// blocks of 4-byte elements are transposed in AVX registers (unpack/shuffle/permute), other element sizes and the edges
// copy element by element. TBB splits the tiles above a size threshold (a pure copy: any split gives the same result).
// Outputs too large for the caches (the caller decides) are written in 8×16 blocks whose every destination row is one
// whole 64-byte line, stored non-temporally: no read-for-ownership, so 8 instead of 12 bytes of traffic an element
// (4096² f32, 2 threads: 72% -> 98% of a memcpy of the same bytes, docs/performance.md). An earlier variant that
// streamed tiles out of an L1 buffer was slower than plain stores.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <cstddef>
#include <cstdint>
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
            dst[static_cast<std::ptrdiff_t>(t) * ds + static_cast<std::ptrdiff_t>(i)] =
                src[static_cast<std::ptrdiff_t>(i) * ss + static_cast<std::ptrdiff_t>(t)];
}

#if defined(__AVX__)
// One 8×8 block of 4-byte elements in registers: rows 0..7 of src (8 elements each) become out[0..7].
inline void transpose8x8_regs(const char* src, std::ptrdiff_t ss_bytes, __m256 (&out)[8]) {
    auto ld = [&](int k) { return _mm256_loadu_ps(reinterpret_cast<const float*>(src + k * ss_bytes)); };
    __m256 r0 = ld(0), r1 = ld(1), r2 = ld(2), r3 = ld(3), r4 = ld(4), r5 = ld(5), r6 = ld(6), r7 = ld(7);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    out[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    out[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    out[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    out[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    out[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    out[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    out[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    out[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
// Rows i..i+7 of src (columns t..t+7) become rows t..t+7 of dst.
inline void transpose8x8_4byte(const void* src, std::ptrdiff_t ss_bytes, void* dst, std::ptrdiff_t ds_bytes) {
    __m256 o[8];
    transpose8x8_regs(static_cast<const char*>(src), ss_bytes, o);
    for (int k = 0; k < 8; ++k)
        _mm256_storeu_ps(reinterpret_cast<float*>(static_cast<char*>(dst) + k * ds_bytes), o[k]);
}
// Rows i..i+15 of src become rows t..t+7 of dst, 16 elements each: every dst row is one whole
// 64-byte line (dst 64-byte aligned, ds_bytes a multiple of 64), written with two consecutive
// non-temporal stores, so the line never has to be read first.
inline void transpose8x16_4byte_stream(const void* src, std::ptrdiff_t ss_bytes, void* dst, std::ptrdiff_t ds_bytes) {
    __m256 lo[8], hi[8];
    transpose8x8_regs(static_cast<const char*>(src), ss_bytes, lo);
    transpose8x8_regs(static_cast<const char*>(src) + 8 * ss_bytes, ss_bytes, hi);
    for (int k = 0; k < 8; ++k) {
        auto* d = reinterpret_cast<float*>(static_cast<char*>(dst) + k * ds_bytes);
        _mm256_stream_ps(d, lo[k]);
        _mm256_stream_ps(d + 8, hi[k]);
    }
}
#endif

// Stream: write whole destination lines with non-temporal stores where rows are 64-byte aligned.
template<bool Stream = false, class T>
inline void transpose_tile(const T* src, std::ptrdiff_t ss, T* dst, std::ptrdiff_t ds, std::size_t t0, std::size_t t1,
                           std::size_t i0, std::size_t i1) {
#if defined(__AVX__)
    if constexpr (sizeof(T) == 4 && std::is_trivially_copyable_v<T>) {
        std::size_t tb = t0 + (t1 - t0) / 8 * 8, ib = i0 + (i1 - i0) / 8 * 8;
        auto at_src = [&](std::size_t t, std::size_t i) {
            return src + static_cast<std::ptrdiff_t>(i) * ss + static_cast<std::ptrdiff_t>(t);
        };
        auto at_dst = [&](std::size_t t, std::size_t i) {
            return dst + static_cast<std::ptrdiff_t>(t) * ds + static_cast<std::ptrdiff_t>(i);
        };
        for (std::size_t t = t0; t < tb; t += 8) {
            std::size_t i = i0;
            if constexpr (Stream)
                if (ds % 16 == 0)
                    for (; i + 16 <= ib; i += 16) {
                        T* d = at_dst(t, i);
                        if (reinterpret_cast<std::uintptr_t>(d) % 64 == 0)
                            transpose8x16_4byte_stream(at_src(t, i), ss * 4, d, ds * 4);
                        else {
                            transpose8x8_4byte(at_src(t, i), ss * 4, d, ds * 4);
                            transpose8x8_4byte(at_src(t, i + 8), ss * 4, d + 8, ds * 4);
                        }
                    }
            for (; i < ib; i += 8)
                transpose8x8_4byte(at_src(t, i), ss * 4, at_dst(t, i), ds * 4);
        }
        transpose_scalar(src, ss, dst, ds, t0, tb, ib, i1);
        transpose_scalar(src, ss, dst, ds, tb, t1, i0, i1);
        return;
    }
#endif
    transpose_scalar(src, ss, dst, ds, t0, t1, i0, i1);
}

inline constexpr std::size_t transpose_tile_size = 64;
inline constexpr std::size_t transpose_parallel_elements = 1 << 16;

// stream: the caller's choice by output size (core/simd.hpp, stream_threshold_bytes). Big = false:
// the caller knows statically that the transpose is below transpose_parallel_elements and not
// streamed, so neither TBB's 2-D loop nor the streaming tile is compiled (a unit transposing an
// f32[64,32] compiled 0.25 s faster, a third of its time beyond the headers).
template<class T, bool Big = true>
void transpose_2d(const T* src, std::ptrdiff_t ss, T* dst, std::ptrdiff_t ds, std::size_t nt, std::size_t ni,
                  bool stream = false) {
    constexpr std::size_t B = transpose_tile_size;
    auto run = [&](std::size_t ta, std::size_t tb, std::size_t ia, std::size_t ib) {
        if constexpr (Big)
            if (stream) {
                for (std::size_t t = ta; t < tb; t += B)
                    for (std::size_t i = ia; i < ib; i += B)
                        transpose_tile<true>(src, ss, dst, ds, t, std::min(tb, t + B), i, std::min(ib, i + B));
#if defined(__AVX__)
                _mm_sfence(); // order this task's streamed stores before it ends
#endif
                return;
            }
        for (std::size_t t = ta; t < tb; t += B)
            for (std::size_t i = ia; i < ib; i += B)
                transpose_tile(src, ss, dst, ds, t, std::min(tb, t + B), i, std::min(ib, i + B));
    };
    if constexpr (Big)
        if (nt * ni >= transpose_parallel_elements) {
            run_parallel(tbb::blocked_range2d<std::size_t>(0, nt, B * 4, 0, ni, B * 4),
                         [&](const tbb::blocked_range2d<std::size_t>& r) {
                             run(r.rows().begin(), r.rows().end(), r.cols().begin(), r.cols().end());
                         });
            return;
        }
    run(0, nt, 0, ni);
}

} // namespace xlet::detail
