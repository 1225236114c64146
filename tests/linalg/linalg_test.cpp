// Cholesky and TriangularSolve (ops/linalg/cholesky.hpp): hand-checked small cases, reconstruction tests
// for every attribute combination on sizes around the block edges (1, 7, 65, 200, 300), f32, f64
// and complex, batched; the unread triangle (and a unit diagonal) filled with NaN must not reach
// the result; non-positive-definite input gives the documented NaN matrix; results are bitwise
// the same on 1 and 2 threads. (The spec has no worked examples for these two ops.)
//
// Tolerances, u = unit roundoff (2^-24 f32, 2^-53 f64), residuals computed in long double:
//   cholesky:  |L L^H - A|_ij <= k_tol (n + 1) u (|L| |L^H|)_ij, k_tol = 4
//   solve:     |op(A) X - B|_ij <= k_tol (m + 1) u (|op(A)| |X|)_ij
// Both are componentwise backward-error bounds (Higham, Accuracy and Stability, Thms 10.3 and
// 8.5: gamma_{n+1}), which hold whatever the conditioning; the factor 4 covers the blocked order
// of the sums (a sum split into blocks has at most the same number of roundings plus the block
// additions) and complex multiplication (gamma bounds grow by a small constant).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <xlet/ops/linalg/cholesky.hpp> // first: the header stands alone
#include <xlet/xlet.hpp>

#include <tbb/global_control.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace xlet;

namespace {

constexpr long double k_tol = 4;

template<class T>
constexpr bool cplx = is_complex<T>; // xlet's trait; real_t<T> is xlet's too

template<class T>
constexpr long double unit_roundoff() {
    return std::is_same_v<real_t<T>, double> ? 0x1p-53L : 0x1p-24L;
}

std::mt19937& rng() {
    static std::mt19937 g(12345);
    return g;
}
template<class T>
T rnd(double lo = -1, double hi = 1) {
    std::uniform_real_distribution<double> d(lo, hi);
    if constexpr (cplx<T>) {
        const double re = d(rng()), im = d(rng());
        return T(real_t<T>(re), real_t<T>(im));
    } else {
        return T(d(rng()));
    }
}
template<class T>
T nan_value() {
    constexpr real_t<T> q = std::numeric_limits<real_t<T>>::quiet_NaN();
    if constexpr (cplx<T>)
        return T(q, q);
    else
        return q;
}

using cld = std::complex<long double>;
template<class T>
cld wide(const T& x) {
    if constexpr (cplx<T>)
        return cld(x.real(), x.imag());
    else
        return cld(x, 0);
}
template<class T>
bool finite(const T& x) {
    if constexpr (cplx<T>)
        return std::isfinite(x.real()) && std::isfinite(x.imag());
    else
        return std::isfinite(x);
}
template<class T>
T conj_of(const T& x) {
    if constexpr (cplx<T>)
        return std::conj(x);
    else
        return x;
}

// A random Hermitian positive definite n x n matrix: M M^H / n + I (well conditioned, real diagonal).
template<class T>
std::vector<T> make_hpd(std::size_t n) {
    std::vector<T> m(n * n), a(n * n);
    for (auto& x : m)
        x = rnd<T>();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            cld s = 0;
            for (std::size_t k = 0; k < n; ++k)
                s += wide(m[i * n + k]) * std::conj(wide(m[j * n + k]));
            s = s / static_cast<long double>(n) + (i == j ? 1.0L : 0.0L);
            if (i == j) s = cld(s.real(), 0);
            T v;
            if constexpr (cplx<T>)
                v = T(real_t<T>(s.real()), real_t<T>(s.imag()));
            else
                v = T(s.real());
            a[i * n + j] = v;
            a[j * n + i] = conj_of(v);
        }
    return a;
}

// The chosen triangle of a full matrix, the other one NaN.
template<class T>
void copy_triangle(const std::vector<T>& full, T* dst, std::size_t n, bool lower) {
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            dst[i * n + j] = (lower ? j <= i : j >= i) ? full[i * n + j] : nan_value<T>();
}

