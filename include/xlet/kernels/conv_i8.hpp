// Direct 8-bit convolution (no op-level API; quant/conv.hpp drives it): the float convolution's
// scheme (kernels/conv.hpp) on the 8-bit GEMM's register tile (kernels/gemm_i8.hpp: MR x NB
// vectors of int32 sums, G k per packed 32-bit word; AVX-512 VNNI 14 x 32 with G = 4, AVX2 6 x 16
// with G = 2). On the canonical buffers of kernels/conv.hpp (stored integers; padding and holes
// hold the lhs zero point):
//   conv_i8_prepare   the input for the ISA, once per call: VNNI (vpdpbusd multiplies unsigned
//                     bytes by signed ones) the bytes xor 0x80, in place: an s8 input becomes the
//                     unsigned operand (x + 128) against the s8 kernel, a u8 input the signed one
//                     (x - 128) against the u8 kernel; the change is undone by a per-feature
//                     constant, conv_i8_correction * (the feature's kernel column sum), which the
//                     caller adds to its epilogue's offsets. AVX2 (vpmaddwd): widened to int16.
//   conv_i8_pack      the kernel [K][o] (K = taps x ci) per group into NR-column slivers with
//                     gemm_i8_pack, run by run (below), k-major, zero padded.
//   conv_i8_direct    the tiles: rows are MR consecutive output positions along the innermost
//                     spatial dimension, columns NR output features. A is never packed: the word of
//                     k group (run, g) of row i is read in place at in + line + i * RS + off(run) +
//                     G g (RS = stride * c). k runs over the runs of kernels/conv.hpp (contiguous
//                     stretches of a window: 3 x 64 = 192 k per kernel row of a 3x3 over 64
//                     features, 7 x 3 = 21 of a 7x7 stem), each rounded up to whole groups: its last
//                     word reads up to G - 1 values past the run (the next position's, or the
//                     buffer's G spare elements), which meet zero kernel entries and add nothing.
//                     The alternative, copying a small A panel where a run is not a multiple of G,
//                     costs a copy per tile and run; the rounding costs multiply lanes only where a
//                     run is short (the stem: 21 -> 24 k, 12.5% of its lanes) and no code.
//                     Each finished tile goes to the caller's epilogue (gemm_i8_tile_out, the
//                     store path of gemm_i8_micro): epi(line, x0, j0, sums, NR, rows, cols), rows
//                     [x0, x0 + rows) of the line, features [j0, j0 + cols) of its group, each once,
//                     from the task that computed it. k is not split (the kernel's sliver, K x NR,
//                     stays in L2 for the kernels the tile is for: 3x3 x 512 features is 144 KiB),
//                     so there are no partial sums in memory.
// Threads: TBB over the output lines (conv_for_lines, its thresholds divided by G: the tile does G
// multiply-adds per lane and instruction). The sums are exact mod 2^32: any thread count, the same
// bits, and the same as the im2col path's GEMM.
#pragma once
#include "conv.hpp"
#include "gemm_i8.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace xlet::detail {

#ifdef XLET_GEMM_I8_KERNEL

// The prepared input's element: a byte xor 0x80 (VNNI) or an int16.
using conv_i8_elem = std::conditional_t<gemm_i8_isa::vnni, std::uint8_t, std::int16_t>;
// Spare elements after the prepared input: the last word of a run may reach G - 1 past it.
inline constexpr std::size_t conv_i8_spare = gemm_i8_isa::G;

// The VNNI flip's correction factor for storage S (0 without VNNI): the sums over the prepared
// input plus conv_i8_correction<S> * (the kernel column's sum) are the sums over the stored ones.
template<class S>
inline constexpr std::int32_t conv_i8_correction = !gemm_i8_isa::vnni    ? 0
                                                   : std::is_signed_v<S> ? -128
                                                                         : 128;

