// The callable protocol (eval/callable.hpp): every op that takes a user computation accepts any
// callable valid on scalars of the element types (generic lambdas with ?:, comparisons, std::max,
// literals, calls to a user's function template), on f32, s32 and f16; results equal a scalar
// reference loop that calls the same callable. xlet's functors and xlet::vectorized(f) opt in to
// the SIMD path.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

#include <xlet/xlet.hpp>

using namespace xlet;

namespace user {
template<class T> T larger(T a, T b) { return a > b ? a : b; }
template<class T> bool before(T a, T b) { return b > a; }
} // namespace user

namespace {

constexpr std::size_t R = 4, C = 6;

template<class T> tensor<T, R, C> data() {
    // Small integers with ties and both signs: sums are exact in every tested type.
    constexpr int v[R * C] = {3, -1, 4, -1, 5, -6, 2, 6, -5, 3, 5, 0, -2, 7, 1, -8, 2, 8, 1, -8, 2, 8, -1, 0};
    tensor<T, R, C> t;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) t(i, j) = static_cast<T>(v[i * C + j]);
    return t;
}

// The shapes of computation the protocol must accept. Each one is valid on scalars only: on an
// xsimd batch, `?:` on a mask, std::max with mixed types and user::larger do not compile.
auto cond_max = [](auto a, auto b) { return a > b ? a : b; };
auto std_max = [](auto a, auto b) { return std::max(a, b); };
auto user_max = [](auto a, auto b) { return user::larger(a, b); };
auto literal_sum = [](auto a, auto b) { return static_cast<decltype(a)>(a + b * 1); };

template<class T, class X> bool same(const X& got, const std::vector<T>& want) {
    for (std::size_t i = 0; i < want.size(); ++i)
        if (!(got.data()[i] == want[i])) return false;
    return true;
}

template<class T, class F> void check_map_unary(F f) {
    auto x = data<T>();
    auto got = eval(map(f, x));
    std::vector<T> want;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) want.push_back(static_cast<T>(f(x(i, j))));
    CHECK(same<T>(got, want));
}

template<class T, class F> void check_map_binary(F f) {
    auto x = data<T>();
    auto y = eval(rev(x, dims<1>));
    auto got = eval(map(f, x, y));
    std::vector<T> want;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) want.push_back(static_cast<T>(f(x(i, j), y(i, j))));
    CHECK(same<T>(got, want));
}

template<class T, class F> void check_reduce(F f) {
    auto x = data<T>();
    auto got = eval(reduce(x, T(0), f, dims<1>));
    std::vector<T> want;
    for (std::size_t i = 0; i < R; ++i) {
        T acc = T(0);
        for (std::size_t j = 0; j < C; ++j) acc = static_cast<T>(f(acc, x(i, j)));
        want.push_back(acc);
    }
    CHECK(same<T>(got, want));
}

template<class T, class F> void check_reduce_window(F f) {
    auto x = data<T>();
    auto got = eval(reduce_window<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}}>(x, T(0), f));
    std::vector<T> want;
    for (std::size_t wi = 0; wi < R / 2; ++wi)
        for (std::size_t wj = 0; wj < C / 3; ++wj) {
            T acc = T(0);
            for (std::size_t i = 0; i < 2; ++i)
                for (std::size_t j = 0; j < 3; ++j) acc = static_cast<T>(f(acc, x(wi * 2 + i, wj * 3 + j)));
            want.push_back(acc);
        }
    CHECK(same<T>(got, want));
}

template<class T, class S, class F> void check_select_and_scatter(S select, F scatter) {
    auto x = data<T>();
    tensor<T, R / 2, C / 3> src{{1, 2}, {3, 4}};
    auto got = eval(select_and_scatter<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}}>(
        x, select, src, T(0), scatter));
    std::vector<T> want(R * C, T(0));
    for (std::size_t wi = 0; wi < R / 2; ++wi)
        for (std::size_t wj = 0; wj < C / 3; ++wj) {
            std::size_t si = wi * 2, sj = wj * 3;
            for (std::size_t i = 0; i < 2; ++i)
                for (std::size_t j = 0; j < 3; ++j)
                    if (!select(x(si, sj), x(wi * 2 + i, wj * 3 + j))) si = wi * 2 + i, sj = wj * 3 + j;
            want[si * C + sj] = static_cast<T>(scatter(want[si * C + sj], src(wi, wj)));
        }
    CHECK(same<T>(got, want));
}

