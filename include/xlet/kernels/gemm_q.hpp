// The integer pieces of quantized dot_general and convolution (no op-level API; quant/dot.hpp and
// quant/conv.hpp drive them):
//
//   qgemm_raw<S>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel)
//     C[i, j] = sum_k A[i, k] * B[k, j] on the stored integers, int32 modulo 2^32 (strides as in
//     gemm_i8). 8-bit storage (i4, u4, i8, u8) runs gemm_i8; wider storage (i16, u16, i32) the plain
//     loop gemm_generic in uint32, which wraps the same way.
//   qgemm_epilogue<S>(m, n, k, a, rsa, csa, b, rsb, csb, epi, parallel)
//     the same sums handed to epi(i, j, s, lds, mr, nr) by blocks (gemm_i8_epilogue), not stored.
//   qgemm_col_sums / qgemm_row_sums: sum_k B[k, j], sum_k A[i, k] (mod 2^32).
//   requantize_row<S>(acc, n, cols, range, out, os)
//     out[j * os] = the requantization of acc[j] + off[j] to storage S, with per-column f32 combined
//     scale m[j] and result zero point zr[j] (docs/semantics.md "Quantization"); cols: a table's
//     columns from some j0 on (table.cols(j0)), or the table:
//       f = float(acc) * m + float(zr)            two f32 operations, in that order
//       clamped to [lo, hi] (the storage range as f32 values inside it), rounded half to even,
//       converted; for 32-bit storage and m == 1.0f instead acc + zr exactly (wrapping), clamped
//       to the storage range.
//     SIMD over xsimd's int32 / f32 batches (the same lane count); the scalar tail computes the
//     same operations, so every column gets the same bits whichever path it takes. When every
//     column is exact (table.n_exact == n) the float part is skipped: acc + off + zr, clamped.
//     Contiguous 8/16-bit rows are stored by narrowing vector stores (requant_store_narrow).
//   requantize_block<S>(acc, lds, rows, n, cols, range, out, ors, os)
//     requantize_row on each of rows rows (the same bits), the columns' parameters loaded once: the
//     epilogue of a register tile.
//
// The zero-point corrections are exact modulo 2^32: sum_k (a - za)(b - zb) = sum_k a b - za sum_k b
// - zb sum_k a + k za zb, so the sums run on the stored integers (the GEMM never sees a
// zero point) and the terms are folded into off[j] (za, zb_j: per column) and, when the rhs has
// nonzero zero points, a per-row term subtracted before the epilogue.
#pragma once
#include "gemm_i8.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace xlet::detail {

template<class S>
void qgemm_raw(std::size_t m, std::size_t n, std::size_t k, const S* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
               const S* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::int32_t* c, std::ptrdiff_t ldc,
               bool parallel = true) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (std::size_t i = 0; i < m; ++i)
            std::fill_n(c + static_cast<std::ptrdiff_t>(i) * ldc, n, std::int32_t{0});
        return;
    }
    if constexpr (gemm_i8_operand<S>)
        gemm_i8<S, S>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel);
    else
        gemm_generic<std::uint32_t>(
            m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, [](std::uint32_t v) { return static_cast<std::int32_t>(v); },
            parallel);
}

template<class S, class Epi>
void qgemm_epilogue(std::size_t m, std::size_t n, std::size_t k, const S* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
                    const S* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, const Epi& epi, bool parallel = true) {
    if (m == 0 || n == 0) return;
    if constexpr (gemm_i8_operand<S>)
        if (k > 0) {
            gemm_i8_epilogue<S, S>(m, n, k, a, rsa, csa, b, rsb, csb, epi, parallel);
            return;
        }
    gemm_epilogue_after(
        m, n, k,
        [&](std::int32_t* c, std::ptrdiff_t ldc) { qgemm_raw(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel); },
        epi, parallel);
}

// sums[j] = sum_k B[k, j] and sums[i] = sum_k A[i, k], modulo 2^32.
template<class S>
void qgemm_col_sums(std::size_t n, std::size_t k, const S* b, std::ptrdiff_t rsb, std::ptrdiff_t csb,
                    std::int32_t* sums) {
    auto* s = reinterpret_cast<std::uint32_t*>(sums); // summed as uint32 (wrapping), in place
    std::fill_n(s, n, std::uint32_t{0});
    for (std::size_t p = 0; p < k; ++p) {
        const S* br = b + static_cast<std::ptrdiff_t>(p) * rsb;
        for (std::size_t j = 0; j < n; ++j)
            s[j] += static_cast<std::uint32_t>(br[static_cast<std::ptrdiff_t>(j) * csb]);
    }
}
template<class S>
std::int32_t qgemm_row_sum(std::size_t k, const S* a, std::ptrdiff_t csa) {
    std::uint32_t s = 0;
    for (std::size_t p = 0; p < k; ++p)
        s += static_cast<std::uint32_t>(a[static_cast<std::ptrdiff_t>(p) * csa]);
    return static_cast<std::int32_t>(s);
}