// "" when f (n x n) is the documented factor of a within tolerance, else what is wrong.
template<class T>
std::string check_cholesky(const std::vector<T>& a, const T* f, std::size_t n, bool lower) {
    std::ostringstream os;
    const long double u = unit_roundoff<T>();
    auto L = [&](std::size_t i, std::size_t j) { // the lower factor l (= u^H for upper)
        return lower ? wide(f[i * n + j]) : std::conj(wide(f[j * n + i]));
    };
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const bool other = lower ? j > i : j < i;
            if (other && !(f[i * n + j] == T(0))) {
                os << "other triangle not zero at (" << i << "," << j << ")";
                return os.str();
            }
            if (i == j && (wide(f[i * n + i]).imag() != 0 || !(wide(f[i * n + i]).real() > 0))) {
                os << "diagonal not real positive at " << i;
                return os.str();
            }
        }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            cld s = 0;
            long double abs = 0;
            for (std::size_t k = 0; k <= j; ++k) {
                s += L(i, k) * std::conj(L(j, k));
                abs += std::abs(L(i, k)) * std::abs(L(j, k));
            }
            const long double err = std::abs(s - wide(a[i * n + j]));
            if (!(err <= k_tol * static_cast<long double>(n + 1) * u * abs)) {
                os << "n=" << n << " (" << i << "," << j << "): |LL^H - A| = " << static_cast<double>(err)
                   << " > bound " << static_cast<double>(k_tol * (n + 1) * u * abs);
                return os.str();
            }
        }
    return "";
}

template<class T, std::size_t NB, std::size_t N, bool Lower>
void test_cholesky() {
    CAPTURE(N);
    CAPTURE(Lower);
    auto in = std::make_unique<tensor<T, NB, N, N>>();
    std::vector<std::vector<T>> full;
    for (std::size_t q = 0; q < NB; ++q) {
        full.push_back(make_hpd<T>(N));
        copy_triangle(full.back(), in->data() + q * N * N, N, Lower);
    }
    auto out = cholesky<Lower>(*in);
    static_assert(std::is_same_v<decltype(out), tensor<T, NB, N, N>>);
    for (std::size_t q = 0; q < NB; ++q) {
        CAPTURE(q);
        CHECK(check_cholesky(full[q], out.data() + q * N * N, N, Lower) == "");
    }
}

// A well-conditioned triangular matrix in a's chosen triangle (diagonal 1.5..2.5 in modulus with
// random signs, off-diagonal entries of size <= 1/m); the other triangle NaN, and the diagonal
// NaN when unit (it must not be read).
template<class T>
void make_triangular(T* a, std::size_t m, bool lower, bool unit) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < m; ++j) {
            T v;
            if (i == j)
                v = unit ? nan_value<T>() : T((rng()() & 1 ? 1 : -1) * (1.5 + rnd<real_t<T>>(0, 1)));
            else if (lower ? j < i : j > i)
                v = rnd<T>() / real_t<T>(static_cast<real_t<T>>(m));
            else
                v = nan_value<T>();
            a[i * m + j] = v;
        }
}

// "" when x solves op(a) x = b (left) or x op(a) = b within tolerance; a m x m, x and b: m x k
// (left) or k x m.
template<class T>
std::string check_solve(const T* a, const T* x, const T* b, std::size_t m, std::size_t k, bool left, bool lower,
                        bool unit, transpose_type tr) {
    const long double u = unit_roundoff<T>();
    // op(a)[i, j], reading only the chosen triangle (unit diagonal: 1)
    auto op = [&](std::size_t i, std::size_t j) -> cld {
        const std::size_t r = tr == transpose_type::no_transpose ? i : j,
                          c = tr == transpose_type::no_transpose ? j : i;
        if (r == c && unit) return 1;
        if (lower ? c > r : c < r) return 0;
        const cld v = wide(a[r * m + c]);
        return tr == transpose_type::adjoint ? std::conj(v) : v;
    };
    const std::size_t rows = left ? m : k, cols = left ? k : m;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            if (!finite(x[i * cols + j])) return "result not finite";
            cld s = 0;
            long double abs = 0;
            for (std::size_t p = 0; p < m; ++p) {
                const cld t = left ? op(i, p) * wide(x[p * cols + j]) : wide(x[i * cols + p]) * op(p, j);
                s += t;
                abs += std::abs(t);
            }
            const long double err = std::abs(s - wide(b[i * cols + j]));
            if (!(err <= k_tol * static_cast<long double>(m + 1) * u * abs)) {
                std::ostringstream os;
                os << "m=" << m << " k=" << k << " (" << i << "," << j << "): residual " << static_cast<double>(err)
                   << " > bound " << static_cast<double>(k_tol * (m + 1) * u * abs);
                return os.str();
            }
        }
    return "";
}

