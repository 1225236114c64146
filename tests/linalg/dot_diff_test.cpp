// The GEMM kernels on run-time sizes: every M, N, K in {1, 5, 7, 13, 17, 31, 65, 129, 257} (all
// edges of the 6 x 16 / 6 x 8 micro-tiles) and around the MC / KC / NC blocks, row- and
// column-major operands, assign / add / subtract into a sub-block of a larger C (nothing outside
// written); gemv on both layouts; the generic loop on integers (exact, wrapping). Thread-count
// independence (1 and 2 threads, bitwise; the column-owner grid on 1, 2 and 3 threads). Differential dot_general
// against the reference on dimension numbers of every kind (ranks 1-5, batch / contracting in any order, transposed
// copies) for f32, f64, s32, s8 -> s32, c64, bf16 -> f32. Tolerances: dot_common.hpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "dot_common.hpp"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

using dt::rf;

namespace {

// C (ldc = n + 3, with a border) (update)= A * B on the library kernel, checked against double sums.
template<class T>
void gemm_case(std::size_t m, std::size_t n, std::size_t k, bool ta, bool tb, detail::gemm_update up) {
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(ta);
    CAPTURE(tb);
    CAPTURE(static_cast<int>(up));
    const auto a = dt::random_vec<T>(m * k), b = dt::random_vec<T>(k * n);
    // A[i, p]: row-major a[i * k + p], or transposed storage a[p * m + i]
    const std::ptrdiff_t rsa = ta ? 1 : static_cast<std::ptrdiff_t>(k), csa = ta ? static_cast<std::ptrdiff_t>(m) : 1;
    const std::ptrdiff_t rsb = tb ? 1 : static_cast<std::ptrdiff_t>(n), csb = tb ? static_cast<std::ptrdiff_t>(k) : 1;
    const std::size_t ldc = n + 3, rows = m + 2;
    std::vector<T> c = dt::random_vec<T>(rows * ldc);
    const std::vector<T> c0 = c;
    T* cb = c.data() + ldc + 1; // C starts at row 1, column 1
    detail::gemm<T>(m, n, k, a.data(), rsa, csa, b.data(), rsb, csb, cb, static_cast<std::ptrdiff_t>(ldc), up);
    std::size_t bad = 0, outside = 0;
    std::ostringstream os;
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < ldc; ++j) {
            const bool in = r >= 1 && r <= m && j >= 1 && j <= n;
            const T got = c[r * ldc + j], old = c0[r * ldc + j];
            if (!in) {
                if (std::memcmp(&got, &old, sizeof(T)) != 0) ++outside;
                continue;
            }
            const std::size_t i = r - 1, jj = j - 1;
            double s = 0, sa = 0;
            for (std::size_t p = 0; p < k; ++p) {
                const double x = double(a[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) * rsa +
                                                                   static_cast<std::ptrdiff_t>(p) * csa)]);
                const double y = double(b[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(p) * rsb +
                                                                   static_cast<std::ptrdiff_t>(jj) * csb)]);
                s += x * y;
                sa += std::fabs(x * y);
            }
            double want = s;
            if (up == detail::gemm_update::add) want = double(old) + s;
            if (up == detail::gemm_update::subtract) want = double(old) - s;
            const double tol = double(k + 2) * 2 * dt::unit_roundoff<T>() *
                               (sa + (up == detail::gemm_update::assign ? 0.0 : std::fabs(double(old))));
            if (!(std::fabs(double(got) - want) <= tol)) {
                if (bad < 3) os << " [" << i << "," << jj << "] got " << double(got) << " want " << want << ";";
                ++bad;
            }
        }
    CHECK_MESSAGE(bad == 0, bad << " elements outside the bound:" << os.str());
    CHECK_MESSAGE(outside == 0, outside << " elements outside C written");
}

constexpr std::size_t edge_sizes[] = {1, 5, 7, 13, 17, 31, 65, 129, 257};

} // namespace

