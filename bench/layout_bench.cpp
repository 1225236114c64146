// Data-movement benchmarks (issue #3): transpose, a transpose fused into an element-wise tree,
// gather, scatter-add, pad and concatenate, each beside its peers (plain loops, memcpy of the same
// bytes, Eigen, xtensor) in one executable, f32, at 1 and 2 threads. Every case reports the bytes
// its kernel must move (SetBytesProcessed), so GB/s compare directly with memcpy in the same run.
//
// Names: BM_<case>/<impl>/threads:<t>/real_time, as in elementwise_bench. Every benchmark checks
// its whole result once, after the timed loop, and aborts the run with a message if it is wrong.
// Results and the command that reproduces them: docs/performance.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>

#include <xlet/ops/layout/concatenate.hpp>
#include <xlet/ops/layout/gather.hpp>
#include <xlet/ops/layout/layout.hpp>
#include <xlet/ops/elementwise/operators.hpp>
#include <xlet/ops/layout/pad.hpp>
#include <xlet/ops/layout/scatter.hpp>
#include <xlet/ops/elementwise/unary.hpp>

#include "layout_peers.hpp"

namespace xlet_bench {
namespace {

// ---- The bytes each kernel must move (reads + writes, no write-allocate); shapes in layout_peers.hpp

constexpr std::int64_t B(std::size_t n) { return static_cast<std::int64_t>(n); }
constexpr std::int64_t bytes_transpose = 8 * B(n_tt); // a in, y out
constexpr std::int64_t bytes_fused = 12 * B(n_tt);    // a, b in, y out
// Gather: the indices, each gathered row read once and written once.
constexpr std::int64_t bytes_gather = 4 * B(g_n) + 8 * B(g_n * g_cols);
// Scatter: operand read and result written once, the indices and the updates read once.
constexpr std::int64_t bytes_scatter = 8 * B(g_rows * g_cols) + 4 * B(g_n) + 4 * B(g_n * g_cols);
constexpr std::int64_t bytes_pad = 4 * B(p_n * p_n) + 4 * B(p_out * p_out);
constexpr std::int64_t bytes_concat = 16 * B(p_n * p_n); // two operands in, one result out

// memcpy of n floats: the bandwidth reference each case is compared with.
template<std::int64_t Bytes>
void BM_memcpy(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    constexpr std::size_t n = static_cast<std::size_t>(Bytes) / 8; // Bytes counts the read and the write
    auto src = filled_buffer(n, in_b), dst = make_buffer(n);
    for (auto _ : st) {
        copy_bytes(dst.get(), src.get(), n * sizeof(float), threads);
        benchmark::ClobberMemory();
    }
    verify(
        "memcpy", n, [&](std::size_t i) { return dst[i]; }, [&](std::size_t i) { return src[i]; });
    set_bytes(st, Bytes);
}

// ======================= transpose of [4096,4096] ================================================

using mat_t = xlet::f32<n_t, n_t>;

void BM_transpose_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<mat_t>(in_a), y = std::make_unique<mat_t>();
    for (auto _ : st) {
        *y = xlet::transpose(*a, xlet::dims<1, 0>);
        benchmark::ClobberMemory();
    }
    verify_transpose("transpose/xlet", y->data(), a->data());
    set_bytes(st, bytes_transpose);
}

// Transpose and a memcpy of the same bytes (split in `threads` equal parts) alternated inside one
// timed loop (run_paired: `ratio` is transpose speed ÷ memcpy speed).
void BM_transpose_paired(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<mat_t>(in_a), y = std::make_unique<mat_t>();
    run_paired(
        st, bytes_transpose, [&] { *y = xlet::transpose(*a, xlet::dims<1, 0>); },
        [&] { copy_bytes(y->data(), a->data(), n_tt * sizeof(float), threads); });
    *y = xlet::transpose(*a, xlet::dims<1, 0>);
    verify_transpose("transpose/paired", y->data(), a->data());
}

// Naive: contiguous writes, strided reads, rows split statically over the threads.
void BM_transpose_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled_buffer(n_tt, in_a), y = make_buffer(n_tt);
    for (auto _ : st) {
        split(threads, n_t, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t i = r0; i < r1; ++i)
                for (std::size_t j = 0; j < n_t; ++j)
                    y[i * n_t + j] = a[j * n_t + i];
        });
        benchmark::ClobberMemory();
    }
    verify_transpose("transpose/loop", y.get(), a.get());
    set_bytes(st, bytes_transpose);
}

