// Batched transforms along the innermost (contiguous) axis: W transforms at a time moved into the
// split block by register transposes and back, on the column kernel, or on the two-pass kernel for
// powers of two 4 <= n <= 256.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <complex>
#include <cstddef>

#include "driver.hpp"
#include "plan.hpp"
#include "stockham.hpp"
#include "transpose.hpp"
#include "two_pass.hpp"

#define XLET_FFT_INLINE __attribute__((always_inline)) // why: see simd.hpp

namespace xlet::detail {

// DFT along the innermost axis (contiguous) of `count` transforms (plan P, length n), src to data
// (may be equal): W transforms at a time go through register transposes straight into the split
// block and back (the last group may have fewer, on zero lanes).
template<class T>
void fft_axis_rows(const fft_plan<T>& P, const std::complex<T>* src, std::complex<T>* data, std::size_t count,
                   fft_io io, bool parallel = true) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    const std::size_t n = P.n;
    const std::size_t rows = fft_block_rows(P);
    const std::size_t groups = (count + W - 1) / W;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        fft_scratch<T> sv(rows, W);
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t cnt = std::min(W, count - t * W); // the last group may be partial
            auto bf = sv.template bufs<B>();
            fft_load_rows<T>(src + t * W * n, n, cnt, n, bf.ar, bf.ai, io.inverse);
            bool in_b = false;
            fft_block<B, T>(P, bf, in_b);
            fft_store_rows<T>(in_b ? bf.br : bf.ar, in_b ? bf.bi : bf.ai, n, data + t * W * n, n, cnt, io.inverse,
                              scale);
        }
    };
    const std::size_t work = count * n * 5;
    fft_for(parallel && work >= fft_parallel_work, groups, 1, run);
}

// fft_axis_rows for a length N with a two-pass split (a power of two, 4 <= N <= 256): the same
// transposed loads and stores around fft_two_pass on one buffer.
template<class T, std::size_t N>
void fft_axis_rows_two_pass(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                            bool parallel) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    constexpr std::size_t R1 = fft_two_pass_split(N).first, R2 = fft_two_pass_split(N).second;
    static const fft_two_pass_tw<T> tw(R1, R2);
    const std::size_t groups = (count + W - 1) / W;
    const T scale = static_cast<T>(io.scale);
    auto run = [&](std::size_t t0, std::size_t t1) {
        fft_scratch<T> sv(N, W);
        T* ar = sv.p;
        T* ai = sv.p + sv.stride;
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t cnt = std::min(W, count - t * W);
            fft_load_rows<T>(src + t * W * N, N, cnt, N, ar, ai, io.inverse);
            // While the block is transformed, fetch its output lines for writing (prefetchw,
            // spread over the R1 + R2 steps): the stores then do not wait on a read for ownership
            // one line at a time, W transforms apart. Zen 5, 4096 x 256 c64: 1 thread 670 -> 500
            // us, 2 threads 284 -> 245 (prefetching the next block's input as well, or into L2
            // only, gained nothing more).
            constexpr std::size_t lines = W * N * sizeof(std::complex<T>) / 64, steps = R1 + R2;
            const char* o = reinterpret_cast<const char*>(data + t * W * N);
            fft_two_pass<R1, R2, T>(ar, ai, tw, [&](std::size_t s) XLET_FFT_INLINE {
                if (cnt == W)
                    for (std::size_t l = s * lines / steps; l < (s + 1) * lines / steps; ++l)
                        __builtin_prefetch(o + l * 64, 1, 2);
            });
            fft_store_rows<T>(ar, ai, N, data + t * W * N, N, cnt, io.inverse, scale, fft_two_pass_row<R1, R2>{});
        }
    };
    fft_for(parallel && count * N * 5 >= fft_parallel_work, groups, 1, run);
}

} // namespace xlet::detail

#undef XLET_FFT_INLINE
