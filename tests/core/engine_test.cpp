// The evaluation engine: broadcasting rules, loop merging, tails, threads, aliasing, allocation.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <new>
#include <random>
#include <sstream>

#include <tbb/global_control.h>
#include <xlet/xlet.hpp>

using namespace xlet;

// Heap allocations are counted (tests/alloc_counter.hpp).
#include "alloc_counter.hpp"

template<class T>
std::string str(const T& t) {
    std::ostringstream os;
    os << t;
    return os.str();
}

template<class T>
void fill_random(T& t, unsigned seed, float lo = -4, float hi = 4) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    for (auto& x : t)
        x = d(g);
}

TEST_CASE("spec broadcasting: matrix and vector with broadcast_dimensions") {
    // The spec's example: |1 2 3| + |7 8 9| with dims {1}, and [1,2] along dims {0}.
    f32<2, 3> m{{1, 2, 3}, {4, 5, 6}};
    f32<3> r{7, 8, 9};
    f32<2> c{10, 20};
    CHECK(str(eval(add(m, r, dims<1>))) == "f32[2,3] {{8, 10, 12}, {11, 13, 15}}");
    CHECK(str(eval(add(m, c, dims<0>))) == "f32[2,3] {{11, 12, 13}, {24, 25, 26}}");
    CHECK(str(eval(add(c, m, dims<0>))) == "f32[2,3] {{11, 12, 13}, {24, 25, 26}}"); // low rank on the left
    CHECK(str(eval(mul(m, r, dims<1>))) == "f32[2,3] {{7, 16, 27}, {28, 40, 54}}");
}

TEST_CASE("degenerate (size-1) broadcasting on either side, and scalars") {
    f32<2, 1> col{{1}, {2}};
    f32<1, 3> row{{10, 20, 30}};
    CHECK(str(eval(col + row)) == "f32[2,3] {{11, 21, 31}, {12, 22, 32}}");
    f32<2, 3> m{{1, 2, 3}, {4, 5, 6}};
    CHECK(str(eval(m - col)) == "f32[2,3] {{0, 1, 2}, {2, 3, 4}}");
    f32<> s{100};
    CHECK(str(eval(m + s)) == "f32[2,3] {{101, 102, 103}, {104, 105, 106}}");
    CHECK(str(eval(s - m)) == "f32[2,3] {{99, 98, 97}, {96, 95, 94}}");
    CHECK(str(eval(1.0f + m)) == "f32[2,3] {{2, 3, 4}, {5, 6, 7}}");
    CHECK(str(eval(m * 2)) == "f32[2,3] {{2, 4, 6}, {8, 10, 12}}"); // integer literal as f32
}

TEST_CASE("broadcast_dimensions into rank 3, with degenerate dimensions on both sides") {
    // lhs f32[2,1,4], rhs f32[2,3] mapped to dims {0,1}: result f32[2,3,4].
    f32<2, 1, 4> a{{{1, 2, 3, 4}}, {{5, 6, 7, 8}}};
    f32<2, 3> b{{0, 10, 20}, {30, 40, 50}};
    auto r = eval(add(a, b, dims<0, 1>));
    static_assert(std::is_same_v<decltype(r), f32<2, 3, 4>>);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            for (std::size_t k = 0; k < 4; ++k)
                CHECK(r(i, j, k) == a(i, 0, k) + b(i, j));
    // rhs f32[4] along dim 2.
    f32<4> v{1, 2, 3, 4};
    auto r2 = eval(add(a, v, dims<2>));
    CHECK(r2(1, 0, 3) == 12);
    // rhs f32[1, 4] along dims {0, 2}: size 1 broadcasts over dim 0.
    f32<1, 4> w{{1, 1, 1, 1}};
    auto r3 = eval(add(a, w, dims<0, 2>));
    CHECK(str(r3) == "f32[2,1,4] {{{2, 3, 4, 5}}, {{6, 7, 8, 9}}}");
}

// Element-wise expression over many shapes against a scalar loop: exercises loop merging, rows,
// and the padded tail at every offset.
template<std::size_t... D>
void check_shape() {
    auto a = std::make_unique<f32<D...>>();
    auto b = std::make_unique<f32<D...>>();
    fill_random(*a, 1);
    fill_random(*b, 2);
    auto out = std::make_unique<f32<D...>>();
    *out = (*a) * (*b) + sqrt(abs(*a)) - 3.0f;
    for (std::size_t i = 0; i < f32<D...>::size(); ++i) {
        float x = a->data()[i], y = b->data()[i];
        REQUIRE(out->data()[i] == x * y + std::sqrt(std::fabs(x)) - 3.0f);
    }
}