#if XLET_BENCH_EIGEN
void BM_transpose_eigen(benchmark::State& st, int threads) {
    etensor2 a = eigen_filled(in_a), y = eigen_zeros();
    eigen_run(st, threads, [&](const auto& dev) { y.device(dev) = a.shuffle(swap_dims); });
    verify_transpose("transpose/eigen", y.data(), a.data());
    set_bytes(st, bytes_transpose);
}

// Eigen::Matrix has no threaded transpose: one thread.
void BM_transpose_eigen_matrix(benchmark::State& st, int) {
    ematrix a = eigen_filled<ematrix>(in_a), y = eigen_zeros<ematrix>();
    for (auto _ : st) {
        y = a.transpose();
        benchmark::ClobberMemory();
    }
    verify_transpose("transpose/eigen_matrix", y.data(), a.data());
    set_bytes(st, bytes_transpose);
}
#endif

#if XLET_BENCH_XTENSOR
void BM_transpose_xtensor(benchmark::State& st, int) {
    xtensor2 a = xt_filled(in_a), y = xt::zeros<float>({n_t, n_t});
    for (auto _ : st) {
        xt::noalias(y) = xt::transpose(a);
        benchmark::ClobberMemory();
    }
    verify_transpose("transpose/xtensor", y.data(), a.data());
    set_bytes(st, bytes_transpose);
}
#endif

// ======================= y = exp(transpose(a)) + b ===============================================

void BM_fused_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<mat_t>(in_a), b = filled<mat_t>(in_b), y = std::make_unique<mat_t>();
    for (auto _ : st) {
        *y = xlet::exp(xlet::transpose(*a, xlet::dims<1, 0>)) + *b;
        benchmark::ClobberMemory();
    }
    verify_fused("fused/xlet", y->data(), a->data(), b->data());
    set_bytes(st, bytes_fused);
}

// The same in two passes: the transpose materialised, then exp + add.
void BM_fused_xlet_two_pass(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<mat_t>(in_a), b = filled<mat_t>(in_b), t = std::make_unique<mat_t>(), y = std::make_unique<mat_t>();
    for (auto _ : st) {
        *t = xlet::transpose(*a, xlet::dims<1, 0>);
        *y = xlet::exp(*t) + *b;
        benchmark::ClobberMemory();
    }
    verify_fused("fused/xlet_two_pass", y->data(), a->data(), b->data());
    set_bytes(st, bytes_fused);
}

// One pass and two passes alternating inside one timed loop (run_paired: `ratio` is the one
// pass's speed ÷ the two passes'; > 1: the one pass is faster). Both results are checked.
void BM_fused_paired(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<mat_t>(in_a), b = filled<mat_t>(in_b), t = std::make_unique<mat_t>(), y = std::make_unique<mat_t>(),
         y2 = std::make_unique<mat_t>();
    run_paired(
        st, bytes_fused, [&] { *y = xlet::exp(xlet::transpose(*a, xlet::dims<1, 0>)) + *b; },
        [&] {
            *t = xlet::transpose(*a, xlet::dims<1, 0>);
            *y2 = xlet::exp(*t) + *b;
        });
    verify_fused("fused/paired (one pass)", y->data(), a->data(), b->data());
    verify_fused("fused/paired (two passes)", y2->data(), a->data(), b->data());
    if (std::memcmp(y->data(), y2->data(), n_tt * sizeof(float)) != 0) {
        std::fprintf(stderr, "layout_bench: fused/paired: one pass and two passes differ\n");
        std::abort();
    }
}

