// Dense factorisation and triangular-solve kernels on strided buffers (no op-level API;
// ops/linalg/cholesky.hpp drives them). Two kernels, both recursive, with their O(n^3) work in gemm():
//
//   trsm_lower(m, n, t, rst, cst, conj, unit, b, ldb, par)
//     B := T^-1 B, T m x m lower triangular, T[i, j] = t[i * rst + j * cst] (conjugated when
//     conj; the diagonal taken as 1 and not read when unit), B m x n, B[i, j] = b[i * ldb + j].
//     Only T's lower triangle (i >= j, or i > j when unit) is read. Any other case (upper,
//     transposed, right side) is this one on other strides: an upper T with its rows and columns
//     reversed is lower (negative strides, B's rows reversed too).
//   potrf_lower(n, a, lda, work, par) -> bool
//     A = L L^H in place, L lower, reading and writing A's lower triangle; the strict upper
//     triangle is scratch (it ends up holding garbage the caller clears). Returns false at the
//     first pivot that is not > 0 (zero, negative or NaN); A is then partly overwritten.
//
// Recursion (halves rounded to whole base blocks, so the split depends only on the size):
//   trsm:  T = [T11 0; T21 T22]: X1 = T11^-1 B1; B2 -= T21 X1 (gemm); X2 = T22^-1 B2. When large,
//          B's columns are first cut into two independent halves solved side by side on TBB.
//   potrf: L11 = chol(A11); L21 = A21 L11^-H, solved as L11 Y = A21^H on a transposed copy Y
//          (so the solve runs down B's contiguous rows); A22 -= L21 Y (the lower part only:
//          recursive halving down to linalg_syrk_base, whose diagonal blocks are updated whole);
//          L22 = chol(A22).
// The entry points are not inlined: one copy per element type, however many shapes call them
// (compile time), and the call costs nothing next to O(n^3) work.
// Every multiply-add of the blocked parts runs in gemm() (f32, f64) with its determinism (same
// bits for any thread count); complex types use a plain loop. The base cases are:
//   trsm: forward substitution two rows at a time, vectorised across B's columns in fixed
//         chunks of 4 SIMD batches (chunks go to TBB; the chunking never depends on the thread
//         count, and a column gets the same operations whichever chunk or half it falls in).
//   potrf: the row-oriented (Cholesky-Crout) loop with SIMD dot products of contiguous rows.
// Threads: all splits depend only on the sizes and the `par` flag, never on the thread count.
#pragma once
#include "gemm.hpp"
#include "transpose.hpp"

#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace xlet::detail {

// Base sizes: a trsm block of 64 rows keeps 64 x 32 values of B (8 KiB f32) in L1 while it is
// solved; potrf's unblocked part is O(base^2 n) of slower code, so it stays smaller.
inline constexpr std::size_t linalg_trsm_base = 64;
inline constexpr std::size_t linalg_potrf_base = 32;
inline constexpr std::size_t linalg_syrk_base = 64;

template<class T>
inline T linalg_conj(const T& x, bool c) {
    if constexpr (is_complex<T>)
        return c ? std::conj(x) : x;
    else
        return x;
}

// n split into n1 + (n - n1): n1 is half of n's base blocks (rounded down), at least one block.
inline std::size_t linalg_split(std::size_t n, std::size_t base) {
    const std::size_t blocks = (n + base - 1) / base;
    return std::max<std::size_t>(1, blocks / 2) * base;
}

// C (m x n, row-major, ldc) -= op(A) B, op(A)[i, k] = conj?(a[i * rsa + k * csa]), B[k, j] = b[k * rsb + j * csb].
template<class T>
void linalg_sub_product(std::size_t m, std::size_t n, std::size_t k, const T* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
                        bool conj_a, const T* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, T* c, std::ptrdiff_t ldc,
                        bool par) {
    if constexpr (!is_complex<T>) {
        gemm<T>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, gemm_update::subtract, par);
    } else {
        for (std::size_t i = 0; i < m; ++i) {
            T* cr = c + static_cast<std::ptrdiff_t>(i) * ldc;
            for (std::size_t p = 0; p < k; ++p) {
                const T av =
                    linalg_conj(a[static_cast<std::ptrdiff_t>(i) * rsa + static_cast<std::ptrdiff_t>(p) * csa], conj_a);
                const T* br = b + static_cast<std::ptrdiff_t>(p) * rsb;
                for (std::size_t j = 0; j < n; ++j)
                    cr[j] -= av * br[static_cast<std::ptrdiff_t>(j) * csb];
            }
        }
    }
}

