// 8-bit integer GEMM (no op-level API; ops/linalg/dot.hpp and quant/dot.hpp drive it):
//
//   gemm_i8<TA, TB>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel)
//     C[i, j] = sum_k int32(A[i, k]) * int32(B[k, j])  (mod 2^32)      i < m, j < n
//     A[i, k] = a[i * rsa + k * csa], B[k, j] = b[k * rsb + j * csb], C[i, j] = c[i * ldc + j]
//     TA, TB: std::int8_t or std::uint8_t, in any combination.
//   gemm_i8_epilogue<TA, TB>(m, n, k, a, rsa, csa, b, rsb, csb, epi, parallel)
//     the same sums, handed to epi(i, j, s, lds, mr, nr) instead of stored: rows [i, i + mr) and
//     columns [j, j + nr) of C at s[(r - i) * lds + (c - j)], each element exactly once, from the
//     task that computed it (so epi may run on several threads at once, on disjoint blocks).
//     The quantized dot's requantization runs there on a register tile just finished, in L1,
//     instead of in a second pass over an m x n int32 scratch array (which it no longer needs
//     when k is one k block; several k blocks keep their partial sums in one). On the Zen 4 host
//     the time is about the same either way (256 x 512 x 784 on one core: 505 us + a 27 us pass,
//     fused 540 us): the f32 requantization's arithmetic, not the memory pass, is what it costs.
//
// The result is exact (integer sums wrap modulo 2^32 like every integer dot in xlet), so it does not
// depend on the ISA, the blocking, the order of the sums or the thread count.
//
// Design: the f32 GEMM's (kernels/gemm.hpp: its task grid and block loops, gemm_make_grid and
// gemm_drive, are shared). B is packed into slivers of NR columns and A into micro-panels of MR
// rows; a packed word (32 bits) holds G consecutive k of one row or column, the last group of a k
// block zero-padded, and a panel's words go k group by k group: panel[g * MR + i], sliver[g * NR + j].
// The micro-kernel keeps MR x NB vectors of int32 sums of C in registers; per k group it loads NB
// vectors of B, broadcasts one word of A per row and multiplies-adds G k per lane:
//   - AVX-512 VNNI: vpdpbusd (G = 4 bytes per lane; the non-saturating form, so sums wrap like
//     the reference). It multiplies unsigned bytes by signed bytes, so each pair of operand types
//     picks which side is the unsigned one, and where both have the same signedness one side is
//     moved by 128 during packing (xor 0x80) and the change is undone by a correction that the
//     accumulators start from (a sum over the same k block, mod 2^32 like everything else; computed
//     when the panel is packed, by vpdpbusd against bytes of 1, and stored after its words):
//       u8 x s8: A unsigned, B signed, no correction;   s8 x u8: B unsigned, A signed, none;
//       s8 x s8: A + 128 unsigned, start from -128 * (column sums of B);
//       u8 x u8: B - 128 signed,   start from +128 * (row sums of A).
//     The zero padding stays zero after the shift (padding is written after it), so it adds
//     nothing to either side.
//   - AVX2 (and AVX-512 without VNNI): operands sign- or zero-extended to 16 bits during packing and
//     vpmaddwd (G = 2 int16 per lane, exact: |a b| <= 255 * 128, a pair sum fits 17 bits) then
//     vpaddd. vpmaddubsw would take bytes as they are, but it saturates its 16-bit pair sums, and
//     u8 x s8 pairs reach 2 * 255 * 127 > 32767, so it is not exact for full-range data; and it
//     is not faster per multiply-add: it needs a vpmaddwd by ones after it to widen to 32 bits, so
//     both forms issue one multiply instruction per 16 (AVX2) multiply-adds. What the 16-bit form
//     costs is twice the packed bytes per k.
//   - Portable (no AVX2), and products below gemm_i8_small_work: the plain loop (gemm_i8_loop).
// Blocking (gemm_i8_blocking): MR x NB as the f32 GEMM's (NB = 2, MR = (registers - 4) / NB:
// AVX-512 14 x 32 int32, AVX2 6 x 16); the AVX2 tile also needs a register for the vpmaddwd product,
// which the f32 tile's spare gives (12 sums + 2 B + 1 A + 1 product = 16; no spills in the k loop
// with GCC 12 and Clang 14, see gemm_i8_add_into). The
// cache blocking reuses the f32 GEMM's byte budgets, which are tuned per ISA level for the
// project's hosts (xlet reads no cache sizes at run time): a KC x NR sliver of B takes the f32
// sliver's bytes (AVX-512: 128 KiB, KC = 4096 k; AVX2 16 KiB, KC = 512 k), the MC x KC block of A
// the f32 A block's, NC the f32 GEMM's columns.
// Threads: as the f32 GEMM (column owners included), from m * n' * k >= G * gemm_parallel_work (n'
// the columns rounded up to whole slivers, as the tiles compute them): the kernel does G
// multiply-adds per lane and instruction where the f32 one does 1. k is never split.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gemm.hpp"

