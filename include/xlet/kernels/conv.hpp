// Convolution kernels (no op-level API; ops/conv/conv.hpp drives them). Every kernel works on
// canonical buffers that the op has already laid out:
//   input  [nb_in][p_0]...[p_{s-1}][c]   padded and lhs-dilated (holes and padding are zeros)
//   kernel [k_0]...[k_{s-1}][ci][o]      window reversal applied; a K x O matrix, K = taps * ci
//   output [nb_out][q_0]...[q_{s-1}][o]  each group writes its own o / groups columns
// so a window position reads input[n][q_d * stride_d + k_d * rhs_dilation_d][cin0 + i] and the
// spatial dimensions all run in the same direction. The geometry is a template argument
// (conv_geom): every offset below is a compile-time constant of the op's static shapes.
//
// f32 / f64: a direct convolution on the GEMM micro-kernel's register tile (kernels/gemm.hpp:
// MR x NB batches of C, MR = 14 / NB = 2 on AVX-512, 6 / 2 on AVX2). Rows of the tile are MR (or
// fewer: a line's positions are cut into even blocks) consecutive output positions along the
// innermost spatial dimension, columns NR output features.
// The A operand is never packed: for k step (tap, input feature) the MR values broadcast are
// input[base + i * stride * c + offset(tap) + feature], i < MR, a constant stride, so the tile
// reads the input in place (an implicit GEMM with no im2col panel). k runs over "runs": maximal
// stretches of k whose input offsets are contiguous (a whole tap's ci features; with one group
// and no rhs dilation, the taps of a kernel row merge: 7 x 3 = 21 values for a 7x7 kernel over 3
// features). The kernel (B) is packed once per call into NR-column slivers, k-major, per group.
// k is cut into passes of at most KC (gemm_blocking) whole runs; later passes add into the output.
// The padded input is either made whole by the op or, from an array, packed by each task into a
// slab of the rows its lines read (conv_source). Depthwise (one input and one output feature per
// group): SIMD over features, the kernel taps
// loaded once per feature block; every other element type: a plain loop in the accumulation type.
// Determinism: each output element is computed by one sequence (acc = 0; one FMA per k in order;
// then stored, or added for later passes) whatever the thread count or the task it falls in. (In
// 2-D, the k steps of kernel rows that read only padding rows are left out when every weight is
// finite: they add +-0 to an accumulator that is never -0, so the bits are the same.)
#pragma once
#include "gemm.hpp"
#include "transpose.hpp"

#include <array>
#include <concepts>

