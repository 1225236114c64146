// batch_norm_training / batch_norm_inference / batch_norm_grad (ops/conv/batch_norm.hpp):
// StableHLO's examples and a hand-checked case; every op against the spec's formulas evaluated in
// long double (tests/reference/reference_batch_norm.hpp) on random data for several shapes,
// feature indices (0, 1, last) and element types (f32, f64, bf16, f16), covering both kernel paths
// (blocks of rows, runs of the inner dimensions), pieces merged across blocks, a single feature, one
// element per feature and empty features; batch_norm_grad against central finite differences of
// sum(y * r) through batch_norm_training; results bitwise equal in arenas of 1 and 2 threads; negative
// epsilon; a large mean (a one-pass E[x^2] - E[x]^2 variance fails it).
//
// Tolerances (u = unit roundoff of the compute type, f32 for f16/bf16/f32, f64 for f64; uT of the
// element type; K = 64 covers the blocked sums, whose error grows with the log of the number of
// pieces and the lengths of the per-lane runs, at most 1024 terms):
//   mean:  |m - m_ref| <= uT |m_ref| + K u (|m_ref| + sigma_ref)
//   var:   |v - v_ref| <= uT v_ref + K u (v_ref + |m_ref| sigma_ref): kappa v_ref, kappa = |m| / sigma the
//          condition number of the variance, for the pairwise Chan merges of pieces (within a piece the
//          two-pass sum has no first-order dependence on the mean's error)
//   y:     |y - y_ref| <= uT |y_ref| + K u (|a| (|x - m| + |m| + sigma) + |offset|), a = scale / sqrt(v + eps)
//   gx:    |gx - ref|  <= uT |ref| + K u |k| (|gy| + |d| + |c| (|x - m| + |m|)), k = scale / sqrt(v + eps)
//   gscale, goffset: uT |ref| + K u (sums of the absolute terms)
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <xlet/ops/conv/batch_norm.hpp> // first: the header stands alone
#include <xlet/xlet.hpp>

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "reference/reference_batch_norm.hpp"

using namespace xlet;

namespace {

constexpr long double K = 64;

template<class T>
constexpr long double unit_roundoff() {
    if constexpr (std::is_same_v<T, double>)
        return 0x1p-53L;
    else if constexpr (std::is_same_v<T, bfloat16>)
        return 0x1p-8L;
    else if constexpr (std::is_same_v<T, half>)
        return 0x1p-11L;
    else
        return 0x1p-24L;
}
template<class T>
constexpr long double compute_roundoff() {
    return std::is_same_v<T, double> ? 0x1p-53L : 0x1p-24L;
}

template<class T>
double val(T v) {
    return static_cast<double>(v);
}

std::mt19937& rng() {
    static std::mt19937 g(20240514);
    return g;
}
double uni(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng()); }