namespace xlet::detail {

template<class T>
inline constexpr bool gemm_i8_operand = std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>;

// Products below this many multiply-adds take the plain loop (packing costs more than it saves).
inline constexpr std::size_t gemm_i8_small_work = 2048;

// ---- plain loop -------------------------------------------------------------------------------

template<class TA, class TB>
void gemm_i8_loop(std::size_t m, std::size_t n, std::size_t k, const TA* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
                  const TB* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::int32_t* c, std::ptrdiff_t ldc,
                  bool parallel) {
    const bool par = parallel && m * n * std::max<std::size_t>(k, 1) >= gemm_parallel_work / 4;
    auto rows = [&](std::size_t i0, std::size_t i1) {
        for (std::size_t i = i0; i < i1; ++i) {
            std::int32_t* cr = c + static_cast<std::ptrdiff_t>(i) * ldc;
            for (std::size_t j = 0; j < n; ++j)
                cr[j] = 0;
            for (std::size_t p = 0; p < k; ++p) {
                const auto av = static_cast<std::uint32_t>(static_cast<std::int32_t>(
                    a[static_cast<std::ptrdiff_t>(i) * rsa + static_cast<std::ptrdiff_t>(p) * csa]));
                const TB* br = b + static_cast<std::ptrdiff_t>(p) * rsb;
                for (std::size_t j = 0; j < n; ++j)
                    cr[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(cr[j]) +
                                                      av * static_cast<std::uint32_t>(static_cast<std::int32_t>(
                                                               br[static_cast<std::ptrdiff_t>(j) * csb])));
            }
        }
    };
    if (par)
        tbb::this_task_arena::isolate([&] {
            gemm_for(true, m, std::max<std::size_t>(1, gemm_parallel_work / 4 / std::max<std::size_t>(1, n * k)), rows);
        });
    else
        rows(0, m);
}

// ---- ISA: the vector of int32 sums and its multiply-add of G k per lane --------------------------

#if defined(__AVX2__) && !defined(__AVX512VNNI__)
// acc + t (int32 lanes, wrapping), for the 16-bit path's sums. GCC 12 gives vpaddd a new register and
// copies it back, storing some of the 12 / 28 sums to the stack on every k step (measured on
// the 6 x 16 tile); an in-place vpaddd keeps them in registers. Clang allocates the intrinsic well.
template<class V>
XLET_ALWAYS_INLINE V gemm_i8_add_into(V acc, V t) {
#if defined(__GNUC__) && !defined(__clang__)
    asm("vpaddd %1, %0, %0" : "+v"(acc) : "v"(t));
    return acc;
#else
    if constexpr (sizeof(V) == 64)
        return _mm512_add_epi32(acc, t);
    else
        return _mm256_add_epi32(acc, t);
#endif
}
#endif

#if defined(__AVX512BW__)
#define XLET_GEMM_I8_KERNEL 1
struct gemm_i8_isa {
    using vec = __m512i;
#if defined(__AVX512VNNI__)
    static constexpr bool vnni = true;
    static constexpr std::size_t W = 16, G = 4;
#else
    static constexpr bool vnni = false;
    static constexpr std::size_t W = 16, G = 2;
#endif
    static vec zero() { return _mm512_setzero_si512(); }
    static vec set1(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
    static vec load(const void* p) { return _mm512_load_si512(p); }
    static vec loadu(const void* p) { return _mm512_loadu_si512(p); }
    static void store(void* p, vec v) { _mm512_store_si512(p, v); }
    static void storeu(void* p, vec v) { _mm512_storeu_si512(p, v); }
    static vec add(vec x, vec y) { return _mm512_add_epi32(x, y); }
    // VNNI: acc + the sums of G products of the unsigned bytes of u and the signed bytes of s;
    // else of G products of int16 lanes.
    static vec dot(vec acc, vec u, vec s) {
#if defined(__AVX512VNNI__)
        return _mm512_dpbusd_epi32(acc, u, s);
#else
        return gemm_i8_add_into(acc, _mm512_madd_epi16(u, s));
#endif
    }
};
#elif defined(__AVX2__)
#define XLET_GEMM_I8_KERNEL 1
struct gemm_i8_isa {
    using vec = __m256i;
    static constexpr bool vnni = false;
    static constexpr std::size_t W = 8, G = 2;
    static vec zero() { return _mm256_setzero_si256(); }
    static vec set1(std::uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
    static vec load(const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
    static vec loadu(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
    static void store(void* p, vec v) { _mm256_store_si256(static_cast<__m256i*>(p), v); }
    static void storeu(void* p, vec v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
    static vec add(vec x, vec y) { return _mm256_add_epi32(x, y); }
    static vec dot(vec acc, vec x, vec y) { return gemm_i8_add_into(acc, _mm256_madd_epi16(x, y)); }
};
#endif

#ifdef XLET_GEMM_I8_KERNEL

struct gemm_i8_blocking {
    using F = gemm_blocking<float>;
    static constexpr std::size_t W = gemm_i8_isa::W, G = gemm_i8_isa::G;
    static constexpr std::size_t NB = 2;
    static constexpr std::size_t MR = (gemm_vector_registers - 4) / NB;
    static constexpr std::size_t NR = NB * W;
    static constexpr std::size_t k_bytes = 4 / G; // packed bytes per k of one row or column
    // A sliver of B as large as the f32 GEMM's; KC a multiple of G.
    static constexpr std::size_t KC = F::KC * F::NR * sizeof(float) / (NR * k_bytes) / G * G;
    static constexpr std::size_t mc_for(std::size_t kc) {
        const std::size_t panels = F::a_block_bytes / (kc * k_bytes * MR);
        return (panels == 0 ? 1 : panels) * MR;
    }
    static constexpr std::size_t NC = F::NC / NR * NR;
};

// ---- packing ----------------------------------------------------------------------------------

// One k of an operand as its lane in a packed word: a byte xor `flip` (VNNI) or an int16.
template<class T>
inline std::uint32_t gemm_i8_lane(T x, std::uint32_t flip) {
    if constexpr (gemm_i8_isa::vnni)
        return (static_cast<std::uint32_t>(static_cast<std::uint8_t>(x)) ^ flip) & 0xFFu;
    else
        return static_cast<std::uint16_t>(static_cast<std::int16_t>(x));
}

// Lines [l0, l1) x k groups [g0, g1) of a panel, one value at a time (zero past nl and kc).
template<std::size_t L, class T>
inline void gemm_i8_pack_rect(std::uint32_t* dst, const T* src, std::ptrdiff_t ls, std::ptrdiff_t ks, std::size_t nl,
                              std::size_t kc, std::uint32_t flip, std::size_t l0, std::size_t l1, std::size_t g0,
                              std::size_t g1) {
    constexpr std::size_t G = gemm_i8_isa::G, shift = 32 / G;
    for (std::size_t g = g0; g < g1; ++g)
        for (std::size_t l = l0; l < l1; ++l) {
            std::uint32_t w = 0;
            if (l < nl)
                for (std::size_t q = 0; q < G && g * G + q < kc; ++q)
                    w |= gemm_i8_lane(
                             src[static_cast<std::ptrdiff_t>(l) * ls + static_cast<std::ptrdiff_t>(g * G + q) * ks],
                             flip)
                         << (q * shift);
            dst[g * L + l] = w;
        }
}

// Lines contiguous (ls == 1: B row-major, A transposed): the words of whole groups [0, gf) and
// lines [0, lf) (a multiple of 8) of `count` panels side by side, panel q's lines from src + q L
// and its words at dst + q stride. 16 (bytes) or 8 (int16) lines at a time, G rows of k
// interleaved by unpacks (widened to int16 first on the 16-bit path); k groups outermost, so the
// panels of one call read G whole rows of their span at a time.
template<std::size_t L, class T>
inline void gemm_i8_interleave(std::uint32_t* dst, std::size_t stride, const T* src, std::ptrdiff_t ks,
                               std::size_t count, std::size_t lf, std::size_t gf, std::uint32_t flip) {
    constexpr std::size_t G = gemm_i8_isa::G;
    for (std::size_t g = 0; g < gf; ++g)
        for (std::size_t q = 0; q < count; ++q) {
            const T* r = src + static_cast<std::ptrdiff_t>(g * G) * ks + q * L;
            std::uint32_t* dq = dst + q * stride + g * L;
            std::size_t l = 0;
            if constexpr (G == 4)
                for (; l + 16 <= lf; l += 16) {
                    std::uint32_t* d = dq + l;
                    const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + l));
                    const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + ks + l));
                    const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 2 * ks + l));
                    const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 3 * ks + l));
                    const __m128i t0 = _mm_unpacklo_epi8(x0, x1), t1 = _mm_unpackhi_epi8(x0, x1);
                    const __m128i t2 = _mm_unpacklo_epi8(x2, x3), t3 = _mm_unpackhi_epi8(x2, x3);
                    const __m128i f = _mm_set1_epi8(static_cast<char>(flip));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_xor_si128(_mm_unpacklo_epi16(t0, t2), f));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 4), _mm_xor_si128(_mm_unpackhi_epi16(t0, t2), f));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 8), _mm_xor_si128(_mm_unpacklo_epi16(t1, t3), f));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 12), _mm_xor_si128(_mm_unpackhi_epi16(t1, t3), f));
                }
            for (; l < lf; l += 8) {
                std::uint32_t* d = dq + l;
                if constexpr (G == 4) {
                    const __m128i x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + l));
                    const __m128i x1 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + ks + l));
                    const __m128i x2 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + 2 * ks + l));
                    const __m128i x3 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + 3 * ks + l));
                    const __m128i t0 = _mm_unpacklo_epi8(x0, x1), t1 = _mm_unpacklo_epi8(x2, x3);
                    const __m128i f = _mm_set1_epi8(static_cast<char>(flip));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_xor_si128(_mm_unpacklo_epi16(t0, t1), f));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 4), _mm_xor_si128(_mm_unpackhi_epi16(t0, t1), f));
                } else {
                    const __m128i x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + l));
                    const __m128i x1 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + ks + l));
                    const __m128i w0 = std::is_signed_v<T> ? _mm_cvtepi8_epi16(x0) : _mm_cvtepu8_epi16(x0);
                    const __m128i w1 = std::is_signed_v<T> ? _mm_cvtepi8_epi16(x1) : _mm_cvtepu8_epi16(x1);
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_unpacklo_epi16(w0, w1));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 4), _mm_unpackhi_epi16(w0, w1));
                }
            }
        }
}