TEST_CASE("gemm f32: every edge size, both layouts") {
    for (std::size_t m : edge_sizes)
        for (std::size_t n : edge_sizes)
            for (std::size_t k : edge_sizes) {
                const bool ta = (m + n + k) % 2 == 1, tb = (m * 3 + k) % 4 >= 2;
                gemm_case<float>(m, n, k, ta, tb, detail::gemm_update::assign);
            }
}

TEST_CASE("gemm f64: edge sizes, all layouts and update modes") {
    const std::size_t s[] = {1, 5, 7, 9, 17, 65, 257};
    int q = 0;
    for (std::size_t m : s)
        for (std::size_t n : s)
            for (std::size_t k : s) {
                ++q;
                gemm_case<double>(m, n, k, q % 2 == 0, q % 3 == 0, static_cast<detail::gemm_update>(q % 3));
            }
}

TEST_CASE("gemm: around the MC, KC and NC blocks") {
    for (std::size_t m : {143, 144, 145, 289})
        for (std::size_t k : {255, 256, 257, 513})
            for (bool ta : {false, true})
                gemm_case<float>(m, 37, k, ta, !ta, detail::gemm_update::assign);
    for (std::size_t m : {71, 72, 73})
        gemm_case<double>(m, 21, 257, true, false, detail::gemm_update::add);
    for (std::size_t k : {1023, 1024, 1025, 2049}) // AVX-512 KC (1024); k-parallel path
        gemm_case<float>(45, 70, k, false, false, detail::gemm_update::assign);
    for (std::size_t k : {513, 1024, 1025})
        gemm_case<double>(19, 33, k, false, true, detail::gemm_update::assign);
    gemm_case<double>(30, 17, 1100, true, false, detail::gemm_update::subtract);
    gemm_case<float>(7, 4097, 3, false, false, detail::gemm_update::assign);
    gemm_case<float>(13, 4095, 260, true, true, detail::gemm_update::subtract);
    gemm_case<double>(9, 2049, 5, false, true, detail::gemm_update::assign);
    gemm_case<float>(0, 5, 5, false, false, detail::gemm_update::assign);
    gemm_case<float>(5, 5, 0, false, false, detail::gemm_update::assign);
    gemm_case<double>(5, 5, 0, false, false, detail::gemm_update::add);
}

TEST_CASE("gemv: rows or columns contiguous, every edge size") {
    for (std::size_t m : edge_sizes)
        for (std::size_t k : edge_sizes)
            for (bool cols : {false, true}) {
                CAPTURE(m);
                CAPTURE(k);
                CAPTURE(cols);
                const auto a = dt::random_vec<float>(m * k), x = dt::random_vec<float>(k);
                std::vector<float> y(m);
                REQUIRE(detail::gemv<float>(m, k, a.data(), cols ? 1 : static_cast<std::ptrdiff_t>(k),
                                            cols ? static_cast<std::ptrdiff_t>(m) : 1, x.data(), 1, y.data()));
                for (std::size_t i = 0; i < m; ++i) {
                    double s = 0, sa = 0;
                    for (std::size_t p = 0; p < k; ++p) {
                        const double v = double(a[cols ? p * m + i : i * k + p]) * double(x[p]);
                        s += v;
                        sa += std::fabs(v);
                    }
                    REQUIRE(std::fabs(double(y[i]) - s) <= double(k + 1) * 2 * 0x1p-24 * sa);
                }
            }
    std::vector<double> a(6), x(3), y(2);
    CHECK_FALSE(detail::gemv<double>(2, 3, a.data(), 2, 2, x.data(), 1, y.data())); // neither layout
}

TEST_CASE("gemm_generic: integers wrap, exactly as the reference") {
    for (std::size_t m : {1, 7, 33})
        for (std::size_t n : {1, 9, 300})
            for (std::size_t k : {1, 17, 70}) {
                const auto a = dt::random_vec<std::int8_t>(m * k), b = dt::random_vec<std::int8_t>(k * n);
                std::vector<std::int32_t> c(m * n);
                detail::gemm_generic<std::int32_t>(m, n, k, a.data(), 1, static_cast<std::ptrdiff_t>(m), b.data(),
                                                   static_cast<std::ptrdiff_t>(n), 1, c.data(),
                                                   static_cast<std::ptrdiff_t>(n), [](std::int32_t v) { return v; });
                const r::array<std::int8_t> ra({static_cast<std::int64_t>(k), static_cast<std::int64_t>(m)}, a);
                const r::array<std::int8_t> rb({static_cast<std::int64_t>(k), static_cast<std::int64_t>(n)}, b);
                const auto want = r::dot_general<std::int32_t>(ra, rb, {{}, {}, {0}, {0}});
                CHECK(want.data == c);
            }
}