// ---- triangular solve ---------------------------------------------------------------------------

// Columns of B solved together in the base case: 4 batches (32 f32 / 16 f64 with AVX).
template<class T>
inline constexpr std::size_t linalg_trsm_cols = is_complex<T> ? 8 : 4 * xsimd::batch<T>::size;

// Base case: forward substitution over m <= linalg_trsm_base rows, chunk by chunk of columns.
// Not inlined: once inlined into a caller with constant tiny sizes, GCC 12 warns (-Warray-bounds)
// about the batch loads of a branch that those sizes never take.
template<class T>
[[gnu::noinline]] void trsm_lower_base(std::size_t m, std::size_t n, const T* t, std::ptrdiff_t rst, std::ptrdiff_t cst,
                                       bool conj, bool unit, T* b, std::ptrdiff_t ldb, bool par) {
    constexpr std::size_t JC = linalg_trsm_cols<T>;
    auto tv = [&](std::size_t i, std::size_t k) {
        return linalg_conj(t[static_cast<std::ptrdiff_t>(i) * rst + static_cast<std::ptrdiff_t>(k) * cst], conj);
    };
    auto row = [&](std::size_t i) { return b + static_cast<std::ptrdiff_t>(i) * ldb; };
    // One column, scalar: the same operations as a SIMD lane (fused when the batch path is).
    auto column = [&](std::size_t j) {
        for (std::size_t i = 0; i < m; ++i) {
            T acc = row(i)[j];
            for (std::size_t k = 0; k < i; ++k) {
                if constexpr (is_complex<T>)
                    acc -= tv(i, k) * row(k)[j];
                else
                    acc = gemm_madd(-tv(i, k), row(k)[j], acc);
            }
            row(i)[j] = unit ? acc : acc / tv(i, i);
        }
    };
    auto chunks = [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t j0 = c * JC, j1 = std::min(n, j0 + JC);
            if constexpr (!is_complex<T>) {
                if (j1 - j0 == JC) {
                    using B = xsimd::batch<T>;
                    constexpr std::size_t W = B::size;
                    // Rows i and i + 1 together: 8 independent FMA chains (4 would leave the
                    // pipes waiting on latency) sharing each load of x_k; row i + 1 takes its
                    // k = i term after row i is done, so each row's operations stay in k order.
                    std::size_t i = 0;
                    for (; i + 2 <= m; i += 2) {
                        T* bi = row(i) + j0;
                        T* bn = row(i + 1) + j0;
                        B a0 = B::load_unaligned(bi), a1 = B::load_unaligned(bi + W);
                        B a2 = B::load_unaligned(bi + 2 * W), a3 = B::load_unaligned(bi + 3 * W);
                        B n0 = B::load_unaligned(bn), n1 = B::load_unaligned(bn + W);
                        B n2 = B::load_unaligned(bn + 2 * W), n3 = B::load_unaligned(bn + 3 * W);
                        for (std::size_t k = 0; k < i; ++k) {
                            const B tk(tv(i, k)), tn(tv(i + 1, k));
                            const T* xk = row(k) + j0;
                            const B x0 = B::load_unaligned(xk), x1 = B::load_unaligned(xk + W);
                            const B x2 = B::load_unaligned(xk + 2 * W), x3 = B::load_unaligned(xk + 3 * W);
                            a0 = xsimd::fnma(tk, x0, a0);
                            a1 = xsimd::fnma(tk, x1, a1);
                            a2 = xsimd::fnma(tk, x2, a2);
                            a3 = xsimd::fnma(tk, x3, a3);
                            n0 = xsimd::fnma(tn, x0, n0);
                            n1 = xsimd::fnma(tn, x1, n1);
                            n2 = xsimd::fnma(tn, x2, n2);
                            n3 = xsimd::fnma(tn, x3, n3);
                        }
                        if (!unit) {
                            const B d(tv(i, i));
                            a0 /= d, a1 /= d, a2 /= d, a3 /= d;
                        }
                        const B tn(tv(i + 1, i));
                        n0 = xsimd::fnma(tn, a0, n0);
                        n1 = xsimd::fnma(tn, a1, n1);
                        n2 = xsimd::fnma(tn, a2, n2);
                        n3 = xsimd::fnma(tn, a3, n3);
                        if (!unit) {
                            const B d(tv(i + 1, i + 1));
                            n0 /= d, n1 /= d, n2 /= d, n3 /= d;
                        }
                        a0.store_unaligned(bi), a1.store_unaligned(bi + W);
                        a2.store_unaligned(bi + 2 * W), a3.store_unaligned(bi + 3 * W);
                        n0.store_unaligned(bn), n1.store_unaligned(bn + W);
                        n2.store_unaligned(bn + 2 * W), n3.store_unaligned(bn + 3 * W);
                    }
                    for (; i < m; ++i) {
                        T* bi = row(i) + j0;
                        B a0 = B::load_unaligned(bi), a1 = B::load_unaligned(bi + W);
                        B a2 = B::load_unaligned(bi + 2 * W), a3 = B::load_unaligned(bi + 3 * W);
                        for (std::size_t k = 0; k < i; ++k) {
                            const B tk(tv(i, k));
                            const T* xk = row(k) + j0;
                            a0 = xsimd::fnma(tk, B::load_unaligned(xk), a0);
                            a1 = xsimd::fnma(tk, B::load_unaligned(xk + W), a1);
                            a2 = xsimd::fnma(tk, B::load_unaligned(xk + 2 * W), a2);
                            a3 = xsimd::fnma(tk, B::load_unaligned(xk + 3 * W), a3);
                        }
                        if (!unit) {
                            const B d(tv(i, i));
                            a0 /= d, a1 /= d, a2 /= d, a3 /= d;
                        }
                        a0.store_unaligned(bi), a1.store_unaligned(bi + W);
                        a2.store_unaligned(bi + 2 * W), a3.store_unaligned(bi + 3 * W);
                    }
                    continue;
                }
            }
            for (std::size_t j = j0; j < j1; ++j)
                column(j);
        }
    };
    const std::size_t nc = (n + JC - 1) / JC;
    const std::size_t chunk_work = m * m * JC / 2;
    const bool p = par && nc > 1 && nc * chunk_work >= gemm_parallel_work;
    gemm_for(p, nc, std::max<std::size_t>(1, gemm_parallel_work / 4 / std::max<std::size_t>(1, chunk_work)), chunks);
}