// Lines [0, nl) of a source (line l, step p at src[l * ls + p * ks]; a row of A or a column of B)
// and steps [0, kc), as L lines of packed words: dst[g * L + l] holds steps G g ... G g + G - 1 of
// line l (their bytes xor flip, or as int16), zero past nl and past kc.
//   k contiguous (ks == 1, A row-major, B transposed): a word is G consecutive values;
//   lines contiguous (ls == 1, B row-major, A transposed): gemm_i8_interleave.
template<std::size_t L, class T>
inline void gemm_i8_pack(std::uint32_t* dst, const T* src, std::ptrdiff_t ls, std::ptrdiff_t ks, std::size_t nl,
                         std::size_t kc, std::uint32_t flip) {
    constexpr std::size_t G = gemm_i8_isa::G;
    const std::size_t gk = (kc + G - 1) / G, gf = kc / G; // groups, whole groups
    std::size_t lf = 0;                                   // lines [0, lf) x groups [0, gf) done fast
    if (ks == 1) {
        lf = nl;
        for (std::size_t l = 0; l < nl; ++l) {
            const T* s = src + static_cast<std::ptrdiff_t>(l) * ls;
            for (std::size_t g = 0; g < gf; ++g) {
                std::uint32_t w;
                if constexpr (G == 4) {
                    std::memcpy(&w, s + g * 4, 4);
                    w ^= flip * 0x01010101u;
                } else {
                    w = gemm_i8_lane(s[g * 2], 0) | gemm_i8_lane(s[g * 2 + 1], 0) << 16;
                }
                dst[g * L + l] = w;
            }
        }
    } else if (ls == 1) {
        lf = nl / 8 * 8;
        gemm_i8_interleave<L>(dst, 0, src, ks, 1, lf, gf, flip);
    }
    gemm_i8_pack_rect<L>(dst, src, ls, ks, nl, kc, flip, lf, L, 0, gk);
    gemm_i8_pack_rect<L>(dst, src, ls, ks, nl, kc, flip, 0, lf, gf, gk);
}

