// Quantized ops (issue #26), at 1 and 2 threads, beside the copy bandwidth of the same machine in
// the same run. Names: BM_<case>/<impl>/threads:<t>/real_time. Results and the command:
// docs/performance.md.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <xlet/xlet.hpp>

#include "bench_common.hpp"

namespace xlet_bench {

// ---- quantized add ------------------------------------------------------------------------------
// y = add(a, b) on 2^24 s8 elements (i8:f32, scale 0.5, zero point -3): the integer path (one scale
// and zero point: clamp(a + b - z) on the stored integers, quant/op_node.hpp) and the spec's float
// path (dequantize, add in f32, quantize), both one fused pass: the same program through
// passes::apply<legalize_quantized_op_to_qdq>, and add<Q>(a, c) of an operand with another scale.
// Each iteration also copies 2^24 bytes (memcpy; split over the threads like the plain loops):
// counters op_GBps (3 bytes an element: a, b in, y out), copy_GBps (2 bytes a byte) and ratio,
// the median of the per-iteration ratios op_GBps / copy_GBps.

constexpr std::size_t n_q = std::size_t{1} << 24;
using QA = xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.5), -3>;
using QC = xlet::quant::uniform<std::int8_t, float, xlet::quant::scale(0.25), 5>;
using qvec = xlet::tensor<QA, n_q>;

struct qadd_data {
    std::unique_ptr<qvec> a = std::make_unique<qvec>(), b = std::make_unique<qvec>(), y = std::make_unique<qvec>();
    std::unique_ptr<xlet::tensor<QC, n_q>> c = std::make_unique<xlet::tensor<QC, n_q>>();
    buffer<std::uint8_t> from = make_buffer<std::uint8_t>(n_q), to = make_buffer<std::uint8_t>(n_q);
    qadd_data() {
        for (std::size_t i = 0; i < n_q; ++i) {
            a->data()[i].stored = static_cast<std::int8_t>(mix(i, 1));
            b->data()[i].stored = static_cast<std::int8_t>(mix(i, 2));
            c->data()[i].stored = static_cast<std::int8_t>(mix(i, 3));
            from[i] = static_cast<std::uint8_t>(mix(i, 4));
        }
    }
};

inline void copy_bytes(std::uint8_t* to, const std::uint8_t* from, std::size_t n, int threads) {
    if (threads == 1)
        std::memcpy(to, from, n);
    else
        static_parallel(n, [&](std::size_t i0, std::size_t i1) { std::memcpy(to + i0, from + i0, i1 - i0); });
}

// op() and a copy alternated in one timed loop (this machine's bandwidth drifts between runs).
template<class Op>
void qadd_against_copy(benchmark::State& st, qadd_data& d, int threads, Op op) {
    constexpr double op_bytes = 3.0 * n_q, copy_bytes_n = 2.0 * n_q;
    std::vector<double> ratios;
    double t_op = 0, t_copy = 0;
    for (auto _ : st) {
        const auto t0 = std::chrono::steady_clock::now();
        op();
        benchmark::ClobberMemory();
        const auto t1 = std::chrono::steady_clock::now();
        copy_bytes(d.to.get(), d.from.get(), n_q, threads);
        benchmark::ClobberMemory();
        const auto t2 = std::chrono::steady_clock::now();
        const double x = std::chrono::duration<double>(t1 - t0).count(),
                     c = std::chrono::duration<double>(t2 - t1).count();
        t_op += x;
        t_copy += c;
        ratios.push_back((op_bytes / x) / (copy_bytes_n / c));
    }
    std::sort(ratios.begin(), ratios.end());
    const double it = static_cast<double>(st.iterations());
    st.counters["op_GBps"] = op_bytes * it / t_op / 1e9;
    st.counters["copy_GBps"] = copy_bytes_n * it / t_copy / 1e9;
    st.counters["ratio"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
}

// Spot checks: the integer formula where it applies; the two float forms against each other.
inline bool qadd_ok(const qadd_data& d) {
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, n_q / 3, n_q / 2 + 7, n_q - 1}) {
        const int want = std::clamp(d.a->data()[i].stored + d.b->data()[i].stored + 3, -128, 127);
        if (d.y->data()[i].stored != want) return false;
    }
    return true;
}

void BM_qadd_integer(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    qadd_data d;
    qadd_against_copy(st, d, threads, [&] { *d.y = xlet::add(*d.a, *d.b); });
    if (!qadd_ok(d)) st.SkipWithError("wrong result");
}
void BM_qadd_float(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    qadd_data d;
    qadd_against_copy(st, d, threads, [&] {
        *d.y = xlet::passes::apply<xlet::passes::legalize_quantized_op_to_qdq>(xlet::add(*d.a, *d.b));
    });
    if (!qadd_ok(d)) st.SkipWithError("wrong result"); // (the same bits as the integer path)
}
void BM_qadd_float_scales(benchmark::State& st, int threads) {
    tbb_threads tc(threads);
    qadd_data d;
    qadd_against_copy(st, d, threads, [&] { *d.y = xlet::add<QA>(*d.a, *d.c); });
    const qvec want = xlet::uniform_quantize<QA>(xlet::uniform_dequantize(*d.a) + xlet::uniform_dequantize(*d.c));
    if (std::memcmp(want.data(), d.y->data(), n_q) != 0) st.SkipWithError("wrong result");
}

void register_all() {
    for (int t : {1, 2}) {
        reg("BM_qadd/integer", BM_qadd_integer, t);
        reg("BM_qadd/float", BM_qadd_float, t);
        reg("BM_qadd/float_scales", BM_qadd_float_scales, t);
    }
}

} // namespace xlet_bench

int main(int argc, char** argv) { return xlet_bench::bench_main(argc, argv, xlet_bench::register_all); }
