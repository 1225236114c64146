// The one place xlet includes the x86 intrinsic headers and xsimd. It must be read before anything
// else pulls them in (TBB does), because GCC 12 reports false -Wuninitialized /
// -Wmaybe-uninitialized warnings located inside <immintrin.h> (GCC bug 105593: "undefined"
// registers built as `__m256 __Y = __Y;`) wherever xsimd's AVX complex loads or AVX-512 code are
// inlined; silencing them while the headers are first read leaves user code checked. core/types.hpp,
// the root of every xlet header, includes this first.
#pragma once
#include <cstddef>
#include <cstdint>

// For the few helpers every fused loop's tail goes through: GCC 12 sometimes leaves them out of
// line, and a 16-lane vector then returns through memory (a store-forwarding stall per call).
#define XLET_ALWAYS_INLINE [[gnu::always_inline]] inline

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
// xsimd 8.1 has no AVX-512 fused multiply-add: on avx512f its fma/fms/fnma/fnms fall back to a
// multiply and an add (two roundings, half the throughput), in the GEMM and inside its own exp, log,
// sin... polynomials. The kernels below supply them. They must be declared before xsimd's templates
// are defined, because those call kernel::fma by qualified name (bound where the template is
// defined, so a later overload is never seen); with them an AVX-512 build evaluates the same
// formulas with the same roundings as an AVX2 + FMA build.
// Read after xsimd, they come too late: say so rather than lose the FMA silently.
#if defined(__AVX512F__) && defined(XSIMD_HPP)
// clang-format off
#pragma GCC warning "xlet: <xsimd/xsimd.hpp> was included before xlet; on AVX-512 xsimd then has no fused multiply-add (a multiply and an add: slower, other roundings than an AVX2 build). Include xlet first."
// clang-format on
#endif
#if defined(__AVX512F__)
namespace xsimd {
struct avx512f;
template<class T, class A>
class batch;
namespace kernel {
#define XLET_XSIMD_AVX512_FMA_DECL(name, T)                                                                            \
    template<class A>                                                                                                  \
    batch<T, A> name(batch<T, A> const&, batch<T, A> const&, batch<T, A> const&, avx512f const&) noexcept;
XLET_XSIMD_AVX512_FMA_DECL(fma, float)
XLET_XSIMD_AVX512_FMA_DECL(fma, double)
XLET_XSIMD_AVX512_FMA_DECL(fms, float)
XLET_XSIMD_AVX512_FMA_DECL(fms, double)
XLET_XSIMD_AVX512_FMA_DECL(fnma, float)
XLET_XSIMD_AVX512_FMA_DECL(fnma, double)
XLET_XSIMD_AVX512_FMA_DECL(fnms, float)
XLET_XSIMD_AVX512_FMA_DECL(fnms, double)
#undef XLET_XSIMD_AVX512_FMA_DECL
// xsimd 8.1's AVX-512 negation is `0 - x`, which maps +0 to +0 (IEEE negation gives -0): the
// sign bit is flipped instead, as its AVX2 kernel does.
template<class A>
batch<float, A> neg(batch<float, A> const&, avx512f const&) noexcept;
template<class A>
batch<double, A> neg(batch<double, A> const&, avx512f const&) noexcept;
} // namespace kernel
} // namespace xsimd
#endif
#include <xsimd/xsimd.hpp>
#if defined(__AVX512F__)
namespace xsimd::kernel {
#define XLET_XSIMD_AVX512_FMA_DEF(name, T, intrinsic)                                                                  \
    template<class A>                                                                                                  \
    inline batch<T, A> name(batch<T, A> const& x, batch<T, A> const& y, batch<T, A> const& z,                          \
                            avx512f const&) noexcept {                                                                 \
        return intrinsic(x, y, z);                                                                                     \
    }
XLET_XSIMD_AVX512_FMA_DEF(fma, float, _mm512_fmadd_ps)
XLET_XSIMD_AVX512_FMA_DEF(fma, double, _mm512_fmadd_pd)
XLET_XSIMD_AVX512_FMA_DEF(fms, float, _mm512_fmsub_ps)
XLET_XSIMD_AVX512_FMA_DEF(fms, double, _mm512_fmsub_pd)
XLET_XSIMD_AVX512_FMA_DEF(fnma, float, _mm512_fnmadd_ps)
XLET_XSIMD_AVX512_FMA_DEF(fnma, double, _mm512_fnmadd_pd)
XLET_XSIMD_AVX512_FMA_DEF(fnms, float, _mm512_fnmsub_ps)
XLET_XSIMD_AVX512_FMA_DEF(fnms, double, _mm512_fnmsub_pd)
#undef XLET_XSIMD_AVX512_FMA_DEF
template<class A>
inline batch<float, A> neg(batch<float, A> const& x, avx512f const&) noexcept {
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
}
template<class A>
inline batch<double, A> neg(batch<double, A> const& x, avx512f const&) noexcept {
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), _mm512_set1_epi64(INT64_MIN)));
}
} // namespace xsimd::kernel
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace xlet::detail {
// Outputs at least this large (bytes; the L3 of the bench machines) are written with non-temporal
// stores: they would not stay in cache anyway, and streaming saves the read-for-ownership
// (measured: `y = a + b` on 2^24 f32 goes from 40 to 56 GB/s). Smaller outputs are stored normally
// so that they stay in the L3 for whatever reads them next (pad of [2048,2048] to 16.5 MiB,
// repeated: 49 GB/s streamed, 80 with plain stores; docs/performance.md).
inline constexpr std::size_t stream_threshold_bytes = std::size_t{1} << 25;

// Copies `bytes` to dst with non-temporal stores when dst is 32-byte aligned and the length whole
// 32-byte units, and says whether it did (false: nothing copied). The caller fences (_mm_sfence,
// stream_fence) before another thread reads dst.
inline bool stream_bytes(void* dst, const void* src, std::size_t bytes) {
#if defined(__AVX__)
    if (bytes % 32 == 0 && reinterpret_cast<std::uintptr_t>(dst) % 32 == 0) {
        auto* d = static_cast<__m256i*>(dst);
        const auto* s = static_cast<const __m256i*>(src);
        for (std::size_t k = 0; k < bytes / 32; ++k)
            _mm256_stream_si256(d + k, _mm256_loadu_si256(s + k));
        return true;
    }
#endif
    (void)dst, (void)src, (void)bytes;
    return false;
}
// Orders the streamed stores before whatever this thread does next (a release to another thread).
inline void stream_fence() {
#if defined(__AVX__)
    _mm_sfence();
#endif
}
} // namespace xlet::detail