template<class T>
[[gnu::noinline]] void trsm_lower(std::size_t m, std::size_t n, const T* t, std::ptrdiff_t rst, std::ptrdiff_t cst,
                                  bool conj, bool unit, T* b, std::ptrdiff_t ldb, bool par) {
    if (m == 0 || n == 0) return;
    // Columns of B are independent: two halves (split on a chunk boundary, so the base case's
    // chunks and every gemm element see the same arithmetic) solved side by side need no
    // synchronisation between the row blocks, unlike the kernels' own parallel loops.
    constexpr std::size_t JC = linalg_trsm_cols<T>;
    if (par && n >= 4 * JC && m * m * n / 2 >= 8 * gemm_parallel_work) {
        const std::size_t n1 = (n / 2 + JC - 1) / JC * JC;
        // (gemm_for over the two halves rather than tbb::parallel_invoke: one parallel construct
        // for the whole library, the one tests/tsan.supp knows.)
        tbb::this_task_arena::isolate([&] {
            gemm_for(true, 2, 1, [&](std::size_t h0, std::size_t h1) {
                for (std::size_t h = h0; h < h1; ++h)
                    if (h == 0)
                        trsm_lower(m, n1, t, rst, cst, conj, unit, b, ldb, false);
                    else
                        trsm_lower(m, n - n1, t, rst, cst, conj, unit, b + n1, ldb, false);
            });
        });
        return;
    }
    if (m <= linalg_trsm_base) {
        trsm_lower_base(m, n, t, rst, cst, conj, unit, b, ldb, par);
        return;
    }
    const std::size_t m1 = linalg_split(m, linalg_trsm_base), m2 = m - m1;
    const auto s1 = static_cast<std::ptrdiff_t>(m1);
    trsm_lower(m1, n, t, rst, cst, conj, unit, b, ldb, par);
    linalg_sub_product(m2, n, m1, t + s1 * rst, rst, cst, conj, b, ldb, 1, b + s1 * ldb, ldb, par);
    trsm_lower(m2, n, t + s1 * rst + s1 * cst, rst, cst, conj, unit, b + s1 * ldb, ldb, par);
}