#if defined(__AVX512VNNI__)
// out[l] = scale * (the sum of line l's values) mod 2^32 for the L lines of a packed panel of gk
// groups: the VNNI path's corrections (see the header comment), by vpdpbusd against bytes of 1 on
// the words just packed (their zero padding adds nothing). Unsigned: the words are vpdpbusd's
// unsigned operand (A of u8 x u8), else its signed one (B of s8 x s8); either way unflipped.
template<std::size_t L, bool Unsigned>
inline void gemm_i8_panel_sums(std::uint32_t* out, const std::uint32_t* w, std::size_t gk, std::uint32_t scale) {
    constexpr std::size_t NV = (L + 15) / 16;
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i s[NV];
    for (std::size_t v = 0; v < NV; ++v)
        s[v] = _mm512_setzero_si512();
    auto mask = [](std::size_t v) {
        return static_cast<__mmask16>(v * 16 + 16 <= L ? 0xFFFFu : (1u << (L - v * 16)) - 1u);
    };
    for (std::size_t g = 0; g < gk; ++g)
        for (std::size_t v = 0; v < NV; ++v) {
            const __m512i x = _mm512_maskz_loadu_epi32(mask(v), w + g * L + v * 16);
            s[v] = Unsigned ? _mm512_dpbusd_epi32(s[v], x, ones) : _mm512_dpbusd_epi32(s[v], ones, x);
        }
    for (std::size_t v = 0; v < NV; ++v)
        _mm512_mask_storeu_epi32(out + v * 16, mask(v),
                                 _mm512_mullo_epi32(s[v], _mm512_set1_epi32(static_cast<int>(scale))));
}
#endif