namespace xlet::detail {

inline constexpr std::size_t conv_max_spatial = 6;

struct conv_geom {
    std::size_t ns = 0;           // spatial dimensions
    std::size_t nb_in = 0, c = 0; // canonical input batch and features
    std::array<std::size_t, conv_max_spatial> p{}, k{}, q{}, s{}, rd{};
    std::size_t ci = 0, o = 0; // kernel input features (one group), output features (all)
    std::size_t nb_out = 0;
    std::size_t groups = 1; // feature groups, or batch groups when batch_groups
    bool batch_groups = false;
    // Strides of the result (any layout): batch, spatial d, feature.
    std::ptrdiff_t osb = 0, osf = 0;
    std::array<std::ptrdiff_t, conv_max_spatial> oss{};
};

struct conv_run {
    std::ptrdiff_t off = 0; // input offset of the run's first k
    std::size_t len = 0;
};

// Static facts derived from the geometry.
template<conv_geom G>
struct conv_layout_of {
    static constexpr std::size_t taps = [] {
        std::size_t t = 1;
        for (std::size_t d = 0; d < G.ns; ++d)
            t *= G.k[d];
        return t;
    }();
    static constexpr std::size_t K = taps * G.ci;
    static constexpr std::size_t og = G.o / G.groups; // output features of one group
    // Strides of the canonical input (elements): spatial d, batch.
    static constexpr std::array<std::ptrdiff_t, conv_max_spatial> in_stride = [] {
        std::array<std::ptrdiff_t, conv_max_spatial> st{};
        std::ptrdiff_t acc = static_cast<std::ptrdiff_t>(G.c);
        for (std::size_t d = G.ns; d-- > 0;) {
            st[d] = acc;
            acc *= static_cast<std::ptrdiff_t>(G.p[d]);
        }
        return st;
    }();
    static constexpr std::ptrdiff_t in_batch_stride = [] {
        std::ptrdiff_t acc = static_cast<std::ptrdiff_t>(G.c);
        for (std::size_t d = 0; d < G.ns; ++d)
            acc *= static_cast<std::ptrdiff_t>(G.p[d]);
        return acc;
    }();
    static constexpr std::size_t ow = G.ns == 0 ? 1 : G.q[G.ns - 1]; // positions of one line
    // Lines: (group, output batch, every spatial index but the innermost).
    static constexpr std::size_t outer = [] {
        std::size_t n = 1;
        for (std::size_t d = 0; d + 1 < G.ns; ++d)
            n *= G.q[d];
        return n;
    }();
    static constexpr std::size_t lines = G.groups * G.nb_out * outer;
    static constexpr std::size_t out_size = [] {
        std::size_t n = G.nb_out * G.o;
        for (std::size_t d = 0; d < G.ns; ++d)
            n *= G.q[d];
        return n;
    }();
    // Input offset of tap t (row-major over k_0..k_{s-1}).
    static constexpr std::ptrdiff_t tap_offset(std::size_t t) {
        std::ptrdiff_t off = 0;
        for (std::size_t d = G.ns; d-- > 0;) {
            const std::size_t kd = t % G.k[d];
            t /= G.k[d];
            off += static_cast<std::ptrdiff_t>(kd * G.rd[d]) * in_stride[d];
        }
        return off;
    }
    // Input offset (relative to the line's base) and output offset of line l; the group's first
    // input feature is part of the input offset.
    struct line_at {
        std::ptrdiff_t in = 0, out = 0;
        std::size_t group = 0;
    };
    static constexpr line_at line(std::size_t l) {
        line_at r;
        r.group = l / (G.nb_out * outer);
        std::size_t rest = l % (G.nb_out * outer);
        const std::size_t n = rest / outer;
        std::size_t qo = rest % outer;
        const std::size_t n_in = G.batch_groups ? r.group * G.nb_out + n : n;
        r.in = static_cast<std::ptrdiff_t>(n_in) * in_batch_stride +
               static_cast<std::ptrdiff_t>(G.batch_groups ? 0 : r.group * G.ci);
        for (std::size_t d = G.ns == 0 ? 0 : G.ns - 1; d-- > 0;) {
            const std::size_t qd = qo % G.q[d];
            qo /= G.q[d];
            r.in += static_cast<std::ptrdiff_t>(qd * G.s[d]) * in_stride[d];
            r.out += static_cast<std::ptrdiff_t>(qd) * G.oss[d];
        }
        r.out += static_cast<std::ptrdiff_t>(n) * G.osb + static_cast<std::ptrdiff_t>(r.group * og) * G.osf;
        return r;
    }
};

// The k runs and their passes.
template<conv_geom G, std::size_t KC>
struct conv_runs {
    using L = conv_layout_of<G>;
    // Runs merge k steps whose input offsets follow each other; a run is cut at KC.
    template<bool Fill, std::size_t N>
    static constexpr std::size_t build(std::array<conv_run, N>* out) {
        std::size_t n = 0;
        conv_run cur{};
        bool open = false;
        for (std::size_t t = 0; t < L::taps; ++t) {
            const std::ptrdiff_t base = L::tap_offset(t);
            for (std::size_t i = 0; i < G.ci; ++i) {
                const std::ptrdiff_t off = base + static_cast<std::ptrdiff_t>(i);
                if (open && off == cur.off + static_cast<std::ptrdiff_t>(cur.len) && cur.len < KC) {
                    ++cur.len;
                    continue;
                }
                if (open) {
                    if constexpr (Fill) (*out)[n] = cur;
                    ++n;
                }
                cur = conv_run{off, 1};
                open = true;
            }
        }
        if (open) {
            if constexpr (Fill) (*out)[n] = cur;
            ++n;
        }
        return n;
    }
    static constexpr std::size_t count = build<false, 1>(nullptr);
    static constexpr std::array<conv_run, count> runs = [] {
        std::array<conv_run, count> r{};
        build<true, count>(&r);
        return r;
    }();
    // Passes: consecutive runs with at most KC k steps in all.
    struct pass {
        std::size_t r0 = 0, r1 = 0, k0 = 0, kc = 0;
    };
    template<bool Fill, std::size_t N>
    static constexpr std::size_t split(std::array<pass, N>* out) {
        std::size_t n = 0, k = 0;
        pass cur{};
        for (std::size_t r = 0; r < count; ++r) {
            if (cur.kc > 0 && cur.kc + runs[r].len > KC) {
                if constexpr (Fill) (*out)[n] = cur;
                ++n;
                cur = pass{r, r, k, 0};
            }
            cur.r1 = r + 1;
            cur.kc += runs[r].len;
            k += runs[r].len;
        }
        if (cur.kc > 0) {
            if constexpr (Fill) (*out)[n] = cur;
            ++n;
        }
        return n;
    }
    // 2-D: no run crosses a kernel row (a run's offset names its row: off / in_stride[0] = kh * rd_0),
    // so that a line can leave out the runs of rows it reads only in the padding (conv_direct).
    static constexpr bool runs_in_rows = [] {
        if (G.ns != 2) return false;
        for (const conv_run& r : runs)
            if (r.off % L::in_stride[0] + static_cast<std::ptrdiff_t>(r.len) > L::in_stride[0]) return false;
        return true;
    }();
    static constexpr std::size_t npass = split<false, 1>(nullptr);
    static constexpr std::array<pass, npass> passes = [] {
        std::array<pass, npass> p{};
        split<true, npass>(&p);
        return p;
    }();
};

// The canonical input from an array in any layout: dst [nb][p_0..p_{s-1}][c] (padded, dilated)
// from src whose canonical dimension j (batch, spatial d, feature) has stride sst[j]. Each dst
// line (all spatial indices but the innermost) is either all padding (zeroed) or the image of a
// source line: its padding and holes are zeroed and the values copied, row by row when the
// source's features are contiguous, else by 8 x 8 register transposes (kernels/transpose.hpp;
// NCHW -> channels-last). lo: low padding (negative crops), ld: lhs dilation, n: source sizes.
// Padding and holes hold `fill` (0; a quantized input's stored zero point, which stands for 0).
template<class T>
struct conv_pack_desc {
    std::size_t ns = 0, nb = 0, c = 0;
    std::array<std::size_t, conv_max_spatial> n{}, p{}, ld{};
    std::array<std::ptrdiff_t, conv_max_spatial> lo{};
    std::ptrdiff_t sb = 0, sf = 0;
    std::array<std::ptrdiff_t, conv_max_spatial> ss{};
};
// Where row r of the canonical buffer (a row: one line of the innermost spatial dimension, all
// features) comes from: nothing (all padding) or source elements at src + s + j * ss[ns - 1] (+ the
// feature's offset) for j < cnt, stored at positions x0 + j * ld of the row.
struct conv_row_origin {
    bool any = false;
    std::ptrdiff_t s = 0, x0 = 0;
    std::size_t cnt = 0;
};
// Source index at position o of a dilated, padded dimension (lo: low padding, ld: lhs dilation, n:
// source size), or -1 for padding and holes.
inline std::ptrdiff_t conv_source_index(std::ptrdiff_t o, std::ptrdiff_t lo, std::size_t ld, std::size_t n) {
    const std::ptrdiff_t t = o - lo;
    if (t < 0 || t % static_cast<std::ptrdiff_t>(ld) != 0) return -1;
    const std::ptrdiff_t i = t / static_cast<std::ptrdiff_t>(ld);
    return i < static_cast<std::ptrdiff_t>(n) ? i : -1;
}
template<class T>
conv_row_origin conv_origin_of_row(const conv_pack_desc<T>& D, std::size_t r) {
    const std::size_t ns = D.ns;
    conv_row_origin o;
    std::size_t rest = r;
    for (std::size_t d = ns - 1; d-- > 0;) {
        const std::ptrdiff_t i =
            conv_source_index(static_cast<std::ptrdiff_t>(rest % D.p[d]), D.lo[d], D.ld[d], D.n[d]);
        rest /= D.p[d];
        if (i < 0) return o;
        o.s += i * D.ss[d];
    }
    o.s += static_cast<std::ptrdiff_t>(rest) * D.sb;
    // Innermost spatial: the first source index whose position is >= 0, and the count inside the row.
    const std::size_t di = ns - 1;
    const std::ptrdiff_t lo = D.lo[di];
    const auto ld = static_cast<std::ptrdiff_t>(D.ld[di]);
    const auto p = static_cast<std::ptrdiff_t>(D.p[di]);
    const std::ptrdiff_t j0 = lo >= 0 ? 0 : (-lo + ld - 1) / ld;
    std::ptrdiff_t j1 = static_cast<std::ptrdiff_t>(D.n[di]);
    if (j1 > 0 && lo + (j1 - 1) * ld >= p) j1 = (p - 1 - lo) / ld + 1;
    if (j1 <= j0) return o;
    o.any = true;
    o.s += j0 * D.ss[di];
    o.x0 = lo + j0 * ld;
    o.cnt = static_cast<std::size_t>(j1 - j0);
    return o;
}

// Rows [r0, r1) of the canonical buffer, row r0 written at dst.
template<class T>
void conv_pack_rows(const conv_pack_desc<T>& D, const T* src, T* dst, std::size_t r0, std::size_t r1, T fill) {
    const std::size_t ns = D.ns, C = D.c, di = ns - 1;
    const std::size_t inner = D.p[di], line = inner * C;
    const auto ld = static_cast<std::ptrdiff_t>(D.ld[di]);
    for (std::size_t l = r0; l < r1; ++l) {
        T* out = dst + (l - r0) * line;
        const conv_row_origin org = conv_origin_of_row(D, l);
        if (!org.any) {
            std::fill_n(out, line, fill);
            continue;
        }
        const std::ptrdiff_t x0 = org.x0, x1 = org.x0 + static_cast<std::ptrdiff_t>(org.cnt - 1) * ld + 1;
        if (ld > 1) {
            std::fill_n(out, line, fill);
        } else {
            std::fill_n(out, static_cast<std::size_t>(x0) * C, fill);
            std::fill_n(out + x1 * static_cast<std::ptrdiff_t>(C), (inner - static_cast<std::size_t>(x1)) * C, fill);
        }
        const T* in = src + org.s;
        T* o = out + x0 * static_cast<std::ptrdiff_t>(C);
        const std::size_t cnt = org.cnt;
        const std::ptrdiff_t ds = ld * static_cast<std::ptrdiff_t>(C);
        if (D.sf == 1 && ds == static_cast<std::ptrdiff_t>(C) && D.ss[di] == ds) {
            std::copy_n(in, cnt * C, o); // the whole line at once (a copy per position of a
                                         // 3-feature image: 12% of a quantized 7x7 stem's time)
        } else if (D.sf == 1) {
            for (std::size_t j = 0; j < cnt; ++j)
                std::copy_n(in + static_cast<std::ptrdiff_t>(j) * D.ss[di], C, o + static_cast<std::ptrdiff_t>(j) * ds);
        } else if (D.ss[di] == 1) {
            // dst[x * ds + f] = src[f * sf + x]
            transpose_tile(in, D.sf, o, ds, 0, cnt, 0, C);
        } else {
            for (std::size_t j = 0; j < cnt; ++j)
                for (std::size_t f = 0; f < C; ++f)
                    o[static_cast<std::ptrdiff_t>(j) * ds + static_cast<std::ptrdiff_t>(f)] =
                        in[static_cast<std::ptrdiff_t>(j) * D.ss[di] + static_cast<std::ptrdiff_t>(f) * D.sf];
        }
    }
}

// Elements of one row of the canonical buffer, and its rows.
template<class T>
constexpr std::size_t conv_row_size(const conv_pack_desc<T>& D) {
    return (D.ns == 0 ? 1 : D.p[D.ns - 1]) * D.c;
}
template<class T>
constexpr std::size_t conv_rows(const conv_pack_desc<T>& D) {
    std::size_t n = D.nb;
    for (std::size_t d = 0; d + 1 < D.ns; ++d)
        n *= D.p[d];
    return n;
}

// The whole canonical buffer.
template<class T>
void conv_pack_input(const conv_pack_desc<T>& D, const T* src, T* dst, T fill = T(0), bool parallel = true) {
    const std::size_t line = conv_row_size(D), nlines = conv_rows(D);
    auto rows = [&](std::size_t r0, std::size_t r1) { conv_pack_rows(D, src, dst + r0 * line, r0, r1, fill); };
    const bool par = parallel && nlines > 1 && nlines * line >= (std::size_t{1} << 16);
    if (par)
        tbb::this_task_arena::isolate(
            [&] { gemm_for(true, nlines, std::max<std::size_t>(1, 8192 / std::max<std::size_t>(1, line)), rows); });
    else
        rows(0, nlines);
}

// What a kernel calls with each range [b, e) of the result (elements, row-major) once it is
// written: nothing, or an element-wise epilogue run on it while it is in cache (ops/conv/conv.hpp;
// called only when the result is in canonical order: the ranges are then whole lines, or for the
// depthwise kernel whole positions of a line).
struct conv_no_epilogue {
    void operator()(std::size_t, std::size_t) const {}
};
// An epilogue the depthwise kernel applies to its accumulators before it stores them: one that
// also provides `B on_registers(acc, f)`, acc the vector of features [f, f + W) of a position
// (ops/conv/conv.hpp: per-feature epilogues, such as a bias and an activation).
template<class Epi, class B>
concept conv_register_epilogue = requires(const Epi& e, const B& v) {
    { e.on_registers(v, std::size_t{}) } -> std::same_as<B>;
};

// ROWS consecutive output positions (input rows RS elements apart) x NR output features, over the
// runs [run, run + nrun): C (=, +=) sum_k A * B, writing nr <= NR columns.
// With a register epilogue (conv_register_epilogue) and `last`, the result's vectors go through
// it before they are stored (f0: the tile's first feature); the caller ensures whole tiles (nr ==
// NR) of a channels-last result (CF == 1).
template<class T, std::size_t ROWS, std::ptrdiff_t RS, std::ptrdiff_t CR, std::ptrdiff_t CF,
         class Epi = conv_no_epilogue>
inline void conv_micro(const T* a, const conv_run* run, std::size_t nrun, const T* __restrict pb, T* c, bool add,
                       std::size_t nr, const Epi& epi = {}, std::size_t f0 = 0, bool last = false) {
    using Gb = gemm_blocking<T>;
    using B = typename Gb::batch;
    constexpr std::size_t NB = Gb::NB, NR = Gb::NR, W = Gb::W;
    constexpr bool in_registers = conv_register_epilogue<Epi, B>;
    B acc[ROWS][NB];
#pragma GCC unroll 32
    for (std::size_t i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            acc[i][v] = B(T(0));
    for (std::size_t r = 0; r < nrun; ++r) {
        const T* ar = a + run[r].off;
        const std::size_t len = run[r].len;
        for (std::size_t p = 0; p < len; ++p) {
            B b[NB];
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v)
                b[v] = B::load_aligned(pb + v * W);
#pragma GCC unroll 32
            for (std::size_t i = 0; i < ROWS; ++i) {
                const B av(ar[static_cast<std::ptrdiff_t>(i) * RS + static_cast<std::ptrdiff_t>(p)]);
#pragma GCC unroll 4
                for (std::size_t v = 0; v < NB; ++v)
                    acc[i][v] = xsimd::fma(av, b[v], acc[i][v]);
            }
            pb += NR;
        }
    }
    if (CF == 1 && nr == NR) {
        if constexpr (in_registers)
            if (last) {
#pragma GCC unroll 32
                for (std::size_t i = 0; i < ROWS; ++i) {
                    T* row = c + static_cast<std::ptrdiff_t>(i) * CR;
#pragma GCC unroll 4
                    for (std::size_t v = 0; v < NB; ++v) {
                        const B r = add ? B::load_unaligned(row + v * W) + acc[i][v] : acc[i][v];
                        epi.on_registers(r, f0 + v * W).store_unaligned(row + v * W);
                    }
                }
                return;
            }
#pragma GCC unroll 32
        for (std::size_t i = 0; i < ROWS; ++i) {
            T* row = c + static_cast<std::ptrdiff_t>(i) * CR;
#pragma GCC unroll 4
            for (std::size_t v = 0; v < NB; ++v) {
                if (add)
                    (B::load_unaligned(row + v * W) + acc[i][v]).store_unaligned(row + v * W);
                else
                    acc[i][v].store_unaligned(row + v * W);
            }
        }
        return;
    }
    alignas(64) T tile[ROWS * NR];
#pragma GCC unroll 32
    for (std::size_t i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
        for (std::size_t v = 0; v < NB; ++v)
            acc[i][v].store_aligned(tile + i * NR + v * W);
    // Other layouts (features not contiguous, e.g. NCHW): feature j's ROWS positions are CR apart.
    for (std::size_t j = 0; j < nr; ++j) {
        T* col = c + static_cast<std::ptrdiff_t>(j) * CF;
        for (std::size_t i = 0; i < ROWS; ++i) {
            T& dst = col[static_cast<std::ptrdiff_t>(i) * CR];
            dst = add ? dst + tile[i * NR + j] : tile[i * NR + j];
        }
    }
}

// Output work (multiply-adds) from which a convolution uses TBB, and the work of one task.
inline constexpr std::size_t conv_parallel_work = std::size_t{1} << 19;
inline constexpr std::size_t conv_task_work = std::size_t{1} << 21;

// Lines [0, lines) in tasks of about conv_task_work multiply-adds (and at least min_lines).
template<class F>
void conv_for_lines(std::size_t lines, std::size_t work_per_line, bool parallel, const F& f,
                    std::size_t min_lines = 1) {
    const bool par = parallel && lines > 1 && lines * work_per_line >= conv_parallel_work;
    if (!par) {
        f(std::size_t{0}, lines);
        return;
    }
    const std::size_t grain = std::max(min_lines, conv_task_work / std::max<std::size_t>(1, work_per_line));
    tbb::this_task_arena::isolate([&] { gemm_for(true, lines, grain, f); });
}

// conv_direct's input when the whole canonical buffer is not made: its source and how it is packed.
// Each run of lines a task computes then packs the rows it reads into a slab (block cache) of at most
// conv_slab_bytes, which the kernel reads from L2: the whole padded copy of a [8,56,56,64] input
// went to memory and was read back from there, 3% of a 3x3 convolution's time on Zen 4 (a third of
// its gap to oneDNN, which pads in its kernel). 192 KiB leaves most of the smallest L2 of the
// project's hosts (512 KiB, Zen 3) to the streamed kernel slivers.
template<class T>
struct conv_source {
    const T* src = nullptr;
    const conv_pack_desc<T>* desc = nullptr;
};
inline constexpr std::size_t conv_slab_bytes = std::size_t{192} << 10;

// Whether conv_direct takes a register epilogue: a channels-last result in whole tiles of features.
template<conv_geom G, class T>
inline constexpr bool conv_direct_register_epilogue_ok = G.osf == 1 && (G.o / G.groups) % gemm_blocking<T>::NR == 0;

// f32 / f64: the direct kernel above. in: the canonical input buffer or a conv_source; w, out:
// canonical buffers (out fully written).
template<conv_geom G, class T, class In, class Epi = conv_no_epilogue>
requires std::same_as<In, const T*> || std::same_as<In, conv_source<T>>
void conv_direct(In in, const T* w, T* out, bool parallel = true, const Epi& epi = {}) {
    using L = conv_layout_of<G>;
    using Gb = gemm_blocking<T>;
    constexpr std::size_t NB = Gb::NB, MR = Gb::MR, NR = Gb::NR;
    using Rn = conv_runs<G, Gb::KC>;
    constexpr std::size_t og = L::og, ns_g = (og + NR - 1) / NR; // slivers per group
    constexpr std::size_t og_pad = ns_g * NR;
    constexpr std::ptrdiff_t RS = static_cast<std::ptrdiff_t>(G.s[G.ns - 1] * G.c);
    // A line's positions in nblk blocks of as even a size as MR allows: nbig of `big` rows, then
    // blocks of big - 1 (56 = 6 x 6 + 4 x 5 rather than 9 x 6 + 2: a 2-row block reads 4 vectors
    // of B per 8 FMAs, at the L2's bandwidth and half the FMA rate).
    constexpr std::size_t ow = L::ow, nblk = (ow + MR - 1) / MR, big = (ow + nblk - 1) / nblk;
    constexpr std::size_t nbig = ow - nblk * (big - 1);
    constexpr std::ptrdiff_t CR = G.oss[G.ns - 1], CF = G.osf; // result strides: position, feature
    static_assert(!conv_register_epilogue<Epi, typename Gb::batch> || conv_direct_register_epilogue_ok<G, T>,
                  "a register epilogue needs a channels-last result in whole tiles of features");
    // Pack the kernel: per group, per pass, its slivers (kc x NR, k-major, zero-padded columns).
    scratch<T> packed(G.groups * L::K * og_pad);
    const std::size_t items = G.groups * Rn::npass * ns_g;
    gemm_for(parallel && L::K * G.o >= (std::size_t{1} << 16), items, 4, [&](std::size_t i0, std::size_t i1) {
        for (std::size_t it = i0; it < i1; ++it) {
            const std::size_t g = it / (Rn::npass * ns_g), ps = it / ns_g % Rn::npass, j = it % ns_g;
            const auto& P = Rn::passes[ps];
            T* dst = packed.data() + g * L::K * og_pad + P.k0 * og_pad + j * NR * P.kc;
            gemm_pack_b_sliver<NR>(dst, w, static_cast<std::ptrdiff_t>(G.o), 1, g * og + j * NR,
                                   std::min(NR, og - j * NR), P.k0, P.kc);
        }
    });
    const std::size_t work_per_line = ow * og * L::K;
    constexpr bool packs = !std::is_pointer_v<In>;
    // Lines whose kernel rows reach into the top or bottom padding (or lhs-dilation holes) leave out
    // those rows' runs: their products are 0 * w, and with every weight finite, acc + (+-0) is acc
    // (acc starts at +0 and is never -0), so the bits are those of the whole sum (3x3 over 56 rows:
    // 1.2% of the multiply-adds). A non-finite weight (0 * inf is NaN) keeps every run.
    [[maybe_unused]] bool skip_rows = false;
    if constexpr (packs && Rn::runs_in_rows) {
        using Bt = xsimd::batch<T>;
        constexpr std::size_t n = L::K * G.o, nv = n / Bt::size * Bt::size;
        Bt z(T(0));
        for (std::size_t i = 0; i < nv; i += Bt::size)
            z = z + Bt::load_unaligned(w + i) * Bt(T(0));
        T zs = xsimd::hadd(z);
        for (std::size_t i = nv; i < n; ++i)
            zs = zs + w[i] * T(0);
        skip_rows = zs == T(0);
    }
    // The runs of a pass [r0, r1) that line l computes, [rb, re), and the k steps of those before rb.
    struct run_range {
        std::size_t rb, re, kskip;
    };
    auto runs_of = [&]([[maybe_unused]] std::size_t l, std::size_t r0, std::size_t r1) {
        run_range rr{r0, r1, 0};
        if constexpr (packs && Rn::runs_in_rows) {
            if (!skip_rows) return rr;
            const conv_pack_desc<T>& D = *in.desc;
            const auto row0 = static_cast<std::ptrdiff_t>(l % L::outer * G.s[0]);
            auto padded = [&](const conv_run& r) { // the run's canonical input row holds no source row
                return conv_source_index(row0 + r.off / L::in_stride[0], D.lo[0], D.ld[0], D.n[0]) < 0;
            };
            while (rr.rb < rr.re && padded(Rn::runs[rr.rb]))
                rr.kskip += Rn::runs[rr.rb++].len;
            while (rr.re > rr.rb && padded(Rn::runs[rr.re - 1]))
                --rr.re;
        }
        return rr;
    };
    // Lines [l0, l1), the input element e at a0[e - shift].
    auto lines = [&](const T* a0, std::ptrdiff_t shift, std::size_t l0, std::size_t l1) {
        for (std::size_t ps = 0; ps < Rn::npass; ++ps) {
            const auto& P = Rn::passes[ps];
            const bool add = ps > 0;
            for (std::size_t j = 0; j < ns_g; ++j) {
                const std::size_t nr = std::min(NR, og - j * NR);
                for (std::size_t l = l0; l < l1; ++l) {
                    const auto at = L::line(l);
                    const run_range rr = runs_of(l, P.r0, P.r1);
                    const conv_run* run = Rn::runs.data() + rr.rb;
                    const std::size_t nrun = rr.re - rr.rb;
                    const T* pb =
                        packed.data() + at.group * L::K * og_pad + P.k0 * og_pad + j * NR * P.kc + rr.kskip * NR;
                    const T* a = a0 + (at.in - shift);
                    T* c = out + at.out + static_cast<std::ptrdiff_t>(j * NR) * CF;
                    // Each block first asks for the result lines of the next one: a store that
                    // misses the cache (the result streams to memory) otherwise holds the
                    // store queue while the next block runs (Zen 4, 7x7 stem: 4-9% of its time).
                    auto block = [&]<std::size_t Rows>(std::integral_constant<std::size_t, Rows>, std::size_t x) {
                        if constexpr (CF == 1)
                            for (std::size_t i = x + Rows; i < std::min(ow, x + 2 * Rows); ++i)
#pragma GCC unroll 4
                                for (std::size_t v = 0; v < NB; ++v)
                                    __builtin_prefetch(c + static_cast<std::ptrdiff_t>(i) * CR + v * Gb::W, 1);
                        conv_micro<T, Rows, RS, CR, CF>(a + static_cast<std::ptrdiff_t>(x) * RS, run, nrun, pb,
                                                        c + static_cast<std::ptrdiff_t>(x) * CR, add, nr, epi,
                                                        at.group * og + j * NR, ps + 1 == Rn::npass);
                    };
                    for (std::size_t b = 0; b < nbig; ++b)
                        block(std::integral_constant<std::size_t, big>{}, b * big);
                    if constexpr (nbig < nblk)
                        for (std::size_t b = nbig; b < nblk; ++b)
                            block(std::integral_constant<std::size_t, big - 1>{}, nbig * big + (b - nbig) * (big - 1));
                }
            }
        }
    };
    // Rows [lo, hi) of the canonical input that line l reads (a row: G.p[ns - 1] positions).
    constexpr std::size_t row = G.p[G.ns - 1] * G.c;
    constexpr std::ptrdiff_t last = L::tap_offset(L::taps - 1) + static_cast<std::ptrdiff_t>(ow - 1) * RS +
                                    static_cast<std::ptrdiff_t>(G.ci); // past the last element read
    struct rows_of {
        std::size_t lo, hi;
    };
    auto rows = [](std::size_t l) {
        const auto at = L::line(l);
        const std::ptrdiff_t first = at.in - static_cast<std::ptrdiff_t>(G.batch_groups ? 0 : at.group * G.ci);
        return rows_of{static_cast<std::size_t>(first) / row, (static_cast<std::size_t>(at.in + last) + row - 1) / row};
    };
    const rows_of r0 = rows(0);
    const std::size_t cap = std::max(r0.hi - r0.lo, conv_slab_bytes / (row * sizeof(T))); // slab rows
    // A task goes over runs of lines whose input rows fit the slab's size, each run slivers-major: its
    // input stays in L2 while the kernel's slivers go over it (over all lines at once, a 1x1
    // convolution of [8,14,14,256] read its 1.6 MB input from L3 once per sliver of 64 features).
    // From a conv_source, each run packs its rows into the task's slab first (the rows it shares
    // with the run before it, a kernel's height less one, are packed again).
    auto task = [&](std::size_t l0, std::size_t l1, [[maybe_unused]] T* slab) {
        for (std::size_t c0 = l0; c0 < l1;) {
            const rows_of first = rows(c0);
            std::size_t c1 = c0 + 1, hi = first.hi;
            for (; c1 < l1; ++c1) {
                const rows_of next = rows(c1);
                if (next.lo < first.lo || next.hi - first.lo > cap) break; // (back: another feature group)
                hi = next.hi;
            }
            if constexpr (packs) {
                conv_pack_rows(*in.desc, in.src, slab, first.lo, hi, T(0));
                lines(slab, static_cast<std::ptrdiff_t>(first.lo * row), c0, c1);
            } else {
                lines(in, 0, c0, c1);
            }
            epi(c0 * ow * G.o, c1 * ow * G.o);
            c0 = c1;
        }
    };
    if constexpr (packs)
        conv_for_lines(
            L::lines, work_per_line, parallel,
            [&](std::size_t l0, std::size_t l1) {
                scratch<T> slab(cap * row);
                task(l0, l1, slab.data());
            },
            4 * (r0.hi - r0.lo)); // (a run of a task's lines packs the rows they share once)
    else
        conv_for_lines(L::lines, work_per_line, parallel,
                       [&](std::size_t l0, std::size_t l1) { task(l0, l1, nullptr); });
}

// Depthwise (groups = c = o, ci = 1, no lhs dilation): out[.., f] = sum_taps x[.., f] * w[tap][f],
// read from the unpadded channels-last input [nb][n_0..n_{s-1}][c] (B: sizes and low padding), so
// no padded copy is made. SIMD over f; per feature block the taps' weights are loaded once and XB
// output positions accumulate together (one input load per FMA). A tap that falls in the padding
// contributes fma(0, w, acc), exactly as the padded buffer would: the same FMA chain from 0 over the
// taps in order for every position, interior or border.
struct conv_border {
    std::array<std::size_t, conv_max_spatial> n{};
    std::array<std::ptrdiff_t, conv_max_spatial> lo{};
};

template<conv_geom G, conv_border Bd, class T, class Epi = conv_no_epilogue>
void conv_depthwise(const T* in, const T* w, T* out, bool parallel = true, const Epi& epi = {}) {
    using L = conv_layout_of<G>;
    using B = xsimd::batch<T>;
    constexpr std::size_t W = B::size, C = G.c, taps = L::taps, ow = L::ow, ns = G.ns;
    constexpr std::size_t XB = gemm_vector_registers >= 32 ? 8 : 4; // positions per step
    constexpr std::size_t kx = G.k[ns - 1];
    constexpr std::size_t touter = taps / kx; // taps of the outer spatial dimensions
    static constexpr auto st = [] {           // input strides (unpadded): spatial d, batch
        std::array<std::ptrdiff_t, conv_max_spatial + 1> a{};
        std::ptrdiff_t acc = static_cast<std::ptrdiff_t>(C);
        for (std::size_t d = ns; d-- > 0;) {
            a[d] = acc;
            acc *= static_cast<std::ptrdiff_t>(Bd.n[d]);
        }
        a[conv_max_spatial] = acc;
        return a;
    }();
    constexpr std::ptrdiff_t sx = static_cast<std::ptrdiff_t>(G.s[ns - 1]),
                             rdx = static_cast<std::ptrdiff_t>(G.rd[ns - 1]);
    constexpr std::ptrdiff_t lox = Bd.lo[ns - 1], nx = static_cast<std::ptrdiff_t>(Bd.n[ns - 1]);
    // Interior positions [x_in0, x_in1): every kx tap inside the input.
    constexpr std::ptrdiff_t x_in0 = lox <= 0 ? 0 : (lox + sx - 1) / sx;
    constexpr std::ptrdiff_t x_in1 = [] {
        const std::ptrdiff_t last = nx - 1 - static_cast<std::ptrdiff_t>(kx - 1) * rdx + lox; // ox * sx <= last
        if (last < 0) return std::ptrdiff_t{0};
        return std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(ow), last / sx + 1);
    }();
    constexpr std::ptrdiff_t CR = G.oss[ns - 1], CF = G.osf;
    constexpr bool in_registers = conv_register_epilogue<Epi, B>;
    static_assert(!in_registers || C % W == 0, "a register epilogue needs the features in whole vectors");
    // Features [f, f + W) of a position: the epilogue's vector when it works on registers.
    auto store = [&](B v, T* p, [[maybe_unused]] std::size_t f) {
        if constexpr (in_registers) v = epi.on_registers(v, f);
        if constexpr (CF == 1) {
            v.store_unaligned(p);
        } else {
            alignas(64) T tmp[W];
            v.store_aligned(tmp);
            for (std::size_t i = 0; i < W; ++i)
                p[static_cast<std::ptrdiff_t>(i) * CF] = tmp[i];
        }
    };
    constexpr std::size_t lines = G.nb_out * L::outer; // one line covers every feature
    conv_for_lines(lines, ow * C * taps, parallel, [&](std::size_t l0, std::size_t l1) {
        for (std::size_t l = l0; l < l1; ++l) {
            // Line l = (batch, q_0..q_{s-2}): each outer tap's input row offset, or -1 (padding).
            const std::size_t nb = l / L::outer;
            std::size_t qo = l % L::outer;
            std::array<std::size_t, conv_max_spatial> q{};
            for (std::size_t d = ns - 1; d-- > 0;) {
                q[d] = qo % G.q[d];
                qo /= G.q[d];
            }
            std::array<std::ptrdiff_t, touter> row{};
            for (std::size_t to = 0; to < touter; ++to) {
                std::size_t rest = to;
                std::ptrdiff_t off = static_cast<std::ptrdiff_t>(nb) * st[conv_max_spatial];
                for (std::size_t d = ns - 1; d-- > 0;) {
                    const std::size_t kd = rest % G.k[d];
                    rest /= G.k[d];
                    const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(q[d] * G.s[d] + kd * G.rd[d]) - Bd.lo[d];
                    if (off >= 0 && i >= 0 && i < static_cast<std::ptrdiff_t>(Bd.n[d]))
                        off += i * st[d];
                    else
                        off = -1;
                }
                row[to] = off;
            }
            std::ptrdiff_t obase = static_cast<std::ptrdiff_t>(nb) * G.osb;
            for (std::size_t d = 0; d + 1 < ns; ++d)
                obase += static_cast<std::ptrdiff_t>(q[d]) * G.oss[d];
            T* c = out + obase;
            // Weights are re-read per (positions, feature block) from L1 (taps x C values): the
            // feature blocks are the inner loop so that input and output stream in address order.
            auto wv = [&](std::size_t t, std::size_t f) { return B::load_unaligned(w + t * C + f); };
            // NB interior positions from x.
            auto block = [&]<std::size_t NB>(std::ptrdiff_t x, std::size_t f, std::integral_constant<std::size_t, NB>) {
                constexpr std::size_t span = (NB - 1) * G.s[G.ns - 1] + (kx - 1) * G.rd[G.ns - 1] + 1;
                B acc[NB];
#pragma GCC unroll 8
                for (std::size_t u = 0; u < NB; ++u)
                    acc[u] = B(T(0));
                const T* ax = in + (x * sx - lox) * static_cast<std::ptrdiff_t>(C) + static_cast<std::ptrdiff_t>(f);
                for (std::size_t to = 0; to < touter; ++to) {
                    if (row[to] < 0) {
                        for (std::size_t k = 0; k < kx; ++k) {
                            const B wt = wv(to * kx + k, f);
#pragma GCC unroll 8
                            for (std::size_t u = 0; u < NB; ++u)
                                acc[u] = xsimd::fma(B(T(0)), wt, acc[u]);
                        }
                        continue;
                    }
                    const T* ar = ax + row[to];
                    if constexpr (span <= 16) { // each input vector loaded once for every tap using it
                        B v[span];
#pragma GCC unroll 16
                        for (std::size_t i = 0; i < span; ++i)
                            v[i] =
                                B::load_unaligned(ar + static_cast<std::ptrdiff_t>(i) * static_cast<std::ptrdiff_t>(C));
                        for (std::size_t k = 0; k < kx; ++k) {
                            const B wt = wv(to * kx + k, f);
#pragma GCC unroll 8
                            for (std::size_t u = 0; u < NB; ++u)
                                acc[u] = xsimd::fma(v[u * sx + k * rdx], wt, acc[u]);
                        }
                    } else {
                        for (std::size_t k = 0; k < kx; ++k) {
                            const B wt = wv(to * kx + k, f);
                            const T* ak = ar + static_cast<std::ptrdiff_t>(k) * rdx * static_cast<std::ptrdiff_t>(C);
#pragma GCC unroll 8
                            for (std::size_t u = 0; u < NB; ++u)
                                acc[u] = xsimd::fma(B::load_unaligned(ak + static_cast<std::ptrdiff_t>(u) * sx *
                                                                               static_cast<std::ptrdiff_t>(C)),
                                                    wt, acc[u]);
                        }
                    }
                }
#pragma GCC unroll 8
                for (std::size_t u = 0; u < NB; ++u)
                    store(acc[u], c + (x + static_cast<std::ptrdiff_t>(u)) * CR + static_cast<std::ptrdiff_t>(f) * CF,
                          f);
            };
            constexpr std::size_t CW = C / W * W; // features in whole batches
            // A position with taps in the padding: J feature blocks from f at once (independent FMA
            // chains), each tap's bounds checked once for all of them.
            auto edge_blocks = [&]<std::size_t J>(std::ptrdiff_t x, std::size_t f,
                                                  std::integral_constant<std::size_t, J>) {
                B acc[J];
#pragma GCC unroll 8
                for (std::size_t j = 0; j < J; ++j)
                    acc[j] = B(T(0));
                for (std::size_t t = 0; t < taps; ++t) {
                    const std::size_t to = t / kx, k = t % kx;
                    const std::ptrdiff_t ix = x * sx + static_cast<std::ptrdiff_t>(k) * rdx - lox;
                    const T* wt = w + t * C + f;
                    if (row[to] < 0 || ix < 0 || ix >= nx) {
#pragma GCC unroll 8
                        for (std::size_t j = 0; j < J; ++j)
                            acc[j] = xsimd::fma(B(T(0)), B::load_unaligned(wt + j * W), acc[j]);
                    } else {
                        const T* a =
                            in + row[to] + ix * static_cast<std::ptrdiff_t>(C) + static_cast<std::ptrdiff_t>(f);
#pragma GCC unroll 8
                        for (std::size_t j = 0; j < J; ++j)
                            acc[j] = xsimd::fma(B::load_unaligned(a + j * W), B::load_unaligned(wt + j * W), acc[j]);
                    }
                }
#pragma GCC unroll 8
                for (std::size_t j = 0; j < J; ++j)
                    store(acc[j], c + x * CR + static_cast<std::ptrdiff_t>(f + j * W) * CF, f + j * W);
            };
            auto edge = [&](std::ptrdiff_t x) {
                std::size_t f = 0;
                for (; f + XB * W <= CW; f += XB * W)
                    edge_blocks(x, f, std::integral_constant<std::size_t, XB>{});
                for (; f < CW; f += W)
                    edge_blocks(x, f, std::integral_constant<std::size_t, 1>{});
            };
            // Positions [x0, x1) written: with whole batches of features only, the epilogue runs on
            // them at once (in L1); else on the line once its last features are written.
            const std::size_t lbase = l * ow * C;
            auto written = [&](std::ptrdiff_t x0, std::ptrdiff_t x1) {
                if constexpr (CW == C && !in_registers)
                    epi(lbase + static_cast<std::size_t>(x0) * C, lbase + static_cast<std::size_t>(x1) * C);
            };
            constexpr std::ptrdiff_t xb = static_cast<std::ptrdiff_t>(XB);
            std::ptrdiff_t x = 0;
            for (; x < x_in0 && x < static_cast<std::ptrdiff_t>(ow); ++x) {
                edge(x);
                written(x, x + 1);
            }
            for (; x + xb <= x_in1; x += xb) {
                for (std::size_t f = 0; f < CW; f += W)
                    block(x, f, std::integral_constant<std::size_t, XB>{});
                written(x, x + xb);
            }
            auto rest = [&]<std::size_t NB>(std::integral_constant<std::size_t, NB>) { // the interior's rest
                if (x + static_cast<std::ptrdiff_t>(NB) <= x_in1) {
                    for (std::size_t f = 0; f < CW; f += W)
                        block(x, f, std::integral_constant<std::size_t, NB>{});
                    written(x, x + static_cast<std::ptrdiff_t>(NB));
                    x += static_cast<std::ptrdiff_t>(NB);
                }
            };
            if constexpr (XB > 4) rest(std::integral_constant<std::size_t, 4>{});
            rest(std::integral_constant<std::size_t, 2>{});
            rest(std::integral_constant<std::size_t, 1>{});
            for (; x < static_cast<std::ptrdiff_t>(ow); ++x) {
                edge(x);
                written(x, x + 1);
            }
            std::size_t f = CW;
            for (; f < C; ++f) // features past the last whole batch
                for (std::size_t x = 0; x < ow; ++x) {
                    T acc(0);
                    for (std::size_t t = 0; t < taps; ++t) {
                        const std::size_t to = t / kx, k = t % kx;
                        const std::ptrdiff_t ix =
                            static_cast<std::ptrdiff_t>(x) * sx + static_cast<std::ptrdiff_t>(k) * rdx - lox;
                        const T v =
                            row[to] < 0 || ix < 0 || ix >= nx
                                ? T(0)
                                : in[row[to] + ix * static_cast<std::ptrdiff_t>(C) + static_cast<std::ptrdiff_t>(f)];
                        acc = gemm_madd(v, w[t * C + f], acc);
                    }
                    c[static_cast<std::ptrdiff_t>(x) * CR + static_cast<std::ptrdiff_t>(f) * CF] = acc;
                }
            if constexpr (CW != C) epi(lbase, lbase + ow * C);
        }
    });
}

// Any accumulation type (integers wrap, complex, and the rank-2 case): a plain loop over the
// same runs, k in order, converted to Out by to_out.
template<conv_geom G, class Acc, class T, class Out, class Cvt>
void conv_generic(const T* in, const T* w, Out* out, const Cvt& to_out, bool parallel = true) {
    using L = conv_layout_of<G>;
    using Rn = conv_runs<G, std::size_t(-1)>;
    constexpr std::size_t og = L::og, ow = L::ow;
    constexpr std::ptrdiff_t RS = G.ns == 0 ? 0 : static_cast<std::ptrdiff_t>(G.s[G.ns - 1] * G.c);
    conv_for_lines(L::lines, ow * og * L::K, parallel, [&](std::size_t l0, std::size_t l1) {
        for (std::size_t l = l0; l < l1; ++l) {
            const auto at = L::line(l);
            for (std::size_t x = 0; x < ow; ++x) {
                const T* a = in + at.in + static_cast<std::ptrdiff_t>(x) * RS;
                Out* c = out + at.out + static_cast<std::ptrdiff_t>(x) * (G.ns == 0 ? 0 : G.oss[G.ns - 1]);
                for (std::size_t j = 0; j < og; ++j) {
                    Acc acc{};
                    std::size_t k = 0;
                    for (const conv_run& r : Rn::runs)
                        for (std::size_t p = 0; p < r.len; ++p, ++k)
                            acc = gemm_acc_madd<Acc>(acc, static_cast<Acc>(a[r.off + static_cast<std::ptrdiff_t>(p)]),
                                                     static_cast<Acc>(w[k * G.o + at.group * og + j]));
                    c[static_cast<std::ptrdiff_t>(j) * G.osf] = to_out(acc);
                }
            }
        }
    });
}

} // namespace xlet::detail