TEST_CASE("results do not depend on the thread count (1 and 2 threads, bitwise)") {
    auto run = [](int threads, auto f) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        return f();
    };
    const auto a = dt::random_vec<float>(300 * 700), b = dt::random_vec<float>(700 * 500);
    auto g = [&] {
        std::vector<float> c(300 * 500);
        detail::gemm<float>(300, 500, 700, a.data(), 700, 1, b.data(), 500, 1, c.data(), 500);
        return c;
    };
    CHECK(run(1, g) == run(2, g));
    // k-heavy with a small C: the k blocks run in parallel and are added in block order, the same
    // bits as the sequential passes (parallel = false), for every update mode.
    const auto ka = dt::random_vec<float>(40 * 2600), kbv = dt::random_vec<float>(2600 * 70);
    for (auto up : {detail::gemm_update::assign, detail::gemm_update::add, detail::gemm_update::subtract}) {
        auto kh = [&](bool par) {
            std::vector<float> c(40 * 70, 0.25f);
            detail::gemm<float>(40, 70, 2600, ka.data(), 2600, 1, kbv.data(), 70, 1, c.data(), 70, up, par);
            return c;
        };
        const auto serial = kh(false);
        CHECK(run(1, [&] { return kh(true); }) == serial);
        CHECK(run(2, [&] { return kh(true); }) == serial);
    }
    auto gv = [&] {
        std::vector<float> y(300);
        detail::gemv<float>(300, 700, a.data(), 700, 1, b.data(), 1, y.data());
        std::vector<float> z(700);
        detail::gemv<float>(700, 300, a.data(), 1, 700, b.data(), 1, z.data());
        y.insert(y.end(), z.begin(), z.end());
        return y;
    };
    CHECK(run(1, gv) == run(2, gv));
    auto x = dt::random<f32<8, 64, 96>>();
    auto y = dt::random<f32<8, 96, 80>>();
    auto bm = [&] {
        return dot_general<dot_dims{
            .lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}}>(x, y);
    };
    auto b1 = run(1, bm), b2 = run(2, bm);
    CHECK(std::memcmp(b1.data(), b2.data(), sizeof(float) * b1.size()) == 0);
    auto d = dt::random<f64<130, 300>>();
    auto e = dt::random<f64<300, 140>>();
    auto dm = [&] { return dot(d, e); };
    auto d1 = run(1, dm), d2 = run(2, dm);
    CHECK(std::memcmp(d1.data(), d2.data(), sizeof(double) * d1.size()) == 0);
    const auto ia = dt::random_vec<std::int16_t>(200 * 300), ib = dt::random_vec<std::int16_t>(300 * 250);
    auto gi = [&] {
        std::vector<std::int64_t> c(200 * 250);
        detail::gemm_generic<std::int64_t>(200, 250, 300, ia.data(), 300, 1, ib.data(), 250, 1, c.data(), 250,
                                           [](std::int64_t v) { return v; });
        return c;
    };
    CHECK(run(1, gi) == run(2, gi));
}