// ---- Cholesky -----------------------------------------------------------------------------------

// sum_k x[k] * conj(y[k]), k < n, both contiguous: lane-wise in two accumulators, then the tail.
template<class T>
inline T linalg_dot_conj(const T* x, const T* y, std::size_t n) {
    if constexpr (is_complex<T>) {
        T s{};
        for (std::size_t k = 0; k < n; ++k)
            s += x[k] * std::conj(y[k]);
        return s;
    } else {
        using B = xsimd::batch<T>;
        constexpr std::size_t W = B::size;
        B s0(T(0)), s1(T(0));
        std::size_t k = 0;
        for (; k + 2 * W <= n; k += 2 * W) {
            s0 = xsimd::fma(B::load_unaligned(x + k), B::load_unaligned(y + k), s0);
            s1 = xsimd::fma(B::load_unaligned(x + k + W), B::load_unaligned(y + k + W), s1);
        }
        T tail = T(0);
        for (; k < n; ++k)
            tail = gemm_madd(x[k], y[k], tail);
        return xsimd::hadd(s0 + s1) + tail;
    }
}

template<class T>
auto linalg_real(const T& x) {
    if constexpr (is_complex<T>)
        return x.real();
    else
        return x;
}

// Unblocked: row i of L from rows 0..i, L[i, j] = (A[i, j] - L[i, :j] . conj(L[j, :j])) / L[j, j].
// Only the diagonal's real part is read (a Hermitian matrix's diagonal is real).
template<class T>
bool potrf_lower_base(std::size_t n, T* a, std::ptrdiff_t lda) {
    using R = decltype(linalg_real(T{}));
    for (std::size_t i = 0; i < n; ++i) {
        T* ri = a + static_cast<std::ptrdiff_t>(i) * lda;
        for (std::size_t j = 0; j < i; ++j) {
            const T* rj = a + static_cast<std::ptrdiff_t>(j) * lda;
            ri[j] = (ri[j] - linalg_dot_conj(ri, rj, j)) / rj[j];
        }
        const R d = linalg_real(ri[i]) - linalg_real(linalg_dot_conj(ri, ri, i));
        if (!(d > R(0))) return false;
        ri[i] = T(std::sqrt(d));
    }
    return true;
}

// The lower triangle of C (n x n, row-major) -= A B, A n x k (row stride lda, contiguous rows),
// B k x n (row-major, ldb). Recursive halving keeps the work near n^2 k / 2.
template<class T>
void syrk_lower_sub(std::size_t n, std::size_t k, const T* a, std::ptrdiff_t lda, const T* b, std::ptrdiff_t ldb, T* c,
                    std::ptrdiff_t ldc, bool par) {
    if (n <= linalg_syrk_base) {
        linalg_sub_product(n, n, k, a, lda, 1, false, b, ldb, 1, c, ldc, par);
        return;
    }
    const std::size_t n1 = linalg_split(n, linalg_syrk_base), n2 = n - n1;
    const auto s1 = static_cast<std::ptrdiff_t>(n1);
    auto c11 = [&] { syrk_lower_sub(n1, k, a, lda, b, ldb, c, ldc, par); };
    auto c21 = [&] { linalg_sub_product(n2, n1, k, a + s1 * lda, lda, 1, false, b, ldb, 1, c + s1 * ldc, ldc, par); };
    auto c22 = [&] { syrk_lower_sub(n2, k, a + s1 * lda, lda, b + s1, ldb, c + s1 * ldc + s1, ldc, par); };
    // The three blocks are disjoint: run them side by side (gemm's own task grid has few tasks on
    // these narrow blocks). Each block's bits do not depend on which thread computes it.
    if (par && n * n * k / 2 >= 4 * gemm_parallel_work) {
        tbb::this_task_arena::isolate([&] {
            gemm_for(true, 3, 1, [&](std::size_t p0, std::size_t p1) {
                for (std::size_t p = p0; p < p1; ++p)
                    p == 0 ? c11() : p == 1 ? c21() : c22();
            });
        });
    } else {
        c11();
        c21();
        c22();
    }
}