// Naive hand loop (std::exp does not vectorise without -ffast-math).
void BM_fused_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled_buffer(n_tt, in_a), b = filled_buffer(n_tt, in_b), y = make_buffer(n_tt);
    for (auto _ : st) {
        split(threads, n_t, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t i = r0; i < r1; ++i)
                for (std::size_t j = 0; j < n_t; ++j)
                    y[i * n_t + j] = std::exp(a[j * n_t + i]) + b[i * n_t + j];
        });
        benchmark::ClobberMemory();
    }
    verify_fused("fused/loop", y.get(), a.get(), b.get());
    set_bytes(st, bytes_fused);
}

#if XLET_BENCH_EIGEN
void BM_fused_eigen(benchmark::State& st, int threads) {
    etensor2 a = eigen_filled(in_a), b = eigen_filled(in_b), y = eigen_zeros();
    eigen_run(st, threads, [&](const auto& dev) { y.device(dev) = a.shuffle(swap_dims).exp() + b; });
    verify_fused("fused/eigen", y.data(), a.data(), b.data());
    set_bytes(st, bytes_fused);
}
#endif

#if XLET_BENCH_XTENSOR
void BM_fused_xtensor(benchmark::State& st, int) {
    xtensor2 a = xt_filled(in_a), b = xt_filled(in_b), y = xt::zeros<float>({n_t, n_t});
    for (auto _ : st) {
        xt::noalias(y) = xt::exp(xt::transpose(a)) + b;
        benchmark::ClobberMemory();
    }
    verify_fused("fused/xtensor", y.data(), a.data(), b.data());
    set_bytes(st, bytes_fused);
}
#endif

// ======================= gather of 1 Mi rows from [65536,64] =====================================
// tf.gather(table, idx): offset_dims {1}, collapsed_slice_dims {0}, start_index_map {0},
// slice_sizes {1, 64}, index_vector_dim trailing (indices s32[1048576]). Result f32[1048576,64].

constexpr xlet::gather_dims gdims{.offset_dims = {1},
                                  .collapsed_slice_dims = {0},
                                  .start_index_map = {0},
                                  .index_vector_dim = 1,
                                  .slice_sizes = {1, g_cols}};
using table_t = xlet::f32<g_rows, g_cols>;
using rows_t = xlet::f32<g_n, g_cols>;
using idx_t = xlet::s32<g_n>;

// xlet's gather returns a new tensor. Its 256 MiB come from the block cache (core/block_cache.hpp):
// the block `*out` held before is freed by the assignment and reused by the next call, so in the
// steady state every call writes into mapped memory, as the hand loop does. One untimed call first
// reaches that state (the first call maps fresh pages, like the loop's make_buffer).
void BM_gather_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto table = filled<table_t>(in_b);
    auto idx = filled<idx_t>(in_idx);
    auto out = std::make_unique<rows_t>();
    *out = xlet::gather<gdims>(*table, *idx); // warm-up: see above
    for (auto _ : st) {
        *out = xlet::gather<gdims>(*table, *idx);
        benchmark::ClobberMemory();
    }
    verify_gather("gather/xlet", out->data(), table->data(), idx->data());
    set_bytes(st, bytes_gather);
}

// Hand loop, one memcpy per row, into an output allocated once (Fresh: allocated, untouched,
// every call, as a function returning its result must).
template<bool Fresh>
void BM_gather_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto table = filled_buffer(g_rows * g_cols, in_b);
    auto idx = filled_buffer<std::int32_t>(g_n, in_idx);
    auto out = make_buffer(g_n * g_cols);
    for (auto _ : st) {
        if constexpr (Fresh) {
            out.reset(static_cast<float*>(std::aligned_alloc(64, g_n * g_cols * sizeof(float))));
            if (!out) throw std::bad_alloc();
        }
        split(threads, g_n,
              [&](std::size_t r0, std::size_t r1) { gather_rows(out.get(), table.get(), idx.get(), r0, r1); });
        benchmark::ClobberMemory();
    }
    verify_gather(Fresh ? "gather/loop_fresh" : "gather/loop", out.get(), table.get(), idx.get());
    set_bytes(st, bytes_gather);
}

