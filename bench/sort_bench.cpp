// Sort and TopK benchmarks (issue #4): xlet beside std::sort, tbb::parallel_sort and TBB-parallel
// per-row std:: algorithms, f32 data, in one executable.
//   BM_sort      2^24 f32 ascending: xlet sort(x, sort_less{}) vs std::sort / tbb::parallel_sort
//   BM_sortrows  [4096,4096] f32, every row ascending: xlet vs a TBB-parallel per-row std::sort
//   BM_topk8     top 8 of every row of [4096,4096] f32 (values + s32 indices): xlet vs a
//                TBB-parallel per-row std::partial_sort of positions
// The peers sort in place, so each iteration first copies the input into their buffer (xlet
// returns a new tensor: its time includes allocating and writing it). Bytes processed: 4 per
// element sorted or scanned, so GB/s (and their ratios) compare directly. Results and the
// command: docs/performance.md.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>

#include <xlet/xlet.hpp>

#include <tbb/parallel_sort.h>

#include "bench_common.hpp"

namespace xlet_bench {
namespace {

constexpr std::size_t n_flat = std::size_t{1} << 24;
constexpr std::size_t n_rows = 4096, n_cols = 4096;
constexpr std::size_t top = 8;
constexpr std::int64_t bytes_flat = 4 * static_cast<std::int64_t>(n_flat);
constexpr std::int64_t bytes_mat = 4 * static_cast<std::int64_t>(n_rows * n_cols);

using flat_t = xlet::f32<n_flat>;
using mat_t = xlet::f32<n_rows, n_cols>;

struct data {
    std::unique_ptr<flat_t> flat = std::make_unique<flat_t>();
    std::unique_ptr<mat_t> mat = std::make_unique<mat_t>();
    data() {
        fill(flat->data(), n_flat, [](std::size_t i) { return gen(i, 1, -1.0f, 1.0f); });
        fill(mat->data(), n_rows * n_cols, [](std::size_t i) { return gen(i, 2, -1.0f, 1.0f); });
    }
};
data& in() {
    static data d;
    return d;
}

// A wrong kernel must not post a number: every checked run is sorted and a permutation's sum.
bool sorted_rows(benchmark::State& st, const float* y, std::size_t rows, std::size_t cols) {
    for (std::size_t r = 0; r < rows; r += std::max<std::size_t>(1, rows / 7))
        if (!std::is_sorted(y + r * cols, y + (r + 1) * cols)) {
            st.SkipWithError("result not sorted");
            return false;
        }
    return true;
}

// ---- BM_sort: one slice of 2^24 --------------------------------------------------------------------

void BM_sort_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const flat_t& x = *in().flat;
    for (auto _ : st) {
        auto y = xlet::sort(x, xlet::sort_less{});
        benchmark::DoNotOptimize(y.data());
        st.PauseTiming();
        if (!sorted_rows(st, y.data(), 1, n_flat)) break;
        st.ResumeTiming();
    }
    set_bytes(st, bytes_flat);
}

template<bool Parallel>
void BM_sort_peer(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* x = in().flat->data();
    auto y = make_buffer(n_flat);
    for (auto _ : st) {
        std::copy(x, x + n_flat, y.get());
        if constexpr (Parallel)
            tbb::parallel_sort(y.get(), y.get() + n_flat);
        else
            std::sort(y.get(), y.get() + n_flat);
        benchmark::ClobberMemory();
        st.PauseTiming();
        if (!sorted_rows(st, y.get(), 1, n_flat)) break;
        st.ResumeTiming();
    }
    set_bytes(st, bytes_flat);
}

// ---- BM_sortrows: 4096 rows of 4096 ---------------------------------------------------------------

void BM_sortrows_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const mat_t& x = *in().mat;
    for (auto _ : st) {
        auto y = xlet::sort(x, xlet::sort_less{});
        benchmark::DoNotOptimize(y.data());
        st.PauseTiming();
        if (!sorted_rows(st, y.data(), n_rows, n_cols)) break;
        st.ResumeTiming();
    }
    set_bytes(st, bytes_mat);
}

void BM_sortrows_tbb(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* x = in().mat->data();
    auto y = make_buffer(n_rows * n_cols);
    for (auto _ : st) {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n_rows), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                std::copy(x + i * n_cols, x + (i + 1) * n_cols, y.get() + i * n_cols);
                std::sort(y.get() + i * n_cols, y.get() + (i + 1) * n_cols);
            }
        });
        benchmark::ClobberMemory();
        st.PauseTiming();
        if (!sorted_rows(st, y.get(), n_rows, n_cols)) break;
        st.ResumeTiming();
    }
    set_bytes(st, bytes_mat);
}

// ---- BM_topk8: the 8 largest of every row, with their positions -------------------------------------

bool check_top(benchmark::State& st, const float* v, const std::int32_t* idx) {
    const float* x = in().mat->data();
    for (std::size_t r = 0; r < n_rows; r += 511) {
        const float* row = x + r * n_cols;
        const float m = *std::max_element(row, row + n_cols);
        if (v[r * top] != m || row[idx[r * top]] != m ||
            !std::is_sorted(v + r * top, v + (r + 1) * top, std::greater<>{})) {
            st.SkipWithError("wrong top_k");
            return false;
        }
    }
    return true;
}

void BM_topk8_xlet(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const mat_t& x = *in().mat;
    for (auto _ : st) {
        auto [v, i] = xlet::top_k<top>(x);
        benchmark::DoNotOptimize(v.data());
        benchmark::DoNotOptimize(i.data());
        st.PauseTiming();
        if (!check_top(st, v.data(), i.data())) break;
        st.ResumeTiming();
    }
    set_bytes(st, bytes_mat);
}

void BM_topk8_tbb(benchmark::State& st, int threads) {
    tbb_threads t(threads);
    const float* x = in().mat->data();
    auto v = make_buffer(n_rows * top);
    auto idx = make_buffer<std::int32_t>(n_rows * top);
    for (auto _ : st) {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n_rows), [&](const tbb::blocked_range<std::size_t>& r) {
            std::vector<std::int32_t> pos(n_cols);
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                const float* row = x + i * n_cols;
                std::iota(pos.begin(), pos.end(), 0);
                std::partial_sort(pos.begin(), pos.begin() + top, pos.end(), [row](std::int32_t a, std::int32_t b) {
                    return row[a] > row[b] || (row[a] == row[b] && a < b);
                });
                for (std::size_t j = 0; j < top; ++j) {
                    idx[i * top + j] = pos[j];
                    v[i * top + j] = row[pos[j]];
                }
            }
        });
        benchmark::ClobberMemory();
        st.PauseTiming();
        if (!check_top(st, v.get(), idx.get())) break;
        st.ResumeTiming();
    }
    set_bytes(st, bytes_mat);
}

void register_all() {
    for (int t : {1, 2})
        reg("BM_sort/xlet", BM_sort_xlet, t);
    reg("BM_sort/std_sort", BM_sort_peer<false>, 1);
    for (int t : {1, 2})
        reg("BM_sort/tbb_parallel_sort", BM_sort_peer<true>, t);
    for (int t : {1, 2}) {
        reg("BM_sortrows/xlet", BM_sortrows_xlet, t);
        reg("BM_sortrows/tbb_std_sort", BM_sortrows_tbb, t);
    }
    for (int t : {1, 2}) {
        reg("BM_topk8/xlet", BM_topk8_xlet, t);
        reg("BM_topk8/tbb_partial_sort", BM_topk8_tbb, t);
    }
}

} // namespace
} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
