// The 8-bit GEMM (kernels/gemm_i8.hpp) against a plain loop of wrapping int32 sums, for the four
// operand type pairs (u8 / s8 on each side; the VNNI path handles each pair differently): sizes 1,
// 3 and the register tile's MR / NR +-1, k not a multiple of 4 and k over one KC block (5000),
// row-major, transposed and strided operands, C inside a larger buffer (nothing outside written),
// the extreme values, sums that wrap past 2^31 and 2^32, 1 / 2 / 3 threads against the serial call;
// gemm_i8_epilogue on every one of those products (the same sums, each handed over once).
// Then dot_general on s8 / u8 tensors with s32, u32, s8 and u16 results (the paths that take
// gemm_i8) against the reference evaluator.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

using dt::rf;

namespace {

#ifdef XLET_GEMM_I8_KERNEL
constexpr std::size_t MR = detail::gemm_i8_blocking::MR, NR = detail::gemm_i8_blocking::NR;
#else
constexpr std::size_t MR = 14, NR = 32; // the portable build: the same sizes are still edge cases of nothing
#endif

// How an operand is laid out: row-major, transposed, or both strides non-unit (no fast packing).
enum class layout { rows, cols, strided };

struct operand_strides {
    std::ptrdiff_t rs, cs;
    std::size_t size;
};
// Strides of an r x c matrix (element [i, j] at i * rs + j * cs) in the given layout.
operand_strides strides_of(layout l, std::size_t r, std::size_t c) {
    const auto R = static_cast<std::ptrdiff_t>(r), C = static_cast<std::ptrdiff_t>(c);
    switch (l) {
    case layout::rows:
        return {C, 1, r * c};
    case layout::cols:
        return {1, R, r * c};
    default:
        return {2, 2 * R + 1, (2 * r + 1) * c};
    }
}

// Values: random over the whole range, or only the extremes of both types (-128, 127, 0, 255).
template<class T>
std::vector<T> values(std::size_t n, bool extreme) {
    auto v = dt::random_vec<T>(n);
    if (extreme) {
        auto& g = lt::rng();
        const T pick[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0),
                          std::numeric_limits<T>::max()};
        for (auto& x : v)
            x = pick[g() % 4];
    }
    return v;
}

// C[i, j] = sum_p A[i, p] B[p, j] mod 2^32: the specification, one product at a time.
template<class TA, class TB>
std::int32_t ref_elem(const TA* a, operand_strides sa, const TB* b, operand_strides sb, std::size_t i, std::size_t j,
                      std::size_t k) {
    std::uint32_t s = 0;
    for (std::size_t p = 0; p < k; ++p) {
        const auto x = static_cast<std::int32_t>(
            a[static_cast<std::ptrdiff_t>(i) * sa.rs + static_cast<std::ptrdiff_t>(p) * sa.cs]);
        const auto y = static_cast<std::int32_t>(
            b[static_cast<std::ptrdiff_t>(p) * sb.rs + static_cast<std::ptrdiff_t>(j) * sb.cs]);
        s += static_cast<std::uint32_t>(x) * static_cast<std::uint32_t>(y);
    }
    return static_cast<std::int32_t>(s);
}