// ---- micro-kernel -----------------------------------------------------------------------------

// Where the sums start: zero, the row corrections after A's panel or the column corrections after
// B's sliver.
enum class gemm_i8_start { zero, rows, cols };

// No epilogue: the sums are stored to C.
struct gemm_i8_store {};

// The end of a register tile of ROWS x NB vectors of sums (gemm_i8_micro's, conv_i8_micro's in
// kernels/conv_i8.hpp): without an epilogue, C[0:mr, 0:nr] (add ? +=, else =) the sums; with one
// (epi non-null), the sums (plus C's partial sums when add) go through a tile on the stack to
// (*epi)(ei, ej, tile, NR, mr, nr) and C is not written (nor read unless add).
template<std::size_t ROWS, class Epi>
XLET_ALWAYS_INLINE void gemm_i8_tile_out(const gemm_i8_isa::vec (&acc)[ROWS][gemm_i8_blocking::NB], std::int32_t* c,
                                         std::ptrdiff_t ldc, bool add, std::size_t mr, std::size_t nr,
                                         [[maybe_unused]] const Epi* epi, [[maybe_unused]] std::size_t ei,
                                         [[maybe_unused]] std::size_t ej) {
    using K = gemm_i8_isa;
    using Bk = gemm_i8_blocking;
    constexpr std::size_t NB = Bk::NB, NR = Bk::NR, W = Bk::W;
    constexpr bool has_epi = !std::is_same_v<Epi, gemm_i8_store>;
    const bool to_epi = has_epi && epi != nullptr;
    if (!to_epi && mr == ROWS && nr == NR) {
#pragma GCC unroll 32
        for (std::size_t i = 0; i < ROWS; ++i) {
            std::int32_t* row = c + static_cast<std::ptrdiff_t>(i) * ldc;
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                K::storeu(row + v * W, add ? K::add(K::loadu(row + v * W), acc[i][v]) : acc[i][v]);
        }
        return;
    }
    alignas(64) std::uint32_t tile[ROWS * NR];
#pragma GCC unroll 32
    for (std::size_t i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            K::store(tile + i * NR + v * W, acc[i][v]);
    if constexpr (has_epi) {
        if (to_epi) {
            if (add)
                for (std::size_t i = 0; i < mr; ++i) {
                    const std::int32_t* row = c + static_cast<std::ptrdiff_t>(i) * ldc;
                    for (std::size_t j = 0; j < nr; ++j)
                        tile[i * NR + j] += static_cast<std::uint32_t>(row[j]);
                }
            (*epi)(ei, ej, reinterpret_cast<const std::int32_t*>(tile), static_cast<std::ptrdiff_t>(NR), mr, nr);
            return;
        }
    }
    for (std::size_t i = 0; i < mr; ++i) {
        std::int32_t* row = c + static_cast<std::ptrdiff_t>(i) * ldc;
        for (std::size_t j = 0; j < nr; ++j)
            row[j] = static_cast<std::int32_t>(tile[i * NR + j] + (add ? static_cast<std::uint32_t>(row[j]) : 0u));
    }
}

// C[0:mr, 0:nr] (add ? +=, else =) pa (gk groups x MR words) * pb (gk groups x NR words), pb 64-byte
// aligned. AU: A's word is vpdpbusd's unsigned operand (else B's). As gemm_micro, the sums are a
// fixed-size array indexed by constants after unrolling, kept in registers. With an epilogue
// (the last k block of gemm_i8_epilogue) they go to it (gemm_i8_tile_out).
template<bool AU, gemm_i8_start Start, class Epi = gemm_i8_store>
inline void gemm_i8_micro(std::size_t gk, const std::uint32_t* __restrict pa, const std::uint32_t* __restrict pb,
                          std::int32_t* c, std::ptrdiff_t ldc, bool add, std::size_t mr, std::size_t nr,
                          [[maybe_unused]] const Epi* epi = nullptr, [[maybe_unused]] std::size_t ei = 0,
                          [[maybe_unused]] std::size_t ej = 0) {
    using K = gemm_i8_isa;
    using V = K::vec;
    using Bk = gemm_i8_blocking;
    constexpr std::size_t MR = Bk::MR, NB = Bk::NB, NR = Bk::NR, W = Bk::W;
    V acc[MR][NB];
    if constexpr (Start == gemm_i8_start::cols) {
        V s[NB];
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            s[v] = K::load(pb + gk * NR + v * W);
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                acc[i][v] = s[v];
    } else {
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i) {
            const V s = Start == gemm_i8_start::rows ? K::set1(pa[gk * MR + i]) : K::zero();
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                acc[i][v] = s;
        }
    }
    constexpr bool has_epi = !std::is_same_v<Epi, gemm_i8_store>;
    if (!has_epi || epi == nullptr || add) gemm_prefetch_tile<MR, NB, W>(c, ldc);
    for (std::size_t p = 0; p < gk; ++p) {
        V b[NB];
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            b[v] = K::load(pb + v * W);
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i) {
            const V a = K::set1(pa[i]);
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                acc[i][v] = AU ? K::dot(acc[i][v], a, b[v]) : K::dot(acc[i][v], b[v], a);
        }
        pa += MR;
        pb += NR;
    }
    gemm_i8_tile_out<MR, Epi>(acc, c, ldc, add, mr, nr, epi, ei, ej);
}

