// vec<T, N>: N lanes of compute type T, the unit every fused loop works on. It is a few xsimd
// registers when T has a batch type and N is a multiple of its width, plain lanes otherwise, so one
// expression can mix element types of different widths and still step N elements at a time.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "../core/reduce_precision.hpp"
#include "../core/types.hpp"

namespace xlet::detail {

template<class T>
inline constexpr bool has_batch =
    std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, long double>;
template<class T>
inline constexpr bool has_batch<std::complex<T>> = has_batch<T>;

// Lanes one register holds for T; types with no batch count as 16 lanes of scalar work.
template<class T>
consteval std::size_t lanes_of() {
    if constexpr (has_batch<T>)
        return xsimd::batch<T>::size;
    else
        return 16;
}

template<class T, std::size_t N>
struct vec {
    static constexpr bool simd = has_batch<T> && N % lanes_of<T>() == 0;
    static constexpr std::size_t size = N;
    using value_type = T;

    struct scalar_regs {
        std::array<T, N> l;
    };
    struct simd_regs {
        using batch = xsimd::batch<T>;
        static constexpr std::size_t count = N / batch::size;
        std::array<batch, count> b;
    };
    std::conditional_t<simd, simd_regs, scalar_regs> r;

    T lane(std::size_t i) const {
        if constexpr (simd) {
            alignas(64) std::array<T, N> tmp;
            store_lanes(tmp.data());
            return tmp[i];
        } else {
            return r.l[i];
        }
    }

    // Contiguous lanes of compute type in and out.
    static vec from_lanes(const T* p) {
        vec v;
        if constexpr (simd) {
            for (std::size_t k = 0; k < simd_regs::count; ++k)
                v.r.b[k] = simd_regs::batch::load_unaligned(p + k * simd_regs::batch::size);
        } else {
            std::copy(p, p + N, v.r.l.begin());
        }
        return v;
    }
    void store_lanes(T* p) const {
        if constexpr (simd) {
            for (std::size_t k = 0; k < simd_regs::count; ++k)
                r.b[k].store_unaligned(p + k * simd_regs::batch::size);
        } else {
            std::copy(r.l.begin(), r.l.end(), p);
        }
    }

    static vec broadcast(T x) {
        vec v;
        if constexpr (simd)
            v.r.b.fill(typename simd_regs::batch(x));
        else
            v.r.l.fill(x);
        return v;
    }

    // Apply f lane by lane: the bridge for ops without a SIMD form and for type changes.
    template<class F>
    static vec generate(F&& f) {
        alignas(64) std::array<T, N> tmp;
        for (std::size_t i = 0; i < N; ++i)
            tmp[i] = f(i);
        return from_lanes(tmp.data());
    }
};

// Narrow floats: loads widen exactly, stores narrow exactly (values are already rounded).
// Quantized elements load and store as their stored integers, bit for bit.
template<class S>
inline compute_t<S> widen(S x) {
    if constexpr (is_narrow_float<S>)
        return static_cast<float>(x);
    else if constexpr (is_quantized<S>)
        return std::bit_cast<compute_t<S>>(x);
    else
        return x;
}
template<class S>
inline S narrow(compute_t<S> x) {
    if constexpr (is_narrow_float<S>)
        return S(x);
    else if constexpr (is_quantized<S>)
        return std::bit_cast<S>(x);
    else
        return x;
}

// The memory of an array of quantized elements as the array of their stored integers (a quantized
// element is a standard-layout struct holding only that integer), so the loads and stores below
// take the storage integer's SIMD paths.
template<class S>
inline auto* stored_integers(S* p) {
    if constexpr (is_quantized<std::remove_const_t<S>>) {
        using I = compute_t<std::remove_const_t<S>>;
        static_assert(sizeof(I) == sizeof(S) && alignof(I) == alignof(S));
        return reinterpret_cast<std::conditional_t<std::is_const_v<S>, const I*, I*>>(p);
    } else {
        return p;
    }
}

// Round an f32 compute value to what storage type S can hold (identity for other types).
template<class S, class V>
inline V round_to_storage(const V& v) {
    if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bfloat16>) {
        V out;
        if constexpr (V::simd) {
            for (std::size_t k = 0; k < V::simd_regs::count; ++k)
                out.r.b[k] = std::is_same_v<S, half> ? round_to_half(v.r.b[k]) : round_to_bfloat16(v.r.b[k]);
        } else {
            for (std::size_t i = 0; i < V::size; ++i)
                out.r.l[i] = std::is_same_v<S, half> ? round_to_half(v.r.l[i]) : round_to_bfloat16(v.r.l[i]);
        }
        return out;
    } else {
        return v;
    }
}
template<class S, class C>
inline C round_scalar_to_storage(C x) {
    if constexpr (std::is_same_v<S, half>)
        return round_to_half(x);
    else if constexpr (std::is_same_v<S, bfloat16>)
        return round_to_bfloat16(x);
    else
        return x;
}