template<class A>
std::vector<double> to_doubles(const A& a) {
    std::vector<double> r(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        r[i] = val(a.data()[i]);
    return r;
}
template<class A>
xlet_ref::array<double> ref_array(const A& a) {
    xlet_ref::dims_t d;
    for (auto e : A::extents)
        d.push_back(static_cast<std::int64_t>(e));
    return xlet_ref::array<double>(d, to_doubles(a));
}
std::vector<long double> widen_ld(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// Counts failures and the worst error / bound ratio, so one message reports a whole array.
struct tally {
    std::string what;
    std::size_t bad = 0, first = 0;
    double worst = 0, got_first = 0, want_first = 0;
    void check(std::size_t i, double got, long double want, long double bound) {
        const long double err = std::fabs(static_cast<long double>(got) - want);
        const bool ok = err <= bound || (std::isnan(got) && std::isnan(static_cast<double>(want)));
        if (bound > 0) worst = std::max(worst, static_cast<double>(err / bound));
        if (!ok && bad++ == 0) {
            first = i;
            got_first = got;
            want_first = static_cast<double>(want);
        }
    }
    ~tally() {
        INFO(what << ": first failure at " << first << ": got " << got_first << ", want " << want_first
                  << "; worst error/bound " << worst);
        CHECK(bad == 0);
        if (std::getenv("BN_VERBOSE")) MESSAGE(what << " worst error/bound " << worst);
    }
};

template<class T, std::size_t C>
tensor<T, C> random_vector(double lo, double hi) {
    tensor<T, C> v;
    for (auto& e : v)
        e = T(uni(lo, hi));
    return v;
}

// One shape, one feature index, one element type: all three ops against the reference.
template<class T, std::int64_t F, class X>
void check_against_reference() {
    constexpr std::size_t C = X::extents[F];
    static X x(detail::no_init), gy(detail::no_init); // static: large shapes stay off the stack
    {
        std::vector<double> centre(C), spread(C);
        for (std::size_t l = 0; l < C; ++l) {
            centre[l] = uni(-3, 3);
            spread[l] = uni(0.25, 2);
        }
        for (std::size_t i = 0; i < X::size(); ++i) {
            const std::size_t l = unflatten(i, X::extents)[F];
            x.data()[i] = T(centre[l] + spread[l] * uni(-1, 1));
            gy.data()[i] = T(uni(-1, 1));
        }
    }
    const auto scale = random_vector<T, C>(0.5, 2), offset = random_vector<T, C>(-1, 1);
    const float eps = 1e-3f;
    const long double u = compute_roundoff<T>(), uT = unit_roundoff<T>(), e = eps;

    const auto xr = ref_array(x);
    const auto ref = xlet_ref::bn_moments(xr, F);
    const auto sc = widen_ld(to_doubles(scale)), of = widen_ld(to_doubles(offset));
    const auto feat = xlet_ref::bn_features(xr.dims, F);

    // batch_norm_training
    {
        auto [y, mean, var] = batch_norm_training<F>(x, scale, offset, eps);
        static_assert(std::is_same_v<decltype(y), X> && std::is_same_v<decltype(mean), tensor<T, C>> &&
                      std::is_same_v<decltype(var), tensor<T, C>>);
        const auto yr = xlet_ref::bn_normalize(xr, F, sc, of, ref.mean, ref.var, e);
        tally tm{"batch_norm_training mean"}, tv{"batch_norm_training var"}, ty{"batch_norm_training output"};
        for (std::size_t l = 0; l < C; ++l) {
            const long double m = ref.mean[l], s = std::sqrt(ref.var[l]);
            tm.check(l, val(mean.data()[l]), m, uT * std::fabs(m) + K * u * (std::fabs(m) + s));
            tv.check(l, val(var.data()[l]), ref.var[l], uT * ref.var[l] + K * u * (ref.var[l] + std::fabs(m) * s));
        }
        for (std::size_t i = 0; i < X::size(); ++i) {
            const std::size_t l = feat[i];
            const long double m = ref.mean[l], s = std::sqrt(ref.var[l]), a = sc[l] / std::sqrt(ref.var[l] + e);
            const long double bound =
                uT * std::fabs(yr[i]) +
                K * u * (std::fabs(a) * (std::fabs(xr.data[i] - m) + std::fabs(m) + s) + std::fabs(of[l]));
            ty.check(i, val(y.data()[i]), yr[i], bound);
        }
        // Inference on training's own statistics: for f32/f64 (mean, var exact in T) the same bits.
        X yi = batch_norm_inference<F>(x, scale, offset, mean, var, eps);
        if constexpr (!is_narrow_float<T>) CHECK(std::memcmp(yi.data(), y.data(), sizeof(T) * X::size()) == 0);
    }

    // batch_norm_inference and batch_norm_grad on given statistics (not the batch's own: perturbed).
    tensor<T, C> mean_in(detail::no_init), var_in(detail::no_init);
    for (std::size_t l = 0; l < C; ++l) {
        mean_in.data()[l] = T(static_cast<double>(ref.mean[l]) + uni(-0.1, 0.1));
        var_in.data()[l] = T(static_cast<double>(ref.var[l]) * uni(0.8, 1.25));
    }
    const auto mi = widen_ld(to_doubles(mean_in)), vi = widen_ld(to_doubles(var_in));
    {
        X y = batch_norm_inference<F>(x, scale, offset, mean_in, var_in, eps);
        const auto yr = xlet_ref::bn_normalize(xr, F, sc, of, mi, vi, e);
        tally ty{"batch_norm_inference"};
        for (std::size_t i = 0; i < X::size(); ++i) {
            const std::size_t l = feat[i];
            const long double a = sc[l] / std::sqrt(vi[l] + e);
            const long double bound =
                uT * std::fabs(yr[i]) +
                K * u *
                    (std::fabs(a) * (std::fabs(xr.data[i] - mi[l]) + std::fabs(mi[l]) + std::sqrt(vi[l])) +
                     std::fabs(of[l]));
            ty.check(i, val(y.data()[i]), yr[i], bound);
        }
    }
    {
        auto [gx, gs, gb] = batch_norm_grad<F>(x, scale, mean_in, var_in, gy, eps);
        static_assert(std::is_same_v<decltype(gx), X> && std::is_same_v<decltype(gs), tensor<T, C>> &&
                      std::is_same_v<decltype(gb), tensor<T, C>>);
        const auto gyd = to_doubles(gy);
        const auto gr = xlet_ref::bn_grad(xr, F, sc, mi, vi, gyd, e);
        const long double m = static_cast<long double>(X::size()) / C;
        std::vector<long double> abs_gy(C, 0), abs_gyx(C, 0), dd(C, 0), cc(C, 0);
        for (std::size_t i = 0; i < X::size(); ++i) {
            const std::size_t l = feat[i];
            abs_gy[l] += std::fabs(gyd[i]);
            abs_gyx[l] += std::fabs(gyd[i]) * (std::fabs(xr.data[i] - mi[l]) + std::fabs(mi[l]));
            dd[l] += gyd[i] / m;
            cc[l] += gyd[i] * (xr.data[i] - mi[l]) / m / (vi[l] + e);
        }
        tally tx{"batch_norm_grad grad_operand"}, ts{"batch_norm_grad grad_scale"}, tb{"batch_norm_grad grad_offset"};
        for (std::size_t i = 0; i < X::size(); ++i) {
            const std::size_t l = feat[i];
            const long double k = sc[l] / std::sqrt(vi[l] + e);
            const long double bound = uT * std::fabs(gr.grad_operand[i]) +
                                      K * u * std::fabs(k) *
                                          (std::fabs(gyd[i]) + std::fabs(dd[l]) +
                                           std::fabs(cc[l]) * (std::fabs(xr.data[i] - mi[l]) + std::fabs(mi[l])));
            tx.check(i, val(gx.data()[i]), gr.grad_operand[i], bound);
        }
        for (std::size_t l = 0; l < C; ++l) {
            ts.check(l, val(gs.data()[l]), gr.grad_scale[l],
                     uT * std::fabs(gr.grad_scale[l]) + K * u * abs_gyx[l] / std::sqrt(vi[l] + e));
            tb.check(l, val(gb.data()[l]), gr.grad_offset[l], uT * std::fabs(gr.grad_offset[l]) + K * u * abs_gy[l]);
        }
    }
}

template<class A, class B>
bool same_bits(const A& a, const B& b) {
    static_assert(sizeof(*a.data()) == sizeof(*b.data()));
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(*a.data()) * a.size()) == 0;
}

// Training and grad on 1 and on 2 threads: the same bits.
template<std::int64_t F, class X>
void check_thread_independence() {
    constexpr std::size_t C = X::extents[F];
    static_assert(X::size() >= detail::bn_parallel_elements, "the shape must take the parallel path");
    using T = typename X::value_type;
    static X x(detail::no_init), gy(detail::no_init);
    for (std::size_t i = 0; i < X::size(); ++i) {
        x.data()[i] = T(uni(-1, 1) + 5 * std::sin(static_cast<double>(i % 97)));
        gy.data()[i] = T(uni(-1, 1));
    }
    const auto scale = random_vector<T, C>(0.5, 2), offset = random_vector<T, C>(-1, 1);
    // In an arena of 1 thread TBB cuts the task range into fewer, larger ranges than with 2 (64 vs
    // about 130 for a few hundred tasks): a result that depended on the split would differ.
    auto run = [&](int threads) {
        tbb::task_arena arena(threads);
        return arena.execute([&] {
            auto t = batch_norm_training<F>(x, scale, offset, 1e-5f);
            auto g = batch_norm_grad<F>(x, scale, std::get<1>(t), std::get<2>(t), gy, 1e-5f);
            return std::tuple{std::move(t), std::move(g)};
        });
    };
    const auto one = run(1), two = run(2);
    const auto& [t1, g1] = one;
    const auto& [t2, g2] = two;
    CHECK(same_bits(std::get<0>(t1), std::get<0>(t2)));
    CHECK(same_bits(std::get<1>(t1), std::get<1>(t2)));
    CHECK(same_bits(std::get<2>(t1), std::get<2>(t2)));
    CHECK(same_bits(std::get<0>(g1), std::get<0>(g2)));
    CHECK(same_bits(std::get<1>(g1), std::get<1>(g2)));
    CHECK(same_bits(std::get<2>(g1), std::get<2>(g2)));
}

// grad_operand, grad_scale, grad_offset of batch_norm_grad (with training's mean and variance)
// against central differences of L = sum(y * r), y = batch_norm_training(x, scale, offset).
template<std::int64_t F, std::size_t... D>
void check_finite_differences(float eps) {
    using X = f64<D...>;
    constexpr std::size_t C = X::extents[F];
    X x, r;
    for (auto& v : x)
        v = uni(-2, 2);
    for (auto& v : r)
        v = uni(-1, 1);
    auto scale = random_vector<double, C>(0.5, 2), offset = random_vector<double, C>(-1, 1);
    auto loss = [&](const X& xx, const f64<C>& s, const f64<C>& o) {
        auto y = std::get<0>(batch_norm_training<F>(xx, s, o, eps));
        long double acc = 0;
        for (std::size_t i = 0; i < X::size(); ++i)
            acc += static_cast<long double>(y.data()[i]) * r.data()[i];
        return acc;
    };
    auto [y, mean, var] = batch_norm_training<F>(x, scale, offset, eps);
    auto [gx, gs, gb] = batch_norm_grad<F>(x, scale, mean, var, r, eps);
    const double h = 1e-5;
    auto fd = [&](auto& arr, std::size_t i) {
        const double keep = arr.data()[i];
        arr.data()[i] = keep + h;
        const long double up = loss(x, scale, offset);
        arr.data()[i] = keep - h;
        const long double down = loss(x, scale, offset);
        arr.data()[i] = keep;
        return static_cast<double>((up - down) / (2 * h));
    };
    tally tx{"d loss / d x"}, ts{"d loss / d scale"}, tb{"d loss / d offset"};
    for (std::size_t i = 0; i < X::size(); ++i)
        tx.check(i, gx.data()[i], fd(x, i), 1e-6 * (1 + std::fabs(gx.data()[i])));
    for (std::size_t l = 0; l < C; ++l) {
        ts.check(l, gs.data()[l], fd(scale, l), 1e-6 * (1 + std::fabs(gs.data()[l])));
        tb.check(l, gb.data()[l], fd(offset, l), 1e-6 * (1 + std::fabs(gb.data()[l])));
    }
    // The gradient is not trivially small: a wrong formula would show.
    double norm = 0;
    for (auto v : gx)
        norm = std::max(norm, std::fabs(v));
    CHECK(norm > 1e-3);
}

} // namespace

