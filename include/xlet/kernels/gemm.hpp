// GEMM kernels over strided buffers (no op-level API; ops/linalg/dot.hpp drives them, and a blocked
// cholesky / triangular_solve can call gemm() on sub-blocks):
//
//   gemm<T>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, update, parallel, column_owners)
//     C[i, j] (update) sum_k A[i, k] * B[k, j]        i < m, j < n
//     A[i, k] = a[i * rsa + k * csa], B[k, j] = b[k * rsb + j * csb], C[i, j] = c[i * ldc + j]
//     update: assign (C = AB), add (C = C + AB), subtract (C = C - AB)
//
// f32 and f64 (gemm_fast<T>) take the BLIS-style path below; every other accumulation (integers
// with wrap-around, complex) goes through gemm_generic, a plain blocked loop.
//
// BLIS-style path. For each block of NC columns (jc) and each block of KC steps of k (pc):
//   1. B[pc:pc+kc, jc:jc+nc] is packed into slivers of NR columns (k-major: NR values per k), the
//      last sliver zero-padded; A[0:m, pc:pc+kc] into micro-panels of MR rows (MR values per k), the
//      last one zero-padded. A transposed operand is just other strides here. Row-major A (k
//      contiguous) is interleaved by AVX register transposes, row-major B copied a batch at a time.
//   2. The C block is cut into tasks (whole B slivers first, rows only when the slivers are too few
//      for the threads); each task runs the micro-kernel over its MR x NR tiles in row blocks of
//      at most MC rows (jr outer: one B sliver stays in L1/L2 while the MC x KC block of A streams
//      from L2). k-heavy products with a small C run their k blocks in parallel instead.
//      Column owners: when the tasks split columns only and one thread's share of packed B fits in
//      half an L2 (gemm_own_b_max_bytes), there is one task per thread, step 1 packs A only and
//      each task packs its own slivers first, so packed B never moves between cores and each
//      thread reads the shared packed A once (256 x 512 x 784, the MLP's first layer).
//   3. The micro-kernel keeps an MR x NR tile of C in registers (MR x 2 xsimd batches) and does one
//      FMA per element and k, k in increasing order; a tile on the edge of C is computed whole on
//      the zero-padded panels and only its valid part is written.
//   The task grid (gemm_make_grid) and the block loops over it (gemm_drive) take the packing and the
//   micro-kernel as callbacks: the 8-bit GEMM (kernels/gemm_i8.hpp) runs on the same two.
// Blocking (gemm_blocking: derived from the batch width W and the number of vector registers):
//   MR x NB batches of C in registers, NB = 2: AVX2 (16 ymm) 6 x 16 f32, AVX-512 (32 zmm) 14 x 32
//       f32: 12 / 28 accumulators + 2 B loads + 1 broadcast; two FMA pipes of latency 4 need >= 8.
//   KC: AVX2 256 (a B sliver is 16 KiB, half of L1d); AVX-512 1024 (fewer passes over
//       C, fewer parallel phases; slivers from L2). k is cut into evened blocks of at most KC.
//   MC: the MC x KC block of A is about 144 KiB (AVX2) / 384 KiB (AVX-512), inside L2 next to the
//       streamed B slivers.
//   NC: the packed KC x NC panel of B is shared by both cores in L3.
// Determinism: every element of C is computed by one task with the same instruction sequence
// (acc = 0; acc = fma(a, b, acc) for k in a k block, in order; then C = acc, or C = C +/- acc for
// later k blocks), so the result depends on the shape (and the ISA's KC) and never on the thread count or on where
// the element sits in a tile. K is never split between threads.
// Without an FMA instruction (xsimd's default arch has none), xsimd::fma and gemm_madd both do
// a * b + c with two roundings, so the vector and scalar paths still agree.
// Threads: the packing loops and the task grid run on TBB (inside this_task_arena::isolate, so a
// waiting thread never picks up an unrelated task that could reuse its scratch buffers) when
// m * n * k >= gemm_parallel_work; below it the caller's thread does everything.
// Scratch: packed panels live in per-thread buffers that are reused by later calls (no allocation
// after the first call of a size, up to gemm_keep_bytes per buffer).
#pragma once
#include "../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include "../core/block_cache.hpp"
#include "../eval/parallel.hpp"

