// Counter-based random number engines (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011; the Random123 library) and their SIMD, TBB-split bulk kernels.
//
//   threefry2x32<R>(ctr, key)   Threefry-2x32 with R rounds (XLA and Random123's default: 20)
//   philox4x32<R>(ctr, key)     Philox-4x32 with R rounds (10)
//
// The bulk kernels evaluate one engine per SIMD lane ("stream"): 16 counters per AVX-512 register,
// 8 per AVX2 register (Philox keeps 4 registers of words, ThreeFry 2), then transpose the words
// into memory order with in-lane unpacks (the counters are assigned to lanes in the permuted
// order that makes the unpacked registers contiguous, so no cross-lane shuffle is needed). Ranges
// above `rng_parallel_words` output words are split over TBB by counter ranges (whole register
// blocks). Every output word depends only on (key, counter, word index): the results are the same
// bits for any thread count, any SIMD width, and the scalar engines above (tested).
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them
#include "../eval/parallel.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tbb/blocked_range.h>
#include <utility>

namespace xlet::detail {

// ---- scalar engines (the definitions) -------------------------------------------------------

inline constexpr std::array<int, 8> threefry2x32_rotations{13, 15, 26, 6, 17, 29, 16, 24};
inline constexpr std::uint32_t threefry_parity32 = 0x1BD11BDA;
inline constexpr std::uint32_t philox_m0 = 0xD2511F53, philox_m1 = 0xCD9E8D57;
inline constexpr std::uint32_t philox_w0 = 0x9E3779B9, philox_w1 = 0xBB67AE85;

constexpr std::uint32_t rotl32(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// Threefry-2x32-R: key schedule ks = {k0, k1, k0 ^ k1 ^ 0x1BD11BDA}; x += (ks0, ks1); per round
// x0 += x1, x1 = rotl(x1, rot[r % 8]) ^ x0; after every 4th round s: x0 += ks[s % 3],
// x1 += ks[(s + 1) % 3] + s.
template<int Rounds = 20>
constexpr std::array<std::uint32_t, 2> threefry2x32(std::array<std::uint32_t, 2> ctr,
                                                    std::array<std::uint32_t, 2> key) {
    const std::array<std::uint32_t, 3> ks{key[0], key[1], key[0] ^ key[1] ^ threefry_parity32};
    std::uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
    for (int r = 0; r < Rounds; ++r) {
        x0 += x1;
        x1 = rotl32(x1, threefry2x32_rotations[static_cast<std::size_t>(r % 8)]) ^ x0;
        if ((r + 1) % 4 == 0) {
            const auto s = static_cast<std::uint32_t>((r + 1) / 4);
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + s;
        }
    }
    return {x0, x1};
}

// Philox-4x32-R: per round (hi0, lo0) = M0 * x0, (hi1, lo1) = M1 * x2 (32 x 32 -> 64 bits);
// x = (hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0); then the key is bumped by (W0, W1).
template<int Rounds = 10>
constexpr std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> x, std::array<std::uint32_t, 2> key) {
    for (int r = 0; r < Rounds; ++r) {
        const std::uint64_t p0 = std::uint64_t{philox_m0} * x[0], p1 = std::uint64_t{philox_m1} * x[2];
        x = {static_cast<std::uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<std::uint32_t>(p1),
             static_cast<std::uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<std::uint32_t>(p0)};
        key[0] += philox_w0;
        key[1] += philox_w1;
    }
    return x;
}

// A 128-bit Philox counter as XLA keeps it: two u64, low word first.
struct u128_counter {
    std::uint64_t lo = 0, hi = 0;
    constexpr u128_counter plus(std::uint64_t d) const { return {lo + d, hi + (lo + d < lo ? 1u : 0u)}; }
    constexpr std::array<std::uint32_t, 4> words() const {
        return {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32), static_cast<std::uint32_t>(hi),
                static_cast<std::uint32_t>(hi >> 32)};
    }
};

// ---- SIMD ----------------------------------------------------------------------------------

using rng_u32 = xsimd::batch<std::uint32_t>;
using rng_u64 = xsimd::batch<std::uint64_t>;
inline constexpr std::size_t rng_lanes = rng_u32::size;
#if defined(__AVX512F__)
static_assert(sizeof(rng_u32) == 64);
#elif defined(__AVX2__)
static_assert(sizeof(rng_u32) == 32);
#endif

// Output words (per call) above which the kernels split over TBB, and the words per task.
inline constexpr std::size_t rng_parallel_words = std::size_t{1} << 16;
inline constexpr std::size_t rng_task_words = std::size_t{1} << 15;