TEST_CASE("StableHLO examples: batch_norm_training, batch_norm_inference, batch_norm_grad") {
    const f64<2, 2, 2> x{{{1, 2}, {3, 4}}, {{3, 4}, {1, 2}}};
    const f64<2> scale{1, 1}, offset{1, 1};
    auto [y, mean, var] = batch_norm_training<2>(x, scale, offset, 0.0f);
    CHECK(equal(y, f64<2, 2, 2>{{{0, 0}, {2, 2}}, {{2, 2}, {0, 0}}}));
    CHECK(equal(mean, f64<2>{2, 3}));
    CHECK(equal(var, f64<2>{1, 1}));

    const f64<2> m{2, 3}, v{1, 1};
    f64<2, 2, 2> yi = batch_norm_inference<2>(x, scale, offset, m, v, 0.0f);
    CHECK(equal(yi, f64<2, 2, 2>{{{0, 0}, {2, 2}}, {{2, 2}, {0, 0}}}));

    const auto gy = f64<2, 2, 2>::filled(0.1);
    auto [gx, gs, gb] = batch_norm_grad<2>(x, scale, m, v, gy, 0.0f);
    for (double e : gx)
        CHECK(std::fabs(e) < 1e-16);
    CHECK(std::fabs(gs(0)) < 1e-16);
    CHECK(std::fabs(gs(1)) < 1e-16);
    CHECK(gb(0) == doctest::Approx(0.4).epsilon(1e-15));
    CHECK(gb(1) == doctest::Approx(0.4).epsilon(1e-15));
}