TEST_CASE("column owners: each thread packs its own B slivers; same bits on 1, 2 and 3 threads") {
    // Shapes whose grid splits columns only with a per-thread share of packed B under
    // gemm_own_b_max_bytes: row-major and transposed B, a partial last sliver, n > NC (several
    // column blocks), f32 and f64, every update mode. Each runs serially (parallel = false) and in
    // arenas of 1, 2 and 3 threads (max_concurrency() sets the grid), bitwise equal, and is checked
    // against double sums.
    auto in_arena = [](int threads, auto f) {
        // (an arena of 3 gets its third thread on 2 cores only under a global limit above 2)
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 4);
        tbb::task_arena arena(threads);
        return arena.execute(f);
    };
    auto check = [&]<class T>(std::size_t m, std::size_t n, std::size_t k, bool tb, detail::gemm_update up) {
        CAPTURE(m);
        CAPTURE(n);
        CAPTURE(k);
        CAPTURE(tb);
        const auto a = dt::random_vec<T>(m * k), b = dt::random_vec<T>(k * n);
        const std::ptrdiff_t rsb = tb ? 1 : static_cast<std::ptrdiff_t>(n),
                             csb = tb ? static_cast<std::ptrdiff_t>(k) : 1;
        const auto c0 = dt::random_vec<T>(m * n);
        auto g = [&](bool par) {
            std::vector<T> c = c0;
            detail::gemm<T>(m, n, k, a.data(), static_cast<std::ptrdiff_t>(k), 1, b.data(), rsb, csb, c.data(),
                            static_cast<std::ptrdiff_t>(n), up, par);
            return c;
        };
        const auto serial = g(false);
        for (int t : {1, 2, 3})
            CHECK_MESSAGE(in_arena(t, [&] { return g(true); }) == serial, t << " threads");
        for (int t : {2, 3})
            in_arena(t, [&] { gemm_case<T>(m, n, k, false, tb, up); });
    };
    check.operator()<float>(300, 500, 700, false, detail::gemm_update::assign);
    check.operator()<float>(100, 333, 600, true, detail::gemm_update::add);
    check.operator()<float>(40, 5000, 100, false, detail::gemm_update::subtract);
    check.operator()<double>(90, 300, 500, false, detail::gemm_update::subtract);
}

TEST_CASE("dot inside the user's own TBB loop: nested parallel products share no scratch") {
    auto x = dt::random<f32<200, 300>>();
    auto y = dt::random<f32<300, 250>>();
    const auto want = dot(x, y);
    std::vector<int> ok(8, 0);
    tbb::parallel_for(0, 8, [&](int i) {
        auto got = dot(x, y);
        ok[static_cast<std::size_t>(i)] = std::memcmp(got.data(), want.data(), sizeof(float) * want.size()) == 0;
    });
    CHECK(std::count(ok.begin(), ok.end(), 1) == 8);
}

// ---- differential dot_general -----------------------------------------------------------------

namespace {

template<dot_dims D, class Lt, class Rt, class Out = void>
void diff_case() {
    using T = typename Lt::value_type;
    const r::dot_dims_t rd = dt::ref_dims(D);
    CAPTURE(r::show_dims(rd.lhs_batch));
    CAPTURE(r::show_dims(rd.lhs_contracting));
    CAPTURE(r::show_dims(rd.rhs_contracting));
    const Lt l = dt::random<Lt>();
    const Rt rr = dt::random<Rt>();
    auto got = dot_general<D, Out>(l, rr);
    using G = typename decltype(got)::value_type;
    std::size_t k = 1;
    for (std::size_t i = 0; i < D.lhs_contracting.size(); ++i)
        k *= Lt::extents[static_cast<std::size_t>(D.lhs_contracting[i])];
    if constexpr (std::is_integral_v<T>) {
        const auto want = r::dot_general<std::uint64_t>(rf(l), rf(rr), rd);
        std::vector<G> w;
        for (auto v : want.data)
            w.push_back(static_cast<G>(v));
        CHECK_SAME(got, (r::array<G>(want.dims, w)));
    } else if constexpr (r::is_complex_v<T>) {
        const auto want = r::dot_general<std::complex<double>>(rf(l), rf(rr), rd);
        const auto abs = r::dot_general<double, T, true>(rf(l), rf(rr), rd);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < want.data.size(); ++i) {
            const std::complex<double> g(got.data()[i].real(), got.data()[i].imag());
            if (!(std::abs(g - want.data[i]) <=
                  double(k + 2) * 4 * dt::unit_roundoff<typename T::value_type>() * abs.data[i]))
                ++bad;
        }
        CHECK(bad == 0);
    } else {
        dt::check_close(got, r::dot_general<double>(rf(l), rf(rr), rd),
                        r::dot_general<double, T, true>(rf(l), rf(rr), rd), k);
    }
}

} // namespace