template<class T, class F> void check_scan(F f) {
    auto x = data<T>();
    auto step = [f](auto v, auto c) {
        auto n = static_cast<decltype(c)>(f(c, v));
        return std::tuple{n, n};
    };
    auto [ys, carry] = scan<scan_config{.dimension = 1}>(x, T(0), step);
    std::vector<T> want, want_carry;
    for (std::size_t i = 0; i < R; ++i) {
        T c = T(0);
        for (std::size_t j = 0; j < C; ++j) want.push_back(c = static_cast<T>(f(c, x(i, j))));
        want_carry.push_back(c);
    }
    CHECK(same<T>(ys, want));
    CHECK(same<T>(carry, want_carry));
}

template<class T, class Cmp> void check_sort(Cmp cmp) {
    auto x = data<T>();
    auto got = eval(sort<sort_config{.dimension = 1}>(x, cmp));
    std::vector<T> want;
    for (std::size_t i = 0; i < R; ++i) {
        std::vector<T> row;
        for (std::size_t j = 0; j < C; ++j) row.push_back(x(i, j));
        std::stable_sort(row.begin(), row.end(), cmp);
        want.insert(want.end(), row.begin(), row.end());
    }
    CHECK(same<T>(got, want));
}

template<class T, class F> void check_scatter(F f) {
    auto x = data<T>();
    s32<3, 1> idx{{2}, {0}, {2}}; // row 2 twice: the computation's order matters
    tensor<T, 3, C> upd;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < C; ++j) upd(i, j) = static_cast<T>(static_cast<int>(i + j) - 3);
    auto got = eval(scatter<scatter_dims{.update_window_dims = {1},
                                         .inserted_window_dims = {0},
                                         .scatter_dims_to_operand_dims = {0},
                                         .index_vector_dim = 1}>(x, idx, upd, f));
    std::vector<T> want;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) want.push_back(x(i, j));
    for (std::size_t u = 0; u < 3; ++u)
        for (std::size_t j = 0; j < C; ++j) {
            auto& w = want[static_cast<std::size_t>(idx(u, 0)) * C + j];
            w = static_cast<T>(f(w, upd(u, j)));
        }
    CHECK(same<T>(got, want));
}

} // namespace

TEST_CASE_TEMPLATE("map takes any scalar callable", T, float, std::int32_t, half) {
    check_map_unary<T>([](auto v) { return v > 0 ? v : -v; });              // ?: and a comparison
    check_map_unary<T>([](auto v) { return std::max(v, static_cast<decltype(v)>(1)); });
    check_map_unary<T>([](auto v) { return static_cast<decltype(v)>(v * 2 + 1); }); // literals
    check_map_unary<T>([](auto v) { return user::larger(v, static_cast<decltype(v)>(2)); });
    check_map_binary<T>(cond_max);
    check_map_binary<T>(std_max);
    check_map_binary<T>(user_max);
    check_map_binary<T>(literal_sum);
    check_map_binary<T>([](auto a, auto b) { return a < b; }); // a pred result
}

TEST_CASE("map: the issue's examples, with scalar literals of another type") {
    f32<5> x{-2, -1, 0, 1, 3};
    CHECK(equal(eval(map([](auto v) { return v > 0 ? v : -v; }, x)), f32<5>{2, 1, 0, 1, 3}));
    CHECK(equal(eval(map([](auto p) { return user::larger(p, 2.0f); }, x)), f32<5>{2, 2, 2, 2, 3}));
    s32<3> i{-4, 1, 7};
    CHECK(equal(eval(map([](auto v) { return std::max(v, 0) * 2 + 1; }, i)), s32<3>{1, 3, 15}));
}

TEST_CASE_TEMPLATE("reduce takes any scalar callable", T, float, std::int32_t, half) {
    check_reduce<T>(cond_max);
    check_reduce<T>(std_max);
    check_reduce<T>(user_max);
    check_reduce<T>(literal_sum);
}

TEST_CASE_TEMPLATE("reduce_window takes any scalar callable", T, float, std::int32_t, half) {
    check_reduce_window<T>(cond_max);
    check_reduce_window<T>(std_max);
    check_reduce_window<T>(user_max);
    check_reduce_window<T>(literal_sum);
}

TEST_CASE_TEMPLATE("select_and_scatter takes any scalar callables", T, float, std::int32_t, half) {
    auto ge = [](auto a, auto b) { return a >= b; };
    check_select_and_scatter<T>(ge, literal_sum);
    check_select_and_scatter<T>([](auto a, auto b) { return (a > b ? a : b) == a; }, cond_max);
    check_select_and_scatter<T>([](auto a, auto b) { return std::max(a, b) == a; }, std_max);
    check_select_and_scatter<T>([](auto a, auto b) { return !user::before(a, b); }, user_max);
}