// Fills a and b of one instance, with the context of a failure: kept out of test_solve, which
// has one instantiation per attribute combination and shape (compile time).
template<class T>
void fill_solve(T* a, T* b, std::size_t nb, std::size_t m, std::size_t bsize, bool lower, bool unit) {
    for (std::size_t q = 0; q < nb; ++q)
        make_triangular(a + q * m * m, m, lower, unit);
    for (std::size_t i = 0; i < nb * bsize; ++i)
        b[i] = rnd<T>();
}
template<class T>
std::string check_solve_batch(const T* a, const T* x, const T* b, std::size_t nb, std::size_t m, std::size_t k,
                              bool left, bool lower, bool unit, transpose_type tr) {
    const std::size_t bs = m * k;
    for (std::size_t q = 0; q < nb; ++q) {
        const std::string e = check_solve(a + q * m * m, x + q * bs, b + q * bs, m, k, left, lower, unit, tr);
        if (!e.empty()) {
            std::ostringstream os;
            os << "left=" << left << " lower=" << lower << " unit=" << unit << " transpose=" << static_cast<int>(tr)
               << " batch " << q << ": " << e;
            return os.str();
        }
    }
    return "";
}

template<class T, bool Left, bool Lower, bool Unit, transpose_type Tr, std::size_t NB, std::size_t M, std::size_t K>
void test_solve() {
    constexpr std::size_t R = Left ? M : K, C = Left ? K : M;
    auto a = std::make_unique<tensor<T, NB, M, M>>();
    auto b = std::make_unique<tensor<T, NB, R, C>>();
    fill_solve(a->data(), b->data(), NB, M, R * C, Lower, Unit);
    auto x = triangular_solve<Left, Lower, Unit, Tr>(*a, *b);
    static_assert(std::is_same_v<decltype(x), tensor<T, NB, R, C>>);
    CHECK(check_solve_batch(a->data(), x.data(), b->data(), NB, M, K, Left, Lower, Unit, Tr) == "");
}

// Every attribute combination for one type and size.
template<class T, std::size_t NB, std::size_t M, std::size_t K>
void test_solve_all() {
    constexpr auto N = transpose_type::no_transpose, Tt = transpose_type::transpose, A = transpose_type::adjoint;
    test_solve<T, true, true, false, N, NB, M, K>();
    test_solve<T, true, true, false, Tt, NB, M, K>();
    test_solve<T, true, true, false, A, NB, M, K>();
    test_solve<T, true, true, true, N, NB, M, K>();
    test_solve<T, true, true, true, Tt, NB, M, K>();
    test_solve<T, true, true, true, A, NB, M, K>();
    test_solve<T, true, false, false, N, NB, M, K>();
    test_solve<T, true, false, false, Tt, NB, M, K>();
    test_solve<T, true, false, false, A, NB, M, K>();
    test_solve<T, true, false, true, N, NB, M, K>();
    test_solve<T, true, false, true, Tt, NB, M, K>();
    test_solve<T, true, false, true, A, NB, M, K>();
    test_solve<T, false, true, false, N, NB, M, K>();
    test_solve<T, false, true, false, Tt, NB, M, K>();
    test_solve<T, false, true, false, A, NB, M, K>();
    test_solve<T, false, true, true, N, NB, M, K>();
    test_solve<T, false, true, true, Tt, NB, M, K>();
    test_solve<T, false, true, true, A, NB, M, K>();
    test_solve<T, false, false, false, N, NB, M, K>();
    test_solve<T, false, false, false, Tt, NB, M, K>();
    test_solve<T, false, false, false, A, NB, M, K>();
    test_solve<T, false, false, true, N, NB, M, K>();
    test_solve<T, false, false, true, Tt, NB, M, K>();
    test_solve<T, false, false, true, A, NB, M, K>();
}