// xlet's gather and the hand loop (into a buffer allocated once) alternated in one timed loop.
void BM_gather_paired(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto table = filled<table_t>(in_b);
    auto idx = filled<idx_t>(in_idx);
    auto out = std::make_unique<rows_t>();
    auto out_loop = make_buffer(g_n * g_cols);
    *out = xlet::gather<gdims>(*table, *idx);
    run_paired(
        st, bytes_gather, [&] { *out = xlet::gather<gdims>(*table, *idx); },
        [&] {
            split(threads, g_n, [&](std::size_t r0, std::size_t r1) {
                gather_rows(out_loop.get(), table->data(), idx->data(), r0, r1);
            });
        });
    verify_gather("gather/paired", out->data(), table->data(), idx->data());
    verify_gather("gather/paired_loop", out_loop.get(), table->data(), idx->data());
}

// ======================= scatter-add of 1 Mi rows into [65536,64] ================================
// update_window_dims {1}, inserted_window_dims {0}, scatter_dims_to_operand_dims {0},
// index_vector_dim trailing; updates f32[1048576,64]. Rows repeat (16 updates a row on average):
// the adds land in index order, as XLA's sequential semantics and the hand loop have them.

constexpr xlet::scatter_dims sdims{
    .update_window_dims = {1}, .inserted_window_dims = {0}, .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 1};

void BM_scatter_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto table = filled<table_t>(in_b);
    auto idx = filled<idx_t>(in_idx);
    auto up = filled<rows_t>(in_up);
    auto out = std::make_unique<table_t>();
    *out = xlet::scatter<sdims>(*table, *idx, *up, [](auto cur, auto u) { return cur + u; }); // warm-up, as for gather
    for (auto _ : st) {
        *out = xlet::scatter<sdims>(*table, *idx, *up, [](auto cur, auto u) { return cur + u; });
        benchmark::ClobberMemory();
    }
    verify_scatter("scatter/xlet", out->data(), table->data(), up->data(), idx->data());
    set_bytes(st, bytes_scatter);
}

// Hand loop: copy the operand, then the adds in index order (one thread: the order is sequential).
void BM_scatter_loop(benchmark::State& st, int) {
    auto table = filled_buffer(g_rows * g_cols, in_b), out = make_buffer(g_rows * g_cols),
         up = filled_buffer(g_n * g_cols, in_up);
    auto idx = filled_buffer<std::int32_t>(g_n, in_idx);
    for (auto _ : st) {
        std::memcpy(out.get(), table.get(), g_rows * g_cols * sizeof(float));
        scatter_add_rows(out.get(), up.get(), idx.get(), g_n);
        benchmark::ClobberMemory();
    }
    verify_scatter("scatter/loop", out.get(), table.get(), up.get(), idx.get());
    set_bytes(st, bytes_scatter);
}

// xlet's scatter-add (at `threads`) and the sequential hand loop alternated in one timed loop.
void BM_scatter_paired(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto table = filled<table_t>(in_b);
    auto idx = filled<idx_t>(in_idx);
    auto up = filled<rows_t>(in_up);
    auto out = std::make_unique<table_t>();
    auto out_loop = make_buffer(g_rows * g_cols);
    auto add = [](auto cur, auto u) { return cur + u; };
    *out = xlet::scatter<sdims>(*table, *idx, *up, add);
    run_paired(
        st, bytes_scatter, [&] { *out = xlet::scatter<sdims>(*table, *idx, *up, add); },
        [&] {
            std::memcpy(out_loop.get(), table->data(), g_rows * g_cols * sizeof(float));
            scatter_add_rows(out_loop.get(), up->data(), idx->data(), g_n);
        });
    verify_scatter("scatter/paired", out->data(), table->data(), up->data(), idx->data());
    verify_scatter("scatter/paired_loop", out_loop.get(), table->data(), up->data(), idx->data());
}

// ======================= pad [2048,2048] by 8 on every edge ======================================

using sq_t = xlet::f32<p_n, p_n>;
using padded_t = xlet::f32<p_out, p_out>;

