// What every FFT pass shares: the work threshold and the loop that splits a pass's blocks over
// TBB, the per-task block scratch, and the forward / inverse and scale mode of a pass.
#pragma once
#include "../../core/types.hpp" // first: intrinsics before TBB (core/simd.hpp)

#include <cstddef>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include "../../core/block_cache.hpp"
#include "../../eval/parallel.hpp"
#include "stockham.hpp"

namespace xlet::detail {

// Work (elements x log) from which a pass uses TBB.
inline constexpr std::size_t fft_parallel_work = std::size_t{1} << 15;

template<class F>
void fft_for(bool par, std::size_t n, std::size_t grain, const F& f) {
    if (!par || n <= grain) {
        f(std::size_t{0}, n);
        return;
    }
    tbb::this_task_arena::isolate([&] {
        run_parallel(tbb::blocked_range<std::size_t>(0, n, grain),
                     [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
    });
}

// Per-task block scratch: three buffer pairs of `rows` x V values, 64-byte aligned.
template<class T>
struct fft_scratch {
    scratch<T> mem;
    T* p;
    std::size_t stride;
    fft_scratch(std::size_t rows, std::size_t V) : mem(6 * rows * V + 16), stride(rows * V) {
        auto a = reinterpret_cast<std::uintptr_t>(mem.data());
        p = reinterpret_cast<T*>((a + 63) & ~std::uintptr_t{63});
    }
    template<class Vt>
    fft_block_bufs<Vt, T> bufs() {
        return {p, p + stride, p + 2 * stride, p + 3 * stride, p + 4 * stride, p + 5 * stride};
    }
};

// How a complex value is read from and written to memory by a pass: the forward/inverse
// conjugation and the 1/N scale are applied here.
struct fft_io {
    bool inverse = false;
    double scale = 1; // applied on store
};

} // namespace xlet::detail