TEST_CASE("shapes of every kind evaluate exactly") {
    check_shape<>();
    check_shape<1>();
    check_shape<3>();
    check_shape<7>();
    check_shape<17>();
    check_shape<1, 1, 17>();
    check_shape<3, 5, 7>();
    check_shape<0, 3>();
    check_shape<5, 0>();
    check_shape<33, 1, 65>();
    check_shape<300, 301>(); // above the parallel threshold, odd row length
}

TEST_CASE("broadcast along rows and columns of a large matrix") {
    auto m = std::make_unique<f32<513, 1031>>();
    auto v = std::make_unique<f32<1031>>();
    auto c = std::make_unique<f32<513>>();
    fill_random(*m, 3);
    fill_random(*v, 4);
    fill_random(*c, 5);
    auto r = std::make_unique<f32<513, 1031>>();
    *r = add(*m, *v, dims<1>) * add(*m, *c, dims<0>);
    for (std::size_t i = 0; i < 513; ++i)
        for (std::size_t j = 0; j < 1031; ++j)
            REQUIRE((*r)(i, j) == ((*m)(i, j) + (*v)(j)) * ((*m)(i, j) + (*c)(i)));
}

TEST_CASE("outputs beyond the streaming threshold (non-temporal stores) are exact") {
    static_assert(detail::evaluator<float, detail::node_t<const f32<2049, 4099>&>>::stream, "33.6 MB of f32 streams");
    static_assert(!detail::evaluator<float, detail::node_t<const f32<2049, 2051>&>>::stream,
                  "16.8 MB stays in the L3: plain stores");
    auto a = std::make_unique<f32<2049, 4099>>(); // rows of 4099 floats: most rows unaligned
    auto v = std::make_unique<f32<4099>>();
    fill_random(*a, 11);
    fill_random(*v, 12);
    auto r = std::make_unique<f32<2049, 4099>>();
    *r = add(*a * 2.0f, *v, dims<1>);
    for (std::size_t i = 0; i < 2049; ++i)
        for (std::size_t j = 0; j < 4099; ++j)
            REQUIRE((*r)(i, j) == (*a)(i, j) * 2.0f + (*v)(j));
    auto flat = std::make_unique<f32<1 << 23>>(); // 32 MB, every row aligned: all streamed
    auto flat2 = std::make_unique<f32<1 << 23>>();
    fill_random(*flat, 13);
    *flat2 = *flat - 1.0f;
    for (std::size_t i = 0; i < flat->size(); ++i)
        REQUIRE(flat2->data()[i] == flat->data()[i] - 1.0f);
}

TEST_CASE("results are identical for any number of threads") {
    auto a = std::make_unique<f32<1000, 999>>();
    fill_random(*a, 6);
    auto run = [&](int threads) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        auto r = std::make_unique<f32<1000, 999>>();
        *r = exp(*a) * tanh(*a) + log1p(abs(*a));
        return r;
    };
    auto r1 = run(1);
    auto r2 = run(2);
    auto r3 = run(3);
    CHECK(std::memcmp(r1->data(), r2->data(), sizeof(float) * r1->size()) == 0);
    CHECK(std::memcmp(r1->data(), r3->data(), sizeof(float) * r1->size()) == 0);
}

TEST_CASE("one thread allowed: parallel loops run in place, whether the limit is global_control or the arena") {
    // The arena's max_concurrency() does not see tbb::global_control, so parallel_threads()
    // reads both; under either limit the body gets the whole range, on the calling thread.
    auto calls = [] {
        int n = 0;
        std::size_t covered = 0;
        detail::run_parallel(tbb::blocked_range<std::size_t>(0, 1000), [&](const tbb::blocked_range<std::size_t>& r) {
            ++n; // (only the calling thread runs the body here)
            covered += r.size();
        });
        CHECK(covered == 1000);
        return n;
    };
    {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
        CHECK(detail::parallel_threads() == 1);
        CHECK(calls() == 1);
    }
    tbb::task_arena one(1);
    one.execute([&] {
        CHECK(detail::parallel_threads() == 1);
        CHECK(calls() == 1);
    });
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 2);
    CHECK(detail::parallel_threads() ==
          std::min<std::size_t>(2, static_cast<std::size_t>(tbb::this_task_arena::max_concurrency())));
}