// ---- driver -----------------------------------------------------------------------------------

// c: C (no epilogue), or the partial sums of an epilogue's k blocks but the last (nullptr when k
// is one block).
template<class TA, class TB, class Epi = gemm_i8_store>
void gemm_i8_blocked(std::size_t m, std::size_t n, std::size_t k, const TA* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
                     const TB* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::int32_t* c, std::ptrdiff_t ldc,
                     bool parallel, const Epi* epi = nullptr) {
    using Bk = gemm_i8_blocking;
    constexpr std::size_t MR = Bk::MR, NR = Bk::NR, G = Bk::G, KC = Bk::KC, NC = Bk::NC;
    constexpr bool vnni = gemm_i8_isa::vnni;
    constexpr bool sa = std::is_signed_v<TA>, sb = std::is_signed_v<TB>;
    constexpr bool au = !(vnni && sa && !sb);   // s8 x u8: B is the unsigned operand
    constexpr bool flip_a = vnni && sa && sb;   // s8 x s8: A + 128, start from -128 colsum(B)
    constexpr bool flip_b = vnni && !sa && !sb; // u8 x u8: B - 128, start from +128 rowsum(A)
    constexpr gemm_i8_start start = flip_a ? gemm_i8_start::cols : flip_b ? gemm_i8_start::rows : gemm_i8_start::zero;
    // The work the tiles do, edge padding included: a narrow product (256 x 10 x 512, the MLP's
    // second layer) computes whole NR-column slivers.
    const bool par = parallel && m * ((n + NR - 1) / NR * NR) * k >= G * gemm_parallel_work;
    const std::size_t mp = (m + MR - 1) / MR;
    const std::size_t kb = (k + KC - 1) / KC; // k blocks, evened out in whole groups
    const std::size_t kc_max = ((k + kb - 1) / kb + G - 1) / G * G;
    const std::size_t words = kc_max / G + 1; // words per line of a panel: the groups and a correction
    const std::size_t nc_max = std::min((n + NR - 1) / NR * NR, NC);
    gemm_scratch<std::uint32_t> abuf(0, mp * MR * words);
    gemm_scratch<std::uint32_t> bbuf(1, nc_max * words);
    std::uint32_t* pa = abuf.get();
    std::uint32_t* pb = bbuf.get();
    const gemm_grid grid =
        gemm_make_grid(m, MR, Bk::mc_for(kc_max), NR, nc_max, NR * words * sizeof(std::uint32_t), par, true);
    // Panels of a k block of kc steps are (kc + G - 1) / G + 1 words per line apart.
    auto wk = [](std::size_t kc) { return (kc + G - 1) / G + 1; };
    const std::uint32_t flip_bv = flip_b ? 0x80u : 0u;
    auto b_at = [&](std::size_t pc, std::size_t j) {
        return b + static_cast<std::ptrdiff_t>(pc) * rsb + static_cast<std::ptrdiff_t>(j) * csb;
    };
    auto sliver_sums = [&]([[maybe_unused]] std::uint32_t* d, [[maybe_unused]] std::size_t kc) {
#if defined(__AVX512VNNI__)
        if constexpr (start == gemm_i8_start::cols)
            gemm_i8_panel_sums<NR, false>(d + (wk(kc) - 1) * NR, d, wk(kc) - 1, 0u - 128u);
#endif
    };
    // Slivers [s0, s1). Row-major B: the whole slivers' k groups are interleaved G rows at a time
    // across all of them, so that B is read along its rows (a sliver at a time read 32-byte pieces
    // of 1024 rows; 1024^3 on 2 threads: 82-85% -> 91-93% of the VNNI peak).
    auto slivers = [&](std::size_t jc, std::size_t nc, std::size_t s0, std::size_t s1, std::size_t pc, std::size_t kc) {
        std::size_t s = s0;
        const std::size_t whole = std::min(s1, nc / NR);
        if (csb == 1 && whole > s0 + 1) {
            const std::size_t gf = kc / G;
            gemm_i8_interleave<NR>(pb + s0 * NR * wk(kc), NR * wk(kc), b_at(pc, jc + s0 * NR), rsb, whole - s0, NR, gf,
                                   flip_bv);
            for (; s < whole; ++s) { // the last, partial k group
                std::uint32_t* d = pb + s * NR * wk(kc);
                gemm_i8_pack_rect<NR>(d, b_at(pc, jc + s * NR), 1, rsb, NR, kc, flip_bv, 0, NR, gf, (kc + G - 1) / G);
                sliver_sums(d, kc);
            }
        }
        for (; s < s1; ++s) {
            std::uint32_t* d = pb + s * NR * wk(kc);
            gemm_i8_pack<NR>(d, b_at(pc, jc + s * NR), csb, rsb, std::min(NR, nc - s * NR), kc, flip_bv);
            sliver_sums(d, kc);
        }
    };
    auto panel = [&](std::size_t q, std::size_t pc, std::size_t kc) {
        std::uint32_t* d = pa + q * MR * wk(kc);
        const TA* src = a + static_cast<std::ptrdiff_t>(q * MR) * rsa + static_cast<std::ptrdiff_t>(pc) * csa;
        const std::size_t nl = std::min(MR, m - q * MR);
        gemm_i8_pack<MR>(d, src, rsa, csa, nl, kc, flip_a ? 0x80u : 0u);
#if defined(__AVX512VNNI__)
        if constexpr (start == gemm_i8_start::rows)
            gemm_i8_panel_sums<MR, true>(d + (wk(kc) - 1) * MR, d, wk(kc) - 1, 128u);
#endif
    };
    gemm_drive(grid, m, n, k, kc_max, MR, NR, NC, par, slivers, panel,
               [&](std::size_t i, std::size_t j, std::size_t jc, std::size_t nc, std::size_t pc, std::size_t kc) {
                   const bool last = pc + kc == k;
                   // (no pointer into C when an epilogue takes the only k block: c is null)
                   std::int32_t* ct = epi != nullptr && last && pc == 0 ? nullptr
                                                                        : c + static_cast<std::ptrdiff_t>(i) * ldc +
                                                                              static_cast<std::ptrdiff_t>(jc + j);
                   gemm_i8_micro<au, start, Epi>((kc + G - 1) / G, pa + i / MR * MR * wk(kc), pb + j / NR * NR * wk(kc),
                                                 ct, ldc, pc != 0, std::min(MR, m - i), std::min(NR, nc - j),
                                                 last ? epi : nullptr, i, jc + j);
               });
}