template<int R>
inline rng_u32 rotl(const rng_u32& x) {
#if defined(__AVX512F__)
    return rng_u32(_mm512_rol_epi32(x, R));
#else
    return (x << R) | (x >> (32 - R));
#endif
}

// hi, lo of the 64-bit products x * m per lane (the generic path; AVX2 and AVX-512 multiply in
// place in philox_simd).
inline void mulhilo(const rng_u32& x, std::uint32_t m, rng_u32& hi, rng_u32& lo) {
    alignas(64) std::array<std::uint32_t, rng_lanes> a{}, h{}, l{};
    x.store_aligned(a.data());
    for (std::size_t i = 0; i < rng_lanes; ++i) {
        const std::uint64_t p = std::uint64_t{m} * a[i];
        h[i] = static_cast<std::uint32_t>(p >> 32);
        l[i] = static_cast<std::uint32_t>(p);
    }
    hi = rng_u32::load_aligned(h.data());
    lo = rng_u32::load_aligned(l.data());
}

// Philox-4x32-10 on every lane. On AVX-512 and AVX2 the even and odd 32-bit lanes run as two
// sets of 64-bit lanes whose low halves hold the words: one mul_epu32 gives hi and lo of a product
// in place (lo = the product, hi = its upper half moved down by a shuffle), and the upper halves
// of the other words are don't-care bits that mul_epu32 never reads and the final merge drops. This
// keeps the shift port free: 2 multiplies, 2 shuffles and 2 three-way xors per round and set.
// uniform_high: x1..x3 are the same in every lane (no counter carry in the block), so their odd
// lanes need no shuffle.
inline void philox_simd(std::array<rng_u32, 4>& x, std::uint32_t k0, std::uint32_t k1,
                        [[maybe_unused]] bool uniform_high = false) {
#if defined(__AVX512F__)
    const __m512i m0 = _mm512_set1_epi64(philox_m0), m1 = _mm512_set1_epi64(philox_m1);
    __m512i e[4], o[4];
    for (std::size_t k = 0; k < 4; ++k) {
        e[k] = x[k];
        o[k] = k > 0 && uniform_high ? e[k] : _mm512_shuffle_epi32(x[k], _MM_PERM_DDBB); // odd lanes to low halves
    }
    for (int r = 0; r < 10; ++r) {
        const __m512i key0 = _mm512_set1_epi32(static_cast<int>(k0)), key1 = _mm512_set1_epi32(static_cast<int>(k1));
        for (__m512i* v : {e, o}) {
            const __m512i p0 = _mm512_mul_epu32(v[0], m0), p1 = _mm512_mul_epu32(v[2], m1);
            const __m512i h0 = _mm512_shuffle_epi32(p0, _MM_PERM_DDBB), h1 = _mm512_shuffle_epi32(p1, _MM_PERM_DDBB);
            v[0] = _mm512_ternarylogic_epi32(h1, v[1], key0, 0x96);
            v[1] = p1;
            v[2] = _mm512_ternarylogic_epi32(h0, v[3], key1, 0x96);
            v[3] = p0;
        }
        k0 += philox_w0;
        k1 += philox_w1;
    }
    for (std::size_t k = 0; k < 4; ++k)
        x[k] = rng_u32(_mm512_mask_blend_epi32(0xAAAA, e[k], _mm512_shuffle_epi32(o[k], _MM_PERM_CCAA)));
#elif defined(__AVX2__)
    const __m256i m0 = _mm256_set1_epi64x(philox_m0), m1 = _mm256_set1_epi64x(philox_m1);
    __m256i e[4], o[4];
    for (std::size_t k = 0; k < 4; ++k) {
        e[k] = x[k];
        o[k] = k > 0 && uniform_high ? e[k] : _mm256_shuffle_epi32(x[k], 0xF5);
    }
    for (int r = 0; r < 10; ++r) {
        const __m256i key0 = _mm256_set1_epi32(static_cast<int>(k0)), key1 = _mm256_set1_epi32(static_cast<int>(k1));
        for (__m256i* v : {e, o}) {
            const __m256i p0 = _mm256_mul_epu32(v[0], m0), p1 = _mm256_mul_epu32(v[2], m1);
            const __m256i h0 = _mm256_shuffle_epi32(p0, 0xF5), h1 = _mm256_shuffle_epi32(p1, 0xF5);
            v[0] = _mm256_xor_si256(_mm256_xor_si256(h1, v[1]), key0);
            v[1] = p1;
            v[2] = _mm256_xor_si256(_mm256_xor_si256(h0, v[3]), key1);
            v[3] = p0;
        }
        k0 += philox_w0;
        k1 += philox_w1;
    }
    for (std::size_t k = 0; k < 4; ++k)
        x[k] = rng_u32(_mm256_blend_epi32(e[k], _mm256_shuffle_epi32(o[k], 0xA0), 0xAA));
#else
    for (int r = 0; r < 10; ++r) {
        rng_u32 hi0, lo0, hi1, lo1;
        mulhilo(x[0], philox_m0, hi0, lo0);
        mulhilo(x[2], philox_m1, hi1, lo1);
        x = {hi1 ^ x[1] ^ rng_u32(k0), lo1, hi0 ^ x[3] ^ rng_u32(k1), lo0};
        k0 += philox_w0;
        k1 += philox_w1;
    }
#endif
}