TEST_CASE("tile buffer: claims, refusals and the elements a fill writes") {
    // The tiled evaluator's buffer (eval/tile_buffer.hpp): rows of a tile claim buffer rows; a
    // fill writes exactly elements [lo, hi) of each claimed row, transposed from its source, and
    // nothing else (the sentinel stays in the row padding and in unclaimed rows).
    constexpr std::size_t src_rows = 70, src_cols = 45; // source [70,45]: row r of the tile reads column r
    std::vector<float> src(src_rows * src_cols);
    for (std::size_t k = 0; k < src.size(); ++k)
        src[k] = static_cast<float>(k);
    constexpr std::ptrdiff_t stride = src_cols;
    const std::size_t bytes = 2 * 45 * (70 * 8 + 128);
    std::vector<std::byte, std::allocator<std::byte>> raw(bytes + 64);
    auto* base = reinterpret_cast<std::byte*>((reinterpret_cast<std::uintptr_t>(raw.data()) + 63) / 64 * 64);
    for (std::size_t lo : {0u, 3u, 8u})
        for (std::size_t hi : {lo + 1, lo + 8, lo + 13, std::size_t{70}}) {
            for (std::size_t rows : {1u, 7u, 8u, 17u, 45u}) {
                std::fill(base, base + bytes, std::byte{0xA5});
                detail::tile_buffer buf(base, bytes);
                buf.begin(lo, hi, rows);
                std::vector<const float*> q(rows);
                for (std::size_t r = 0; r < rows; ++r) {
                    buf.begin_row(r);
                    // rows 0..rows-1 read columns 0..rows-1 except row 5, which reads column 44
                    // (its source not one element after its neighbour's: copied on its own)
                    const float* p = src.data() + (r == 5 ? 44 : r);
                    q[r] = buf.claim<float, stride>(p);
                    REQUIRE(q[r] != nullptr);
                }
                buf.fill();
                std::size_t written = 0;
                for (std::size_t k = 0; k < bytes; k += 4) {
                    std::uint32_t w;
                    std::memcpy(&w, base + k, 4);
                    written += w != 0xA5A5A5A5u;
                }
                // element (r, i) of row r is src[i][column of r] = i * 45 + column
                std::size_t right = 0;
                for (std::size_t r = 0; r < rows; ++r)
                    for (std::size_t i = lo; i < hi; ++i)
                        right += q[r][i - lo] == static_cast<float>(i * src_cols + (r == 5 ? 44 : r));
                INFO("lo " << lo << " hi " << hi << " rows " << rows);
                CHECK(right == rows * (hi - lo));
                CHECK(written == rows * (hi - lo));
            }
        }
    // Refusals: a fifth strided leaf in one row, a row beyond the tile, more bytes than the
    // buffer holds, another element type in a column of f32 rows.
    std::fill(base, base + bytes, std::byte{0});
    detail::tile_buffer buf(base, bytes);
    buf.begin(0, 70, 4);
    buf.begin_row(0);
    for (int k = 0; k < 4; ++k)
        CHECK(buf.claim<float, stride>(src.data()) != nullptr);
    CHECK(buf.claim<float, stride>(src.data()) == nullptr);
    buf.begin_row(1);
    CHECK(buf.claim<float, stride>(src.data() + 1) != nullptr);
    CHECK(buf.claim<double, stride>(reinterpret_cast<const double*>(src.data())) == nullptr);
    buf.begin_row(4);
    CHECK(buf.claim<float, stride>(src.data()) == nullptr);
    detail::tile_buffer small(base, 64);
    small.begin(0, 70, 4);
    small.begin_row(0);
    CHECK(small.claim<float, stride>(src.data()) == nullptr);
    // A cursor without a buffer row reads its source; with one, its range from the buffer and
    // the rest from the source.
    auto c0 = detail::make_strided_cursor<float, stride>(src.data() + 2, nullptr);
    CHECK(c0.q == nullptr);
    detail::tile_buffer one(base, bytes);
    one.begin(16, 48, 1);
    one.begin_row(0);
    auto c1 = detail::make_strided_cursor<float, stride>(src.data() + 2, &one);
    REQUIRE(c1.q != nullptr);
    one.fill();
    for (std::size_t i : {0u, 10u, 16u, 30u, 40u, 54u}) {
        auto v0 = c0.load<16>(i), v1 = c1.load<16>(i);
        for (std::size_t l = 0; l < 16; ++l) {
            CHECK(v1.lane(l) == static_cast<float>((i + l) * src_cols + 2));
            CHECK(v0.lane(l) == v1.lane(l));
        }
    }
    auto p1 = c1.load_partial<16>(40, 5);
    for (std::size_t l = 0; l < 5; ++l)
        CHECK(p1.lane(l) == static_cast<float>((40 + l) * src_cols + 2));
}