// Load N lanes of storage type S at p with element stride Stride (0: broadcast one element).
template<std::size_t N, std::ptrdiff_t Stride, class S>
inline vec<compute_t<S>, N> load_vec(const S* p) {
    using C = compute_t<S>;
    using V = vec<C, N>;
    if constexpr (is_quantized<S>) {
        return load_vec<N, Stride>(stored_integers(p));
    } else if constexpr (Stride == 0) {
        return V::broadcast(widen(*p));
    } else if constexpr (Stride == 1 && V::simd && !is_narrow_float<S>) {
        return V::from_lanes(p);
    } else if constexpr (Stride == 1 && V::simd && std::is_same_v<S, half>) {
        V v;
        for (std::size_t k = 0; k < V::simd_regs::count; ++k)
            v.r.b[k] = load_half(p + k * V::simd_regs::batch::size);
        return v;
    } else if constexpr (Stride == 1 && V::simd && std::is_same_v<S, bfloat16>) {
        V v;
        for (std::size_t k = 0; k < V::simd_regs::count; ++k)
            v.r.b[k] = load_bfloat16(p + k * V::simd_regs::batch::size);
        return v;
    } else {
        return V::generate([p](std::size_t i) { return widen(p[static_cast<std::ptrdiff_t>(i) * Stride]); });
    }
}

// The first n lanes of one register from p, the others `fill`; and the store of the first n
// lanes. Masked loads do not touch the memory of the masked-off lanes (no fault, no read past an
// array), so a short tail (a rank-0 or [10] array in a while loop's state) costs two
// instructions instead of a lane-by-lane copy through the stack.
template<class T>
inline constexpr bool has_masked_lanes = [] {
    if constexpr (!has_batch<T> || !std::is_arithmetic_v<T>) {
        return false;
    } else {
#if defined(__AVX512F__)
        if constexpr (sizeof(xsimd::batch<T>) == 64) {
#if defined(__AVX512BW__)
            return true;
#else
            return sizeof(T) >= 4;
#endif
        }
#endif
#if defined(__AVX2__)
        if constexpr (sizeof(xsimd::batch<T>) == 32) return sizeof(T) >= 4;
#endif
        return false;
    }
}();

// Tails of exactly 4, 8, 16 or 32 bytes (an f32[4] state, a f64 scalar) are moved by one plain
// load or store of that width instead: a masked store is not forwarded to a later load, which
// waits for it to reach the cache (about 20 cycles a step in a loop over a small state), while a
// plain store is. Registers are handled as integer vectors (casts cost nothing).
#if defined(__AVX2__)
inline __m256i as_si(__m256 x) { return _mm256_castps_si256(x); }
inline __m256i as_si(__m256d x) { return _mm256_castpd_si256(x); }
inline __m256i as_si(__m256i x) { return x; }
inline __m256 from_si(__m256i x, __m256) { return _mm256_castsi256_ps(x); }
inline __m256d from_si(__m256i x, __m256d) { return _mm256_castsi256_pd(x); }
inline __m256i from_si(__m256i x, __m256i) { return x; }
#endif
#if defined(__AVX512F__)
inline __m512i as_si(__m512 x) { return _mm512_castps_si512(x); }
inline __m512i as_si(__m512d x) { return _mm512_castpd_si512(x); }
inline __m512i as_si(__m512i x) { return x; }
inline __m512 from_si(__m512i x, __m512) { return _mm512_castsi512_ps(x); }
inline __m512d from_si(__m512i x, __m512d) { return _mm512_castsi512_pd(x); }
inline __m512i from_si(__m512i x, __m512i) { return x; }
#endif
inline constexpr bool whole_move_bytes(std::size_t b) { return b == 4 || b == 8 || b == 16 || b == 32; }
#if defined(__AVX2__)
XLET_ALWAYS_INLINE __m128i load_low_bytes(const void* p, std::size_t bytes) { // bytes: 4, 8 or 16
    if (bytes == 16) return _mm_loadu_si128(static_cast<const __m128i*>(p));
    if (bytes == 8) return _mm_loadl_epi64(static_cast<const __m128i*>(p));
    int v;
    std::memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}