// G independent blocks at once: a ThreeFry round is a chain of dependent one-cycle operations, so a
// single block is latency-bound; G chains keep the vector ports busy.
template<std::size_t G, int... I>
inline void threefry_simd_rounds(std::array<rng_u32, G>& x0, std::array<rng_u32, G>& x1,
                                 const std::array<std::uint32_t, 3>& ks, std::integer_sequence<int, I...>) {
    auto round = [&]<int r>(std::integral_constant<int, r>) {
        for (std::size_t g = 0; g < G; ++g) {
            x0[g] += x1[g];
            x1[g] = rotl<threefry2x32_rotations[r % 8]>(x1[g]) ^ x0[g];
        }
        if constexpr ((r + 1) % 4 == 0) {
            constexpr auto s = static_cast<std::uint32_t>((r + 1) / 4);
            const rng_u32 a(ks[s % 3]), b(ks[(s + 1) % 3] + s);
            for (std::size_t g = 0; g < G; ++g) {
                x0[g] += a;
                x1[g] += b;
            }
        }
    };
    (round(std::integral_constant<int, I>{}), ...);
}

template<std::size_t G>
inline void threefry_simd(std::array<rng_u32, G>& x0, std::array<rng_u32, G>& x1, std::uint32_t k0, std::uint32_t k1) {
    const std::array<std::uint32_t, 3> ks{k0, k1, k0 ^ k1 ^ threefry_parity32};
    for (std::size_t g = 0; g < G; ++g) {
        x0[g] += rng_u32(k0);
        x1[g] += rng_u32(k1);
    }
    threefry_simd_rounds<G>(x0, x1, ks, std::make_integer_sequence<int, 20>{});
}

// Lane l of a register block holds counter `base + perm[l]`, chosen so that the in-lane unpacks
// below leave the words in memory order. Q = 128-bit lanes per register.
inline constexpr std::size_t rng_q = rng_lanes / 4 == 0 ? 1 : rng_lanes / 4;
// 4 words per counter (Philox): lane 4k + m -> counter m * Q + k.
inline constexpr std::array<std::uint32_t, rng_lanes> rng_perm4 = [] {
    std::array<std::uint32_t, rng_lanes> p{};
    for (std::size_t l = 0; l < rng_lanes; ++l)
        p[l] = static_cast<std::uint32_t>((l % 4) * rng_q + l / 4);
    return p;
}();
// 2 words per counter (ThreeFry interleaved): lane 4k + 2r + j -> counter r * L/2 + 2k + j.
inline constexpr std::array<std::uint32_t, rng_lanes> rng_perm2 = [] {
    std::array<std::uint32_t, rng_lanes> p{};
    for (std::size_t l = 0; l < rng_lanes; ++l)
        p[l] = static_cast<std::uint32_t>((l % 4) / 2 * (rng_lanes / 2) + (l / 4) * 2 + l % 2);
    return p;
}();
inline constexpr std::array<std::uint32_t, rng_lanes> rng_perm1 = [] {
    std::array<std::uint32_t, rng_lanes> p{};
    for (std::size_t l = 0; l < rng_lanes; ++l)
        p[l] = static_cast<std::uint32_t>(l);
    return p;
}();

inline rng_u64 as_u64(const rng_u32& x) { return xsimd::bitwise_cast<rng_u64>(x); }
inline rng_u32 as_u32(const rng_u64& x) { return xsimd::bitwise_cast<rng_u32>(x); }