void BM_pad_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<sq_t>(in_a);
    auto y = std::make_unique<padded_t>();
    for (auto _ : st) {
        *y = xlet::pad(*a, pad_value, xlet::dims<p_lo, p_lo>, xlet::dims<p_hi, p_hi>, xlet::dims<0, 0>);
        benchmark::ClobberMemory();
    }
    verify_pad("pad/xlet", y->data(), a->data());
    set_bytes(st, bytes_pad);
}

// Hand loop: per output row, fill the edges and memcpy the operand row.
void BM_pad_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled_buffer(p_n * p_n, in_a), y = make_buffer(p_out * p_out);
    for (auto _ : st) {
        split(threads, p_out, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                float* o = y.get() + r * p_out;
                if (r < p_lo || r >= p_lo + p_n) {
                    std::fill_n(o, p_out, pad_value);
                    continue;
                }
                std::fill_n(o, p_lo, pad_value);
                std::memcpy(o + p_lo, a.get() + (r - p_lo) * p_n, p_n * sizeof(float));
                std::fill_n(o + p_lo + p_n, p_hi, pad_value);
            }
        });
        benchmark::ClobberMemory();
    }
    verify_pad("pad/loop", y.get(), a.get());
    set_bytes(st, bytes_pad);
}

// ======================= concatenate two [2048,2048] along dim 0 and dim 1 ========================

template<int Dim>
using cat_t = std::conditional_t<Dim == 0, xlet::f32<2 * p_n, p_n>, xlet::f32<p_n, 2 * p_n>>;

template<int Dim>
void BM_concat_xlet(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<sq_t>(in_a), b = filled<sq_t>(in_b);
    auto y = std::make_unique<cat_t<Dim>>();
    for (auto _ : st) {
        *y = xlet::concatenate<Dim>(*a, *b);
        benchmark::ClobberMemory();
    }
    verify_concat<Dim>(Dim == 0 ? "concat0/xlet" : "concat1/xlet", y->data(), a->data(), b->data());
    set_bytes(st, bytes_concat);
}

// xlet's concatenate and a memcpy of the same bytes alternated in one timed loop.
template<int Dim>
void BM_concat_paired(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled<sq_t>(in_a), b = filled<sq_t>(in_b);
    auto y = std::make_unique<cat_t<Dim>>(), z = std::make_unique<cat_t<Dim>>();
    run_paired(
        st, bytes_concat, [&] { *y = xlet::concatenate<Dim>(*a, *b); },
        [&] {
            copy_bytes(z->data(), a->data(), p_n * p_n * sizeof(float), threads);
            copy_bytes(z->data() + p_n * p_n, b->data(), p_n * p_n * sizeof(float), threads);
        });
    verify_concat<Dim>(Dim == 0 ? "concat0/paired" : "concat1/paired", y->data(), a->data(), b->data());
}

// Hand loop: memcpy of whole operands (dim 0) or of one row of each per output row (dim 1).
template<int Dim>
void BM_concat_loop(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    auto a = filled_buffer(p_n * p_n, in_a), b = filled_buffer(p_n * p_n, in_b), y = make_buffer(2 * p_n * p_n);
    constexpr std::size_t row = p_n * sizeof(float);
    for (auto _ : st) {
        if constexpr (Dim == 0) {
            split(threads, 2 * p_n, [&](std::size_t r0, std::size_t r1) {
                for (std::size_t r = r0; r < r1; ++r)
                    std::memcpy(y.get() + r * p_n, (r < p_n ? a.get() + r * p_n : b.get() + (r - p_n) * p_n), row);
            });
        } else {
            split(threads, p_n, [&](std::size_t r0, std::size_t r1) {
                for (std::size_t r = r0; r < r1; ++r) {
                    std::memcpy(y.get() + 2 * r * p_n, a.get() + r * p_n, row);
                    std::memcpy(y.get() + (2 * r + 1) * p_n, b.get() + r * p_n, row);
                }
            });
        }
        benchmark::ClobberMemory();
    }
    verify_concat<Dim>(Dim == 0 ? "concat0/loop" : "concat1/loop", y.get(), a.get(), b.get());
    set_bytes(st, bytes_concat);
}

// ======================= registration ============================================================