XLET_ALWAYS_INLINE void store_low_bytes(void* p, __m128i x, std::size_t bytes) { // bytes: 4, 8 or 16
    if (bytes == 16) {
        _mm_storeu_si128(static_cast<__m128i*>(p), x);
    } else if (bytes == 8) {
        _mm_storel_epi64(static_cast<__m128i*>(p), x);
    } else {
        const int v = _mm_cvtsi128_si32(x);
        std::memcpy(p, &v, 4);
    }
}
#endif

template<class T>
XLET_ALWAYS_INLINE xsimd::batch<T> masked_load([[maybe_unused]] const T* p, [[maybe_unused]] std::size_t n,
                                               const xsimd::batch<T>& fill) {
    using B = xsimd::batch<T>;
    [[maybe_unused]] const auto f = static_cast<typename B::register_type>(fill);
#if defined(__AVX512F__)
    if constexpr (sizeof(B) == 64) {
        if (whole_move_bytes(n * sizeof(T))) {
            // The loaded bytes broadcast into the low dwords (qwords) the tail covers; the other
            // lanes keep `fill`. Tails are whole dwords, so no byte or word masks are needed.
            const std::size_t bytes = n * sizeof(T);
            const __m512i fi = as_si(f);
            if (bytes == 32)
                return B(
                    from_si(_mm512_mask_broadcast_i64x4(
                                fi, 0x0F, _mm256_loadu_si256(static_cast<const __m256i*>(static_cast<const void*>(p)))),
                            f));
            return B(from_si(_mm512_mask_broadcast_i32x4(fi, static_cast<__mmask16>((1u << (bytes / 4)) - 1),
                                                         load_low_bytes(p, bytes)),
                             f));
        }
        if constexpr (std::is_same_v<T, float>) {
            return B(_mm512_mask_loadu_ps(f, static_cast<__mmask16>((1u << n) - 1), p));
        } else if constexpr (std::is_same_v<T, double>) {
            return B(_mm512_mask_loadu_pd(f, static_cast<__mmask8>((1u << n) - 1), p));
        } else if constexpr (sizeof(T) == 4) {
            return B(_mm512_mask_loadu_epi32(f, static_cast<__mmask16>((1u << n) - 1), p));
        } else if constexpr (sizeof(T) == 8) {
            return B(_mm512_mask_loadu_epi64(f, static_cast<__mmask8>((1u << n) - 1), p));
#if defined(__AVX512BW__)
        } else if constexpr (sizeof(T) == 2) {
            return B(_mm512_mask_loadu_epi16(f, static_cast<__mmask32>((std::uint64_t{1} << n) - 1), p));
        } else {
            return B(_mm512_mask_loadu_epi8(f, (std::uint64_t{1} << n) - 1, p));
#endif
        }
    }
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(B) == 32) {
        if (n * sizeof(T) <= 16 && whole_move_bytes(n * sizeof(T))) {
            const __m256i x = _mm256_zextsi128_si256(load_low_bytes(p, n * sizeof(T)));
            const __m256i m = sizeof(T) == 4 ? _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                                                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
                                             : _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n)),
                                                                  _mm256_setr_epi64x(0, 1, 2, 3));
            return B(from_si(_mm256_blendv_epi8(as_si(f), x, m), f));
        }
        if constexpr (sizeof(T) == 4) {
            const __m256i m =
                _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            if constexpr (std::is_same_v<T, float>)
                return B(_mm256_blendv_ps(f, _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m)));
            else
                return B(_mm256_blendv_epi8(f, _mm256_maskload_epi32(reinterpret_cast<const int*>(p), m), m));
        } else {
            const __m256i m =
                _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n)), _mm256_setr_epi64x(0, 1, 2, 3));
            if constexpr (std::is_same_v<T, double>)
                return B(_mm256_blendv_pd(f, _mm256_maskload_pd(p, m), _mm256_castsi256_pd(m)));
            else
                return B(_mm256_blendv_epi8(f, _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), m), m));
        }
    }