// (x0, x1, x2, x3) per lane -> 4 registers in memory order (see rng_perm4).
inline std::array<rng_u32, 4> transpose4(const std::array<rng_u32, 4>& x) {
    if constexpr (rng_lanes < 4) {
        return x; // not reached on x86 (SSE2 has 4 lanes)
    } else {
        const rng_u32 t0 = xsimd::zip_lo(x[0], x[1]), t1 = xsimd::zip_lo(x[2], x[3]);
        const rng_u32 t2 = xsimd::zip_hi(x[0], x[1]), t3 = xsimd::zip_hi(x[2], x[3]);
        return {as_u32(xsimd::zip_lo(as_u64(t0), as_u64(t1))), as_u32(xsimd::zip_hi(as_u64(t0), as_u64(t1))),
                as_u32(xsimd::zip_lo(as_u64(t2), as_u64(t3))), as_u32(xsimd::zip_hi(as_u64(t2), as_u64(t3)))};
    }
}

// Stores n <= L words of v at p: whole registers streamed (non-temporal) when `stream` and p is
// register-aligned, else plain stores; a partial register through a buffer.
inline void rng_store(std::uint32_t* p, const rng_u32& v, std::size_t n, [[maybe_unused]] bool stream) {
    if (n == rng_lanes) {
#if defined(__AVX512F__)
        if (stream && reinterpret_cast<std::uintptr_t>(p) % 64 == 0) {
            _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
            return;
        }
#elif defined(__AVX2__)
        if (stream && reinterpret_cast<std::uintptr_t>(p) % 32 == 0) {
            _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
            return;
        }
#endif
        v.store_unaligned(p);
        return;
    }
    alignas(64) std::array<std::uint32_t, rng_lanes> b{};
    v.store_aligned(b.data());
    std::memcpy(p, b.data(), n * sizeof(std::uint32_t));
}

inline void rng_fence(bool stream) {
#if defined(__SSE2__)
    if (stream) _mm_sfence();
#else
    (void)stream;
#endif
}

// Output arrays of at least this many bytes are written with non-temporal stores (they do not fit
// in the caches, and the stores then skip the read-for-ownership).
inline constexpr std::size_t rng_stream_bytes = std::size_t{4} << 20;

