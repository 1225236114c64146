// 8-bit integer GEMM (no op-level API; ops/linalg/dot.hpp and quant/dot.hpp drive it):
//
//   gemm_i8<TA, TB>(m, n, k, a, rsa, csa, b, rsb, csb, c, ldc, parallel)
//     C[i, j] = sum_k int32(A[i, k]) * int32(B[k, j])  (mod 2^32)      i < m, j < n
//     A[i, k] = a[i * rsa + k * csa], B[k, j] = b[k * rsb + j * csb], C[i, j] = c[i * ldc + j]
//     TA, TB: std::int8_t or std::uint8_t, in any combination.
//
// The result is exact (integer sums wrap modulo 2^32 like every integer dot in xlet), so it does not
// depend on the ISA, the blocking or the thread count.
// This first form is the plain loop (gemm_generic); the register-tile kernels follow (#26).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gemm.hpp"

namespace xlet::detail {

template<class T>
inline constexpr bool gemm_i8_operand = std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>;

template<class TA, class TB>
requires gemm_i8_operand<TA> && gemm_i8_operand<TB>
void gemm_i8(std::size_t m, std::size_t n, std::size_t k, const TA* a, std::ptrdiff_t rsa, std::ptrdiff_t csa,
             const TB* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, std::int32_t* c, std::ptrdiff_t ldc,
             bool parallel = true) {
    if (m == 0 || n == 0) return;
    const bool par = parallel && m * n * std::max<std::size_t>(k, 1) >= gemm_parallel_work / 4;
    auto rows = [&](std::size_t i0, std::size_t i1) {
        for (std::size_t i = i0; i < i1; ++i) {
            std::int32_t* cr = c + static_cast<std::ptrdiff_t>(i) * ldc;
            for (std::size_t j = 0; j < n; ++j)
                cr[j] = 0;
            for (std::size_t p = 0; p < k; ++p) {
                const auto av = static_cast<std::uint32_t>(
                    static_cast<std::int32_t>(a[static_cast<std::ptrdiff_t>(i) * rsa + static_cast<std::ptrdiff_t>(p) * csa]));
                const TB* br = b + static_cast<std::ptrdiff_t>(p) * rsb;
                for (std::size_t j = 0; j < n; ++j)
                    cr[j] = static_cast<std::int32_t>(
                        static_cast<std::uint32_t>(cr[j]) +
                        av * static_cast<std::uint32_t>(static_cast<std::int32_t>(br[static_cast<std::ptrdiff_t>(j) * csb])));
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

} // namespace xlet::detail