TEST_CASE("hand-checked: f32[4,2], feature_index 1, epsilon 4") {
    // Feature 0: {1, 3, 5, 7}, mean 4, var 5; feature 1: {10, 12, 14, 16}, mean 13, var 5.
    // sqrt(var + 4) = 3, so a = scale / 3 = {1, 2}: y0 = x - 4 + 1, y1 = 2 (x - 13) - 1 (exact).
    const f32<4, 2> x{{1, 10}, {3, 12}, {5, 14}, {7, 16}};
    const f32<2> scale{3, 6}, offset{1, -1};
    auto [y, mean, var] = batch_norm_training<1>(x, scale, offset, 4.0f);
    CHECK(equal(y, f32<4, 2>{{-2, -7}, {0, -3}, {2, 1}, {4, 5}}));
    CHECK(equal(mean, f32<2>{4, 13}));
    CHECK(equal(var, f32<2>{5, 5}));
    // Unbiased (1/(N-1)) variance would be 20/3: not what the spec says.
    // Grad with gy = {{1, 0}, {0, 1}, {0, 0}, {1, 1}}: feature 0: d = 1/2, c = 0, k = 1:
    // gx0 = gy - 1/2. Feature 1: sum(gy) = 2, sum(gy (x - 13)) = 2, d = 1/2, c = 2/4/9 = 1/18, k = 2:
    // gx1 = 2 (gy - 1/2 - (x - 13)/18) = {-2/3, 10/9, -10/9, 2/3}; gscale = {0, 2/3}; goffset = {2, 2}.
    const f32<4, 2> gy{{1, 0}, {0, 1}, {0, 0}, {1, 1}};
    auto [gx, gs, gb] = batch_norm_grad<1>(x, scale, mean, var, gy, 4.0f);
    const double want[4][2] = {{0.5, -2.0 / 3}, {-0.5, 10.0 / 9}, {-0.5, -10.0 / 9}, {0.5, 2.0 / 3}};
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t l = 0; l < 2; ++l)
            CHECK(gx(i, l) == doctest::Approx(want[i][l]).epsilon(1e-6));
    CHECK(gs(0) == 0.0f);
    CHECK(gs(1) == doctest::Approx(2.0 / 3).epsilon(1e-6));
    CHECK(equal(gb, f32<2>{2, 2}));
}

