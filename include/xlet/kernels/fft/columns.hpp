// Transforms along an axis with contiguous columns after it (any axis but the innermost, the
// columns of a 2-D transform, the four-step's first step): blocks of W adjacent columns read
// straight from the array into the column kernel, the last partial block padded with zero columns.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <complex>
#include <cstddef>

#include "driver.hpp"
#include "plan.hpp"
#include "stockham.hpp"

namespace xlet::detail {

// DFT along an axis (plan P, length n) with `cols` contiguous columns after it, for `outer`
// slabs: element (o, j, c) at (o * n + j) * cols + c, read from src and written to dst (which may
// be src: every block is read whole before it is written).
// One vector block: W columns read from in (row j at in + j * ist, interleaved complex; conjugated
// for an inverse), transformed, and written to out (row j at out + j * ost), times the optional
// twiddles tw[j * ost] (conjugated for an inverse) and the scale.
template<class T>
inline void fft_vector_block(const fft_plan<T>& P, fft_block_bufs<xsimd::batch<T>, T> bf, const std::complex<T>* in,
                             std::size_t ist, std::complex<T>* out, std::size_t ost, fft_io io, const T* twr,
                             const T* twi) {
    fft_block_io<xsimd::batch<T>, T>(P, bf, fft_complex_in<T>{in, ist, io.inverse},
                                     fft_complex_out<T>{out, ost, io.inverse, static_cast<T>(io.scale), twr, twi});
}

// tw (optional, four-step): each output (j, c) of slab 0 is multiplied by tw[j * cols + c] (split
// re / im tables; conjugated for an inverse transform) as it is stored.
template<class T>
void fft_axis_columns(const fft_plan<T>& P, const std::complex<T>* src, std::complex<T>* dst, std::size_t outer,
                      std::size_t cols, fft_io io, bool parallel = true, const T* twr = nullptr,
                      const T* twi = nullptr) {
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size;
    const std::size_t n = P.n;
    const std::size_t rows = fft_block_rows(P);
    // Blocks of W columns; the last partial one (cols % W) is padded with zero columns (copied in
    // and out one value at a time) so that it also runs on vectors.
    const std::size_t vblocks = cols / W, tail = cols % W;
    const std::size_t per_slab = vblocks + (tail ? 1 : 0);
    const T scale = static_cast<T>(io.scale);
    const bool scaled = io.scale != 1;
    auto run = [&](std::size_t t0, std::size_t t1) {
        fft_scratch<T> sv(rows, W);
        for (std::size_t t = t0; t < t1; ++t) {
            const std::size_t o = t / per_slab, b = t % per_slab;
            const std::complex<T>* in = src + o * n * cols;
            std::complex<T>* out = dst + o * n * cols;
            if (b == vblocks) { // the partial block
                auto bf = sv.template bufs<B>();
                const std::size_t c0 = b * W;
                const T sg = io.inverse ? T(-1) : T(1);
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t v = 0; v < W; ++v) {
                        const std::complex<T> z = v < tail ? in[j * cols + c0 + v] : std::complex<T>{};
                        bf.ar[j * W + v] = z.real();
                        bf.ai[j * W + v] = sg * z.imag();
                    }
                bool in_b = false;
                fft_block<B, T>(P, bf, in_b);
                const T* rr = in_b ? bf.br : bf.ar;
                const T* ri = in_b ? bf.bi : bf.ai;
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t v = 0; v < tail; ++v) {
                        T re = rr[j * W + v], im = sg * ri[j * W + v];
                        if (twr) {
                            const T c = twr[j * cols + c0 + v], d = sg * twi[j * cols + c0 + v];
                            const T x = re * c - im * d;
                            im = re * d + im * c;
                            re = x;
                        }
                        out[j * cols + c0 + v] =
                            scaled ? std::complex<T>(re * scale, im * scale) : std::complex<T>(re, im);
                    }
            } else {
                const std::size_t c0 = b * W;
                fft_vector_block<T>(P, sv.template bufs<B>(), in + c0, cols, out + c0, cols, io,
                                    twr ? twr + c0 : nullptr, twi ? twi + c0 : nullptr);
            }
        }
    };
    const std::size_t tasks = outer * per_slab;
    const std::size_t work = outer * n * cols * 5;
    fft_for(parallel && work >= fft_parallel_work, tasks, 1, run);
}

} // namespace xlet::detail
