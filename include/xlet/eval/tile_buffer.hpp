// tile_buffer: where the tiled evaluator (assign.hpp) puts the transposed operands of one tile.
//
// A leaf read with a large step along the innermost loop (a transposed operand inside an
// element-wise tree) would cost a scalar load an element. In the tiled path each such leaf's
// cursor, when it is made for a row of the tile, claims one row of this buffer (`claim`); once
// every row's cursors exist, `fill` copies the elements [lo, hi) of each claimed row into its
// buffer row, rows whose sources sit one element apart (the rows of a transpose) eight at a time
// with the register transposes of kernels/transpose.hpp, any others element by element. The
// cursors then read their row contiguously from L1, as the two-pass form reads the materialised
// transpose. Only where the values come from changes (their bits are copied), so every result is
// the same; a claim the buffer cannot hold (too many strided leaves, a wider element than the
// space left) is refused and that cursor reads its source directly as before.
#pragma once
#include "../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../core/block_cache.hpp"
#include "../kernels/transpose.hpp"
#include "vec.hpp"

namespace xlet::detail {

// Inner steps (elements) beyond which a leaf is read through the tile buffer, and beyond which a
// tree is evaluated in tiles at all (a step of up to 16 stays within a line or two per vector).
inline constexpr std::ptrdiff_t far_stride = 16;

// Rows n of a transposed source into rows of dst (pitch ds elements): dst[t * ds + i] =
// src[t + (lo + i) * Stride] for t < n, i < hi - lo. 4-byte elements in 8×8 register blocks,
// eight source rows at a time across all n: each source line is used whole before the next
// ones, since the lines of one column of blocks all fall in one L1 set (rows a power of two
// apart).
template<class S, std::ptrdiff_t Stride>
void fill_transposed(const void* src, void* dst, std::size_t ds, std::size_t n, std::size_t lo, std::size_t hi) {
    const S* s = static_cast<const S*>(src) + static_cast<std::ptrdiff_t>(lo) * Stride;
    S* d = static_cast<S*>(dst);
    const std::size_t len = hi - lo;
    const auto dst_stride = static_cast<std::ptrdiff_t>(ds);
#if defined(__AVX__)
    if constexpr (sizeof(S) == 4 && std::is_trivially_copyable_v<S>) {
        const std::size_t nb = n / 8 * 8, lb = len / 8 * 8;
        for (std::size_t i = 0; i < lb; i += 8)
            for (std::size_t t = 0; t < nb; t += 8)
                transpose8x8_4byte(
                    s + static_cast<std::ptrdiff_t>(i) * Stride + static_cast<std::ptrdiff_t>(t), Stride * 4,
                    d + static_cast<std::ptrdiff_t>(t) * dst_stride + static_cast<std::ptrdiff_t>(i), dst_stride * 4);
        transpose_scalar(s, Stride, d, dst_stride, 0, nb, lb, len);
        transpose_scalar(s, Stride, d, dst_stride, nb, n, 0, len);
        return;
    }
#endif
    transpose_scalar(s, Stride, d, dst_stride, 0, n, 0, len);
}

struct tile_buffer {
    static constexpr std::size_t max_rows = 256;
    static constexpr std::size_t max_columns = 4;
    using fill_fn = void (*)(const void*, void*, std::size_t, std::size_t, std::size_t, std::size_t);

    // One strided leaf of the tree (the col-th claimed in each row), its rows at pitch bytes.
    struct column {
        fill_fn fill;
        std::size_t elem, offset, pitch;
        std::array<const void*, max_rows> src; // per row: the row's source, nullptr if unclaimed
    };

    std::byte* data;   // 64-byte aligned
    std::size_t bytes; // its size
    std::array<column, max_columns> cols;
    std::size_t lo = 0, hi = 0, rows = 0, row = 0, col = 0, ncols = 0, used = 0;

    tile_buffer(std::byte* storage, std::size_t size) : data(storage), bytes(size) {}