template<class X>
bool all_nan(const X* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        if (finite(p[i]) || p[i] == p[i]) return false;
    return true;
}

} // namespace

TEST_CASE("cholesky: a hand-checked 3x3, lower and upper, f32 and f64 (exact)") {
    f32<3, 3> a{{4, 12, -16}, {12, 37, -43}, {-16, -43, 98}};
    CHECK(equal(cholesky<true>(a), f32<3, 3>{{2, 0, 0}, {6, 1, 0}, {-8, 5, 3}}));
    CHECK(equal(cholesky<false>(a), f32<3, 3>{{2, 6, -8}, {0, 1, 5}, {0, 0, 3}}));
    f64<3, 3> d{{4, 12, -16}, {12, 37, -43}, {-16, -43, 98}};
    CHECK(equal(cholesky<true>(d), f64<3, 3>{{2, 0, 0}, {6, 1, 0}, {-8, 5, 3}}));
    // batched [2, 2, 3, 3], rank 4; the input may be any expression
    auto b = cholesky<true>(broadcast_in_dim(d, dims<2, 2, 3, 3>, dims<2, 3>));
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j)
            CHECK(b(i, j, 2, 1) == 5.0);
}

TEST_CASE("cholesky: complex Hermitian 2x2 (a = l l^H, exact)") {
    // l = [[2, 0], [1+i, 3]]: a = [[4, 2-2i], [2+2i, 11]]
    c64<2, 2> a{{{4, 0}, {2, -2}}, {{2, 2}, {11, 0}}};
    auto l = cholesky<true>(a);
    CHECK(l(0, 0) == std::complex<float>(2, 0));
    CHECK(l(1, 0) == std::complex<float>(1, 1));
    CHECK(l(1, 1) == std::complex<float>(3, 0));
    CHECK(l(0, 1) == std::complex<float>(0, 0));
    auto u = cholesky<false>(a); // u = l^H
    CHECK(u(0, 1) == std::complex<float>(1, -1));
    CHECK(u(1, 0) == std::complex<float>(0, 0));
}

TEST_CASE("cholesky: reconstruction L L^H = A, sizes across the block edges, f32 and f64, batched") {
    test_cholesky<float, 2, 1, true>();
    test_cholesky<float, 2, 1, false>();
    test_cholesky<float, 3, 7, true>();
    test_cholesky<float, 3, 7, false>();
    test_cholesky<float, 2, 65, true>();
    test_cholesky<float, 2, 65, false>();
    test_cholesky<float, 1, 200, true>();
    test_cholesky<float, 1, 300, false>();
    test_cholesky<double, 2, 1, false>();
    test_cholesky<double, 3, 7, true>();
    test_cholesky<double, 2, 65, true>();
    test_cholesky<double, 2, 65, false>();
    test_cholesky<double, 2, 200, false>();
    test_cholesky<double, 1, 300, true>();
}

TEST_CASE("cholesky: complex reconstruction (c64, c128)") {
    test_cholesky<std::complex<float>, 2, 7, true>();
    test_cholesky<std::complex<float>, 1, 70, false>();
    test_cholesky<std::complex<double>, 2, 33, false>();
    test_cholesky<std::complex<double>, 1, 70, true>();
}