#endif
    return fill; // not reached: has_masked_lanes<T> is false
}

template<class T>
XLET_ALWAYS_INLINE void masked_store([[maybe_unused]] T* p, [[maybe_unused]] std::size_t n, const xsimd::batch<T>& v) {
    using B = xsimd::batch<T>;
    [[maybe_unused]] const auto r = static_cast<typename B::register_type>(v);
#if defined(__AVX512F__)
    if constexpr (sizeof(B) == 64) {
        if (whole_move_bytes(n * sizeof(T))) {
            // The low quarter or half of the register (GCC 12's _mm512_castsi512_si128 / _si256
            // build it from an "undefined" register, bug 105593, and warn wherever TBB's
            // <immintrin.h> came first; a shuffle of the register with itself does not).
            using v8di = long long __attribute__((vector_size(64)));
            const auto x = reinterpret_cast<v8di>(as_si(r));
            if (n * sizeof(T) == 32)
                _mm256_storeu_si256(static_cast<__m256i*>(static_cast<void*>(p)),
                                    reinterpret_cast<__m256i>(__builtin_shufflevector(x, x, 0, 1, 2, 3)));
            else
                store_low_bytes(p, reinterpret_cast<__m128i>(__builtin_shufflevector(x, x, 0, 1)), n * sizeof(T));
            return;
        }
        if constexpr (std::is_same_v<T, float>) {
            _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), r);
        } else if constexpr (std::is_same_v<T, double>) {
            _mm512_mask_storeu_pd(p, static_cast<__mmask8>((1u << n) - 1), r);
        } else if constexpr (sizeof(T) == 4) {
            _mm512_mask_storeu_epi32(p, static_cast<__mmask16>((1u << n) - 1), r);
        } else if constexpr (sizeof(T) == 8) {
            _mm512_mask_storeu_epi64(p, static_cast<__mmask8>((1u << n) - 1), r);
#if defined(__AVX512BW__)
        } else if constexpr (sizeof(T) == 2) {
            _mm512_mask_storeu_epi16(p, static_cast<__mmask32>((std::uint64_t{1} << n) - 1), r);
        } else {
            _mm512_mask_storeu_epi8(p, (std::uint64_t{1} << n) - 1, r);
#endif
        }
        return;
    }
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(B) == 32) {
        if (n * sizeof(T) <= 16 && whole_move_bytes(n * sizeof(T))) {
            store_low_bytes(p, _mm256_castsi256_si128(as_si(r)), n * sizeof(T));
            return;
        }
        if constexpr (sizeof(T) == 4) {
            const __m256i m =
                _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            if constexpr (std::is_same_v<T, float>)
                _mm256_maskstore_ps(p, m, r);
            else
                _mm256_maskstore_epi32(reinterpret_cast<int*>(p), m, r);
        } else {
            const __m256i m =
                _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n)), _mm256_setr_epi64x(0, 1, 2, 3));
            if constexpr (std::is_same_v<T, double>)
                _mm256_maskstore_pd(p, m, r);
            else
                _mm256_maskstore_epi64(reinterpret_cast<long long*>(p), m, r);
        }
    }
#endif
}

// A comparison's mask as pred lanes (bytes 0 / 1) and back. xsimd 8.1 moves them bit by bit
// through the stack (16 extracts for one AVX-512 compare); these are two or three instructions.
template<class T>
inline void store_mask(const xsimd::batch_bool<T>& m, bool* out) {
    using BB = xsimd::batch_bool<T>;
    using R = typename BB::register_type;
    [[maybe_unused]] constexpr std::size_t W = BB::size;
    [[maybe_unused]] const R r = static_cast<R>(m);
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    if constexpr (sizeof(R) <= 8) { // a k-mask register
        if constexpr (W == 64)
            _mm512_storeu_si512(out, _mm512_maskz_set1_epi8(r, 1));
        else if constexpr (W == 32)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_maskz_set1_epi8(r, 1));
        else if constexpr (W == 16)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_maskz_set1_epi8(r, 1));
        else if constexpr (W == 8)
            _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_maskz_set1_epi8(r, 1));
        else
            m.store_unaligned(out);
        return;
    }