// gemm_i8 into rows 1.. and columns 2.. of a (m + 2) x (n + 5) buffer of sentinels, checked
// element by element against ref_elem, and the border against the sentinels.
template<class TA, class TB>
void gemm_case(std::size_t m, std::size_t n, std::size_t k, layout la, layout lb, bool extreme = false,
               bool parallel = true) {
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(static_cast<int>(la));
    CAPTURE(static_cast<int>(lb));
    CAPTURE(extreme);
    const operand_strides sa = strides_of(la, m, k), sb = strides_of(lb, k, n);
    const auto a = values<TA>(sa.size, extreme);
    const auto b = values<TB>(sb.size, extreme);
    const std::size_t ldc = n + 5, rows = m + 2;
    std::vector<std::int32_t> c(rows * ldc, 0x5A5A5A5A);
    detail::gemm_i8<TA, TB>(m, n, k, a.data(), sa.rs, sa.cs, b.data(), sb.rs, sb.cs, c.data() + ldc + 2,
                            static_cast<std::ptrdiff_t>(ldc), parallel);
    std::size_t bad = 0, outside = 0;
    std::ostringstream os;
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < ldc; ++j) {
            const std::int32_t got = c[r * ldc + j];
            if (r < 1 || r > m || j < 2 || j >= n + 2) {
                outside += got != 0x5A5A5A5A;
                continue;
            }
            const std::int32_t want = ref_elem(a.data(), sa, b.data(), sb, r - 1, j - 2, k);
            if (got != want) {
                if (bad < 3) os << " [" << r - 1 << "," << j - 2 << "] got " << got << " want " << want << ";";
                ++bad;
            }
        }
    CHECK_MESSAGE(bad == 0, bad << " wrong elements:" << os.str());
    CHECK_MESSAGE(outside == 0, outside << " elements outside C written");
    // gemm_i8_epilogue: the same sums, each element handed over exactly once
    std::vector<std::int32_t> e(m * n, 0x5A5A5A5A);
    std::vector<int> visits(m * n, 0);
    detail::gemm_i8_epilogue<TA, TB>(
        m, n, k, a.data(), sa.rs, sa.cs, b.data(), sb.rs, sb.cs,
        [&](std::size_t i, std::size_t j, const std::int32_t* sums, std::ptrdiff_t lds, std::size_t mr,
            std::size_t nr) {
            for (std::size_t r = 0; r < mr; ++r)
                for (std::size_t q = 0; q < nr; ++q) {
                    e[(i + r) * n + j + q] =
                        sums[static_cast<std::ptrdiff_t>(r) * lds + static_cast<std::ptrdiff_t>(q)];
                    ++visits[(i + r) * n + j + q];
                }
        },
        parallel);
    std::size_t ebad = 0, twice = 0;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            ebad += e[i * n + j] != c[(i + 1) * ldc + j + 2];
            twice += visits[i * n + j] != 1;
        }
    CHECK_MESSAGE(ebad == 0, ebad << " wrong elements from gemm_i8_epilogue");
    CHECK_MESSAGE(twice == 0, twice << " elements not handed over exactly once");
}

const std::size_t edge_sizes[] = {1, 3, MR - 1, MR, MR + 1, NR - 1, NR, NR + 1, 2 * MR + 3};

template<class TA, class TB>
void all_cases() {
    for (std::size_t m : edge_sizes)
        for (std::size_t n : edge_sizes)
            for (std::size_t k : {1, 3, 5, 8, 67}) {
                const layout la = (m + n + k) % 2 == 1 ? layout::cols : layout::rows;
                const layout lb = (m * 3 + k) % 4 >= 2 ? layout::cols : layout::rows;
                gemm_case<TA, TB>(m, n, k, la, lb);
            }
    // k over one KC block (4096 on AVX-512, 512 on AVX2), not a multiple of 4
    for (std::size_t m : {std::size_t{3}, MR + 1})
        for (std::size_t n : {std::size_t{1}, NR + 1})
            gemm_case<TA, TB>(m, n, 5000, layout::rows, layout::rows);
    gemm_case<TA, TB>(2 * MR + 3, 2 * NR + 5, 5000, layout::cols, layout::cols);
    // every layout pair, with the edges of the 8-line packing chunks (n = 8 q + 1)
    for (layout la : {layout::rows, layout::cols, layout::strided})
        for (layout lb : {layout::rows, layout::cols, layout::strided})
            for (std::size_t k : {7, 64, 130}) {
                gemm_case<TA, TB>(37, 41, k, la, lb);
                gemm_case<TA, TB>(MR, NR, k, la, lb);
            }
    // only the extreme values
    for (layout l : {layout::rows, layout::cols})
        for (std::size_t k : {13, 1000})
            gemm_case<TA, TB>(2 * MR + 1, NR + 7, k, l, l, true);
    // large enough to run in parallel (m * n * k above the threshold), serial and parallel
    gemm_case<TA, TB>(150, 170, 300, layout::rows, layout::rows, false, true);
    gemm_case<TA, TB>(150, 170, 300, layout::cols, layout::rows, false, false);
}

} // namespace

