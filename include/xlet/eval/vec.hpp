// vec<T, N>: N lanes of compute type T, the unit every fused loop works on. It is a few xsimd
// registers when T has a batch type and N is a multiple of its width, plain lanes otherwise, so one
// expression can mix element types of different widths and still step N elements at a time.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "../core/reduce_precision.hpp"
#include "../core/types.hpp"

namespace xlet::detail {

template<class T> inline constexpr bool has_batch =
    std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, long double>;
template<class T> inline constexpr bool has_batch<std::complex<T>> = has_batch<T>;

// Lanes one register holds for T; types with no batch count as 16 lanes of scalar work.
template<class T> consteval std::size_t lanes_of() {
    if constexpr (has_batch<T>) return xsimd::batch<T>::size;
    else return 16;
}

template<class T, std::size_t N>
struct vec {
    static constexpr bool simd = has_batch<T> && N % lanes_of<T>() == 0;
    static constexpr std::size_t size = N;
    using value_type = T;

    struct scalar_regs { std::array<T, N> l; };
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
        if constexpr (simd) v.r.b.fill(typename simd_regs::batch(x));
        else v.r.l.fill(x);
        return v;
    }

    // Apply f lane by lane: the bridge for ops without a SIMD form and for type changes.
    template<class F>
    static vec generate(F&& f) {
        alignas(64) std::array<T, N> tmp;
        for (std::size_t i = 0; i < N; ++i) tmp[i] = f(i);
        return from_lanes(tmp.data());
    }
};

// Narrow floats: loads widen exactly, stores narrow exactly (values are already rounded).
template<class S> inline compute_t<S> widen(S x) {
    if constexpr (is_narrow_float<S>) return static_cast<float>(x);
    else return x;
}
template<class S> inline S narrow(compute_t<S> x) {
    if constexpr (is_narrow_float<S>) return S(x);
    else return x;
}

// Round an f32 compute value to what storage type S can hold (identity for other types).
template<class S, class V> inline V round_to_storage(const V& v) {
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
template<class S, class C> inline C round_scalar_to_storage(C x) {
    if constexpr (std::is_same_v<S, half>) return round_to_half(x);
    else if constexpr (std::is_same_v<S, bfloat16>) return round_to_bfloat16(x);
    else return x;
}

// Load N lanes of storage type S at p with element stride Stride (0: broadcast one element).
template<std::size_t N, std::ptrdiff_t Stride, class S>
inline vec<compute_t<S>, N> load_vec(const S* p) {
    using C = compute_t<S>;
    using V = vec<C, N>;
    if constexpr (Stride == 0) {
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

// The first n < N lanes; the rest repeat lane 0 so no lane computes on uninitialised data.
// GCC 12 cannot relate n to the position of p in its array after inlining (a reduction's tail
// starts at a run-time offset) and reports reads past tiny arrays that never happen.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
template<std::size_t N, std::ptrdiff_t Stride, class S>
inline vec<compute_t<S>, N> load_vec_partial(const S* p, std::size_t n) {
    using V = vec<compute_t<S>, N>;
    return V::generate([p, n](std::size_t i) {
        return widen(p[static_cast<std::ptrdiff_t>(i < n ? i : 0) * Stride]);
    });
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

template<class S, std::size_t N>
inline void store_vec(S* p, const vec<compute_t<S>, N>& v) {
    using V = vec<compute_t<S>, N>;
    if constexpr (V::simd && !is_narrow_float<S>) {
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
        for (std::size_t i = 0; i < N; ++i) p[i] = narrow<S>(tmp[i]);
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
inline void stream_fence() {
#if defined(__AVX__)
    _mm_sfence();
#endif
}

template<class S, std::size_t N>
inline void store_vec_partial(S* p, const vec<compute_t<S>, N>& v, std::size_t n) {
    alignas(64) std::array<compute_t<S>, N> tmp;
    v.store_lanes(tmp.data());
    n = n < N ? n : N; // n < N always; saying so lets the compiler bound the copy
    for (std::size_t i = 0; i < n; ++i) p[i] = narrow<S>(tmp[i]);
}

} // namespace xlet::detail