#endif
#if defined(__AVX2__) && defined(__BMI2__)
    if constexpr (sizeof(R) == 32 && (W == 4 || W == 8)) {
        // 32- or 64-bit lanes of all-ones / zero: one bit per lane, spread to one byte per lane.
        std::uint64_t bits;
        if constexpr (W == 8)
            bits = static_cast<std::uint32_t>(_mm256_movemask_ps(reinterpret_cast<const __m256&>(r)));
        else
            bits = static_cast<std::uint32_t>(_mm256_movemask_pd(reinterpret_cast<const __m256d&>(r)));
        const std::uint64_t bytes = _pdep_u64(bits, 0x0101010101010101ull);
        std::memcpy(out, &bytes, W);
        return;
    }
#endif
    m.store_unaligned(out);
}

template<class T>
inline xsimd::batch_bool<T> load_mask(const bool* in) {
    using BB = xsimd::batch_bool<T>;
    using R [[maybe_unused]] = typename BB::register_type;
    [[maybe_unused]] constexpr std::size_t W = BB::size;
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    if constexpr (sizeof(R) <= 8) { // a k-mask register
        if constexpr (W == 64) {
            const __m512i b = _mm512_loadu_si512(in);
            return BB(static_cast<R>(_mm512_test_epi8_mask(b, b)));
        } else if constexpr (W == 32) {
            const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
            return BB(static_cast<R>(_mm256_test_epi8_mask(b, b)));
        } else if constexpr (W == 16) {
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
            return BB(static_cast<R>(_mm_test_epi8_mask(b, b)));
        } else if constexpr (W == 8) {
            const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in));
            return BB(static_cast<R>(_mm_test_epi8_mask(b, b)));
        }
    }
#endif
#if defined(__AVX2__)
    if constexpr (sizeof(R) == 32 && (W == 4 || W == 8)) {
        std::uint64_t bytes = 0;
        std::memcpy(&bytes, in, W);
        const __m128i b = _mm_cvtsi64_si128(static_cast<long long>(bytes));
        const __m256i wide = W == 8 ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepu8_epi64(b);
        const __m256i lanes = _mm256_cmpgt_epi32(wide, _mm256_setzero_si256()); // 0 / 1 -> 0 / -1
        // 64-bit lanes: each holds 0 or 1, so its low half's -1 / 0 spread to the whole lane.
        const __m256i full = W == 8 ? lanes : _mm256_shuffle_epi32(lanes, 0xA0);
        return BB(reinterpret_cast<const R&>(full));
    }
#endif
    return BB::load_unaligned(in);
}