TEST_CASE("gemm_i8 u8 x s8") { all_cases<std::uint8_t, std::int8_t>(); }
TEST_CASE("gemm_i8 s8 x u8") { all_cases<std::int8_t, std::uint8_t>(); }
TEST_CASE("gemm_i8 s8 x s8") { all_cases<std::int8_t, std::int8_t>(); }
TEST_CASE("gemm_i8 u8 x u8") { all_cases<std::uint8_t, std::uint8_t>(); }

TEST_CASE("gemm_i8: k = 0 writes zeros, an empty C nothing") {
    const std::int8_t a[1] = {5};
    std::int32_t c[6] = {7, 7, 7, 7, 7, 7};
    detail::gemm_i8<std::int8_t, std::int8_t>(2, 3, 0, a, 0, 0, a, 0, 0, c, 3);
    CHECK(std::vector<std::int32_t>(c, c + 6) == std::vector<std::int32_t>(6, 0));
    c[0] = 7;
    detail::gemm_i8<std::int8_t, std::int8_t>(0, 3, 4, a, 0, 0, a, 0, 0, c, 3);
    CHECK(c[0] == 7);
    std::vector<std::int32_t> e(6, 7);
    detail::gemm_i8_epilogue<std::int8_t, std::int8_t>(
        2, 3, 0, a, 0, 0, a, 0, 0,
        [&](std::size_t i, std::size_t j, const std::int32_t* s, std::ptrdiff_t lds, std::size_t mr, std::size_t nr) {
            for (std::size_t r = 0; r < mr; ++r)
                for (std::size_t q = 0; q < nr; ++q)
                    e[(i + r) * 3 + j + q] = s[static_cast<std::ptrdiff_t>(r) * lds + static_cast<std::ptrdiff_t>(q)];
        });
    CHECK(e == std::vector<std::int32_t>(6, 0));
}

TEST_CASE("gemm_i8: sums that wrap past 2^31 and 2^32, hand-checked") {
    // s8 x s8, every product (-128)(-128) = 16384, k = 140000: 2293760000 = 2^31 + 146276352,
    // which wraps to -2001207296; over several KC blocks, with the s8 x s8 correction in each.
    {
        const std::size_t m = MR + 2, n = NR + 3, k = 140000;
        const std::vector<std::int8_t> a(m * k, -128), b(k * n, -128);
        std::vector<std::int32_t> c(m * n);
        detail::gemm_i8<std::int8_t, std::int8_t>(m, n, k, a.data(), static_cast<std::ptrdiff_t>(k), 1, b.data(),
                                                  static_cast<std::ptrdiff_t>(n), 1, c.data(),
                                                  static_cast<std::ptrdiff_t>(n));
        CHECK(std::count(c.begin(), c.end(), -2001207296) == static_cast<std::ptrdiff_t>(m * n));
    }
    // u8 x u8, 255 * 255 = 65025, k = 70000: 4551750000 = 2^32 + 256782704.
    {
        const std::size_t m = 3, n = NR - 1, k = 70000;
        const std::vector<std::uint8_t> a(m * k, 255), b(k * n, 255);
        std::vector<std::int32_t> c(m * n);
        detail::gemm_i8<std::uint8_t, std::uint8_t>(m, n, k, a.data(), static_cast<std::ptrdiff_t>(k), 1, b.data(), 1,
                                                    static_cast<std::ptrdiff_t>(k), c.data(),
                                                    static_cast<std::ptrdiff_t>(n));
        CHECK(std::count(c.begin(), c.end(), 256782704) == static_cast<std::ptrdiff_t>(m * n));
    }
    // u8 x s8 and s8 x u8, 255 * -128 = -32640, k = 70000: -2284800000 = -2^31 - 137316352, which
    // wraps to 2010167296.
    {
        const std::size_t m = MR, n = 5, k = 70000;
        const std::vector<std::uint8_t> u(m * k, 255);
        const std::vector<std::int8_t> s(k * n, -128);
        std::vector<std::int32_t> c(m * n), d(n * m);
        detail::gemm_i8<std::uint8_t, std::int8_t>(m, n, k, u.data(), static_cast<std::ptrdiff_t>(k), 1, s.data(),
                                                   static_cast<std::ptrdiff_t>(n), 1, c.data(),
                                                   static_cast<std::ptrdiff_t>(n));
        detail::gemm_i8<std::int8_t, std::uint8_t>(n, m, k, s.data(), 1, static_cast<std::ptrdiff_t>(n), u.data(), 1,
                                                   static_cast<std::ptrdiff_t>(k), d.data(),
                                                   static_cast<std::ptrdiff_t>(m));
        CHECK(std::count(c.begin(), c.end(), 2010167296) == static_cast<std::ptrdiff_t>(m * n));
        CHECK(std::count(d.begin(), d.end(), 2010167296) == static_cast<std::ptrdiff_t>(m * n));
    }
}

