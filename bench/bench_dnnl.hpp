// oneDNN, the peer of the convolution and int8 GEMM benchmarks (conv_bench, quant_bench), when
// CMake found it (XLET_BENCH_HAVE_DNNL). Include after bench_common.hpp's peers, like it.
#pragma once
#if defined(XLET_BENCH_HAVE_DNNL)
#include <oneapi/dnnl/dnnl.hpp>
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

namespace xlet_bench {

// oneDNN's thread count. Debian's libdnnl 2.6.3 runs on OpenMP (libgomp): omp_get_max_threads() in
// the calling thread when a primitive is created, whose JIT kernels fix their partition then, so
// call this before creating it. A TBB build follows the caller's tbb_threads; a sequential one
// runs one thread.
inline void set_dnnl_threads(int threads) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
}
inline constexpr bool dnnl_threaded = DNNL_CPU_THREADING_RUNTIME != DNNL_RUNTIME_SEQ;

} // namespace xlet_bench
#endif