TEST_CASE_TEMPLATE("scan takes any scalar callable", T, float, std::int32_t, half) {
    check_scan<T>(cond_max);
    check_scan<T>(std_max);
    check_scan<T>(user_max);
    check_scan<T>(literal_sum);
}

TEST_CASE_TEMPLATE("sort takes any scalar comparator", T, float, std::int32_t, half) {
    check_sort<T>([](auto a, auto b) { return a > b; });
    check_sort<T>([](auto a, auto b) { return (a < 0 ? -a : a) < (b < 0 ? -b : b); }); // by magnitude, stable
    check_sort<T>([](auto a, auto b) { return std::max(a, b) == b && a != b; });
    check_sort<T>([](auto a, auto b) { return user::before(a, b); });
}

TEST_CASE_TEMPLATE("scatter takes any scalar callable", T, float, std::int32_t, half) {
    check_scatter<T>(cond_max);
    check_scatter<T>(std_max);
    check_scatter<T>(user_max);
    check_scatter<T>([](auto cur, auto upd) { return static_cast<decltype(cur)>(cur * 2 - upd); }); // not commutative
}

TEST_CASE("xlet's functors are computations: callable on scalars, SIMD in map") {
    CHECK(add_fn{}(1.5f, 2.0f) == 3.5f);
    CHECK(max_fn{}(std::int32_t{-3}, std::int32_t{4}) == 4);
    CHECK(add_fn{}(true, false) == true); // pred add is or
    CHECK(static_cast<float>(add_fn{}(half(1.0f), half(0.00048828125f))) == 1.0f); // 1 + 2^-11 rounds to even
    CHECK(std::isnan(max_fn{}(1.0f, NAN)));                                           // NaN propagates
    f32<2, 24> x;
    for (std::size_t i = 0; i < 48; ++i) x.data()[i] = static_cast<float>(i % 7) - 3.0f;
    x(1, 5) = NAN;
    auto m = eval(map(max_fn{}, x, eval(x * -1.0f)));
    auto want = eval(max(x, x * -1.0f));
    for (std::size_t i = 0; i < 48; ++i) {
        float g = m.data()[i], w = want.data()[i];
        CHECK(((g == w) || (std::isnan(g) && std::isnan(w))));
    }
    // reduce with a functor that is not a monoid tag: the generic path calls it on scalars.
    f32<4> v{1, 2, 3, 4};
    CHECK(eval(reduce(v, 0.0f, detail::sub_fn{}, dims<0>))() == -10.0f);
}

TEST_CASE("vectorized(f) and enable_vectorized opt a callable into the SIMD path") {
    f32<40> x;
    for (std::size_t i = 0; i < 40; ++i) x(i) = static_cast<float>(i) * 0.5f - 7.0f;
    auto fma_like = [](auto a, auto b) { return a * b + 1.0f; };
    auto simd = eval(map(vectorized(fma_like), x, x));
    auto plain = eval(map(fma_like, x, x));
    for (std::size_t i = 0; i < 40; ++i) CHECK(simd(i) == plain(i));
    static_assert(detail::batch_computation<vectorized_fn<decltype(fma_like)>, float, float, float>);
    static_assert(!detail::simd_declared<decltype(fma_like)>);
    static_assert(!detail::simd_declared<decltype(cond_max)>);
    static_assert(detail::simd_declared<add_fn>);
}

namespace user {
struct twice {
    template<class V> V operator()(V v) const { return v + v; }
};
} // namespace user
template<> inline constexpr bool xlet::enable_vectorized<user::twice> = true;

TEST_CASE("enable_vectorized<F> opts a type in") {
    static_assert(detail::batch_computation<user::twice, float, float>);
    static_assert(!detail::batch_computation<user::twice, half, half>); // f16 stays scalar
    f16<3> h{1.5, -2, 0.25};
    CHECK(equal(eval(map(user::twice{}, h)), f16<3>{3, -4, 0.5}));
    f32<16> x;
    for (std::size_t i = 0; i < 16; ++i) x(i) = static_cast<float>(i);
    auto y = eval(map(user::twice{}, x));
    for (std::size_t i = 0; i < 16; ++i) CHECK(y(i) == 2.0f * static_cast<float>(i));
}
