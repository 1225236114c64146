// The choice of path for transforms along the innermost axis, from the static length and the
// run-time count: the four-step or single-transform Bluestein for a few long transforms, else the
// batched rows (two-pass kernel where it applies).
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <complex>
#include <cstddef>

#include "bluestein.hpp"
#include "driver.hpp"
#include "four_step.hpp"
#include "plan.hpp"
#include "rows.hpp"
#include "square.hpp"
#include "two_pass.hpp"

namespace xlet::detail {

// DFT along the innermost axis of `count` transforms of length N, in place: the square kernel for
// N = W^2, the four-step for a few long transforms, else the batched transposing path.
template<class T, std::size_t N>
void fft_axis_inner(const std::complex<T>* src, std::complex<T>* data, std::size_t count, fft_io io,
                    bool parallel = true) {
    constexpr std::size_t W = xsimd::batch<T>::size;
    if constexpr (N <= 1) {
        for (std::size_t i = 0; i < count * N; ++i)
            data[i] = src[i] * static_cast<T>(io.scale);
    } else if constexpr (fft_square_ok<T>() && N == W * W) {
        fft_axis_rows_square<T>(src, data, count, io, parallel);
    } else if constexpr (fft_square4_ok<T>() && N == 4 * W * W) {
        fft_axis_rows_square4<T>(src, data, count, io, parallel);
    } else if constexpr (fft_square16_ok<T>() && N == 16 * W * W) {
        fft_axis_rows_square16<T>(src, data, count, io, parallel);
    } else {
        if constexpr (N >= 256 && fft_smooth(N)) {
            if (count < W) {
                const auto& F = fft_four_of<T, N>();
                if (F.n1 >= 8) {
                    for (std::size_t i = 0; i < count; ++i)
                        fft_four_step<T>(F, src + i * N, data + i * N, io, parallel);
                    return;
                }
            }
        }
        if constexpr (N >= 32 && !fft_smooth(N)) {
            if (count < W) {
                const auto& P = fft_plan_of<T, N>();
                const auto& F = fft_four_of<T, fft_pow2_at_least(2 * N - 1)>();
                for (std::size_t i = 0; i < count; ++i)
                    fft_bluestein_one<T>(P, F, src + i * N, data + i * N, io, parallel);
                return;
            }
        }
        if constexpr (fft_two_pass_split(N).first != 0)
            fft_axis_rows_two_pass<T, N>(src, data, count, io, parallel);
        else
            fft_axis_rows<T>(fft_plan_of<T, N>(), src, data, count, io, parallel);
    }
}

} // namespace xlet::detail