namespace xlet::detail {

enum class gemm_update { assign, add, subtract };

// ---- blocking ---------------------------------------------------------------------------------

template<class T>
inline constexpr bool gemm_fast = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Vector registers of the build's widest ISA: 32 with AVX-512 (zmm0-31), else 16.
#if defined(__AVX512F__)
inline constexpr std::size_t gemm_vector_registers = 32;
#else
inline constexpr std::size_t gemm_vector_registers = 16;
#endif

template<class T>
struct gemm_blocking {
    using batch = xsimd::batch<T>;
    static constexpr std::size_t W = batch::size;
    // The register tile: NB batches of B per k and MR rows of A broadcast against them, MR x NB
    // accumulators. Two B loads and one broadcast stay live, plus one spare: MR = (regs - 4) / NB.
    // AVX2 (16 ymm): 6 x 2 = 12 accumulators; AVX-512 (32 zmm): 14 x 2 = 28, which also halves
    // the loads per FMA ((MR + NB) / (MR NB): 0.67 -> 0.57).
    static constexpr std::size_t NB = 2;
    static constexpr std::size_t MR = (gemm_vector_registers - 4) / NB;
    static constexpr std::size_t NR = NB * W;
    // KC: the k steps of one pass over C. AVX2: a B sliver (KC x NR) fills half of a 32 KiB L1d.
    // AVX-512: a long KC (1024 steps: a 128 KiB sliver for f32 and f64) measured best on the
    // reference hosts, because C is then read and written k / KC times instead of k / 256 times
    // and k-heavy products (128 x 128 x 4096) need fewer parallel phases; the sliver is read from
    // L2, which feeds 2 loads per 14 cycles of FMAs easily. (f64 had 512 until the Zen 5 host
    // measured dgemm 1024 on 2 threads at 199 GFLOP/s with 512 and 219 with 1024, 79% -> 86% of
    // its FMA peak, 1 thread unchanged.) gemm() evens k out in blocks of at most KC.
#ifdef XLET_GEMM_KC
    static constexpr std::size_t KC = XLET_GEMM_KC;
#else
    static constexpr std::size_t KC = W * sizeof(T) >= 64 ? 1024 : 256;
#endif
    // The MC x kc block of A (whole micro-panels) stays in L2 while B slivers stream: 144 KiB on
    // AVX2 (Zen 3: 512 KiB of L2), 384 KiB on AVX-512, whose hosts have 1-2 MiB of L2 per core
    // (Zen 5, sgemm 2048 on 2 threads: 144 KiB 408 GFLOP/s = 80% of the FMA peak, 384 KiB 472
    // = 92%: fewer, longer row blocks per B sliver and fewer task boundaries).
    static constexpr std::size_t a_block_bytes = (W * sizeof(T) >= 64 ? 384 : 144) * 1024;
    static constexpr std::size_t mc_for(std::size_t kc) {
        const std::size_t panels = a_block_bytes / (kc * sizeof(T) * MR);
        return (panels == 0 ? 1 : panels) * MR;
    }
    // The packed KC x NC panel of B (3-4 MiB) is shared by the threads in L3.
    static constexpr std::size_t NC = (4096 * 4 / sizeof(T)) / NR * NR;
};

// m * n * k (multiply-adds) from which the gemm uses TBB: about 1 MFLOP, 10 us on one core.
inline constexpr std::size_t gemm_parallel_work = std::size_t{1} << 19;
// Columns of one task (a multiple of NR): with MC rows that is >= 144 x 128 x 256 x 2 = 9 MFLOP.
inline constexpr std::size_t gemm_task_cols = 128;
// C up to this size takes the k-parallel path when k has several blocks (see gemm()).
inline constexpr std::size_t gemm_kpar_max_c_bytes = std::size_t{1} << 20;
// Column owners (see gemm()): a thread packs its own B slivers when its share of the packed panel
// is at most this (half of a 2 MiB L2, beside the streamed A block).
inline constexpr std::size_t gemm_own_b_max_bytes = std::size_t{1} << 20;
// Scratch buffers up to this size stay with their thread for later calls.
inline constexpr std::size_t gemm_keep_bytes = std::size_t{16} << 20;

// a * b + c as the micro-kernel computes it (one rounding with FMA hardware).
template<class T>
inline T gemm_madd(T a, T b, T c) {
#if defined(__FMA__) || defined(__FMA4__)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}

// ---- scratch ----------------------------------------------------------------------------------

struct gemm_slot {
    void* p = nullptr;
    std::size_t bytes = 0;
    bool busy = false;
    gemm_slot() = default;
    gemm_slot(const gemm_slot&) = delete;
    gemm_slot& operator=(const gemm_slot&) = delete;
    ~gemm_slot() {
        if (p) ::operator delete (p, std::align_val_t{64});
    }
};
inline gemm_slot& gemm_thread_slot(int which) {
    thread_local gemm_slot slots[2];
    return slots[which];
}

// A 64-byte aligned buffer: the thread's slot `which` when free (grown as needed), else its own.
template<class T>
class gemm_scratch {
    gemm_slot* slot_ = nullptr;
    std::optional<scratch<T>> own_;
    T* p_ = nullptr;

public:
    gemm_scratch(int which, std::size_t count) {
        const std::size_t bytes = std::max<std::size_t>(64, count * sizeof(T));
        gemm_slot& s = gemm_thread_slot(which);
        if (!s.busy && bytes <= gemm_keep_bytes) {
            if (s.bytes < bytes) {
                if (s.p) ::operator delete (s.p, std::align_val_t{64});
                s.p = nullptr;
                s.bytes = 0;
                s.p = ::operator new (bytes, std::align_val_t{64});
                s.bytes = bytes;
            }
            s.busy = true;
            slot_ = &s;
            p_ = static_cast<T*>(s.p);
        } else {
            // Larger (or the slot is taken): from the block cache, so a repeated call finds its
            // pages mapped (a 4096 x 1024 A panel, 16 MiB, was faulted in afresh on every call).
            own_.emplace(bytes / sizeof(T) + 1);
            p_ = own_->data();
        }
    }
    gemm_scratch(const gemm_scratch&) = delete;
    gemm_scratch& operator=(const gemm_scratch&) = delete;
    ~gemm_scratch() {
        if (slot_) slot_->busy = false;
    }
    T* get() const { return p_; }
};

// f(b, e) over [0, n) in pieces of at least `grain`: on TBB when par, else at once. Par = false:
// never parallel, and TBB's loop is not compiled (static shapes too small to split, see gemm()).
template<bool Par = true, class F>
void gemm_for(bool par, std::size_t n, std::size_t grain, const F& f) {
    if constexpr (Par)
        if (par && n > grain) {
            run_parallel(tbb::blocked_range<std::size_t>(0, n, grain),
                         [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
            return;
        }
    f(std::size_t{0}, n);
}

// ---- packing ----------------------------------------------------------------------------------

// Six rows of A with contiguous k, interleaved into dst[k * 6 + i] for k < the returned count
// (the caller does the rest): register transposes of 8 (f32) or 4 (f64) k at a time. The f32
// form stores 8 lanes per k, of which the last 2 are overwritten by the next k's store, so it
// stops while at least one more k follows (a store never passes the end of the panel).
template<std::size_t MR, class T>
inline std::size_t gemm_pack_rows_avx([[maybe_unused]] T* dst, [[maybe_unused]] const T* const* row,
                                      [[maybe_unused]] std::size_t kc) {
#if defined(__AVX__)
    if constexpr (MR == 6 && std::is_same_v<T, float>) {
        std::size_t p = 0;
        const __m256 z = _mm256_setzero_ps();
        for (; p + 8 < kc; p += 8) {
            const __m256 r0 = _mm256_loadu_ps(row[0] + p), r1 = _mm256_loadu_ps(row[1] + p),
                         r2 = _mm256_loadu_ps(row[2] + p);
            const __m256 r3 = _mm256_loadu_ps(row[3] + p), r4 = _mm256_loadu_ps(row[4] + p),
                         r5 = _mm256_loadu_ps(row[5] + p);
            const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
            const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
            const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
            const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
            const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
            const __m256 s4 = _mm256_shuffle_ps(t4, z, 0x44), s5 = _mm256_shuffle_ps(t4, z, 0xEE);
            const __m256 s6 = _mm256_shuffle_ps(t5, z, 0x44), s7 = _mm256_shuffle_ps(t5, z, 0xEE);
            float* d = dst + p * 6;
            _mm256_storeu_ps(d + 0, _mm256_permute2f128_ps(s0, s4, 0x20));
            _mm256_storeu_ps(d + 6, _mm256_permute2f128_ps(s1, s5, 0x20));
            _mm256_storeu_ps(d + 12, _mm256_permute2f128_ps(s2, s6, 0x20));
            _mm256_storeu_ps(d + 18, _mm256_permute2f128_ps(s3, s7, 0x20));
            _mm256_storeu_ps(d + 24, _mm256_permute2f128_ps(s0, s4, 0x31));
            _mm256_storeu_ps(d + 30, _mm256_permute2f128_ps(s1, s5, 0x31));
            _mm256_storeu_ps(d + 36, _mm256_permute2f128_ps(s2, s6, 0x31));
            _mm256_storeu_ps(d + 42, _mm256_permute2f128_ps(s3, s7, 0x31));
        }
        return p;
    } else if constexpr (MR == 6 && std::is_same_v<T, double>) {
        std::size_t p = 0;
        for (; p + 4 <= kc; p += 4) {
            const __m256d r0 = _mm256_loadu_pd(row[0] + p), r1 = _mm256_loadu_pd(row[1] + p),
                          r2 = _mm256_loadu_pd(row[2] + p);
            const __m256d r3 = _mm256_loadu_pd(row[3] + p), r4 = _mm256_loadu_pd(row[4] + p),
                          r5 = _mm256_loadu_pd(row[5] + p);
            const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
            const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
            const __m256d u0 = _mm256_unpacklo_pd(r4, r5), u1 = _mm256_unpackhi_pd(r4, r5);
            double* d = dst + p * 6;
            _mm256_storeu_pd(d + 0, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm_storeu_pd(d + 4, _mm256_castpd256_pd128(u0));
            _mm256_storeu_pd(d + 6, _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm_storeu_pd(d + 10, _mm256_castpd256_pd128(u1));
            _mm256_storeu_pd(d + 12, _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm_storeu_pd(d + 16, _mm256_extractf128_pd(u0, 1));
            _mm256_storeu_pd(d + 18, _mm256_permute2f128_pd(t1, t3, 0x31));
            _mm_storeu_pd(d + 22, _mm256_extractf128_pd(u1, 1));
        }
        return p;
    }
#endif
    return 0;
}

// Rows [i0, i0 + mr) of A, k in [p0, p0 + kc), as one MR-row micro-panel: dst[k * MR + i].
template<std::size_t MR, class T>
inline void gemm_pack_a_panel(T* dst, const T* a, std::ptrdiff_t rsa, std::ptrdiff_t csa, std::size_t i0,
                              std::size_t mr, std::size_t p0, std::size_t kc) {
    const T* base = a + static_cast<std::ptrdiff_t>(i0) * rsa + static_cast<std::ptrdiff_t>(p0) * csa;
    if (mr == MR && rsa == 1) {
        for (std::size_t p = 0; p < kc; ++p) {
            const T* src = base + static_cast<std::ptrdiff_t>(p) * csa;
            for (std::size_t i = 0; i < MR; ++i)
                dst[p * MR + i] = src[i];
        }
    } else if (mr == MR && csa == 1) {
        const T* row[MR];
        for (std::size_t i = 0; i < MR; ++i)
            row[i] = base + static_cast<std::ptrdiff_t>(i) * rsa;
        std::size_t p = gemm_pack_rows_avx<MR>(dst, row, kc);
        for (; p < kc; ++p)
            for (std::size_t i = 0; i < MR; ++i)
                dst[p * MR + i] = row[i][p];
    } else {
        for (std::size_t p = 0; p < kc; ++p) {
            const T* src = base + static_cast<std::ptrdiff_t>(p) * csa;
            for (std::size_t i = 0; i < MR; ++i)
                dst[p * MR + i] = i < mr ? src[static_cast<std::ptrdiff_t>(i) * rsa] : T(0);
        }
    }
}

// Columns [j0, j0 + nr) of B, k in [p0, p0 + kc), as one NR-column sliver: dst[k * NR + j].
template<std::size_t NR, class T>
inline void gemm_pack_b_sliver(T* dst, const T* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::size_t j0,
                               std::size_t nr, std::size_t p0, std::size_t kc) {
    const T* base = b + static_cast<std::ptrdiff_t>(p0) * rsb + static_cast<std::ptrdiff_t>(j0) * csb;
    if (nr == NR && csb == 1) {
        using B = xsimd::batch<T>;
        constexpr std::size_t W = B::size;
        for (std::size_t p = 0; p < kc; ++p) {
            const T* src = base + static_cast<std::ptrdiff_t>(p) * rsb;
            for (std::size_t j = 0; j < NR; j += W)
                B::load_unaligned(src + j).store_aligned(dst + p * NR + j);
        }
    } else if (nr == NR && rsb == 1) {
        const T* col[NR];
        for (std::size_t j = 0; j < NR; ++j)
            col[j] = base + static_cast<std::ptrdiff_t>(j) * csb;
        for (std::size_t p = 0; p < kc; ++p)
            for (std::size_t j = 0; j < NR; ++j)
                dst[p * NR + j] = col[j][p];
    } else {
        for (std::size_t p = 0; p < kc; ++p) {
            const T* src = base + static_cast<std::ptrdiff_t>(p) * rsb;
            for (std::size_t j = 0; j < NR; ++j)
                dst[p * NR + j] = j < nr ? src[static_cast<std::ptrdiff_t>(j) * csb] : T(0);
        }
    }
}

// Slivers [s0, s1) of the kc x nc panel of B that starts at column jc, sliver s at dst + s * NR * kc.
// Row-major B (csb == 1): the whole slivers are copied one row of k at a time, so the reads run
// along B's rows (s1 - s0 slivers of 128 bytes each per row, not 128 bytes per row a sliver at a
// time); the others, and a last partial sliver, go through gemm_pack_b_sliver.
template<std::size_t NR, class T>
inline void gemm_pack_b_slivers(T* dst, const T* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::size_t jc,
                                std::size_t nc, std::size_t s0, std::size_t s1, std::size_t p0, std::size_t kc) {
    const std::size_t whole = std::min(s1, nc / NR);
    if (csb == 1 && whole > s0 + 1) {
        using B = xsimd::batch<T>;
        constexpr std::size_t W = B::size;
        for (std::size_t p = 0; p < kc; ++p) {
            const T* src = b + static_cast<std::ptrdiff_t>(p0 + p) * rsb + static_cast<std::ptrdiff_t>(jc);
            for (std::size_t s = s0; s < whole; ++s)
                for (std::size_t j = 0; j < NR; j += W)
                    B::load_unaligned(src + s * NR + j).store_aligned(dst + (s * kc + p) * NR + j);
        }
        s0 = whole;
    }
    for (std::size_t s = s0; s < s1; ++s)
        gemm_pack_b_sliver<NR>(dst + s * NR * kc, b, rsb, csb, jc + s * NR, std::min(NR, nc - s * NR), p0, kc);
}

// ---- micro-kernel -----------------------------------------------------------------------------

// The lines of an MR x (NB W) tile of C: a micro-kernel reads (update) or writes it at its end, so
// it starts bringing them in before its k loop.
template<std::size_t MR, std::size_t NB, std::size_t W, class T>
XLET_ALWAYS_INLINE void gemm_prefetch_tile(const T* c, std::ptrdiff_t ldc) {
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            __builtin_prefetch(c + static_cast<std::ptrdiff_t>(i) * ldc + v * W, 1);
}

// C[0:mr, 0:nr] (up)= pa (MR x kc, k-major) * pb (kc x NR, k-major); pa and pb 64-byte aligned.
// The MR x NB accumulators are a fixed-size array indexed only by constants after full unrolling,
// so the compiler keeps them in registers (checked in the generated code: no spills in the k loop).
template<class T>
inline void gemm_micro(std::size_t kc, const T* __restrict pa, const T* __restrict pb, T* c, std::ptrdiff_t ldc,
                       gemm_update up, std::size_t mr, std::size_t nr) {
    using G = gemm_blocking<T>;
    using B = typename G::batch;
    constexpr std::size_t MR = G::MR, NB = G::NB, NR = G::NR, W = G::W;
    B acc[MR][NB];
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i) {
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            acc[i][v] = B(T(0));
    }
    gemm_prefetch_tile<MR, NB, W>(c, ldc);
    for (std::size_t p = 0; p < kc; ++p) {
        B b[NB];
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            b[v] = B::load_aligned(pb + v * W);
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i) {
            const B a(pa[i]);
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                acc[i][v] = xsimd::fma(a, b[v], acc[i][v]);
        }
        pa += MR;
        pb += NR;
    }
    if (mr == MR && nr == NR) {
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i) {
            T* row = c + static_cast<std::ptrdiff_t>(i) * ldc;
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v) {
                if (up == gemm_update::assign)
                    acc[i][v].store_unaligned(row + v * W);
                else if (up == gemm_update::add)
                    (B::load_unaligned(row + v * W) + acc[i][v]).store_unaligned(row + v * W);
                else
                    (B::load_unaligned(row + v * W) - acc[i][v]).store_unaligned(row + v * W);
            }
        }
        return;
    }
    alignas(64) T tile[MR * NR];
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            acc[i][v].store_aligned(tile + i * NR + v * W);
    for (std::size_t i = 0; i < mr; ++i) {
        T* row = c + static_cast<std::ptrdiff_t>(i) * ldc;
        for (std::size_t j = 0; j < nr; ++j) {
            const T v = tile[i * NR + j];
            row[j] = up == gemm_update::assign ? v : up == gemm_update::add ? row[j] + v : row[j] - v;
        }
    }
}

// ---- task grid and block loops (shared by gemm() and gemm_i8()) -------------------------------

// The task grid of one call. Columns are split first: a task owns whole B slivers, so with k-heavy
// products each thread keeps re-reading its own slivers from its own L2 (128 x 128 x 4096: 2 tasks
// of 64 columns scale 1.8x; 10 tasks of 14 rows, each reading all of B, scaled 1.6x). With several
// threads there are at least 2 tasks per thread and, where the slivers allow, a multiple of the
// thread count; rows are split into task blocks only when the columns are too few. Inside a task,
// rows go in blocks of MC (A from L2). An element of C is computed the same way in any task, so the
// grid may follow the thread count.
struct gemm_grid {
    std::size_t nb = 1;  // column blocks (whole slivers) of the task grid
    std::size_t mt = 1;  // row blocks of the task grid
    std::size_t mtr = 0; // rows per task block (whole micro-panels)
    std::size_t mc = 0;  // rows per inner row block
    bool own_b = false;  // column owners: each task packs its own slivers
};
// nc_max: the widest panel of B (a multiple of NR); sliver_bytes: one packed kc_max x NR sliver.
inline gemm_grid gemm_make_grid(std::size_t m, std::size_t MR, std::size_t MC, std::size_t NR, std::size_t nc_max,
                                std::size_t sliver_bytes, bool par, bool column_owners) {
    gemm_grid g;
    const std::size_t mp = (m + MR - 1) / MR;
    const std::size_t threads =
        par ? static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency())) : 1;
    const std::size_t ns_max = (nc_max + NR - 1) / NR;
    g.nb = std::min(ns_max, (nc_max + gemm_task_cols - 1) / gemm_task_cols);
    if (threads > 1) {
        if (ns_max < 2 * threads) {
            g.nb = 1; // too few slivers to share (4096 x 64): rows only, each task reads its own A once
        } else {
            g.nb = std::max(g.nb, 2 * threads);
            while (g.nb < ns_max && g.nb % threads != 0)
                ++g.nb;
        }
        if (g.nb < 2 * threads) g.mt = std::min(mp, (2 * threads + g.nb - 1) / g.nb);
        while (g.mt < mp && (g.mt * g.nb) % threads != 0)
            ++g.mt;
    }
    // Column owners: when the grid splits columns only and a thread's share of the packed B fits in
    // half its L2, there is one task per thread and each task packs its own slivers; the shared
    // pass packs A only. Packed B is then written and read by one core (with the shared pass, a
    // thread read about half its slivers from the other core's L2), and each thread reads the
    // packed A once, not once per task. 256 x 512 x 784 (the MLP's first layer, 800 KiB of B per
    // thread, B re-read by 7 row blocks) on 2 threads: 1.66-1.82x -> 1.89-1.94x (docs/performance.md).
    // Larger shares (64 x 4096 x 256: 2 MiB) keep the shared pass and the finer grid; so do the
    // k-parallel path's blocks (column_owners = false).
    const std::size_t own_share = (ns_max + threads - 1) / threads * sliver_bytes;
    g.own_b = column_owners && threads > 1 && g.mt == 1 && own_share <= gemm_own_b_max_bytes;
    if (g.own_b) g.nb = threads;
    g.mtr = ((mp + g.mt - 1) / g.mt) * MR;
    g.mt = (m + g.mtr - 1) / g.mtr;
    // Inner row blocks of at most MC rows, as even as whole micro-panels allow (256 rows: 2 x 128,
    // not 144 + 112).
    const std::size_t mb = (g.mtr + MC - 1) / MC;
    g.mc = ((g.mtr / MR + mb - 1) / mb) * MR;
    return g;
}

// The block loops over the grid: for each NC block of columns (jc) and kc_max block of k (pc), one
// pass packs B and A, then the tasks run the micro-kernel over their tiles. The callbacks:
//   pack_b(jc, nc, s0, s1, pc, kc)   slivers [s0, s1) of the kc x nc panel of B at column jc (a
//                                    range, so that row-major B can be read along its rows)
//   pack_a(q, pc, kc)                micro-panel q of A (rows q * MR ...)
//   tile(i, j, jc, nc, pc, kc)       the micro-kernel on the tile at row i, panel column j
template<bool Par = true, class PackB, class PackA, class Tile>
void gemm_drive(const gemm_grid& g, std::size_t m, std::size_t n, std::size_t k, std::size_t kc_max, std::size_t MR,
                std::size_t NR, std::size_t NC, bool par, const PackB& pack_b, const PackA& pack_a, const Tile& tile) {
    const std::size_t mp = (m + MR - 1) / MR;
    auto body = [&] {
        for (std::size_t jc = 0; jc < n; jc += NC) {
            const std::size_t nc = std::min(NC, n - jc);
            const std::size_t ns = (nc + NR - 1) / NR; // slivers of B
            for (std::size_t pc = 0; pc < k; pc += kc_max) {
                const std::size_t kc = std::min(kc_max, k - pc);
                // One parallel pass packs both: items [0, ns) are B slivers, [ns, ns + mp) A panels
                // (column owners: A only, from item ns on; the tasks pack B).
                const std::size_t first = g.own_b ? ns : 0;
                gemm_for<Par>(par, ns + mp - first, 4, [&](std::size_t s0, std::size_t s1) {
                    if (first + s0 < ns) pack_b(jc, nc, first + s0, std::min(ns, first + s1), pc, kc);
                    for (std::size_t s = std::max(ns, first + s0); s < first + s1; ++s)
                        pack_a(s - ns, pc, kc);
                });
                const std::size_t cs = (ns + std::min(g.nb, ns) - 1) / std::min(g.nb, ns); // slivers per block
                const std::size_t nbc = (ns + cs - 1) / cs;
                // Row blocks vary fastest, so that a contiguous range of tasks (what one thread
                // gets) covers every row block: uneven row blocks do not load one thread more.
                auto task = [&](std::size_t t0, std::size_t t1) {
                    for (std::size_t t = t0; t < t1; ++t) {
                        const std::size_t r0 = t % g.mt * g.mtr, r1 = std::min(m, r0 + g.mtr);
                        const std::size_t j0 = t / g.mt * cs * NR, j1 = std::min(nc, j0 + cs * NR);
                        if (g.own_b) pack_b(jc, nc, j0 / NR, (j1 + NR - 1) / NR, pc, kc);
                        for (std::size_t i0 = r0; i0 < r1; i0 += g.mc) {
                            const std::size_t i1 = std::min(r1, i0 + g.mc);
                            for (std::size_t j = j0; j < j1; j += NR)
                                for (std::size_t i = i0; i < i1; i += MR)
                                    tile(i, j, jc, nc, pc, kc);
                        }
                    }
                };
                gemm_for<Par>(par, g.mt * nbc, 1, task);
            }
        }
    };
    if constexpr (Par)
        if (par) {
            tbb::this_task_arena::isolate(body);
            return;
        }
    body();
}

// ---- driver (f32, f64) ------------------------------------------------------------------------

// Par = false: the caller knows statically that m * n * k < gemm_parallel_work (so `parallel`
// would change nothing), and the parallel paths are not compiled: a unit with an f32[64,32] x
// [32,64] dot compiled 0.16 s faster.
template<class T, bool Par = true>
requires gemm_fast<T>
void gemm(std::size_t m, std::size_t n, std::size_t k, const T* a, std::ptrdiff_t rsa, std::ptrdiff_t csa, const T* b,
          std::ptrdiff_t rsb, std::ptrdiff_t csb, T* c, std::ptrdiff_t ldc, gemm_update up = gemm_update::assign,
          bool parallel = true, bool column_owners = true) {
    using G = gemm_blocking<T>;
    constexpr std::size_t MR = G::MR, NR = G::NR, KC = G::KC, NC = G::NC;
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (up == gemm_update::assign)
            for (std::size_t i = 0; i < m; ++i)
                std::fill_n(c + static_cast<std::ptrdiff_t>(i) * ldc, n, T(0));
        return;
    }
    const bool par = parallel && m * n * k >= gemm_parallel_work;
    const std::size_t mp = (m + MR - 1) / MR; // micro-panels of A
    const std::size_t kb = (k + KC - 1) / KC; // k blocks, evened out
    const std::size_t kc_max = (k + kb - 1) / kb;
    // k-heavy products with a small C (128 x 128 x 4096): the k blocks run in parallel, block 0
    // into C and the others into partial products that are then added to C in block order. That is
    // the same arithmetic as the sequential passes (C = acc_0; C = C + acc_1; ...), so the result
    // still depends on the shape alone; and each thread packs and reads only its own slices of A
    // and B (splitting C's columns instead scaled 1.6x: every thread read panels the other packed).
    if constexpr (Par)
        if (par && kb >= 2 && m * n * sizeof(T) <= gemm_kpar_max_c_bytes) {
            scratch<T> part((kb - 1) * m * n);
            tbb::this_task_arena::isolate([&] {
                gemm_for(true, kb, 1, [&](std::size_t j0, std::size_t j1) {
                    for (std::size_t j = j0; j < j1; ++j) {
                        const std::size_t p0 = j * kc_max, kc = std::min(kc_max, k - p0);
                        const T* aj = a + static_cast<std::ptrdiff_t>(p0) * csa;
                        const T* bj = b + static_cast<std::ptrdiff_t>(p0) * rsb;
                        // Each block may split further (3 blocks on 2 threads): its grid never
                        // changes its bits, and kc <= KC keeps it a single pass. Its operands are
                        // already per-thread slices, so it keeps the shared packing pass (column
                        // owners measured 1.5-2% slower on 128 x 128 x 4096).
                        if (j == 0)
                            gemm<T>(m, n, kc, aj, rsa, csa, bj, rsb, csb, c, ldc, up, true, false);
                        else
                            gemm<T>(m, n, kc, aj, rsa, csa, bj, rsb, csb, part.data() + (j - 1) * m * n,
                                    static_cast<std::ptrdiff_t>(n), gemm_update::assign, true, false);
                    }
                });
            });
            for (std::size_t j = 1; j < kb; ++j) {
                const T* pj = part.data() + (j - 1) * m * n;
                for (std::size_t i = 0; i < m; ++i) {
                    T* ci = c + static_cast<std::ptrdiff_t>(i) * ldc;
                    const T* qi = pj + i * n;
                    if (up == gemm_update::subtract)
                        for (std::size_t q = 0; q < n; ++q)
                            ci[q] = ci[q] - qi[q];
                    else
                        for (std::size_t q = 0; q < n; ++q)
                            ci[q] = ci[q] + qi[q];
                }
            }
            return;
        }
    const std::size_t MC = G::mc_for(kc_max);
    const std::size_t nc_max = std::min((n + NR - 1) / NR * NR, NC);
    gemm_scratch<T> abuf(0, mp * MR * kc_max);
    gemm_scratch<T> bbuf(1, nc_max * kc_max);
    T* pa = abuf.get();
    T* pb = bbuf.get();
    const gemm_grid grid = gemm_make_grid(m, MR, MC, NR, nc_max, NR * kc_max * sizeof(T), par, column_owners);
    gemm_drive<Par>(
        grid, m, n, k, kc_max, MR, NR, NC, par,
        [&](std::size_t jc, std::size_t nc, std::size_t s0, std::size_t s1, std::size_t pc, std::size_t kc) {
            gemm_pack_b_slivers<NR>(pb, b, rsb, csb, jc, nc, s0, s1, pc, kc);
        },
        [&](std::size_t q, std::size_t pc, std::size_t kc) {
            gemm_pack_a_panel<MR>(pa + q * MR * kc, a, rsa, csa, q * MR, std::min(MR, m - q * MR), pc, kc);
        },
        [&](std::size_t i, std::size_t j, std::size_t jc, std::size_t nc, std::size_t pc, std::size_t kc) {
            const gemm_update u = pc == 0 ? up : (up == gemm_update::subtract ? up : gemm_update::add);
            gemm_micro<T>(kc, pa + i / MR * MR * kc, pb + j / NR * NR * kc,
                          c + static_cast<std::ptrdiff_t>(i) * ldc + static_cast<std::ptrdiff_t>(jc + j), ldc, u,
                          std::min(MR, m - i), std::min(NR, nc - j));
        });
}

