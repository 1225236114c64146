// Counter-based random number engines (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011; the Random123 library) and their SIMD, TBB-split bulk kernels.
//
//   threefry2x32<R>(ctr, key)   Threefry-2x32 with R rounds (XLA and Random123's default: 20)
//   philox4x32<R>(ctr, key)     Philox-4x32 with R rounds (10)
//
// The bulk kernels evaluate one engine per SIMD lane ("stream"): 16 counters per AVX-512 register,
// 8 per AVX2 register (ThreeFry keeps 2 registers of words, Philox 4, or on AVX2 / AVX-512 8
// half-used ones: the even / odd sets below), then put the words into memory order with in-lane
// unpacks only (the counters are assigned to lanes in the permuted order that makes the unpacked
// registers contiguous). Several register blocks run per step so that the dependent chains of
// the rounds overlap. Ranges above `rng_parallel_words` output words are split over TBB by counter
// ranges (whole register blocks). Every output word depends only on (key, counter, word index):
// the results are the same bits for any thread count, any SIMD width, and the scalar engines
// above (tested). docs/performance.md "Random numbers" has the figures behind the choices.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them
#include "../eval/parallel.hpp"

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tbb/blocked_range.h>
#include <utility>

// The kernels' per-block helpers (lambdas, word transforms) are forced inline: in a large
// translation unit GCC leaves them out of line, and the register blocks then pass through memory
// (rng_bench's uniforms: 18 GB/s instead of 26).
#if defined(__GNUC__)
#define XLET_RNG_INLINE __attribute__((always_inline))
#else
#define XLET_RNG_INLINE
#endif

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

// Philox-4x32-10 on every lane, generic SIMD (no AVX2: the products through memory).
inline void philox_simd(std::array<rng_u32, 4>& x, std::uint32_t k0, std::uint32_t k1) {
    for (int r = 0; r < 10; ++r) {
        rng_u32 hi0, lo0, hi1, lo1;
        mulhilo(x[0], philox_m0, hi0, lo0);
        mulhilo(x[2], philox_m1, hi1, lo1);
        x = {hi1 ^ x[1] ^ rng_u32(k0), lo1, hi0 ^ x[3] ^ rng_u32(k1), lo0};
        k0 += philox_w0;
        k1 += philox_w1;
    }
}

