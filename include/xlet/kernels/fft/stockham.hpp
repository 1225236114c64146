// The column kernel: a length-n DFT down the rows of a block of V columns in split form, one
// self-sorting mixed-radix Stockham DIT stage per factor of the plan (radix 4, 8, 2 and the odd
// radices in symmetric form), ping-ponging between two block buffers. The load / store policies let
// the first stage read the caller's interleaved data and the last write it. A Bluestein plan runs
// its convolution as two block transforms of the power-of-two length m inside fft_block.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <algorithm>
#include <complex>
#include <cstddef>

#include "plan.hpp"
#include "simd.hpp"

namespace xlet::detail {

// Where a stage reads its rows and writes its results. The middle stages use the split block
// (fft_split_rows); the first stage may read the caller's interleaved complex rows and the last
// write them (fft_complex_in / fft_complex_out), so a column transform makes no separate
// deinterleave or interleave pass over the block.
template<class Vt, class T>
struct fft_split_rows {
    using F = fft_vec<Vt>;
    T* r;
    T* i;
    void load(std::size_t row, Vt& re, Vt& im) const {
        re = F::load(r + row * F::V);
        im = F::load(i + row * F::V);
    }
    void store(std::size_t row, const Vt& re, const Vt& im) const {
        F::store(re, r + row * F::V);
        F::store(im, i + row * F::V);
    }
};
// Row j: W complex at p + j * stride; conjugated for an inverse.
template<class T>
struct fft_complex_in {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    const std::complex<T>* p;
    std::size_t stride;
    bool conj;
    void load(std::size_t row, B& re, B& im) const {
        const CB v = CB::load_unaligned(p + row * stride);
        re = v.real();
        im = conj ? B(T(0)) - v.imag() : v.imag();
    }
};
// Row k: W complex to p + k * stride, conjugated for an inverse, times tw[k * stride] (optional,
// split tables, conjugated for an inverse) and the scale.
template<class T>
struct fft_complex_out {
    using B = xsimd::batch<T>;
    using CB = xsimd::batch<std::complex<T>>;
    std::complex<T>* p;
    std::size_t stride;
    bool conj;
    T scale;
    const T* twr = nullptr;
    const T* twi = nullptr;
    void store(std::size_t row, B re, B im) const {
        if (conj) im = B(T(0)) - im;
        if (twr) {
            const B c = B::load_unaligned(twr + row * stride), d = B::load_unaligned(twi + row * stride);
            fft_twiddle(re, im, c, conj ? B(T(0)) - d : d);
        }
        if (scale != T(1)) {
            re = re * B(scale);
            im = im * B(scale);
        }
        CB(re, im).store_unaligned(p + row * stride);
    }
};

// An odd radix R = 2h + 1 stage (R known at compile time, so the butterfly lives in registers):
// s_t = a_t + a_{R-t}, d_t = a_t - a_{R-t}; b_k = a0 + sum s_t cos(2pi tk/R) - i sum d_t
// sin(2pi tk/R), b_{R-k} the same with + i.
template<std::size_t R, class Vt, class T, class Src, class Dst>
inline void fft_stage_odd(const fft_plan<T>& P, const fft_stage<T>& S, const Src& src, const Dst& dst) {
    constexpr std::size_t h = (R - 1) / 2;
    const std::size_t M = S.M, Lp = S.L / R, Mp = M * R, q = Lp * M;
    const T* twr = P.twr.data() + S.tw;
    const T* twi = P.twi.data() + S.tw;
    const T* cs = P.cs.data() + S.cs;
    Vt c[h][h], sn[h][h]; // c[k-1][t-1] = cos(2pi tk/R), sn likewise
    fft_unroll<h>([&](auto kc) {
        fft_unroll<h>([&](auto tc) {
            c[kc][tc] = Vt(cs[(kc * h + tc) * 2]);
            sn[kc][tc] = Vt(cs[(kc * h + tc) * 2 + 1]);
        });
    });
    for (std::size_t k1 = 0; k1 < Lp; ++k1) {
        const T* wr = twr + k1 * (R - 1);
        const T* wi = twi + k1 * (R - 1);
        for (std::size_t p = 0; p < M; ++p) {
            const std::size_t i0 = k1 * Mp + p, o = k1 * M + p;
            Vt ar[R], ai[R];
            fft_unroll<R>([&](auto tc) { src.load(i0 + tc * M, ar[tc], ai[tc]); });
            if (k1 != 0)
                fft_unroll<R - 1>([&](auto tc) { fft_twiddle(ar[tc + 1], ai[tc + 1], Vt(wr[tc]), Vt(wi[tc])); });
            Vt s_r[h], s_i[h], d_r[h], d_i[h];
            Vt b0r = ar[0], b0i = ai[0];
            fft_unroll<h>([&](auto tc) {
                constexpr std::size_t t = decltype(tc)::value + 1;
                s_r[t - 1] = ar[t] + ar[R - t];
                s_i[t - 1] = ai[t] + ai[R - t];
                d_r[t - 1] = ar[t] - ar[R - t];
                d_i[t - 1] = ai[t] - ai[R - t];
                b0r = b0r + s_r[t - 1];
                b0i = b0i + s_i[t - 1];
            });
            dst.store(o, b0r, b0i);
            fft_unroll<h>([&](auto kc) {
                constexpr std::size_t k = decltype(kc)::value + 1;
                Vt xr = ar[0], xi = ai[0], yr = d_r[0] * sn[k - 1][0], yi = d_i[0] * sn[k - 1][0];
                xr = xsimd::fma(s_r[0], c[k - 1][0], xr);
                xi = xsimd::fma(s_i[0], c[k - 1][0], xi);
                fft_unroll<h - 1>([&](auto tc) {
                    constexpr std::size_t t = decltype(tc)::value + 1;
                    xr = xsimd::fma(s_r[t], c[k - 1][t], xr);
                    xi = xsimd::fma(s_i[t], c[k - 1][t], xi);
                    yr = xsimd::fma(d_r[t], sn[k - 1][t], yr);
                    yi = xsimd::fma(d_i[t], sn[k - 1][t], yi);
                });
                dst.store(o + k * q, xr + yi, xi - yr);       // x - i y
                dst.store(o + (R - k) * q, xr - yi, xi + yr); // x + i y
            });
        }
    }
}

// One Stockham stage: src row k1 * Mp + p + M t -> dst row (k1 + Lp k2) M + p.
template<class Vt, class T, class Src, class Dst>
inline void fft_stage_run(const fft_plan<T>& P, const fft_stage<T>& S, const Src& src, const Dst& dst) {
    const std::size_t r = S.r, M = S.M, Lp = S.L / r, Mp = M * r, q = Lp * M;
    const T* twr = P.twr.data() + S.tw;
    const T* twi = P.twi.data() + S.tw;
    if (r == 4) {
        for (std::size_t k1 = 0; k1 < Lp; ++k1) {
            const Vt w1r(twr[k1 * 3]), w1i(twi[k1 * 3]), w2r(twr[k1 * 3 + 1]), w2i(twi[k1 * 3 + 1]),
                w3r(twr[k1 * 3 + 2]), w3i(twi[k1 * 3 + 2]);
            for (std::size_t p = 0; p < M; ++p) {
                const std::size_t i0 = k1 * Mp + p;
                Vt a0r, a0i, a1r, a1i, a2r, a2i, a3r, a3i;
                src.load(i0, a0r, a0i);
                src.load(i0 + M, a1r, a1i);
                src.load(i0 + 2 * M, a2r, a2i);
                src.load(i0 + 3 * M, a3r, a3i);
                if (k1 != 0) {
                    fft_twiddle(a1r, a1i, w1r, w1i);
                    fft_twiddle(a2r, a2i, w2r, w2i);
                    fft_twiddle(a3r, a3i, w3r, w3i);
                }
                const Vt s02r = a0r + a2r, s02i = a0i + a2i, d02r = a0r - a2r, d02i = a0i - a2i;
                const Vt s13r = a1r + a3r, s13i = a1i + a3i, d13r = a1r - a3r, d13i = a1i - a3i;
                const std::size_t o = k1 * M + p;
                dst.store(o, s02r + s13r, s02i + s13i);
                dst.store(o + q, d02r + d13i, d02i - d13r); // (a0 - a2) - i (a1 - a3)
                dst.store(o + 2 * q, s02r - s13r, s02i - s13i);
                dst.store(o + 3 * q, d02r - d13i, d02i + d13r); // (a0 - a2) + i (a1 - a3)
            }
        }
        return;
    }
    if (r == 8) {
        // DFT8 = two DFT4s (even and odd inputs) joined by w8^k: X_k = E_k + w8^k O_k,
        // X_{k+4} = E_k - w8^k O_k, w8 = (1 - i) / sqrt 2.
        const Vt h(static_cast<T>(0.70710678118654752440084436210484904L));
        for (std::size_t k1 = 0; k1 < Lp; ++k1) {
            for (std::size_t p = 0; p < M; ++p) {
                const std::size_t i0 = k1 * Mp + p;
                Vt ar[8], ai[8];
                fft_unroll<8>([&](auto tc) { src.load(i0 + tc * M, ar[tc], ai[tc]); });
                if (k1 != 0)
                    fft_unroll<7>([&](auto tc) {
                        fft_twiddle(ar[tc + 1], ai[tc + 1], Vt(twr[k1 * 7 + tc]), Vt(twi[k1 * 7 + tc]));
                    });
                // E = DFT4(a0, a2, a4, a6), O = DFT4(a1, a3, a5, a7)
                Vt er[4], ei[4], orr[4], oi[4];
                fft_unroll<2>([&](auto qc) {
                    constexpr std::size_t u = decltype(qc)::value;
                    Vt* yr = u ? orr : er;
                    Vt* yi = u ? oi : ei;
                    const Vt s02r = ar[u] + ar[u + 4], s02i = ai[u] + ai[u + 4];
                    const Vt d02r = ar[u] - ar[u + 4], d02i = ai[u] - ai[u + 4];
                    const Vt s13r = ar[u + 2] + ar[u + 6], s13i = ai[u + 2] + ai[u + 6];
                    const Vt d13r = ar[u + 2] - ar[u + 6], d13i = ai[u + 2] - ai[u + 6];
                    yr[0] = s02r + s13r;
                    yi[0] = s02i + s13i;
                    yr[1] = d02r + d13i;
                    yi[1] = d02i - d13r;
                    yr[2] = s02r - s13r;
                    yi[2] = s02i - s13i;
                    yr[3] = d02r - d13i;
                    yi[3] = d02i + d13r;
                });
                // w8^1 O1 = ((x + y) + i (y - x)) / sqrt2; w8^2 O2 = y - i x; w8^3 O3 = ((y - x) - i (x + y)) / sqrt2
                const Vt t1r = (orr[1] + oi[1]) * h, t1i = (oi[1] - orr[1]) * h;
                const Vt t2r = oi[2], t2i = Vt(T(0)) - orr[2];
                const Vt t3r = (oi[3] - orr[3]) * h, t3i = Vt(T(0)) - (orr[3] + oi[3]) * h;
                const std::size_t o = k1 * M + p;
                dst.store(o, er[0] + orr[0], ei[0] + oi[0]);
                dst.store(o + q, er[1] + t1r, ei[1] + t1i);
                dst.store(o + 2 * q, er[2] + t2r, ei[2] + t2i);
                dst.store(o + 3 * q, er[3] + t3r, ei[3] + t3i);
                dst.store(o + 4 * q, er[0] - orr[0], ei[0] - oi[0]);
                dst.store(o + 5 * q, er[1] - t1r, ei[1] - t1i);
                dst.store(o + 6 * q, er[2] - t2r, ei[2] - t2i);
                dst.store(o + 7 * q, er[3] - t3r, ei[3] - t3i);
            }
        }
        return;
    }
    if (r == 2) {
        for (std::size_t k1 = 0; k1 < Lp; ++k1) {
            const Vt wr(twr[k1]), wi(twi[k1]);
            for (std::size_t p = 0; p < M; ++p) {
                const std::size_t i0 = k1 * Mp + p;
                Vt a0r, a0i, a1r, a1i;
                src.load(i0, a0r, a0i);
                src.load(i0 + M, a1r, a1i);
                if (k1 != 0) fft_twiddle(a1r, a1i, wr, wi);
                const std::size_t o = k1 * M + p;
                dst.store(o, a0r + a1r, a0i + a1i);
                dst.store(o + q, a0r - a1r, a0i - a1i);
            }
        }
        return;
    }
    switch (r) {
    case 3:
        fft_stage_odd<3, Vt>(P, S, src, dst);
        break;
    case 5:
        fft_stage_odd<5, Vt>(P, S, src, dst);
        break;
    case 7:
        fft_stage_odd<7, Vt>(P, S, src, dst);
        break;
    case 11:
        fft_stage_odd<11, Vt>(P, S, src, dst);
        break;
    default:
        fft_stage_odd<13, Vt>(P, S, src, dst);
        break;
    }
}

// The length-P.n DFT of the block (re, im: [n][V]); a and b are ping-pong buffers of at least
// n rows (Bluestein: P.m rows each, plus a third pair c). Returns which buffer holds the result.
template<class Vt, class T>
struct fft_block_bufs {
    T *ar, *ai, *br, *bi, *cr, *ci;
};

template<class Vt, class T>
inline void fft_block(const fft_plan<T>& P, fft_block_bufs<Vt, T>& B, bool& in_b) {
    using F = fft_vec<Vt>;
    using SR = fft_split_rows<Vt, T>;
    constexpr std::size_t V = F::V;
    if (P.n <= 1) return;
    if (P.bluestein) {
        // a_j = x_j c_j (zero-padded to m), A = DFT_m(a), A *= K, conj -> DFT_m -> conj (inverse,
        // the 1/m is in K), X_k = c_k C_k.
        T* xr = in_b ? B.br : B.ar;
        T* xi = in_b ? B.bi : B.ai;
        const std::size_t n = P.n, m = P.m;
        for (std::size_t j = 0; j < n; ++j) {
            const Vt vr = F::load(xr + j * V), vi = F::load(xi + j * V), cr(P.chr[j]), ci(P.chi[j]);
            F::store(vr * cr - vi * ci, B.cr + j * V);
            F::store(vr * ci + vi * cr, B.ci + j * V);
        }
        std::fill(B.cr + n * V, B.cr + m * V, T(0));
        std::fill(B.ci + n * V, B.ci + m * V, T(0));
        fft_block_bufs<Vt, T> inner{B.cr, B.ci, xr == B.ar ? B.br : B.ar, xr == B.ar ? B.bi : B.ai, nullptr, nullptr};
        bool ib = false;
        fft_block<Vt, T>(*P.inner, inner, ib);
        T* yr = ib ? inner.br : inner.ar;
        T* yi = ib ? inner.bi : inner.ai;
        for (std::size_t j = 0; j < m; ++j) { // times K, conjugated for the inverse transform
            const Vt vr = F::load(yr + j * V), vi = F::load(yi + j * V), kr(P.kr[j]), ki(P.ki[j]);
            F::store(vr * kr - vi * ki, yr + j * V);
            F::store(T(0) - (vr * ki + vi * kr), yi + j * V);
        }
        fft_block_bufs<Vt, T> again{yr, yi, ib ? inner.ar : inner.br, ib ? inner.ai : inner.bi, nullptr, nullptr};
        bool ib2 = false;
        fft_block<Vt, T>(*P.inner, again, ib2);
        const T* zr = ib2 ? again.br : again.ar;
        const T* zi = ib2 ? again.bi : again.ai;
        for (std::size_t k = 0; k < n; ++k) { // X_k = c_k conj(z_k)
            const Vt vr = F::load(zr + k * V), vi = T(0) - F::load(zi + k * V), cr(P.chr[k]), ci(P.chi[k]);
            F::store(vr * cr - vi * ci, xr + k * V);
            F::store(vr * ci + vi * cr, xi + k * V);
        }
        return;
    }
    for (const auto& S : P.stages) {
        if (in_b)
            fft_stage_run<Vt>(P, S, SR{B.br, B.bi}, SR{B.ar, B.ai});
        else
            fft_stage_run<Vt>(P, S, SR{B.ar, B.ai}, SR{B.br, B.bi});
        in_b = !in_b;
    }
}

// The same with the first stage reading `src` and the last writing `dst` (load / store policies
// as above): no pass of its own to fill or empty the block. Bluestein plans and lengths <= 1 go
// through the block.
template<class Vt, class T, class Src, class Dst>
inline void fft_block_io(const fft_plan<T>& P, fft_block_bufs<Vt, T> B, const Src& src, const Dst& dst) {
    using SR = fft_split_rows<Vt, T>;
    const std::size_t ns = P.stages.size();
    if (P.bluestein || ns == 0) {
        const std::size_t n = P.n;
        const SR a{B.ar, B.ai};
        for (std::size_t j = 0; j < n; ++j) {
            Vt re, im;
            src.load(j, re, im);
            a.store(j, re, im);
        }
        bool in_b = false;
        fft_block<Vt, T>(P, B, in_b);
        const SR res = in_b ? SR{B.br, B.bi} : SR{B.ar, B.ai};
        for (std::size_t k = 0; k < n; ++k) {
            Vt re, im;
            res.load(k, re, im);
            dst.store(k, re, im);
        }
        return;
    }
    if (ns == 1) {
        fft_stage_run<Vt>(P, P.stages[0], src, dst);
        return;
    }
    fft_stage_run<Vt>(P, P.stages[0], src, SR{B.ar, B.ai});
    bool in_b = false;
    for (std::size_t i = 1; i + 1 < ns; ++i) {
        if (in_b)
            fft_stage_run<Vt>(P, P.stages[i], SR{B.br, B.bi}, SR{B.ar, B.ai});
        else
            fft_stage_run<Vt>(P, P.stages[i], SR{B.ar, B.ai}, SR{B.br, B.bi});
        in_b = !in_b;
    }
    fft_stage_run<Vt>(P, P.stages[ns - 1], in_b ? SR{B.br, B.bi} : SR{B.ar, B.ai}, dst);
}

// Rows of block scratch for a plan (Bluestein needs m rows in each of three buffer pairs).
template<class T>
std::size_t fft_block_rows(const fft_plan<T>& P) {
    return P.bluestein ? P.m : std::max<std::size_t>(P.n, 1);
}

} // namespace xlet::detail