// in: n stored integers and room for conv_i8_spare more. VNNI flips them in place and returns
// them; AVX2 widens them into dst (room for n + conv_i8_spare) and returns dst. The spare
// elements are zeroed.
template<class S>
const conv_i8_elem* conv_i8_prepare(S* in, std::size_t n, [[maybe_unused]] conv_i8_elem* dst) {
#if defined(__AVX512VNNI__) // (gemm_i8_isa::vnni)
    auto* b = reinterpret_cast<std::uint8_t*>(in);
    for (std::size_t i = 0; i < n; ++i)
        b[i] ^= 0x80u;
    std::fill_n(b + n, conv_i8_spare, std::uint8_t{0});
    return b;
#else
    for (std::size_t i = 0; i < n; ++i)
        dst[i] = static_cast<std::int16_t>(in[i]);
    std::fill_n(dst + n, conv_i8_spare, std::int16_t{0});
    return dst;
#endif
}

struct conv_i8_run {
    std::ptrdiff_t off = 0;      // input offset of the run's first k
    std::size_t k0 = 0, len = 0; // its first k (row of the kernel) and length
    std::size_t groups = 0;      // words: len rounded up to whole k groups
};

template<conv_geom Gm>
struct conv_i8_layout {
    using L = conv_layout_of<Gm>;
    using Rn = conv_runs<Gm, std::size_t(-1)>;
    static constexpr std::size_t G = gemm_i8_isa::G, NR = gemm_i8_blocking::NR;
    static constexpr std::array<conv_i8_run, Rn::count> runs = [] {
        std::array<conv_i8_run, Rn::count> r{};
        std::size_t k = 0;
        for (std::size_t i = 0; i < Rn::count; ++i) {
            r[i] = {Rn::runs[i].off, k, Rn::runs[i].len, (Rn::runs[i].len + G - 1) / G};
            k += Rn::runs[i].len;
        }
        return r;
    }();
    static constexpr std::size_t words = [] { // k groups of a sliver
        std::size_t w = 0;
        for (const conv_i8_run& r : runs)
            w += r.groups;
        return w;
    }();
    static constexpr std::size_t slivers = (L::og + NR - 1) / NR; // per group
    static constexpr std::size_t packed_words = Gm.groups * slivers * words * NR;
};

// The kernel w [K][o] (stored integers, window reversal applied) into dst (packed_words words,
// 64-byte aligned): group g's sliver j at (g * slivers + j) * words * NR, its runs one after another.
template<conv_geom Gm, class S>
void conv_i8_pack(const S* w, std::uint32_t* dst, bool parallel = true) {
    using Ly = conv_i8_layout<Gm>;
    constexpr std::size_t NR = Ly::NR, og = Ly::L::og, ns = Ly::slivers;
    gemm_for(parallel && Ly::L::K * Gm.o >= (std::size_t{1} << 18), Gm.groups * ns, 4,
             [&](std::size_t i0, std::size_t i1) {
                 for (std::size_t it = i0; it < i1; ++it) {
                     const std::size_t g = it / ns, j = it % ns;
                     std::uint32_t* d = dst + it * Ly::words * NR;
                     for (const conv_i8_run& r : Ly::runs) {
                         gemm_i8_pack<NR>(d, w + r.k0 * Gm.o + g * og + j * NR, 1, static_cast<std::ptrdiff_t>(Gm.o),
                                          std::min(NR, og - j * NR), r.len, 0u);
                         d += r.groups * NR;
                     }
                 }
             });
}

