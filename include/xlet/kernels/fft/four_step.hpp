// The four-step decomposition of one long transform n = n1 x n2 (smooth): column transforms of
// length n1 with the twiddles applied as they are stored, then row transforms of length n2 read
// through the register transposes and written down the columns of the result.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

#include "../../core/block_cache.hpp"
#include "columns.hpp"
#include "driver.hpp"
#include "plan.hpp"
#include "stockham.hpp"
#include "transpose.hpp"

namespace xlet::detail {

// The four-step decomposition of one long transform, n = n1 x n2 (both smooth, near sqrt(n)):
// x viewed as [n1][n2]; column DFTs of length n1 over the n2 columns, times W_n^(k1 j2) (a table
// laid out like x) as they are stored into t; DFTs of length n2 along the rows of t, W rows at a
// time transposed in registers, written to the columns of x: X[k2 n1 + k1] = Z[k1][k2].
template<class T>
struct fft_four_plan {
    std::size_t n1 = 0, n2 = 0;
    const fft_plan<T>* p1 = nullptr;
    const fft_plan<T>* p2 = nullptr;
    std::vector<T> wr, wi; // [n1][n2]
    explicit fft_four_plan(std::size_t n) {
        using LD = long double;
        const LD pi = 3.141592653589793238462643383279502884L;
        std::size_t best = 0;
        for (std::size_t a = 2; a * a <= n; ++a)
            if (n % a == 0 && fft_smooth(a) && fft_smooth(n / a)) best = a;
        n1 = best;
        n2 = best ? n / best : 0;
        if (!best) return;
        p1 = &fft_plan_for<T>(n1);
        p2 = &fft_plan_for<T>(n2);
        wr.resize(n);
        wi.resize(n);
        for (std::size_t k1 = 0; k1 < n1; ++k1)
            for (std::size_t j2 = 0; j2 < n2; ++j2) {
                const LD a = -2 * pi * static_cast<LD>(k1 * j2 % n) / static_cast<LD>(n);
                wr[k1 * n2 + j2] = static_cast<T>(std::cos(a));
                wi[k1 * n2 + j2] = static_cast<T>(std::sin(a));
            }
    }
};
template<class T, std::size_t N>
const fft_four_plan<T>& fft_four_of() {
    static const fft_four_plan<T> p(N);
    return p;
}

// Step 3 of the four-step: t is [n1][n2]; its rows, W at a time (register transposes into the
// split block), take DFTs of length n2 whose outputs are written down the columns of x:
// x[k2 * n1 + k1] = DFT(t[k1][.])[k2], conjugated for an inverse and scaled.
template<class T>
void fft_rows_to_columns(const fft_plan<T>& P, const std::complex<T>* t, std::complex<T>* x, std::size_t n1, fft_io io,
                         bool parallel) {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    constexpr std::size_t W = B::size;
    const std::size_t n2 = P.n, rows = fft_block_rows(P), blocks = (n1 + W - 1) / W;
    const T scale = static_cast<T>(io.scale);
    const B sc(scale), sci(io.inverse ? T(0) - scale : scale);
    auto run = [&](std::size_t b0, std::size_t b1) {
        fft_scratch<T> sv(rows, W);
        for (std::size_t b = b0; b < b1; ++b) {
            const std::size_t c0 = b * W, cnt = std::min(W, n1 - c0);
            auto bf = sv.template bufs<B>();
            fft_load_rows<T>(t + c0 * n2, n2, cnt, n2, bf.ar, bf.ai, io.inverse);
            if (cnt == W) { // the last stage writes x
                const fft_block_bufs<B, T> rest{bf.cr, bf.ci, bf.br, bf.bi, nullptr, nullptr};
                fft_block_io<B, T>(P, P.bluestein ? bf : rest, fft_split_rows<B, T>{bf.ar, bf.ai},
                                   fft_complex_out<T>{x + c0, n1, io.inverse, scale});
                continue;
            }
            bool in_b = false;
            fft_block<B, T>(P, bf, in_b);
            const T* rr = in_b ? bf.br : bf.ar;
            const T* ri = in_b ? bf.bi : bf.ai;
            for (std::size_t k = 0; k < n2; ++k) {
                B re = B::load_aligned(rr + k * W), im = B::load_aligned(ri + k * W);
                if (scale != T(1)) {
                    re = re * sc;
                    im = im * sci;
                } else if (io.inverse) {
                    im = B(T(0)) - im;
                }
                alignas(64) std::complex<T> tmp[W];
                CB(re, im).store_aligned(tmp);
                std::copy_n(tmp, cnt, x + k * n1 + c0);
            }
        }
    };
    fft_for(parallel && n1 * n2 * 5 >= fft_parallel_work, blocks, 1, run);
}

template<class T>
void fft_four_step(const fft_four_plan<T>& F, const std::complex<T>* src, std::complex<T>* x, fft_io io,
                   bool parallel = true) {
    const std::size_t n1 = F.n1, n2 = F.n2, n = n1 * n2;
    // step 1 (inverse: conj in, conj out, so t holds the unscaled inverse column transforms), with
    // step 2's twiddles W_n^(k1 j2) (conjugated for the inverse) applied as the columns are stored
    scratch<std::complex<T>> t(n);
    fft_axis_columns<T>(*F.p1, src, t.data(), 1, n2, fft_io{io.inverse, 1.0}, parallel, F.wr.data(), F.wi.data());
    // step 3: the rows of t into the columns of x (the transpose rides on the loads), scaled
    fft_rows_to_columns<T>(*F.p2, t.data(), x, n1, io, parallel);
}

} // namespace xlet::detail