// ---- matrix-vector (f32, f64) ------------------------------------------------------------------

// y[i] = sum_k A[i, k] * x[k], i < m; y contiguous. Returns false (nothing done) when neither A's
// rows (csa == 1, x contiguous) nor its columns (rsa == 1) are contiguous: the caller uses gemm().
// Rows contiguous: four lane-wise FMA accumulators over k in steps of 4W, then one over steps of
// W, combined as ((a0 + a1) + (a2 + a3)), reduced across lanes (xsimd::hadd), plus the
// scalar tail summed in order. Columns contiguous: y[i] = fma(A[i, k], x[k], y[i]) for k in
// order. Either way an element's arithmetic depends on m and k only; rows go to TBB when large.
template<class T, bool Par = true> // Par: as gemm()'s, for m * k
requires gemm_fast<T>
bool gemv(std::size_t m, std::size_t k, const T* a, std::ptrdiff_t rsa, std::ptrdiff_t csa, const T* x,
          std::ptrdiff_t incx, T* y, bool parallel = true) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    const bool rows = csa == 1 && incx == 1;
    if (!rows && rsa != 1) return false;
    const bool par = parallel && m * k >= gemm_parallel_work;
    const std::size_t grain = std::max<std::size_t>(W, gemm_parallel_work / 8 / std::max<std::size_t>(1, k) / W * W);
    auto run = [&](const auto& f) {
        if constexpr (Par)
            if (par) {
                tbb::this_task_arena::isolate([&] { gemm_for(true, m, grain, f); });
                return;
            }
        f(std::size_t{0}, m);
    };
    if (rows) {
        run([&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) {
                const T* ar = a + static_cast<std::ptrdiff_t>(i) * rsa;
                B s0(T(0)), s1(T(0)), s2(T(0)), s3(T(0));
                std::size_t p = 0;
                for (; p + 4 * W <= k; p += 4 * W) {
                    s0 = xsimd::fma(B::load_unaligned(ar + p), B::load_unaligned(x + p), s0);
                    s1 = xsimd::fma(B::load_unaligned(ar + p + W), B::load_unaligned(x + p + W), s1);
                    s2 = xsimd::fma(B::load_unaligned(ar + p + 2 * W), B::load_unaligned(x + p + 2 * W), s2);
                    s3 = xsimd::fma(B::load_unaligned(ar + p + 3 * W), B::load_unaligned(x + p + 3 * W), s3);
                }
                for (; p + W <= k; p += W)
                    s0 = xsimd::fma(B::load_unaligned(ar + p), B::load_unaligned(x + p), s0);
                T tail = T(0);
                for (; p < k; ++p)
                    tail = gemm_madd(ar[p], x[p], tail);
                y[i] = xsimd::hadd((s0 + s1) + (s2 + s3)) + tail;
            }
        });
    } else {
        run([&](std::size_t i0, std::size_t i1) {
            std::fill(y + i0, y + i1, T(0));
            for (std::size_t p = 0; p < k; ++p) {
                const T* col = a + static_cast<std::ptrdiff_t>(p) * csa;
                const B xv(x[static_cast<std::ptrdiff_t>(p) * incx]);
                const T xs = x[static_cast<std::ptrdiff_t>(p) * incx];
                std::size_t i = i0;
                for (; i + W <= i1; i += W)
                    xsimd::fma(B::load_unaligned(col + i), xv, B::load_unaligned(y + i)).store_unaligned(y + i);
                for (; i < i1; ++i)
                    y[i] = gemm_madd(col[i], xs, y[i]);
            }
        });
    }
    return true;
}