// Wrapping int32 arithmetic (as two's complement, without signed overflow).
inline std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t wrap_mul(std::int64_t a, std::int64_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

// The per-column parameters of the epilogue from some column on.
struct requant_cols {
    const float *m, *zf;
    const std::int32_t *zr, *off, *exact;
    bool all_exact; // every column of the table is exact: acc + off + zr, clamped
};

// The per-column parameters of the epilogue (columns of one row of the result), in two scratch
// blocks (the block cache's: a repeated call does not reach the allocator).
struct requant_table {
    scratch<float> fs;
    scratch<std::int32_t> is;
    float *m, *zf;                  // combined scale, float(zero point)
    std::int32_t *zr, *off, *exact; // zero point, zero-point correction (added to acc), -1 where the
                                    // result is acc + zr exactly (32-bit storage, m == 1)
    std::size_t n, n_exact = 0;
    explicit requant_table(std::size_t cols)
        : fs(2 * cols), is(3 * cols), m(fs.data()), zf(m + cols), zr(is.data()), off(zr + cols), exact(off + cols),
          n(cols) {
        std::fill_n(off, 2 * n, std::int32_t{0});
    }
    requant_table(const requant_table&) = delete;
    requant_table& operator=(const requant_table&) = delete;
    void set(std::size_t j, float scale, std::int32_t zero_point, bool wide) {
        m[j] = scale;
        zr[j] = zero_point;
        zf[j] = static_cast<float>(zero_point);
        n_exact -= exact[j] != 0;
        exact[j] = wide && scale == 1.0f ? -1 : 0;
        n_exact += exact[j] != 0;
    }
    requant_cols cols(std::size_t j0) const { return {m + j0, zf + j0, zr + j0, off + j0, exact + j0, n_exact == n}; }
};

// The storage range: as f32 values (the smallest f32 >= storage_min, the largest <= storage_max,
// so that rounding and converting stay inside it: [-2^31, 2147483520] for i32) and as integers.
struct requant_range {
    float lo, hi;
    std::int32_t ilo, ihi;
};
constexpr std::int64_t f32_floor_int(std::int64_t v) { // the largest f32 <= v, for |v| < 2^62
    const std::uint64_t a = v < 0 ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
    int bits = 0;
    while (bits < 64 && (a >> bits) != 0)
        ++bits;
    if (bits <= 24) return v;
    const std::int64_t ulp = std::int64_t{1} << (bits - 24);
    const std::int64_t r = v % ulp;
    return r == 0 ? v : v - r - (v < 0 ? ulp : 0);
}
constexpr std::int64_t f32_ceil_int(std::int64_t v) { return -f32_floor_int(-v); }
constexpr requant_range make_requant_range(std::int64_t storage_min, std::int64_t storage_max) {
    return {static_cast<float>(f32_ceil_int(storage_min)), static_cast<float>(f32_floor_int(storage_max)),
            static_cast<std::int32_t>(storage_min), static_cast<std::int32_t>(storage_max)};
}

// One value: the scalar form of the epilogue.
template<class S>
inline S requantize_one(std::int32_t acc, std::size_t j, const requant_cols& t, const requant_range& r) {
    const std::int32_t a = wrap_add(acc, t.off[j]);
    float f = static_cast<float>(a) * t.m[j];
    f = f + t.zf[j];
    f = f < r.lo ? r.lo : f; // clamp; NaN (an infinite scale times 0) stays NaN
    f = f > r.hi ? r.hi : f;
    f = std::nearbyint(f); // round_nearest_even (the default rounding mode)
    std::int32_t i = f == f ? static_cast<std::int32_t>(f) : 0;
    if constexpr (sizeof(S) == 4)
        if (t.exact[j]) i = wrap_add(a, t.zr[j]);
    return static_cast<S>(std::clamp(i, r.ilo, r.ihi));
}

// Columns [j0, n) of a row by the scalar form (a function of its own, so that GCC does not reason
// about the SIMD loop's end inside it).
template<class S>
[[gnu::noinline]] void requantize_tail(const std::int32_t* acc, std::size_t j0, std::size_t n, const requant_cols& t,
                                       const requant_range& r, S* out, std::ptrdiff_t os) {
    for (std::size_t j = j0; j < n; ++j)
        out[static_cast<std::ptrdiff_t>(j) * os] = requantize_one<S>(acc[j], j, t, r);
}

// The lanes of v (each inside S's range, so truncation is exact) as contiguous S at p: one
// narrowing store instead of a store per lane (8-bit stores were 14% of a 3x3 convolution's
// profile). False where the ISA has no such form (the caller stores lane by lane).
template<class S, class I>
XLET_ALWAYS_INLINE bool requant_store_narrow([[maybe_unused]] const I& v, [[maybe_unused]] S* p) {
#if defined(__AVX512F__)
    if constexpr (I::size == 16) {
        const __m512i x = v;
        if constexpr (sizeof(S) == 1)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(x));
        else
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(x));
        return true;
    }