TEST_CASE("gemm_i8: the same result on 1, 2 and 3 threads as the serial call") {
    const std::size_t m = 300, n = 500, k = 701; // a partial last sliver and k group
    const auto a = dt::random_vec<std::int8_t>(m * k);
    const auto b = dt::random_vec<std::uint8_t>(k * n);
    const auto bs = dt::random_vec<std::int8_t>(k * n);
    auto run = [&](bool par) {
        std::vector<std::int32_t> c(m * n), d(m * n);
        detail::gemm_i8<std::int8_t, std::uint8_t>(m, n, k, a.data(), static_cast<std::ptrdiff_t>(k), 1, b.data(),
                                                   static_cast<std::ptrdiff_t>(n), 1, c.data(),
                                                   static_cast<std::ptrdiff_t>(n), par);
        // transposed A: the row grid and the column-owner grid on other shapes
        detail::gemm_i8<std::int8_t, std::int8_t>(m, n, k, a.data(), 1, static_cast<std::ptrdiff_t>(m), bs.data(),
                                                  static_cast<std::ptrdiff_t>(n), 1, d.data(),
                                                  static_cast<std::ptrdiff_t>(n), par);
        c.insert(c.end(), d.begin(), d.end());
        return c;
    };
    const auto serial = run(false);
    // (an arena of 3 gets its third thread on 2 cores only under a global limit above 2)
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 4);
    for (int threads : {1, 2, 3}) {
        CAPTURE(threads);
        tbb::task_arena arena(threads);
        std::vector<std::int32_t> par;
        arena.execute([&] { par = run(true); });
        CHECK(par == serial);
    }
    // and the serial call is right (a sample of elements)
    std::size_t bad = 0;
    for (std::size_t i = 0; i < m; i += 37)
        for (std::size_t j = 0; j < n; j += 11)
            bad += serial[i * n + j] != ref_elem(a.data(), {static_cast<std::ptrdiff_t>(k), 1, 0}, b.data(),
                                                 {static_cast<std::ptrdiff_t>(n), 1, 0}, i, j, k);
    CHECK(bad == 0);
}

// ---- dot_general on s8 / u8 tensors -------------------------------------------------------------