TEST_CASE("f32 against the formulas: shapes, feature index 0, 1 and last, both kernel paths") {
    check_against_reference<float, 0, f32<3, 5, 7, 6>>();    // runs of 210
    check_against_reference<float, 1, f32<3, 5, 7, 6>>();    // rows of 5 x 42
    check_against_reference<float, 3, f32<3, 5, 7, 6>>();    // rows of 6 (super-rows)
    check_against_reference<float, 1, f32<4, 16, 9, 9>>();   // runs of 81 (lane tail)
    check_against_reference<float, 1, f32<8, 32, 20, 20>>(); // NCHW, parallel, 256 pieces merged
    check_against_reference<float, 3, f32<8, 20, 20, 32>>(); // NHWC, parallel, blocks of rows merged
    check_against_reference<float, 0, f32<3, 40000>>();      // runs cut into chunks of 16 Ki
    check_against_reference<float, 1, f32<100000, 1>>();     // one feature: one contiguous run
    check_against_reference<float, 2, f32<2, 3, 70000>>();   // 70000 features of 6 elements
    check_against_reference<float, 0, f32<37>>();            // one element per feature: var 0, y = offset
}

TEST_CASE("f64 against the formulas") {
    check_against_reference<double, 0, f64<3, 5, 7, 6>>();
    check_against_reference<double, 1, f64<3, 5, 7, 6>>();
    check_against_reference<double, 3, f64<3, 5, 7, 6>>();
    check_against_reference<double, 1, f64<8, 32, 20, 20>>();
}