#endif // XLET_GEMM_I8_KERNEL

// ---- entry ------------------------------------------------------------------------------------

template<class TA, class TB>
requires gemm_i8_operand<TA> && gemm_i8_operand<TB>
void gemm_i8(std::size_t m, std::size_t n, std::size_t k, const TA* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
             const TB* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::int32_t* c, std::ptrdiff_t ldc,
             bool parallel = true) {
    if (m == 0 || n == 0) return;
#ifdef XLET_GEMM_I8_KERNEL
    if (k > 0 && m * n * k >= gemm_i8_small_work) {
        gemm_i8_blocked<TA, TB>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel);
        return;
    }
#endif
    gemm_i8_loop<TA, TB>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel);
}

// epi(i, j, s, lds, mr, nr) on the sums of row blocks of a product computed whole into scratch
// (the plain loops' products): rows in tasks when the work is large, as the loops split them.
template<class Product, class Epi>
void gemm_epilogue_after(std::size_t m, std::size_t n, std::size_t k, const Product& product, const Epi& epi,
                         bool parallel) {
    scratch<std::int32_t> c(m * n);
    product(c.data(), static_cast<std::ptrdiff_t>(n));
    const std::size_t grain = std::max<std::size_t>(1, gemm_parallel_work / 4 / std::max<std::size_t>(1, n * k));
    auto rows = [&](std::size_t i0, std::size_t i1) {
        epi(i0, std::size_t{0}, c.data() + i0 * n, static_cast<std::ptrdiff_t>(n), i1 - i0, n);
    };
    if (parallel && m * n * std::max<std::size_t>(k, 1) >= gemm_parallel_work / 4)
        tbb::this_task_arena::isolate([&] { gemm_for(true, m, grain, rows); });
    else
        rows(0, m);
}

template<class TA, class TB, class Epi>
requires gemm_i8_operand<TA> && gemm_i8_operand<TB>
void gemm_i8_epilogue(std::size_t m, std::size_t n, std::size_t k, const TA* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
                      const TB* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, const Epi& epi, bool parallel = true) {
    if (m == 0 || n == 0) return;
#ifdef XLET_GEMM_I8_KERNEL
    if (k > 0 && m * n * k >= gemm_i8_small_work) {
        if (k <= gemm_i8_blocking::KC) { // one k block: no C at all
            gemm_i8_blocked<TA, TB, Epi>(m, n, k, a, rsa, csa, b, rsb, csb, nullptr, 0, parallel, &epi);
        } else {
            scratch<std::int32_t> c(m * n);
            gemm_i8_blocked<TA, TB, Epi>(m, n, k, a, rsa, csa, b, rsb, csb, c.data(), static_cast<std::ptrdiff_t>(n),
                                         parallel, &epi);
        }
        return;
    }
#endif
    gemm_epilogue_after(
        m, n, k,
        [&](std::int32_t* c, std::ptrdiff_t ldc) {
            gemm_i8_loop<TA, TB>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel);
        },
        epi, parallel);
}

} // namespace xlet::detail