    // A new tile: elements [lo, hi) of rows 0..n-1 (n <= max_rows).
    void begin(std::size_t l, std::size_t h, std::size_t n) {
        lo = l;
        hi = h;
        rows = n;
        ncols = 0;
        used = 0;
    }
    // The cursors made next belong to row r of the tile.
    void begin_row(std::size_t r) {
        row = r;
        col = 0;
    }

    // The buffer row for a leaf row that starts at p (elements p[i * Stride]), or nullptr.
    template<class S, std::ptrdiff_t Stride>
    const S* claim(const S* p) {
        const std::size_t c = col++;
        const fill_fn f = &fill_transposed<S, Stride>;
        if (row >= rows || c > ncols) return nullptr;
        if (c == ncols) {
            // Whole lines, an odd number of them: rows a power of two apart would share L1 sets.
            const std::size_t pitch = ((hi - lo) * sizeof(S) + 63) / 128 * 128 + 64;
            if (c == max_columns || used + pitch * rows > bytes) return nullptr;
            cols[c].fill = f;
            cols[c].elem = sizeof(S);
            cols[c].offset = used;
            cols[c].pitch = pitch;
            std::fill_n(cols[c].src.begin(), rows, nullptr);
            used += pitch * rows;
            ++ncols;
        }
        column& k = cols[c];
        if (k.fill != f) return nullptr;
        k.src[row] = p;
        return reinterpret_cast<const S*>(data + k.offset + row * k.pitch);
    }

    // Transpose every claimed row into place: runs of rows whose sources are one element apart
    // together, any other row on its own.
    void fill() {
        for (std::size_t c = 0; c < ncols; ++c) {
            column& k = cols[c];
            for (std::size_t r = 0; r < rows;) {
                if (k.src[r] == nullptr) {
                    ++r;
                    continue;
                }
                std::size_t e = r + 1;
                while (e < rows && k.src[e] != nullptr &&
                       reinterpret_cast<std::uintptr_t>(k.src[e]) ==
                           reinterpret_cast<std::uintptr_t>(k.src[e - 1]) + k.elem)
                    ++e;
                k.fill(k.src[r], data + k.offset + r * k.pitch, k.pitch / k.elem, e - r, lo, hi);
                r = e;
            }
        }
    }
};

// Storage for a tile buffer of Bytes: on the stack up to 32 KiB (small evaluations allocate
// nothing), from the block cache above.
template<std::size_t Bytes, bool Heap = (Bytes > (std::size_t{32} << 10))>
struct tile_storage {
    alignas(64) std::array<std::byte, Bytes == 0 ? 1 : Bytes> a;
    std::byte* data() { return a.data(); }
};
template<std::size_t Bytes>
struct tile_storage<Bytes, true> {
    scratch<std::byte> s{Bytes};
    std::byte* data() { return s.data(); }
};

// Cursor over one row of a memory leaf with a far inner step: elements [lo, hi) of the row from a
// tile buffer row q when it has one, everything else (or all of it, q null) from the source.
template<class S, std::ptrdiff_t Stride>
struct strided_cursor {
    const S* p;
    const S* q = nullptr;
    std::size_t lo = 1, hi = 0;
    template<std::size_t N>
    vec<compute_t<S>, N> load(std::size_t i) const {
        if (i >= lo && i + N <= hi) return load_vec<N, 1>(q + (i - lo));
        return load_vec<N, Stride>(p + static_cast<std::ptrdiff_t>(i) * Stride);
    }
    template<std::size_t N>
    vec<compute_t<S>, N> load_partial(std::size_t i, std::size_t n) const {
        if (i >= lo && i + n <= hi) return load_vec_partial<N, 1>(q + (i - lo), n);
        return load_vec_partial<N, Stride>(p + static_cast<std::ptrdiff_t>(i) * Stride, n);
    }
};

template<class S, std::ptrdiff_t Stride>
strided_cursor<S, Stride> make_strided_cursor(const S* p, tile_buffer* t) {
    strided_cursor<S, Stride> c{p};
    if (t != nullptr)
        if (const S* q = t->template claim<S, Stride>(p)) {
            c.q = q;
            c.lo = t->lo;
            c.hi = t->hi;
        }
    return c;
}

} // namespace xlet::detail