// f(u0, u1) over [0, n) units, split over TBB in chunks of `grain` units when `parallel`.
template<class F>
void rng_for(std::size_t n, std::size_t grain, bool parallel, const F& f) {
    if (!parallel || n <= grain) {
        f(std::size_t{0}, n);
        return;
    }
    run_parallel(tbb::blocked_range<std::size_t>(0, n, grain),
                 [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
}

// The identity word transform: the bits as they are.
struct rng_bits_fn {
    void operator()(std::array<rng_u32, 4>&) const {}
};

// Philox stream: word i of the result is word i % 4 of philox4x32(base + i / 4, key), for
// i < nwords. `f` may rewrite the four word registers of a block (lane = counter, before the
// transpose) into other 32-bit values (floats as bits), so a distribution is computed in the same
// pass: Box-Muller takes (x0, x1) and (x2, x3) as its pairs.
template<class F = rng_bits_fn>
void philox_stream(std::array<std::uint32_t, 2> key, u128_counter base, std::uint32_t* dst, std::size_t nwords,
                   const F& f = {}) {
    constexpr std::size_t block = 4 * rng_lanes; // words per register block
    const std::size_t nblocks = (nwords + block - 1) / block;
    const bool stream = nwords * 4 >= rng_stream_bytes;
    const rng_u32 perm = rng_u32::load_unaligned(rng_perm4.data());
    rng_for(nblocks, std::max<std::size_t>(1, rng_task_words / block), nwords >= rng_parallel_words,
            [&](std::size_t b0, std::size_t b1) {
                for (std::size_t b = b0; b < b1; ++b) {
                    const u128_counter c = base.plus(b * rng_lanes);
                    std::array<rng_u32, 4> x;
                    const auto w = c.words();
                    const bool no_carry = w[0] <= 0xffffffffu - (rng_lanes - 1);
                    if (no_carry) { // no carry out of word 0 in this block
                        x = {rng_u32(w[0]) + perm, rng_u32(w[1]), rng_u32(w[2]), rng_u32(w[3])};
                    } else {
                        alignas(64) std::array<std::array<std::uint32_t, rng_lanes>, 4> a{};
                        for (std::size_t l = 0; l < rng_lanes; ++l) {
                            const auto wl = c.plus(rng_perm4[l]).words();
                            for (std::size_t k = 0; k < 4; ++k)
                                a[k][l] = wl[k];
                        }
                        for (std::size_t k = 0; k < 4; ++k)
                            x[k] = rng_u32::load_aligned(a[k].data());
                    }
                    philox_simd(x, key[0], key[1], no_carry);
                    f(x);
                    const auto o = transpose4(x);
                    const std::size_t at = b * block;
                    for (std::size_t k = 0; k < 4; ++k) {
                        const std::size_t s = at + k * rng_lanes;
                        if (s >= nwords) break;
                        rng_store(dst + s, o[k], std::min(rng_lanes, nwords - s), stream);
                    }
                }
            });
    rng_fence(stream);
}

// ThreeFry counters are u64 (low word x0, high word x1), wrapping modulo 2^64.
inline void threefry_counters(std::uint64_t c, const std::array<std::uint32_t, rng_lanes>& perm, rng_u32& x0,
                              rng_u32& x1) {
    const auto lo = static_cast<std::uint32_t>(c);
    if (lo <= 0xffffffffu - (rng_lanes - 1)) {
        x0 = rng_u32(lo) + rng_u32::load_unaligned(perm.data());
        x1 = rng_u32(static_cast<std::uint32_t>(c >> 32));
        return;
    }
    alignas(64) std::array<std::uint32_t, rng_lanes> a{}, b{};
    for (std::size_t l = 0; l < rng_lanes; ++l) {
        const std::uint64_t cl = c + perm[l];
        a[l] = static_cast<std::uint32_t>(cl);
        b[l] = static_cast<std::uint32_t>(cl >> 32);
    }
    x0 = rng_u32::load_aligned(a.data());
    x1 = rng_u32::load_aligned(b.data());
}

// ThreeFry, interleaved: word i is word i % 2 of threefry2x32(base + i / 2, key), i < nwords.
inline void threefry_interleaved(std::array<std::uint32_t, 2> key, std::uint64_t base, std::uint32_t* dst,
                                 std::size_t nwords, bool parallel = true) {
    constexpr std::size_t block = 2 * rng_lanes;
    const std::size_t nblocks = (nwords + block - 1) / block;
    const bool stream = nwords * 4 >= rng_stream_bytes;
    rng_for(nblocks, std::max<std::size_t>(1, rng_task_words / block), parallel && nwords >= rng_parallel_words,
            [&](std::size_t b0, std::size_t b1) {
                auto run = [&]<std::size_t G>(std::size_t b) {
                    std::array<rng_u32, G> x0, x1;
                    for (std::size_t g = 0; g < G; ++g)
                        threefry_counters(base + (b + g) * rng_lanes, rng_perm2, x0[g], x1[g]);
                    threefry_simd<G>(x0, x1, key[0], key[1]);
                    for (std::size_t g = 0; g < G; ++g) {
                        const rng_u32 o0 = xsimd::zip_lo(x0[g], x1[g]), o1 = xsimd::zip_hi(x0[g], x1[g]);
                        const std::size_t at = (b + g) * block;
                        rng_store(dst + at, o0, std::min(rng_lanes, nwords - at), stream);
                        if (at + rng_lanes < nwords)
                            rng_store(dst + at + rng_lanes, o1, std::min(rng_lanes, nwords - at - rng_lanes), stream);
                    }
                };
                std::size_t b = b0;
                for (; b + 4 <= b1; b += 4)
                    run.template operator()<4>(b);
                for (; b < b1; ++b)
                    run.template operator()<1>(b);
            });
    rng_fence(stream);
}

// ThreeFry, planar: dst0[i] = word 0 and dst1[i] = word 1 (when dst1 is not null) of
// threefry2x32(base + i, key), i < n. One thread (callers split over rows).
inline void threefry_planar(std::array<std::uint32_t, 2> key, std::uint64_t base, std::uint32_t* dst0,
                            std::uint32_t* dst1, std::size_t n) {
    auto run = [&]<std::size_t G>(std::size_t at) {
        std::array<rng_u32, G> x0, x1;
        for (std::size_t g = 0; g < G; ++g)
            threefry_counters(base + at + g * rng_lanes, rng_perm1, x0[g], x1[g]);
        threefry_simd<G>(x0, x1, key[0], key[1]);
        for (std::size_t g = 0; g < G; ++g) {
            const std::size_t a = at + g * rng_lanes, m = std::min(rng_lanes, n - a);
            rng_store(dst0 + a, x0[g], m, false);
            if (dst1) rng_store(dst1 + a, x1[g], m, false);
        }
    };
    std::size_t at = 0;
    for (; at + 4 * rng_lanes <= n; at += 4 * rng_lanes)
        run.template operator()<4>(at);
    for (; at < n; at += rng_lanes)
        run.template operator()<1>(at);
}

} // namespace xlet::detail