TEST_CASE("aliasing: the destination may appear in its own expression") {
    f32<2, 3> a{{1, 2, 3}, {4, 5, 6}};
    a = a * a + a; // element-wise: safe in place
    CHECK(str(a) == "f32[2,3] {{2, 6, 12}, {20, 30, 42}}");

    // A view of row 0 broadcast over the whole destination: row 1 must see row 0's old values.
    f32<2, 3> b{{1, 2, 3}, {4, 5, 6}};
    tensor_map<const float, 3> row0(b.data());
    b = add(b, row0, dims<1>);
    CHECK(str(b) == "f32[2,3] {{2, 4, 6}, {5, 7, 9}}");

    // The same through a tensor_map destination.
    float buf[6] = {1, 2, 3, 4, 5, 6};
    tensor_map<float, 2, 3> m(buf);
    tensor_map<const float, 3> mrow(buf);
    m = add(m, mrow, dims<1>);
    CHECK(str(m) == "f32[2,3] {{2, 4, 6}, {5, 7, 9}}");
}

TEST_CASE("small evaluations allocate nothing and stay on the calling thread") {
    f32<4, 4> a, b, c;
    fill_random(a, 7);
    fill_random(b, 8);
    auto before = allocations.load();
    c = a + b;
    c = exp(a) * b - max(a, b) + 1.0f;
    pred<4, 4> p = a < b;
    c = select(p, a, b);
    CHECK(allocations.load() == before);
    // The decision is static: below the threshold no TBB code is reached.
    using node = decltype(detail::as_node(a + b));
    static_assert(node::cost * 16 < detail::parallel_threshold);

    auto big = std::make_unique<f32<64, 64>>();
    auto big2 = std::make_unique<f32<64, 64>>();
    before = allocations.load();
    *big2 = *big * 2.0f + *big;
    CHECK(allocations.load() == before);
}

TEST_CASE("f16 and bf16 round after every op") {
    f16<2> h{1.0f, 2049.0f};
    // 2049 is not an f16 (spacing 2 above 2048): it was stored as 2048.
    CHECK(static_cast<float>(h(1)) == 2048.0f);
    f16<2> one{1.0f, 1.0f};
    f16<2> eps{0.0004882812f, 0.0004882812f}; // 2^-11: half an f16 ulp at 1
    f16<2> r = (one + eps) + eps;             // each add rounds: 1 + 2^-11 ties to 1, twice
    CHECK(static_cast<float>(r(0)) == 1.0f);
    bf16<1> b{1.0f};
    bf16<1> c{0.00390625f}; // 2^-8: half a bf16 ulp at 1
    bf16<1> s = b + c;
    CHECK(static_cast<float>(s(0)) == 1.0f);
    f16<1> big{60000.0f};
    f16<1> o = big + big;
    CHECK(std::isinf(static_cast<float>(o(0))));
}

// Row tails shorter than a vector are read and written with masks, or with one plain load and
// store when they are exactly 4, 8, 16 or 32 bytes (eval/vec.hpp), written through a map into a
// buffer whose neighbours must stay untouched; comparisons and selects move pred lanes through
// store_mask / load_mask.
template<class T, std::size_t L>
void check_tail() {
    std::array<T, L + 2> buf;
    buf.fill(T(99));
    tensor<T, L> a, b;
    for (std::size_t i = 0; i < L; ++i) {
        a(i) = T(i % 7 + 1);
        b(i) = T(i % 5 + 2);
    }
    tensor_map<T, L> out(buf.data() + 1);
    out = a * b + a;
    CHECK(buf[0] == T(99));
    CHECK(buf[L + 1] == T(99));
    for (std::size_t i = 0; i < L; ++i)
        CHECK(buf[i + 1] == T(a(i) * b(i) + a(i)));
    tensor<bool, L> gt = a > b;
    tensor<T, L> sel = select(gt, a, b);
    for (std::size_t i = 0; i < L; ++i) {
        CHECK(gt(i) == (a(i) > b(i)));
        CHECK(sel(i) == (a(i) > b(i) ? a(i) : b(i)));
    }
}
// Lengths around every power of two up to 64: tails of 4, 8, 16 and 32 bytes (whole moves) and
// the others (masked) for every lane width, on AVX2 and AVX-512 registers.
template<class T>
void check_tails() {
    [&]<std::size_t... L>(std::index_sequence<L...>) { (check_tail<T, L>(), ...); }
    (std::index_sequence<1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 20, 31, 32, 33, 63, 64, 65>{});
}

TEST_CASE("row tails of every length and lane width") {
    check_tails<float>();
    check_tails<double>();
    check_tails<std::int32_t>();
    check_tails<std::int64_t>();
    check_tails<std::int8_t>();
    check_tails<std::uint16_t>();
}