// dst[j * ldd + i] = conj?(src[i * lds + j]), i < n2, j < n1. Real types: kernels/transpose.hpp's
// tiles (8 x 8 AVX register transposes for f32); complex: 8 x 8 tiles element by element (the 8
// rows a tile touches on each side may all map to one L1 set with power-of-two strides, whose 8
// ways hold them).
template<class T>
void linalg_transpose(std::size_t n2, std::size_t n1, const T* src, std::ptrdiff_t lds, T* dst, std::ptrdiff_t ldd,
                      bool conj) {
    if constexpr (!is_complex<T>) {
        (void)conj;
        constexpr std::size_t TB = 32;
        for (std::size_t i0 = 0; i0 < n2; i0 += TB)
            for (std::size_t j0 = 0; j0 < n1; j0 += TB)
                transpose_tile(src, lds, dst, ldd, j0, std::min(n1, j0 + TB), i0, std::min(n2, i0 + TB));
    } else {
        constexpr std::size_t TB = 8;
        for (std::size_t i0 = 0; i0 < n2; i0 += TB)
            for (std::size_t j0 = 0; j0 < n1; j0 += TB)
                for (std::size_t i = i0; i < std::min(n2, i0 + TB); ++i)
                    for (std::size_t j = j0; j < std::min(n1, j0 + TB); ++j)
                        dst[static_cast<std::ptrdiff_t>(j) * ldd + static_cast<std::ptrdiff_t>(i)] = linalg_conj(
                            src[static_cast<std::ptrdiff_t>(i) * lds + static_cast<std::ptrdiff_t>(j)], conj);
    }
}

// Row stride of the scratch copy of A21^H (n1 rows of n2): n2 padded off a power of two, so that
// the rows of a transposed tile do not all fall into one cache set.
inline std::size_t linalg_work_ld(std::size_t n2) { return (n2 + 15) / 16 * 16 + 16; }

// Scratch potrf_lower needs for size n: the largest A21^H over the recursion.
inline std::size_t linalg_potrf_work(std::size_t n) {
    if (n <= linalg_potrf_base) return 0;
    const std::size_t n1 = linalg_split(n, linalg_potrf_base);
    return std::max({n1 * linalg_work_ld(n - n1), linalg_potrf_work(n1), linalg_potrf_work(n - n1)});
}

template<class T>
[[gnu::noinline]] bool potrf_lower(std::size_t n, T* a, std::ptrdiff_t lda, T* work, bool par) {
    if (n <= linalg_potrf_base) return potrf_lower_base(n, a, lda);
    const std::size_t n1 = linalg_split(n, linalg_potrf_base), n2 = n - n1;
    const auto s1 = static_cast<std::ptrdiff_t>(n1), s2 = static_cast<std::ptrdiff_t>(linalg_work_ld(n2));
    if (!potrf_lower(n1, a, lda, work, par)) return false;
    T* a21 = a + s1 * lda;
    // Y = A21^H (n1 x n2), then L11 Y = A21^H gives Y = L21^H; L21 = Y^H back in place.
    linalg_transpose(n2, n1, a21, lda, work, s2, true);
    trsm_lower(n1, n2, a, lda, 1, false, false, work, s2, par);
    linalg_transpose(n1, n2, work, s2, a21, lda, true);
    syrk_lower_sub(n2, n1, a21, lda, work, s2, a21 + s1, lda, par);
    return potrf_lower(n2, a21 + s1, lda, work, par);
}

} // namespace xlet::detail