TEST_CASE("cholesky: non-positive-definite matrices give an all-NaN matrix, the rest of the batch is unaffected") {
    f32<2, 2, 2> a{{{1, 2}, {2, 1}}, {{4, 2}, {2, 2}}};
    auto r = cholesky<true>(a);
    CHECK(all_nan(r.data(), 4));
    f32<1, 2, 2> second = slice(r, dims<1, 0, 0>, dims<2, 2, 2>);
    CHECK(equal(second, f32<1, 2, 2>{{{2, 0}, {1, 1}}})); // l = [[2, 0], [1, 1]]
    // zero pivot, NaN on the diagonal, and a failure deep inside the blocked part
    CHECK(all_nan(cholesky<false>(f64<2, 2>{{0, 0}, {0, 1}}).data(), 4));
    f64<2, 2> n{{std::nan(""), 0}, {0, 1}};
    CHECK(all_nan(cholesky<true>(n).data(), 4));
    constexpr std::size_t N = 150;
    auto big = std::make_unique<f64<N, N>>();
    const auto full = make_hpd<double>(N);
    std::memcpy(big->data(), full.data(), N * N * sizeof(double));
    (*big)(140, 140) = -1000;
    CHECK(all_nan(cholesky<true>(*big).data(), N * N));
    CHECK(all_nan(cholesky<false>(*big).data(), N * N));
}

TEST_CASE("triangular_solve: hand-checked 3x3, exact") {
    f32<3, 3> l{{2, 0, 0}, {1, 1, 0}, {3, 2, 4}};
    f32<3, 1> b{{2}, {3}, {11}};
    // l x = b: x = [1, 2, 1]
    CHECK(equal(triangular_solve<true, true, false, transpose_type::no_transpose>(l, b), f32<3, 1>{{1}, {2}, {1}}));
    // l^T x = b', b' = l^T [1, 2, 1] = [2 + 2 + 3, 2 + 2, 4]
    f32<3, 1> bt{{7}, {4}, {4}};
    CHECK(equal(triangular_solve<true, true, false, transpose_type::transpose>(l, bt), f32<3, 1>{{1}, {2}, {1}}));
    // x l = [1, 2, 1] l = [2 + 2 + 3, 2 + 2, 4]: the right side
    f32<1, 3> br{{7, 4, 4}};
    CHECK(equal(triangular_solve<false, true, false, transpose_type::no_transpose>(l, br), f32<1, 3>{{1, 2, 1}}));
    // unit diagonal, upper triangle of the transpose of l: u = l^T with ones on the diagonal
    f32<3, 3> u{{9, 1, 3}, {0, 9, 2}, {0, 0, 9}};
    f32<3, 1> bu{{1 + 2 + 3}, {2 + 2}, {1}}; // u x with x = [1, 2, 1], unit diagonal
    CHECK(equal(triangular_solve<true, false, true, transpose_type::no_transpose>(u, bu), f32<3, 1>{{1}, {2}, {1}}));
}

TEST_CASE("triangular_solve: complex adjoint and transpose differ (c64, exact)") {
    using c = std::complex<float>;
    c64<2, 2> a{{{1, 0}, {0, 0}}, {{0, 1}, {1, 0}}}; // lower [[1, 0], [i, 1]]
    c64<2, 1> b{{{1, 0}}, {{0, 0}}};
    // a^T = [[1, i], [0, 1]]: x2 = 0, x1 = 1. a^H = [[1, -i], [0, 1]]: the same here; use b = [0, 1]
    c64<2, 1> b2{{{0, 0}}, {{1, 0}}};
    auto xt = triangular_solve<true, true, false, transpose_type::transpose>(a, b2);
    auto xh = triangular_solve<true, true, false, transpose_type::adjoint>(a, b2);
    CHECK(xt(0, 0) == c(0, -1)); // x1 + i x2 = 0
    CHECK(xh(0, 0) == c(0, 1));  // x1 - i x2 = 0
    CHECK(xt(1, 0) == c(1, 0));
    auto x = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
    CHECK(x(1, 0) == c(0, -1)); // i x1 + x2 = 0
}

TEST_CASE("triangular_solve: all 24 attribute combinations, f32 and f64, batched, unread triangle NaN") {
    test_solve_all<float, 2, 7, 3>();
    test_solve_all<double, 2, 7, 3>();
    test_solve_all<float, 1, 130, 33>();
    test_solve_all<double, 1, 130, 33>();
}