#endif
#if defined(__AVX2__)
    if constexpr (I::size == 8) {
        const __m256i x = v;
        const __m128i lo = _mm256_castsi256_si128(x), hi = _mm256_extracti128_si256(x, 1);
        // saturating packs, exact on values inside the range
        const __m128i w = std::is_signed_v<S> ? _mm_packs_epi32(lo, hi) : _mm_packus_epi32(lo, hi);
        if constexpr (sizeof(S) == 1)
            _mm_storel_epi64(reinterpret_cast<__m128i*>(p),
                             std::is_signed_v<S> ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w));
        else
            _mm_storeu_si128(reinterpret_cast<__m128i*>(p), w);
        return true;
    }
#endif
    return false;
}

// The SIMD form of requantize_one on the lanes of xsimd's int32 / f32 batches: columns' parameters
// (from column j on) and the range's bounds as batches.
struct requant_batch_cols {
    using F = xsimd::batch<float>;
    using I = xsimd::batch<std::int32_t>;
    F m, zf;
    I zr, exact;
    requant_batch_cols(const requant_cols& t, std::size_t j)
        : m(F::load_unaligned(t.m + j)), zf(F::load_unaligned(t.zf + j)), zr(I::load_unaligned(t.zr + j)),
          exact(I::load_unaligned(t.exact + j)) {}
};
struct requant_bounds {
    using F = xsimd::batch<float>;
    using I = xsimd::batch<std::int32_t>;
    F lo, hi;
    I ilo, ihi, nan_to; // nan_to: what a NaN becomes, clamp(0)
    explicit requant_bounds(const requant_range& r)
        : lo(r.lo), hi(r.hi), ilo(r.ilo), ihi(r.ihi), nan_to(std::clamp(0, r.ilo, r.ihi)) {}
};
// a: the sums plus the columns' offsets (wrapped); the stored integers as int32 lanes.
// (Templated on the batch types so that the ISA branch this build does not have is never checked.)
template<class S, class I, class C, class B>
XLET_ALWAYS_INLINE I requant_batch(const I& a, const C& c, const B& b) {
    using F = typename C::F;
    // 8/16-bit storage: clamp by vminps / vmaxps with the value second (they return their second
    // operand for a NaN, so a NaN stays one), convert rounding to nearest even (a NaN becomes
    // INT_MIN, which no value inside the range gives), then the NaN lanes to clamp(0): the same
    // lanes as the general form below in 9 instructions instead of 15 (the requantization was
    // 26% of a 7x7 stem's time).
    if constexpr (sizeof(S) < 4) {
#if defined(__AVX512F__)
        if constexpr (I::size == 16) {
            __m512 f = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(a), c.m), c.zf);
            f = _mm512_max_ps(b.lo, _mm512_min_ps(b.hi, f));
            const __m512i i = _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            return _mm512_mask_mov_epi32(i, _mm512_cmpeq_epi32_mask(i, _mm512_set1_epi32(INT32_MIN)), b.nan_to);
        }
#endif
#if defined(__AVX2__)
        if constexpr (I::size == 8) {
            __m256 f = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a), c.m), c.zf);
            f = _mm256_max_ps(b.lo, _mm256_min_ps(b.hi, f));
            const __m256i i = _mm256_cvttps_epi32(_mm256_round_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            return _mm256_blendv_epi8(i, b.nan_to, _mm256_cmpeq_epi32(i, _mm256_set1_epi32(INT32_MIN)));
        }
#endif
    }
    F f = xsimd::batch_cast<float>(a) * c.m;
    f = f + c.zf;
    f = xsimd::select(f < b.lo, b.lo, f);
    f = xsimd::select(f > b.hi, b.hi, f);
    const F y = xsimd::select(xsimd::isnan(f), F(0.0f), xsimd::nearbyint(f));
    I i = xsimd::batch_cast<std::int32_t>(y);
    if constexpr (sizeof(S) == 4) i = xsimd::select(c.exact != I(0), a + c.zr, i);
    return xsimd::min(xsimd::max(i, b.ilo), b.ihi);
}
// The lanes of i (inside S's range) to out[u * os].
template<class S>
XLET_ALWAYS_INLINE void requant_store(const xsimd::batch<std::int32_t>& i, S* out, std::ptrdiff_t os) {
    using I = xsimd::batch<std::int32_t>;
    if constexpr (std::is_same_v<S, std::int32_t>) {
        if (os == 1) {
            i.store_unaligned(out);
            return;
        }
    } else if constexpr (sizeof(S) < 4) {
        if (os == 1 && requant_store_narrow(i, out)) return;
    }
    alignas(64) std::int32_t tmp[I::size];
    i.store_aligned(tmp);
    for (std::size_t u = 0; u < I::size; ++u)
        out[static_cast<std::ptrdiff_t>(u) * os] = static_cast<S>(tmp[u]);
}