// ---- generic accumulation (integers, complex, mixed types) -------------------------------------

// acc + a * b in the accumulator type: integers wrap modulo 2^bits (computed unsigned, at least
// 32 bits wide so that no promotion to int can overflow); complex by the textbook formula (no
// C99 Annex G recovery of infinities); floats with two roundings.
template<class Acc>
inline Acc gemm_acc_madd(Acc acc, Acc a, Acc b) {
    if constexpr (std::is_same_v<Acc, bool>) {
        return acc || (a && b);
    } else if constexpr (std::is_integral_v<Acc>) {
        using U = std::conditional_t<(sizeof(Acc) < 4), std::uint32_t, std::make_unsigned_t<Acc>>;
        return static_cast<Acc>(
            static_cast<U>(static_cast<U>(acc) + static_cast<U>(static_cast<U>(a) * static_cast<U>(b))));
    } else if constexpr (is_complex<Acc>) {
        using R = typename Acc::value_type;
        const R re = a.real() * b.real() - a.imag() * b.imag();
        const R im = a.real() * b.imag() + a.imag() * b.real();
        return Acc(acc.real() + re, acc.imag() + im);
    } else {
        return acc + a * b;
    }
}

// C[i, j] = Out(sum_k Acc(A[i, k]) * Acc(B[k, j])), k in increasing order; C row-major (ldc).
// Rows go to TBB when the work is large; each row is computed by one task.
template<class Acc, class T, class Out, class Cvt>
void gemm_generic(std::size_t m, std::size_t n, std::size_t k, const T* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
                  const T* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, Out* c, std::ptrdiff_t ldc, const Cvt& to_out,
                  bool parallel = true) {
    if (m == 0 || n == 0) return;
    constexpr std::size_t JB = 256; // columns accumulated at once (a row of accumulators in L1)
    const bool par = parallel && m * n * std::max<std::size_t>(k, 1) >= gemm_parallel_work / 4;
    auto rows = [&](std::size_t i0, std::size_t i1) {
        Acc acc[JB];
        for (std::size_t i = i0; i < i1; ++i) {
            const T* ar = a + static_cast<std::ptrdiff_t>(i) * rsa;
            for (std::size_t j0 = 0; j0 < n; j0 += JB) {
                const std::size_t nj = std::min(JB, n - j0);
                std::fill_n(acc, nj, Acc{});
                for (std::size_t p = 0; p < k; ++p) {
                    const Acc av = static_cast<Acc>(ar[static_cast<std::ptrdiff_t>(p) * csa]);
                    const T* br = b + static_cast<std::ptrdiff_t>(p) * rsb + static_cast<std::ptrdiff_t>(j0) * csb;
                    if (csb == 1)
                        for (std::size_t j = 0; j < nj; ++j)
                            acc[j] = gemm_acc_madd<Acc>(acc[j], av, static_cast<Acc>(br[j]));
                    else
                        for (std::size_t j = 0; j < nj; ++j)
                            acc[j] = gemm_acc_madd<Acc>(acc[j], av,
                                                        static_cast<Acc>(br[static_cast<std::ptrdiff_t>(j) * csb]));
                }
                Out* cr = c + static_cast<std::ptrdiff_t>(i) * ldc + static_cast<std::ptrdiff_t>(j0);
                for (std::size_t j = 0; j < nj; ++j)
                    cr[j] = to_out(acc[j]);
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

// ---- small static shapes (f32, f64): registers only, no packing, no allocation -----------------

// The batch for rows of N elements: the native one, or the widest narrower one a row fills (an
// f32[4,4] product on AVX-512 ran its 64 FMAs in scalar: 6.9 ns, now 128-bit batches); void when
// none fits (the row is done in scalar).
template<class T, std::size_t N, std::size_t S = xsimd::batch<T>::size>
struct gemm_small_batch {
    using sized = xsimd::make_sized_batch_t<T, S>;
    using type =
        std::conditional_t<(S <= N && !std::is_void_v<sized>), sized, typename gemm_small_batch<T, N, S / 2>::type>;
};
template<class T, std::size_t N>
struct gemm_small_batch<T, N, 1> {
    using type = void;
};

// a * b + c on a gemm_small_batch as gemm_madd computes it: xsimd's fma on the narrower batches
// (sse4_2, its FMA3 form not being among xsimd's architectures) rounds twice.
template<class B>
XLET_ALWAYS_INLINE B gemm_small_fma(const B& a, const B& b, const B& c) {
#if defined(__FMA__)
    using T = typename B::value_type;
    if constexpr (sizeof(B) == 16 && std::is_same_v<T, float>)
        return _mm_fmadd_ps(a, b, c);
    else if constexpr (sizeof(B) == 16 && std::is_same_v<T, double>)
        return _mm_fmadd_pd(a, b, c);
    else if constexpr (sizeof(B) == 32 && std::is_same_v<T, float>)
        return _mm256_fmadd_ps(a, b, c);
    else if constexpr (sizeof(B) == 32 && std::is_same_v<T, double>)
        return _mm256_fmadd_pd(a, b, c);
    else
        return xsimd::fma(a, b, c);
#else
    return xsimd::fma(a, b, c); // a * b + c, as gemm_madd without FMA hardware
#endif
}

// f32 [M,4] x [4,4], A and B contiguous: the native register holds R = lanes / 4 whole rows of C,
// so C is written in whole registers (one 64-byte store for f32[4,4] on AVX-512; rows of 16 bytes
// made the copy of the result that follows wait on store forwarding: 4.9 ns against Eigen's 2.5).
// For each k, a permute spreads a[i][k] over row i's four lanes and B's row k is broadcast to
// every row: still one FMA per k in increasing order per element (the GEMM's bits).
template<std::size_t M>
XLET_ALWAYS_INLINE bool gemm_small_4x4(const float* a, const float* b, float* c) {
#if defined(__AVX512F__)
    if constexpr (M % 4 == 0) {
        for (std::size_t g = 0; g < M; g += 4) {
            const __m512 ar = _mm512_loadu_ps(a + g * 4);
            __m512 acc = _mm512_setzero_ps();
            for (int p = 0; p < 4; ++p) {
                const __m512i idx = _mm512_setr_epi32(p, p, p, p, 4 + p, 4 + p, 4 + p, 4 + p, 8 + p, 8 + p, 8 + p,
                                                      8 + p, 12 + p, 12 + p, 12 + p, 12 + p);
                acc = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx, ar), _mm512_broadcast_f32x4(_mm_loadu_ps(b + p * 4)),
                                      acc);
            }
            _mm512_storeu_ps(c + g * 4, acc);
        }
        return true;
    }
#endif
#if defined(__AVX2__) && defined(__FMA__)
    if constexpr (M % 2 == 0) {
        for (std::size_t g = 0; g < M; g += 2) {
            const __m256 ar = _mm256_loadu_ps(a + g * 4);
            __m256 acc = _mm256_setzero_ps();
            for (int p = 0; p < 4; ++p) {
                const __m256i idx = _mm256_setr_epi32(p, p, p, p, 4 + p, 4 + p, 4 + p, 4 + p);
                acc = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(ar, idx),
                                      _mm256_broadcast_ps(reinterpret_cast<const __m128*>(b + p * 4)), acc);
            }
            _mm256_storeu_ps(c + g * 4, acc);
        }
        return true;
    }
#endif
    (void)a, (void)b, (void)c;
    return false;
}

// C (M x N, row-major, ldc = N) = A * B with the micro-kernel's arithmetic (acc = 0, then one FMA
// per k in increasing order), so for K <= KC it gives the same bits as gemm().
template<std::size_t M, std::size_t N, std::size_t K, class T>
inline void gemm_small(const T* a, std::ptrdiff_t rsa, std::ptrdiff_t csa, const T* b, std::ptrdiff_t rsb,
                       std::ptrdiff_t csb, T* c) {
    using B = typename gemm_small_batch<T, N>::type;
    constexpr std::size_t W = [] {
        if constexpr (std::is_void_v<B>)
            return N + 1; // no batch: the whole row is the scalar rest
        else
            return B::size;
    }();
    constexpr std::size_t NV = N / W; // full batches per row
    if constexpr (std::is_same_v<T, float> && N == 4 && K == 4) {
        if (csa == 1 && rsa == 4 && csb == 1 && rsb == 4 && gemm_small_4x4<M>(a, b, c)) return;
    }
    if (csb == 1) {
        for (std::size_t i = 0; i < M; ++i) {
            const T* ar = a + static_cast<std::ptrdiff_t>(i) * rsa;
            T* cr = c + i * N;
            if constexpr (NV > 0) {
                B acc[NV];
                for (std::size_t v = 0; v < NV; ++v)
                    acc[v] = B(T(0));
                for (std::size_t p = 0; p < K; ++p) {
                    const B av(ar[static_cast<std::ptrdiff_t>(p) * csa]);
                    const T* br = b + static_cast<std::ptrdiff_t>(p) * rsb;
                    for (std::size_t v = 0; v < NV; ++v)
                        acc[v] = gemm_small_fma(av, B::load_unaligned(br + v * W), acc[v]);
                }
                for (std::size_t v = 0; v < NV; ++v)
                    acc[v].store_unaligned(cr + v * W);
            }
            if constexpr (N % W != 0) {
                T acc[N % W] = {};
                for (std::size_t p = 0; p < K; ++p) {
                    const T av = ar[static_cast<std::ptrdiff_t>(p) * csa];
                    const T* br = b + static_cast<std::ptrdiff_t>(p) * rsb + NV * W;
                    for (std::size_t j = 0; j < N % W; ++j)
                        acc[j] = gemm_madd(av, br[j], acc[j]);
                }
                for (std::size_t j = 0; j < N % W; ++j)
                    cr[NV * W + j] = acc[j];
            }
        }
    } else {
        for (std::size_t i = 0; i < M; ++i) {
            const T* ar = a + static_cast<std::ptrdiff_t>(i) * rsa;
            for (std::size_t j = 0; j < N; ++j) {
                const T* bc = b + static_cast<std::ptrdiff_t>(j) * csb;
                T acc = T(0);
                for (std::size_t p = 0; p < K; ++p)
                    acc = gemm_madd(ar[static_cast<std::ptrdiff_t>(p) * csa], bc[static_cast<std::ptrdiff_t>(p) * rsb],
                                    acc);
                c[i * N + j] = acc;
            }
        }
    }
}

} // namespace xlet::detail