TEST_CASE("triangular_solve: sizes 1, 65, 200, 300 across the block edges") {
    constexpr auto N = transpose_type::no_transpose, Tt = transpose_type::transpose, A = transpose_type::adjoint;
    test_solve<float, true, true, false, N, 3, 1, 5>();
    test_solve<double, false, false, true, Tt, 2, 1, 1>();
    test_solve<float, true, true, false, N, 2, 65, 40>();
    test_solve<float, false, true, true, A, 2, 65, 9>();
    test_solve<double, true, false, false, Tt, 1, 200, 77>();
    test_solve<float, false, false, false, N, 1, 200, 64>();
    test_solve<float, true, true, false, N, 1, 300, 300>();
    test_solve<double, true, false, true, N, 1, 300, 41>();
    test_solve<float, false, true, false, Tt, 1, 300, 70>();
}

TEST_CASE("triangular_solve: complex, every transpose, both sides (c64, c128)") {
    constexpr auto N = transpose_type::no_transpose, Tt = transpose_type::transpose, A = transpose_type::adjoint;
    test_solve<std::complex<float>, true, true, false, A, 2, 70, 5>();
    test_solve<std::complex<float>, false, false, false, A, 1, 70, 6>();
    test_solve<std::complex<double>, true, false, true, Tt, 2, 9, 4>();
    test_solve<std::complex<double>, false, true, false, N, 1, 66, 3>();
    test_solve<std::complex<double>, true, true, false, A, 1, 66, 3>();
}

TEST_CASE("triangular_solve: a zero diagonal gives inf/NaN, no UB") {
    f32<2, 2> a{{0, 0}, {1, 1}};
    f32<2, 1> b{{1}, {1}};
    auto x = triangular_solve<true, true, false, transpose_type::no_transpose>(a, b);
    CHECK(std::isinf(x(0, 0)));
    CHECK(!std::isfinite(x(1, 0)));
}

TEST_CASE("results do not depend on the thread count (1 and 2 threads, bitwise)") {
    constexpr std::size_t N = 300;
    auto a = std::make_unique<f32<N, N>>();
    const auto full = make_hpd<float>(N);
    std::memcpy(a->data(), full.data(), N * N * sizeof(float));
    auto t = std::make_unique<f64<N, N>>();
    make_triangular(t->data(), N, true, false);
    auto b = std::make_unique<f64<N, 256>>();
    for (std::size_t i = 0; i < b->size(); ++i)
        b->data()[i] = rnd<double>();
    auto cb = std::make_unique<f32<16, 40, 40>>(); // a batch of small matrices: one matrix per task
    for (std::size_t q = 0; q < 16; ++q) {
        const auto f = make_hpd<float>(40);
        std::memcpy(cb->data() + q * 1600, f.data(), 1600 * sizeof(float));
    }
    auto run = [&](int threads) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        return std::make_tuple(
            cholesky<true>(*a), triangular_solve<true, true, false, transpose_type::no_transpose>(*t, *b),
            triangular_solve<false, true, false, transpose_type::transpose>(*t, transpose(*b, dims<1, 0>)),
            cholesky<false>(*cb));
    };
    const auto r1 = run(1);
    const auto r2 = run(2);
    auto same = [](const auto& x, const auto& y) {
        return std::memcmp(x.data(), y.data(), x.size() * sizeof(*x.data())) == 0;
    };
    CHECK(same(std::get<0>(r1), std::get<0>(r2)));
    CHECK(same(std::get<1>(r1), std::get<1>(r2)));
    CHECK(same(std::get<2>(r1), std::get<2>(r2)));
    CHECK(same(std::get<3>(r1), std::get<3>(r2)));
    // A column's result does not depend on the other columns (b's columns are split into halves
    // and SIMD chunks by size): the first 17 columns solved alone (one SIMD chunk and a scalar
    // column, no split) are bitwise the same as in the 256-column solve.
    f64<N, 17> narrow = slice(*b, dims<0, 0>, dims<N, 17>);
    const auto x17 = triangular_solve<true, true, false, transpose_type::no_transpose>(*t, narrow);
    bool cols_same = true;
    for (std::size_t i = 0; i < N; ++i)
        cols_same = cols_same && std::memcmp(&x17(i, 0), &std::get<1>(r1)(i, 0), 17 * sizeof(double)) == 0;
    CHECK(cols_same);
}