void register_all() {
    // Each case: xlet at 1 and 2 threads, then its peers, then memcpy of the same bytes.
    for (int t : {1, 2})
        reg("BM_transpose/xlet", BM_transpose_xlet, t);
    for (int t : {1, 2})
        reg("BM_transpose/paired_with_memcpy", BM_transpose_paired, t);
    reg("BM_transpose/loop", BM_transpose_loop, 1);
    reg("BM_transpose/loop_tbb", BM_transpose_loop, 2);
#if XLET_BENCH_EIGEN
    reg("BM_transpose/eigen", BM_transpose_eigen, 1, 0);
    reg("BM_transpose/eigen_pool", BM_transpose_eigen, 2);
    reg("BM_transpose/eigen_matrix", BM_transpose_eigen_matrix, 1);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_transpose/xtensor", BM_transpose_xtensor, 1);
#endif
    reg("BM_transpose/memcpy", BM_memcpy<bytes_transpose>, 1);
    reg("BM_transpose/memcpy_tbb", BM_memcpy<bytes_transpose>, 2);

    for (int t : {1, 2})
        reg("BM_fused/xlet", BM_fused_xlet, t);
    for (int t : {1, 2})
        reg("BM_fused/xlet_two_pass", BM_fused_xlet_two_pass, t);
    for (int t : {1, 2})
        reg("BM_fused/paired_with_two_pass", BM_fused_paired, t);
    reg("BM_fused/loop", BM_fused_loop, 1);
    reg("BM_fused/loop_tbb", BM_fused_loop, 2);
#if XLET_BENCH_EIGEN
    reg("BM_fused/eigen", BM_fused_eigen, 1, 0);
    reg("BM_fused/eigen_pool", BM_fused_eigen, 2);
#endif
#if XLET_BENCH_XTENSOR
    reg("BM_fused/xtensor", BM_fused_xtensor, 1);
#endif

    for (int t : {1, 2})
        reg("BM_gather/xlet", BM_gather_xlet, t);
    for (int t : {1, 2})
        reg("BM_gather/paired_with_loop", BM_gather_paired, t);
    reg("BM_gather/loop", BM_gather_loop<false>, 1);
    reg("BM_gather/loop_tbb", BM_gather_loop<false>, 2);
    reg("BM_gather/loop_fresh", BM_gather_loop<true>, 1);
    reg("BM_gather/loop_fresh_tbb", BM_gather_loop<true>, 2);

    for (int t : {1, 2})
        reg("BM_scatter/xlet", BM_scatter_xlet, t);
    reg("BM_scatter/loop", BM_scatter_loop, 1);
    for (int t : {1, 2})
        reg("BM_scatter/paired_with_loop", BM_scatter_paired, t);

    for (int t : {1, 2})
        reg("BM_pad/xlet", BM_pad_xlet, t);
    reg("BM_pad/loop", BM_pad_loop, 1);
    reg("BM_pad/loop_tbb", BM_pad_loop, 2);
    reg("BM_pad/memcpy", BM_memcpy<8 * B(p_out * p_out)>, 1);
    reg("BM_pad/memcpy_tbb", BM_memcpy<8 * B(p_out * p_out)>, 2);

    for (int t : {1, 2})
        reg("BM_concat0/xlet", BM_concat_xlet<0>, t);
    for (int t : {1, 2})
        reg("BM_concat0/paired_with_memcpy", BM_concat_paired<0>, t);
    reg("BM_concat0/loop", BM_concat_loop<0>, 1);
    reg("BM_concat0/loop_tbb", BM_concat_loop<0>, 2);
    for (int t : {1, 2})
        reg("BM_concat1/xlet", BM_concat_xlet<1>, t);
    for (int t : {1, 2})
        reg("BM_concat1/paired_with_memcpy", BM_concat_paired<1>, t);
    reg("BM_concat1/loop", BM_concat_loop<1>, 1);
    reg("BM_concat1/loop_tbb", BM_concat_loop<1>, 2);
    reg("BM_concat/memcpy", BM_memcpy<bytes_concat>, 1);
    reg("BM_concat/memcpy_tbb", BM_memcpy<bytes_concat>, 2);
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