TEST_CASE("differential: matrix products in every transposition, f32 and f64") {
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, f32<37, 41>, f32<41, 29>>();
    diff_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}, f32<41, 37>, f32<41, 29>>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}}, f32<37, 41>, f32<29, 41>>();
    diff_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {1}}, f64<41, 37>, f64<29, 41>>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, f64<150, 260>, f64<260, 70>>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, f32<1, 300>,
              f32<300, 45>>(); // M = 1: gemv on B^T
    diff_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}, f32<300, 1>, f32<300, 45>>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, f32<45, 300>, f32<300, 1>>(); // N = 1
    diff_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}, f32<1000>, f32<1000>>();
    diff_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {0}}, f32<300, 45>, f32<300>>(); // gemv, columns
}

TEST_CASE("differential: batch and contracting dimensions in any order and rank") {
    // [b, m, k] x [b, k, n]
    diff_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
              f32<5, 19, 23>, f32<5, 23, 17>>();
    // batch last on both sides, contracting first: strides, no copy
    diff_case<dot_dims{.lhs_batch = {2}, .rhs_batch = {2}, .lhs_contracting = {0}, .rhs_contracting = {1}},
              f32<23, 19, 5>, f32<17, 23, 5>>();
    // two batch dims swapped on one side (rhs needs a transposed copy)
    diff_case<dot_dims{.lhs_batch = {0, 1}, .rhs_batch = {1, 0}, .lhs_contracting = {3}, .rhs_contracting = {2}},
              f64<3, 4, 6, 7>, f64<4, 3, 7, 5>>();
    // two contracting dims in reverse order, free dims split around them
    diff_case<dot_dims{.lhs_contracting = {3, 1}, .rhs_contracting = {0, 2}}, f32<4, 5, 6, 7>, f32<7, 3, 5>>();
    // rank 5 with everything mixed
    diff_case<dot_dims{.lhs_batch = {4, 1}, .rhs_batch = {0, 3}, .lhs_contracting = {2}, .rhs_contracting = {1}},
              f32<3, 2, 9, 5, 4>, f32<4, 9, 6, 2>>();
    // unit dimensions everywhere
    diff_case<dot_dims{.lhs_batch = {1}, .rhs_batch = {0}, .lhs_contracting = {0, 3}, .rhs_contracting = {2, 1}},
              f32<1, 3, 1, 8>, f32<3, 8, 1, 1>>();
    // batched matrix-vector and batched dot
    diff_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {2}, .rhs_contracting = {1}},
              f32<6, 50, 70>, f32<6, 70>>();
    diff_case<dot_dims{.lhs_batch = {1}, .rhs_batch = {0}, .lhs_contracting = {0}, .rhs_contracting = {1}}, f64<70, 6>,
              f64<6, 70>>();
}

TEST_CASE("differential: integer, complex and narrow float types") {
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, s32<13, 31>, s32<31, 17>>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, s8<13, 31>, s8<31, 17>, std::int32_t>();
    diff_case<dot_dims{.lhs_batch = {2}, .rhs_batch = {0}, .lhs_contracting = {0}, .rhs_contracting = {2}},
              u8<31, 5, 3>, u8<3, 7, 31>, std::uint32_t>();
    diff_case<dot_dims{.lhs_batch = {0}, .rhs_batch = {0}, .lhs_contracting = {1}, .rhs_contracting = {2}},
              c64<3, 29, 7>, c64<3, 11, 29>>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, bf16<21, 70>, bf16<70, 19>, float>();
    diff_case<dot_dims{.lhs_contracting = {0}, .rhs_contracting = {1}}, f16<70, 21>, f16<19, 70>, float>();
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, bf16<21, 70>,
              bf16<70, 19>>(); // bf16 result, f32 accumulation
    diff_case<dot_dims{.lhs_contracting = {1}, .rhs_contracting = {0}}, f32<21, 70>, f32<70, 19>, double>();
}