// The first n < N lanes; the rest repeat lane 0 so no lane computes on uninitialised data.
// GCC 12 cannot relate n to the position of p in its array after inlining (a reduction's tail
// starts at a run-time offset) and reports reads past tiny arrays that never happen.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template<std::size_t N, std::ptrdiff_t Stride, class S>
XLET_ALWAYS_INLINE vec<compute_t<S>, N> load_vec_partial(const S* p, std::size_t n) {
    using V = vec<compute_t<S>, N>;
    if constexpr (is_quantized<S>) {
        return load_vec_partial<N, Stride>(stored_integers(p), n);
    } else if constexpr (Stride == 1 && V::simd && has_masked_lanes<S>) {
        using B = typename V::simd_regs::batch;
        const B fill(p[0]);
        // One element (a rank-0 operand): a broadcast load, which, unlike a masked load, is
        // forwarded from the scalar store that wrote it (a while loop's counter, every iteration).
        if (n == 1) return V::broadcast(p[0]);
        V v;
        for (std::size_t k = 0; k < V::simd_regs::count; ++k) {
            const std::size_t lo = k * B::size;
            if (n >= lo + B::size)
                v.r.b[k] = B::load_unaligned(p + lo);
            else if (n > lo)
                v.r.b[k] = masked_load(p + lo, n - lo, fill);
            else
                v.r.b[k] = fill;
        }
        return v;
    }
    return V::generate([p, n](std::size_t i) { return widen(p[static_cast<std::ptrdiff_t>(i < n ? i : 0) * Stride]); });
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

template<class S, std::size_t N>
inline void store_vec(S* p, const vec<compute_t<S>, N>& v) {
    using V = vec<compute_t<S>, N>;
    if constexpr (is_quantized<S>) {
        store_vec<compute_t<S>, N>(stored_integers(p), v);
    } else if constexpr (V::simd && !is_narrow_float<S>) {
        v.store_lanes(p);
    } else if constexpr (V::simd && std::is_same_v<S, half>) {
        for (std::size_t k = 0; k < V::simd_regs::count; ++k)
            store_half(p + k * V::simd_regs::batch::size, v.r.b[k]);
    } else if constexpr (V::simd && std::is_same_v<S, bfloat16>) {
        for (std::size_t k = 0; k < V::simd_regs::count; ++k)
            store_bfloat16(p + k * V::simd_regs::batch::size, v.r.b[k]);
    } else {
        alignas(64) std::array<compute_t<S>, N> tmp;
        v.store_lanes(tmp.data());
        for (std::size_t i = 0; i < N; ++i)
            p[i] = narrow<S>(tmp[i]);
    }
}

// Non-temporal stores for outputs far larger than the caches: they skip the read-for-ownership a
// normal store costs, so `y = a + b` moves 12 bytes an element instead of 16.
template<class S, std::size_t N>
inline constexpr bool can_stream = [] {
#if defined(__AVX__)
    if constexpr (has_batch<S> && !is_complex<S> && vec<S, N>::simd) {
#if defined(__AVX512F__)
        if constexpr (sizeof(xsimd::batch<S>) == 64) return true;
#endif
        return sizeof(xsimd::batch<S>) == 32;
    }
#endif
    return false;
}();
// The alignment a streamed store needs: one register.
template<class S>
inline constexpr std::size_t stream_alignment = [] {
    if constexpr (has_batch<S>)
        return sizeof(xsimd::batch<S>);
    else
        return std::size_t{1};
}();

#if defined(__AVX__)
// One non-temporal store per register type (p aligned to the register).
inline void stream_reg(void* p, __m256 v) { _mm256_stream_ps(static_cast<float*>(p), v); }
inline void stream_reg(void* p, __m256d v) { _mm256_stream_pd(static_cast<double*>(p), v); }
inline void stream_reg(void* p, __m256i v) { _mm256_stream_si256(static_cast<__m256i*>(p), v); }
#if defined(__AVX512F__)
inline void stream_reg(void* p, __m512 v) { _mm512_stream_ps(static_cast<float*>(p), v); }
inline void stream_reg(void* p, __m512d v) { _mm512_stream_pd(static_cast<double*>(p), v); }
inline void stream_reg(void* p, __m512i v) { _mm512_stream_si512(static_cast<__m512i*>(p), v); }
#endif
#endif

template<class S, std::size_t N>
inline void stream_vec(S* p, const vec<S, N>& v) {
#if defined(__AVX__)
    if constexpr (can_stream<S, N>) {
        using B = typename vec<S, N>::simd_regs::batch;
        for (std::size_t k = 0; k < vec<S, N>::simd_regs::count; ++k)
            stream_reg(p + k * B::size, static_cast<typename B::register_type>(v.r.b[k]));
        return;
    }
#endif
    store_vec<S, N>(p, v);
}

template<class S, std::size_t N>
XLET_ALWAYS_INLINE void store_vec_partial(S* p, const vec<compute_t<S>, N>& v, std::size_t n) {
    using V = vec<compute_t<S>, N>;
    if constexpr (is_quantized<S>) {
        store_vec_partial<compute_t<S>, N>(stored_integers(p), v, n);
        return;
    } else if constexpr (V::simd && has_masked_lanes<S>) {
        using B = typename V::simd_regs::batch;
        if (n == 1) { // a plain store: a later scalar or broadcast load is forwarded from it
            p[0] = v.r.b[0].get(0);
            return;
        }
        for (std::size_t k = 0; k < V::simd_regs::count; ++k) {
            const std::size_t lo = k * B::size;
            if (n >= lo + B::size)
                v.r.b[k].store_unaligned(p + lo);
            else if (n > lo)
                masked_store(p + lo, n - lo, v.r.b[k]);
        }
        return;
    }
    alignas(64) std::array<compute_t<S>, N> tmp;
    v.store_lanes(tmp.data());
    n = n < N ? n : N; // n < N always; saying so lets the compiler bound the copy
    for (std::size_t i = 0; i < n; ++i)
        p[i] = narrow<S>(tmp[i]);
}

} // namespace xlet::detail