TEST_CASE("bf16 and f16 against the formulas (f32 accumulation, one rounding)") {
    check_against_reference<bfloat16, 1, bf16<3, 5, 7, 6>>();
    check_against_reference<bfloat16, 3, bf16<3, 5, 7, 6>>();
    check_against_reference<bfloat16, 0, bf16<4, 16, 9, 9>>();
    check_against_reference<half, 1, f16<4, 16, 9, 9>>();
}

TEST_CASE("a large mean: the variance is computed around the mean") {
    // x = 1e4 + U(-1, 1) in f32: E[x^2] - E[x]^2 in f32 would be off by ~1e8 * 2^-24 = 6.
    static f32<4096, 4> x;
    for (auto& v : x)
        v = static_cast<float>(1e4 + uni(-1, 1));
    const auto ref = xlet_ref::bn_moments(ref_array(x), 1);
    auto [y, mean, var] = batch_norm_training<1>(x, f32<4>::filled(1), f32<4>::filled(0), 0.0f);
    for (std::size_t l = 0; l < 4; ++l) {
        CHECK(std::fabs(mean(l) - ref.mean[l]) <= 1e-6L * ref.mean[l]);
        CHECK(std::fabs(var(l) - ref.var[l]) <= 1e-5L * ref.var[l]);
    }
}

TEST_CASE("operands are expressions; inference fuses into its consumer") {
    f32<6, 4, 5> x;
    for (auto& v : x)
        v = static_cast<float>(uni(-1, 1));
    const auto scale = random_vector<float, 4>(0.5, 2), offset = random_vector<float, 4>(-1, 1);
    const f32<6, 4, 5> x2 = x * 2.0f;
    const f32<4> s2 = scale + 1.0f;
    auto [y1, m1, v1] = batch_norm_training<1>(x * 2.0f, scale + 1.0f, offset * 1.0f, 1e-3f);
    auto [y2, m2, v2] = batch_norm_training<1>(x2, s2, offset, 1e-3f);
    CHECK(same_bits(y1, y2));
    CHECK(same_bits(m1, m2));
    CHECK(same_bits(v1, v2));
    f32<6, 4, 5> z1 = batch_norm_inference<1>(x * 2.0f, s2, offset, m2 + 0.0f, v2, 1e-3f) * 3.0f;
    f32<6, 4, 5> z2 = y2 * 3.0f;
    CHECK(same_bits(z1, z2));
    auto [g1, gs1, gb1] = batch_norm_grad<1>(x * 2.0f, s2, m2, v2, x - 1.0f, 1e-3f);
    const f32<6, 4, 5> gy = x - 1.0f;
    auto [g2, gs2, gb2] = batch_norm_grad<1>(x2, s2, m2, v2, gy, 1e-3f);
    CHECK(same_bits(g1, g2));
    CHECK(same_bits(gs1, gs2));
    CHECK(same_bits(gb1, gb2));
}