// out[j * os] for j < n from acc[j] (one row of the result).
template<class S>
void requantize_row(const std::int32_t* acc, std::size_t n, const requant_cols& t, const requant_range& r, S* out,
                    std::ptrdiff_t os) {
    using F = xsimd::batch<float>;
    using I = xsimd::batch<std::int32_t>;
    if constexpr (sizeof(S) == 4) {
        // Every column exact (an i32 result whose scale is lhs scale x rhs scale): the integer
        // part of requantize_one alone (as int32 batches for a contiguous int32 row: the strided
        // loop does not vectorize, 27 us for 256 x 512 on one core).
        if (t.all_exact) {
            std::size_t j = 0;
            if constexpr (std::is_same_v<S, std::int32_t> && I::size > 1) {
                if (os == 1) {
                    const I ilo(r.ilo), ihi(r.ihi);
                    for (; j + I::size <= n; j += I::size) {
                        const I a = I::load_unaligned(acc + j) + I::load_unaligned(t.off + j) +
                                    I::load_unaligned(t.zr + j); // wraps
                        xsimd::min(xsimd::max(a, ilo), ihi).store_unaligned(out + j);
                    }
                }
            }
            for (; j < n; ++j) {
                const std::int32_t i = wrap_add(wrap_add(acc[j], t.off[j]), t.zr[j]);
                out[static_cast<std::ptrdiff_t>(j) * os] = static_cast<S>(i < r.ilo ? r.ilo : i > r.ihi ? r.ihi : i);
            }
            return;
        }
    }
    std::size_t j = 0;
    if constexpr (F::size == I::size && F::size > 1) {
        constexpr std::size_t W = F::size;
        const requant_bounds b(r);
        for (; j + W <= n; j += W) {
            const I a = I::load_unaligned(acc + j) + I::load_unaligned(t.off + j); // wraps
            requant_store<S>(requant_batch<S>(a, requant_batch_cols(t, j), b),
                             out + static_cast<std::ptrdiff_t>(j) * os, os);
        }
    }
    if (j < n) requantize_tail(acc, j, n, t, r, out, os);
}
template<class S>
void requantize_row(const std::int32_t* acc, std::size_t n, const requant_table& t, const requant_range& r, S* out,
                    std::ptrdiff_t os) {
    requantize_row(acc, n, t.cols(0), r, out, os);
}

// rows x n sums, acc[i * lds + j], to out[i * ors + j * os]: requantize_row on each row (the same
// bits), the columns' parameters loaded once for every row (a register tile of a quantized
// convolution or dot is 14 rows of 32 columns).
template<class S>
void requantize_block(const std::int32_t* acc, std::ptrdiff_t lds, std::size_t rows, std::size_t n,
                      const requant_cols& t, const requant_range& r, S* out, std::ptrdiff_t ors, std::ptrdiff_t os) {
    using F = xsimd::batch<float>;
    using I = xsimd::batch<std::int32_t>;
    std::size_t j = 0;
    if constexpr (F::size == I::size && F::size > 1 && sizeof(S) < 4) {
        constexpr std::size_t W = I::size;
        const requant_bounds b(r);
        for (; j + W <= n; j += W) {
            const requant_batch_cols c(t, j);
            const I off = I::load_unaligned(t.off + j);
            for (std::size_t i = 0; i < rows; ++i) {
                const I a = I::load_unaligned(acc + static_cast<std::ptrdiff_t>(i) * lds + j) + off; // wraps
                requant_store<S>(requant_batch<S>(a, c, b),
                                 out + static_cast<std::ptrdiff_t>(i) * ors + static_cast<std::ptrdiff_t>(j) * os, os);
            }
        }
        if (j == n) return;
    }
    for (std::size_t i = 0; i < rows; ++i) {
        const std::int32_t* a = acc + static_cast<std::ptrdiff_t>(i) * lds;
        S* o = out + static_cast<std::ptrdiff_t>(i) * ors;
        if (j == 0)
            requantize_row(a, n, t, r, o, os);
        else
            requantize_tail(a, j, n, t, r, o, os);
    }
}

} // namespace xlet::detail