// ROWS output positions (input rows RS elements apart) x NR features over every run: the sums to
// epi(x0, j0, tile, NR, ROWS, nr). AU: the input's word is vpdpbusd's unsigned operand.
template<std::size_t ROWS, std::ptrdiff_t RS, bool AU, class Epi>
inline void conv_i8_micro(const conv_i8_elem* a, const conv_i8_run* run, std::size_t nrun,
                          const std::uint32_t* __restrict pb, std::size_t x0, std::size_t j0, std::size_t nr,
                          const Epi& epi) {
    using K = gemm_i8_isa;
    using V = K::vec;
    using Bk = gemm_i8_blocking;
    constexpr std::size_t NB = Bk::NB, NR = Bk::NR, W = Bk::W, G = Bk::G;
    V acc[ROWS][NB];
#pragma GCC unroll 32
    for (std::size_t i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            acc[i][v] = K::zero();
    for (std::size_t r = 0; r < nrun; ++r) {
        const conv_i8_elem* ar = a + run[r].off;
        const std::size_t groups = run[r].groups;
        for (std::size_t g = 0; g < groups; ++g) {
            V b[NB];
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                b[v] = K::load(pb + v * W);
#pragma GCC unroll 32
            for (std::size_t i = 0; i < ROWS; ++i) {
                std::uint32_t word;
                std::memcpy(&word, ar + static_cast<std::ptrdiff_t>(i) * RS, sizeof word);
                const V av = K::set1(word);
#pragma GCC unroll 4
                for (std::size_t v = 0; v < NB; ++v)
                    acc[i][v] = AU ? K::dot(acc[i][v], av, b[v]) : K::dot(acc[i][v], b[v], av);
            }
            ar += G;
            pb += NR;
        }
    }
    gemm_i8_tile_out<ROWS, Epi>(acc, nullptr, 0, false, ROWS, nr, &epi, x0, j0);
}

// The convolution of the prepared input (conv_i8_prepare) with the packed kernel (conv_i8_pack)
// for storage S, every tile to epi(line, x0, j0, sums, lds, rows, cols) (see the header comment).
template<conv_geom Gm, class S, class Epi>
void conv_i8_direct(const conv_i8_elem* in, const std::uint32_t* packed, const Epi& epi, bool parallel = true) {
    using Ly = conv_i8_layout<Gm>;
    using L = typename Ly::L;
    constexpr std::size_t MR = gemm_i8_blocking::MR, NR = Ly::NR, G = Ly::G;
    constexpr bool au = !gemm_i8_isa::vnni || std::is_signed_v<S>; // u8 flipped is the signed side
    constexpr std::size_t og = L::og, ns = Ly::slivers, ow = L::ow, full = ow / MR, tail = ow % MR;
    constexpr std::ptrdiff_t RS = static_cast<std::ptrdiff_t>(Gm.s[Gm.ns - 1] * Gm.c);
    constexpr std::size_t sliver_words = Ly::words * NR;
    const conv_i8_run* run = Ly::runs.data();
    constexpr std::size_t nrun = Ly::runs.size();
    conv_for_lines(L::lines, ow * og * L::K / G, parallel, [&](std::size_t l0, std::size_t l1) {
        // sliver-major, as conv_direct: a sliver stays in L1 over the task's lines
        for (std::size_t j = 0; j < ns; ++j) {
            const std::size_t nr = std::min(NR, og - j * NR);
            for (std::size_t l = l0; l < l1; ++l) {
                const auto at = L::line(l);
                const std::uint32_t* pb = packed + (at.group * ns + j) * sliver_words;
                const conv_i8_elem* a = in + at.in;
                auto tile = [&](std::size_t x0, std::size_t j0, const std::int32_t* s, std::ptrdiff_t lds,
                                std::size_t mr, std::size_t cols) { epi(l, x0, j0, s, lds, mr, cols); };
                for (std::size_t b = 0; b < full; ++b)
                    conv_i8_micro<MR, RS, au>(a + static_cast<std::ptrdiff_t>(b * MR) * RS, run, nrun, pb, b * MR,
                                              j * NR, nr, tile);
                if constexpr (tail > 0)
                    conv_i8_micro<tail, RS, au>(a + static_cast<std::ptrdiff_t>(full * MR) * RS, run, nrun, pb,
                                                full * MR, j * NR, nr, tile);
            }
        }
    });
}

#endif // XLET_GEMM_I8_KERNEL

} // namespace xlet::detail