TEST_CASE("batch_norm_grad is the total derivative of sum(y * r) through batch_norm_training") {
    check_finite_differences<1, 3, 4, 5>(0.1f);   // NCHW-like
    check_finite_differences<1, 6, 3>(0.01f);     // feature last
    check_finite_differences<0, 2, 3, 4>(0.5f);   // feature first
    check_finite_differences<1, 2, 3, 70>(1e-3f); // runs path (inner 70)
}

TEST_CASE("results do not depend on the number of threads") {
    check_thread_independence<1, f32<8, 64, 20, 20>>();  // runs, 512 chunks
    check_thread_independence<3, f32<64, 32, 32, 32>>(); // rows, 128 blocks
    check_thread_independence<2, f32<2, 3, 70000>>();    // rows of one row per block
    check_thread_independence<1, f32<4000000, 1>>();     // one feature, 245 chunks
    check_thread_independence<1, bf16<8, 32, 20, 20>>();
}

TEST_CASE("epsilon is used as given: a negative epsilon gives NaN or infinity per IEEE") {
    // Feature 0: {1, 3}, mean 2, var 1; feature 1: {5, 5}, var 0.
    const f32<2, 2> x{{1, 5}, {3, 5}};
    const f32<2> scale{1, 1}, offset{0, 0};
    auto [y, mean, var] = batch_norm_training<1>(x, scale, offset, -2.0f); // var + eps = -1, -2
    for (float e : y)
        CHECK(std::isnan(e));
    CHECK(equal(var, f32<2>{1, 0}));
    auto t = batch_norm_training<1>(x, scale, offset, -1.0f); // var + eps = 0 (feature 0), -1
    const auto& y2 = std::get<0>(t);
    CHECK(y2(0, 0) == -std::numeric_limits<float>::infinity());
    CHECK(y2(1, 0) == std::numeric_limits<float>::infinity());
    CHECK(std::isnan(y2(0, 1)));
    CHECK(std::isnan(y2(1, 1)));
    f32<2, 2> yi = batch_norm_inference<1>(x, scale, offset, mean, var, -2.0f);
    for (float e : yi)
        CHECK(std::isnan(e));
    // epsilon = 0 on a constant feature: (x - mean) / 0 = 0 / 0.
    auto t0 = batch_norm_training<1>(x, scale, offset, 0.0f);
    CHECK(std::isnan(std::get<0>(t0)(0, 1)));
}

TEST_CASE("empty features: mean and variance of nothing are NaN, gradient sums are 0") {
    f32<0, 3> x;
    const f32<3> scale{1, 2, 3}, offset{0, 0, 0};
    auto [y, mean, var] = batch_norm_training<1>(x, scale, offset, 1e-3f);
    for (float e : mean)
        CHECK(std::isnan(e));
    for (float e : var)
        CHECK(std::isnan(e));
    auto [gx, gs, gb] = batch_norm_grad<1>(x, scale, offset, scale, x, 1e-3f);
    CHECK(equal(gs, f32<3>{0, 0, 0}));
    CHECK(equal(gb, f32<3>{0, 0, 0}));
    f32<2, 0> z; // no features at all
    auto [yz, mz, vz] = batch_norm_training<1>(z, f32<0>{}, f32<0>{}, 1e-3f);
    CHECK(mz.size() == 0);
}