namespace {

// dot_general<D, Out>(random lhs, random rhs) against the reference's 64-bit sums, truncated to the
// result type (the wrap of an accumulator of that width or of 32 bits, the same low bits).
template<dot_dims D, class Lt, class Rt, class Out>
void dot_case(bool extreme = false) {
    using T = typename Lt::value_type;
    Lt l;
    Rt rr;
    const auto lv = values<T>(Lt::size(), extreme), rv = values<T>(Rt::size(), extreme);
    std::copy(lv.begin(), lv.end(), l.data());
    std::copy(rv.begin(), rv.end(), rr.data());
    const r::dot_dims_t rd = dt::ref_dims(D);
    auto got = dot_general<D, Out>(l, rr);
    static_assert(std::is_same_v<typename decltype(got)::value_type, Out>);
    const auto want = r::dot_general<std::uint64_t>(rf(l), rf(rr), rd);
    std::vector<Out> w;
    for (auto v : want.data)
        w.push_back(static_cast<Out>(v));
    CHECK_SAME(got, (r::array<Out>(want.dims, w)));
}

} // namespace

TEST_CASE("dot_general s8 / u8 -> s32, u32: matrix products, transposed, batched") {
    constexpr dot_dims mm{.lhs_contracting = {1}, .rhs_contracting = {0}};
    dot_case<mm, s8<37, 300>, s8<300, 45>, std::int32_t>();
    dot_case<mm, u8<37, 300>, u8<300, 45>, std::int32_t>();
    dot_case<mm, u8<29, 130>, u8<130, 33>, std::uint32_t>();
    dot_case<mm, s8<64, 1000>, s8<1000, 64>, std::int32_t>(true); // extremes
    dot_case<mm, u8<64, 1000>, u8<1000, 64>, std::int32_t>(true);
    dot_case<mm, s8<1, 500>, s8<500, 70>, std::int32_t>();
    dot_case<mm, s8<70, 500>, s8<500, 1>, std::int32_t>();
    dot_case<mm, s8<3, 3>, s8<3, 3>, std::int32_t>(); // below gemm_i8_small_work: the plain loop
    // transposed operands: strides, no copy
    dot_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {1}}, s8<130, 40>, s8<50, 130>, std::int32_t>();
    dot_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}, u8<130, 40>, u8<130, 50>, std::int32_t>();
    // batched: [b, m, k] x [b, k, n], and batch dims that need a transposed copy
    dot_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
             s8<5, 19, 70>, s8<5, 70, 33>, std::int32_t>();
    dot_case<dot_dims{.lhs_batch = {2}, .rhs_batch = {0}, .lhs_contracting = {0}, .rhs_contracting = {2}},
             u8<31, 25, 3>, u8<3, 37, 31>, std::int32_t>();
    dot_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
             s8<40, 64, 96>, s8<40, 96, 80>, std::int32_t>(); // one product per task
}

TEST_CASE("dot_general s8 -> s8 and u8 -> u16: narrower results wrap as their accumulators") {
    constexpr dot_dims mm{.lhs_contracting = {1}, .rhs_contracting = {0}};
    dot_case<mm, s8<37, 300>, s8<300, 45>, std::int8_t>();
    dot_case<mm, s8<64, 1000>, s8<1000, 64>, std::int8_t>(true);
    dot_case<mm, u8<37, 300>, u8<300, 45>, std::uint8_t>();
    dot_case<mm, u8<37, 300>, u8<300, 45>, std::uint16_t>();
    dot_case<mm, s8<37, 300>, s8<300, 45>, std::int16_t>();
    dot_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
             s8<5, 19, 70>, s8<5, 70, 33>, std::int8_t>();
    // the default result type is the operands'
    const auto x = dt::random<s8<20, 200>>();
    const auto y = dt::random<s8<200, 30>>();
    auto z = dot(x, y);
    static_assert(std::is_same_v<decltype(z)::value_type, std::int8_t>);
    const auto want = r::dot_general<std::uint64_t>(rf(x), rf(y), {{}, {}, {1}, {0}});
    std::vector<std::int8_t> w;
    for (auto v : want.data)
        w.push_back(static_cast<std::int8_t>(v));
    CHECK_SAME(z, (r::array<std::int8_t>(want.dims, w)));
    // a 64-bit accumulation does not take gemm_i8 and keeps the full sums
    dot_case<mm, s8<37, 300>, s8<300, 45>, std::int64_t>(true);
}