#if defined(__AVX512F__) || defined(__AVX2__)
#define XLET_RNG_PHILOX_EO 1
// Philox on AVX2 / AVX-512 ("even / odd sets"): a set is 4 registers of 64-bit lanes holding one
// counter's words x0..x3 each in the low half; the upper halves are don't-care bits that
// mul_epu32 never reads and the final pairing drops. One mul_epu32 gives a product's lo in place
// and its hi after one in-lane shuffle (not a shift: Zen 5 issues zmm shuffles on 4 pipes and
// shifts on 2; on the Xeon the shift port was the bottleneck). Per round and set: 2 multiplies,
// 2 shuffles, 2 three-way xors. The last round's products are paired in place (rv_last) and two
// unpacks per pair of sets give memory order: no transpose.
#if defined(__AVX512F__)
using rng_v = __m512i;
inline rng_v rv_mul(rng_v a, rng_v m) { return _mm512_mul_epu32(a, m); }
inline rng_v rv_hi(rng_v p) { return _mm512_shuffle_epi32(p, _MM_PERM_DDBB); }
inline rng_v rv_xor3(rng_v a, rng_v b, rng_v c) { return _mm512_ternarylogic_epi32(a, b, c, 0x96); }
inline rng_v rv_xor(rng_v a, rng_v b) { return _mm512_xor_si512(a, b); }
inline rng_v rv_add32(rng_v a, rng_v b) { return _mm512_add_epi32(a, b); }
inline rng_v rv_set32(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
inline rng_v rv_set64(std::uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
inline rng_v rv_load(const void* p) { return _mm512_loadu_si512(p); }
// Dword 2j = lo's dword 2j, dword 2j + 1 = hi's dword 2j: the low halves of two registers paired.
inline rng_v rv_pair(rng_v lo, rng_v hi) { return _mm512_mask_shuffle_epi32(lo, 0xAAAA, hi, _MM_PERM_CCAA); }
inline rng_v rv_unpacklo64(rng_v a, rng_v b) { return _mm512_unpacklo_epi64(a, b); }
inline rng_v rv_unpackhi64(rng_v a, rng_v b) { return _mm512_unpackhi_epi64(a, b); }
// (hi(p) ^ v ^ k, lo(p)) per 64-bit lane: a last round's (x0, x1) or (x2, x3), already paired.
inline rng_v rv_last(rng_v p, rng_v v, rng_v k) {
    return _mm512_mask_ternarylogic_epi32(_mm512_shuffle_epi32(p, _MM_PERM_CDAB), 0x5555, v, k, 0x96);
}
#else
using rng_v = __m256i;
inline rng_v rv_mul(rng_v a, rng_v m) { return _mm256_mul_epu32(a, m); }
inline rng_v rv_hi(rng_v p) { return _mm256_shuffle_epi32(p, 0xF5); }
inline rng_v rv_xor3(rng_v a, rng_v b, rng_v c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
inline rng_v rv_xor(rng_v a, rng_v b) { return _mm256_xor_si256(a, b); }
inline rng_v rv_add32(rng_v a, rng_v b) { return _mm256_add_epi32(a, b); }
inline rng_v rv_set32(std::uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
inline rng_v rv_set64(std::uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
inline rng_v rv_load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline rng_v rv_pair(rng_v lo, rng_v hi) { return _mm256_blend_epi32(lo, _mm256_shuffle_epi32(hi, 0xA0), 0xAA); }
inline rng_v rv_unpacklo64(rng_v a, rng_v b) { return _mm256_unpacklo_epi64(a, b); }
inline rng_v rv_unpackhi64(rng_v a, rng_v b) { return _mm256_unpackhi_epi64(a, b); }
inline rng_v rv_last(rng_v p, rng_v v, rng_v k) {
    const rng_v t = _mm256_shuffle_epi32(p, 0xB1);
    return _mm256_blend_epi32(t, rv_xor3(t, v, k), 0x55);
}
#endif
static_assert(sizeof(rng_v) == sizeof(rng_u32));

struct philox_set {
    rng_v x[4];
};
// The key schedule of one call (the same for every block).
struct philox_keys {
    std::uint32_t k0[10], k1[10];
    explicit philox_keys(std::array<std::uint32_t, 2> key) {
        for (int r = 0; r < 10; ++r) {
            k0[r] = key[0] + static_cast<std::uint32_t>(r) * philox_w0;
            k1[r] = key[1] + static_cast<std::uint32_t>(r) * philox_w1;
        }
    }
};

// Rounds R0..R1-1 on S independent sets: S chains of (multiply, shuffle, xor) hide the
// multiply's latency (one block alone is 4 chains: latency-bound on AVX-512 cores).
template<int R0, int R1, std::size_t S>
inline void philox_eo_rounds(std::array<philox_set, S>& s, const philox_keys& k) {
    const rng_v m0 = rv_set64(philox_m0), m1 = rv_set64(philox_m1);
#pragma GCC unroll 10
    for (int r = R0; r < R1; ++r) {
        const rng_v k0 = rv_set32(k.k0[r]), k1 = rv_set32(k.k1[r]);
        for (auto& v : s) {
            const rng_v p0 = rv_mul(v.x[0], m0), p1 = rv_mul(v.x[2], m1);
            v.x[0] = rv_xor3(rv_hi(p1), v.x[1], k0);
            v.x[1] = p1;
            v.x[2] = rv_xor3(rv_hi(p0), v.x[3], k1);
            v.x[3] = p0;
        }
    }
}

// Rounds 0 and 1 when x1..x3 are the same in every lane (no carry out of x0 in the block): the
// parts that depend on x1..x3 only are computed once, in scalar, and broadcast.
struct philox_head {
    rng_v a{}, b{}, c{}, d{};
    philox_head() = default;
    philox_head(std::uint32_t x1, std::uint32_t x2, std::uint32_t x3, const philox_keys& k) {
        const std::uint64_t p1 = std::uint64_t{philox_m1} * x2; // round 0
        const auto s0 = static_cast<std::uint32_t>(p1 >> 32) ^ x1 ^ k.k0[0], s1 = static_cast<std::uint32_t>(p1);
        const std::uint64_t q0 = std::uint64_t{philox_m0} * s0; // round 1
        a = rv_set32(x3 ^ k.k1[0]);
        b = rv_set32(s1 ^ k.k0[1]);
        c = rv_set32(static_cast<std::uint32_t>(q0 >> 32) ^ k.k1[1]);
        d = rv_set32(static_cast<std::uint32_t>(q0));
    }
    // x0 = the counters' low words: the set after round 1.
    philox_set operator()(rng_v x0) const {
        const rng_v m0 = rv_set64(philox_m0), m1 = rv_set64(philox_m1);
        const rng_v p0 = rv_mul(x0, m0);
        const rng_v p1 = rv_mul(rv_xor(rv_hi(p0), a), m1);
        return {{rv_xor(rv_hi(p1), b), p1, rv_xor(p0, c), d}};
    }
};
#endif

// G independent blocks at once: a ThreeFry round is a chain of dependent one-cycle operations, so a
// single block is latency-bound; G chains keep the vector ports busy. Forced inline: as a call,
// GCC kept the 2 G registers in memory (a load and a store per operation: 3x slower).
template<std::size_t G, int... I>
XLET_RNG_INLINE inline void threefry_simd_rounds(std::array<rng_u32, G>& x0, std::array<rng_u32, G>& x1,
                                                 const std::array<std::uint32_t, 3>& ks,
                                                 std::integer_sequence<int, I...>) {
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
XLET_RNG_INLINE inline void threefry_simd(std::array<rng_u32, G>& x0, std::array<rng_u32, G>& x1, std::uint32_t k0,
                                          std::uint32_t k1) {
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

template<class = void>
inline rng_u64 as_u64(const rng_u32& x) {
    return xsimd::bitwise_cast<rng_u64>(x);
}
template<class = void>
inline rng_u32 as_u32(const rng_u64& x) {
    return xsimd::bitwise_cast<rng_u32>(x);
}

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

// The identity word transform: the bits as they are. Word transforms (`word(w)`: each output
// word from its own bits) apply after the words are in memory order; others see the four word
// registers of a block with lane = counter (rng_perm4 order).
struct rng_bits_fn {
    XLET_RNG_INLINE rng_u32 word(const rng_u32& w) const { return w; }
};

template<class F>
concept rng_word_fn = requires(const F& f, const rng_u32& w) {
    { f.word(w) } -> std::same_as<rng_u32>;
};

#if defined(XLET_RNG_PHILOX_EO)
// Counter offsets (from the block's base) of the 64-bit lanes of the even and odd sets.
// Memory order (word transforms): after pairing (x0, x1) and (x2, x3) of a set, unpacklo / hi_64
// put the counters of qwords 2q / 2q + 1 into 128-bit lane q of output registers 0 / 1 (even
// set) and 2 / 3 (odd set); output register k, lane q holds counter k * Q + q.
// Lane order (other transforms): the set halves of rng_perm4's lanes.
inline constexpr auto philox_offsets = [] {
    constexpr std::size_t h = rng_lanes / 2;
    std::array<std::array<std::uint64_t, h>, 4> t{}; // mem even, mem odd, lane even, lane odd
    for (std::size_t j = 0; j < h; ++j) {
        t[0][j] = (j % 2) * rng_q + j / 2;
        t[1][j] = (2 + j % 2) * rng_q + j / 2;
        t[2][j] = rng_perm4[2 * j];
        t[3][j] = rng_perm4[2 * j + 1];
    }
    return t;
}();
#endif

// Blocks per Philox step: 2 G sets, 4 G independent (multiply, shuffle, xor) chains of 7 cycles
// per round on Zen 5 (3 + 2 + 2). Zen 5, 1 thread, bits in L2: G = 2: 24.8 GB/s, 3: 28.8,
// 4: 22.9 (spills); AVX2 build: 7.3, 7.9 for G = 2, 3.
#if defined(XLET_RNG_PHILOX_GROUP)
inline constexpr std::size_t philox_group = XLET_RNG_PHILOX_GROUP;
#else
inline constexpr std::size_t philox_group = 3;
#endif

// Philox stream: word i of the result is word i % 4 of philox4x32(base + i / 4, key), for
// i < nwords, through `f` (rng_bits_fn: the bits). A transform of lane = counter registers
// (Box-Muller takes (x0, x1) and (x2, x3) as its pairs) runs in the same pass.
template<class F = rng_bits_fn>
void philox_stream(std::array<std::uint32_t, 2> key, u128_counter base, std::uint32_t* dst, std::size_t nwords,
                   const F& f = {}) {
    constexpr std::size_t block = 4 * rng_lanes; // words per register block
    const std::size_t nblocks = (nwords + block - 1) / block;
    const bool stream = nwords * 4 >= rng_stream_bytes;
    auto store = [&](std::size_t b, const std::array<rng_u32, 4>& o) XLET_RNG_INLINE {
        const std::size_t at = b * block;
        for (std::size_t k = 0; k < 4; ++k) {
            const std::size_t s = at + k * rng_lanes;
            if (s >= nwords) break;
            rng_store(dst + s, o[k], std::min(rng_lanes, nwords - s), stream);
        }
    };
#if defined(XLET_RNG_PHILOX_EO)
    constexpr bool mem = rng_word_fn<F>;
    const philox_keys ks(key);
    const auto& offs = philox_offsets[mem ? 0 : 2];
    const auto& offo = philox_offsets[mem ? 1 : 3];
    // Set 2g / 2g + 1 (even / odd) of block b + g -> memory order, through f.
    auto finish = [&](std::size_t b, const philox_set& e, const philox_set& o) XLET_RNG_INLINE {
        if constexpr (mem) { // round 9 here: its products paired as they come
            const rng_v m0 = rv_set64(philox_m0), m1 = rv_set64(philox_m1);
            const rng_v k0 = rv_set32(ks.k0[9]), k1 = rv_set32(ks.k1[9]);
            const rng_v a = rv_last(rv_mul(e.x[2], m1), e.x[1], k0), c = rv_last(rv_mul(e.x[0], m0), e.x[3], k1);
            const rng_v a2 = rv_last(rv_mul(o.x[2], m1), o.x[1], k0), c2 = rv_last(rv_mul(o.x[0], m0), o.x[3], k1);
            store(b, {f.word(rv_unpacklo64(a, c)), f.word(rv_unpackhi64(a, c)), f.word(rv_unpacklo64(a2, c2)),
                      f.word(rv_unpackhi64(a2, c2))});
        } else {
            std::array<rng_u32, 4> x;
            for (std::size_t k = 0; k < 4; ++k)
                x[k] = rv_pair(e.x[k], o.x[k]);
            f(x);
            store(b, transpose4(x));
        }
    };
    rng_for(nblocks, std::max<std::size_t>(1, rng_task_words / block), nwords >= rng_parallel_words,
            [&](std::size_t b0, std::size_t b1) {
                const rng_v ve = rv_load(offs.data()), vo = rv_load(offo.data());
                const rng_v step = rv_set32(rng_lanes);
                std::uint64_t head_hi = ~std::uint64_t{0}, head_lo = 0; // the words the head was made for
                philox_head head; // (not std::optional: Clang instantiated it in every unit, 10 ms)
                bool have_head = false;
                std::size_t b = b0;
                while (b < b1) {
                    const u128_counter c = base.plus(b * rng_lanes);
                    const auto w = c.words();
                    std::size_t g = std::min(philox_group, b1 - b);  // blocks this step
                    if (w[0] <= 0xffffffffu - (g * rng_lanes - 1)) { // no carry out of x0
                        if (!have_head || c.hi != head_hi || (c.lo >> 32) != head_lo) {
                            head = philox_head(w[1], w[2], w[3], ks);
                            have_head = true;
                            head_hi = c.hi;
                            head_lo = c.lo >> 32;
                        }
                        auto run = [&]<std::size_t G>(std::integral_constant<std::size_t, G>) XLET_RNG_INLINE {
                            std::array<philox_set, 2 * G> s;
                            rng_v x0 = rv_set32(w[0]);
                            for (std::size_t i = 0; i < G; ++i, x0 = rv_add32(x0, step)) {
                                s[2 * i] = head(rv_add32(x0, ve));
                                s[2 * i + 1] = head(rv_add32(x0, vo));
                            }
                            philox_eo_rounds<2, mem ? 9 : 10>(s, ks);
                            auto finish_all = [&]<std::size_t... I>(std::index_sequence<I...>) XLET_RNG_INLINE {
                                (finish(b + I, s[2 * I], s[2 * I + 1]), ...); // unrolled: s stays in registers
                            };
                            finish_all(std::make_index_sequence<G>{});
                        };
                        if (g == philox_group)
                            run(std::integral_constant<std::size_t, philox_group>{});
                        else
                            run(std::integral_constant<std::size_t, 1>{}), g = 1;
                        b += g;
                        continue;
                    }
                    // Counters carrying into x1..x3: every lane's words through memory.
                    alignas(64) std::array<std::array<std::uint64_t, rng_lanes / 2>, 8> a{};
                    for (std::size_t j = 0; j < rng_lanes / 2; ++j) {
                        const auto we = c.plus(offs[j]).words(), wo = c.plus(offo[j]).words();
                        for (std::size_t k = 0; k < 4; ++k) {
                            a[k][j] = we[k];
                            a[4 + k][j] = wo[k];
                        }
                    }
                    std::array<philox_set, 2> s;
                    for (std::size_t k = 0; k < 4; ++k) {
                        s[0].x[k] = rv_load(a[k].data());
                        s[1].x[k] = rv_load(a[4 + k].data());
                    }
                    philox_eo_rounds<0, mem ? 9 : 10>(s, ks);
                    finish(b, s[0], s[1]);
                    ++b;
                }
            });
#else
    const rng_u32 perm = rng_u32::load_unaligned(rng_perm4.data());
    rng_for(nblocks, std::max<std::size_t>(1, rng_task_words / block), nwords >= rng_parallel_words,
            [&](std::size_t b0, std::size_t b1) {
                for (std::size_t b = b0; b < b1; ++b) {
                    const u128_counter c = base.plus(b * rng_lanes);
                    std::array<rng_u32, 4> x;
                    const auto w = c.words();
                    if (w[0] <= 0xffffffffu - (rng_lanes - 1)) {
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
                    philox_simd(x, key[0], key[1]);
                    if constexpr (rng_word_fn<F>) {
                        for (auto& v : x)
                            v = f.word(v);
                    } else {
                        f(x);
                    }
                    store(b, transpose4(x));
                }
            });
#endif
    rng_fence(stream);
}

// ThreeFry counters are u64 (low word x0, high word x1), wrapping modulo 2^64: lane l of block g
// holds counter c + g L + perm[l].
template<std::size_t G>
inline void threefry_counters(std::uint64_t c, const std::array<std::uint32_t, rng_lanes>& perm,
                              std::array<rng_u32, G>& x0, std::array<rng_u32, G>& x1) {
    const auto lo = static_cast<std::uint32_t>(c);
    if (lo <= 0xffffffffu - (G * rng_lanes - 1)) { // no carry into the high words
        const rng_u32 p = rng_u32::load_unaligned(perm.data()) + rng_u32(lo);
        const rng_u32 h(static_cast<std::uint32_t>(c >> 32));
        for (std::size_t g = 0; g < G; ++g) {
            x0[g] = p + rng_u32(static_cast<std::uint32_t>(g * rng_lanes));
            x1[g] = h;
        }
        return;
    }
    for (std::size_t g = 0; g < G; ++g) {
        alignas(64) std::array<std::uint32_t, rng_lanes> a{}, b{};
        for (std::size_t l = 0; l < rng_lanes; ++l) {
            const std::uint64_t cl = c + g * rng_lanes + perm[l];
            a[l] = static_cast<std::uint32_t>(cl);
            b[l] = static_cast<std::uint32_t>(cl >> 32);
        }
        x0[g] = rng_u32::load_aligned(a.data());
        x1[g] = rng_u32::load_aligned(b.data());
    }
}

// Register blocks per ThreeFry step (independent add-rotate-xor chains): 2 registers each, so 8
// with AVX-512's 32 registers (Zen 5: 4 -> 8 is +12%), 4 with 16.
#if defined(XLET_RNG_THREEFRY_GROUP)
inline constexpr std::size_t threefry_group = XLET_RNG_THREEFRY_GROUP;
#elif defined(__AVX512F__)
inline constexpr std::size_t threefry_group = 8;
#else
inline constexpr std::size_t threefry_group = 4;
#endif

// ThreeFry, interleaved: word i is word i % 2 of threefry2x32(base + i / 2, key), i < nwords.
template<class = void> // (compiled where used: see docs/architecture.md, "Compile time")
void threefry_interleaved(std::array<std::uint32_t, 2> key, std::uint64_t base, std::uint32_t* dst, std::size_t nwords,
                          bool parallel = true) {
    constexpr std::size_t block = 2 * rng_lanes;
    const std::size_t nblocks = (nwords + block - 1) / block;
    const bool stream = nwords * 4 >= rng_stream_bytes;
    rng_for(nblocks, std::max<std::size_t>(1, rng_task_words / block), parallel && nwords >= rng_parallel_words,
            [&](std::size_t b0, std::size_t b1) {
                auto run = [&]<std::size_t G>(std::size_t b) XLET_RNG_INLINE {
                    std::array<rng_u32, G> x0, x1;
                    threefry_counters<G>(base + b * rng_lanes, rng_perm2, x0, x1);
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
                for (; b + threefry_group <= b1; b += threefry_group)
                    run.template operator()<threefry_group>(b);
                for (; b < b1; ++b)
                    run.template operator()<1>(b);
            });
    rng_fence(stream);
}

// ThreeFry, planar: dst0[i] = word 0 and dst1[i] = word 1 (when dst1 is not null) of
// threefry2x32(base + i, key), i < n. One thread (callers split over rows).
template<class = void>
void threefry_planar(std::array<std::uint32_t, 2> key, std::uint64_t base, std::uint32_t* dst0, std::uint32_t* dst1,
                     std::size_t n) {
    auto run = [&]<std::size_t G>(std::size_t at) XLET_RNG_INLINE {
        std::array<rng_u32, G> x0, x1;
        threefry_counters<G>(base + at, rng_perm1, x0, x1);
        threefry_simd<G>(x0, x1, key[0], key[1]);
        for (std::size_t g = 0; g < G; ++g) {
            const std::size_t a = at + g * rng_lanes, m = std::min(rng_lanes, n - a);
            rng_store(dst0 + a, x0[g], m, false);
            if (dst1) rng_store(dst1 + a, x1[g], m, false);
        }
    };
    std::size_t at = 0;
    for (; at + threefry_group * rng_lanes <= n; at += threefry_group * rng_lanes)
        run.template operator()<threefry_group>(at);
    for (; at < n; at += rng_lanes)
        run.template operator()<1>(at);
}

} // namespace xlet::detail
