// Random numbers (ops/rng/, kernels/rng.hpp, issue #16):
// - the engines against Random123's published known-answer vectors (kat_vectors: Threefry-2x32 at
//   13, 20 and 32 rounds, Philox-4x32 at 7 and 10, each for the zero, all-ones and pi-digit inputs);
// - the SIMD kernels against the scalar engines, counters crossing 2^32 and 2^64 included;
// - rng_bit_generator against a literal port of XLA's prng.cc / RngBitGeneratorExpander (below:
//   SplitShapeIntoHalves, iota counters, concat + reshape + slice), every algorithm, state size and
//   output width, on 1 and 2 threads;
// - the state: advance, no overlap between consecutive calls, 128-bit carry;
// - rng_uniform / rng_normal: bounds, a >= b, NaN, moments, chi-square, Kolmogorov-Smirnov, the
//   generator's thread safety. Every statistical test uses fixed seeds, so its outcome is fixed
//   (the thresholds sit at about 5 standard deviations of the statistic: a correct generator
//   passes them, a biased one, e.g. 23-bit floats or a skipped counter, does not).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <xlet/ops/rng.hpp> // first: the family header stands alone

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <thread>
#include <vector>

using namespace xlet;
using detail::philox4x32;
using detail::threefry2x32;
using u32a2 = std::array<std::uint32_t, 2>;
using u32a4 = std::array<std::uint32_t, 4>;

TEST_CASE("Threefry-2x32 known answers (Random123 kat_vectors)") {
    const u32a2 z{0, 0}, f{0xffffffff, 0xffffffff};
    const u32a2 pc{0x243f6a88, 0x85a308d3}, pk{0x13198a2e, 0x03707344};
    CHECK(threefry2x32<20>(z, z) == u32a2{0x6b200159, 0x99ba4efe});
    CHECK(threefry2x32<20>(f, f) == u32a2{0x1cb996fc, 0xbb002be7});
    CHECK(threefry2x32<20>(pc, pk) == u32a2{0xc4923a9c, 0x483df7a0});
    CHECK(threefry2x32<13>(z, z) == u32a2{0x9d1c5ec6, 0x8bd50731});
    CHECK(threefry2x32<13>(f, f) == u32a2{0xfd36d048, 0x2d17272c});
    CHECK(threefry2x32<13>(pc, pk) == u32a2{0xba3e4725, 0xf27d669e});
    CHECK(threefry2x32<32>(z, z) == u32a2{0xcee3d47e, 0xa23dfd5c});
    CHECK(threefry2x32<32>(f, f) == u32a2{0x6e2fe0d0, 0xb1b76f82});
    CHECK(threefry2x32<32>(pc, pk) == u32a2{0xe2827716, 0xc3c05cdf});
    static_assert(threefry2x32<20>({0, 0}, {0, 0})[0] == 0x6b200159); // constexpr
}

TEST_CASE("Philox-4x32 known answers (Random123 kat_vectors)") {
    const u32a4 z{0, 0, 0, 0}, f{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
    const u32a4 pc{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    const u32a2 pk{0xa4093822, 0x299f31d0};
    CHECK(philox4x32<10>(z, {0, 0}) == u32a4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
    CHECK(philox4x32<10>(f, {0xffffffff, 0xffffffff}) == u32a4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
    CHECK(philox4x32<10>(pc, pk) == u32a4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
    CHECK(philox4x32<7>(z, {0, 0}) == u32a4{0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48});
    CHECK(philox4x32<7>(f, {0xffffffff, 0xffffffff}) == u32a4{0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662});
    CHECK(philox4x32<7>(pc, pk) == u32a4{0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a});
}

TEST_CASE("SIMD kernels equal the scalar engines, counters crossing 2^32 and 2^64") {
    const u32a2 key{0x01234567, 0x89abcdef};
    for (std::uint64_t lo : {std::uint64_t{0}, std::uint64_t{0xfffffff5}, std::uint64_t{0xfffffffffffffff3ull}}) {
        for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{63}, std::size_t{64}, std::size_t{200}}) {
            CAPTURE(lo);
            CAPTURE(n);
            const detail::u128_counter c{lo, 7};
            std::vector<std::uint32_t> w(n + 1, 0xdeadbeef);
            detail::philox_stream(key, c, w.data(), n);
            for (std::size_t i = 0; i < n; ++i)
                REQUIRE(w[i] == philox4x32(c.plus(i / 4).words(), key)[i % 4]);
            CHECK(w[n] == 0xdeadbeef); // nothing written past the end
            std::fill(w.begin(), w.end(), 0xdeadbeef);
            detail::threefry_interleaved(key, lo, w.data(), n);
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint64_t ci = lo + i / 2;
                REQUIRE(w[i] == threefry2x32({static_cast<std::uint32_t>(ci), static_cast<std::uint32_t>(ci >> 32)},
                                             key)[i % 2]);
            }
            CHECK(w[n] == 0xdeadbeef);
            std::vector<std::uint32_t> a(n), b(n);
            detail::threefry_planar(key, lo, a.data(), b.data(), n);
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint64_t ci = lo + i;
                const auto r =
                    threefry2x32({static_cast<std::uint32_t>(ci), static_cast<std::uint32_t>(ci >> 32)}, key);
                REQUIRE(a[i] == r[0]);
                REQUIRE(b[i] == r[1]);
            }
        }
    }
}

// ---- a literal port of XLA's prng.cc (ThreeFryBitGenerator, PhiloxBitGenerator) -------------

namespace ref {
using dims_t = std::vector<std::size_t>;

std::size_t count(const dims_t& d) {
    std::size_t n = 1;
    for (auto x : d)
        n *= x;
    return n;
}

// Row-major multi-index of flat index f.
dims_t unflatten(std::size_t f, const dims_t& d) {
    dims_t idx(d.size());
    for (std::size_t k = d.size(); k-- > 0;) {
        idx[k] = f % d[k];
        f /= d[k];
    }
    return idx;
}
std::size_t flatten(const dims_t& idx, const dims_t& d) {
    std::size_t f = 0;
    for (std::size_t k = 0; k < d.size(); ++k)
        f = f * d[k] + idx[k];
    return f;
}

std::array<std::uint32_t, 2> tf(std::uint64_t key, std::uint64_t c) {
    return threefry2x32<20>({static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(c >> 32)},
                            {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)});
}

// GetThreeFryInputsAndUpdatedState: counter of each element of `shape` = state + sum over
// dimensions i of size >= 2 (from the last) of iota_i * trailing product.
std::vector<std::uint64_t> threefry_inputs(std::uint64_t s, const dims_t& shape) {
    std::vector<std::uint64_t> in(count(shape), s);
    std::uint64_t trailing = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] < 2) continue;
        for (std::size_t f = 0; f < in.size(); ++f)
            in[f] += unflatten(f, shape)[i] * trailing;
        trailing *= shape[i];
    }
    return in;
}

// ThreeFryRngBit32: SplitShapeIntoHalves, ThreeFry2x32 on the half shape, CombineShapePair.
std::vector<std::uint32_t> threefry32(std::uint64_t key, std::uint64_t s, const dims_t& shape, std::uint64_t& ns) {
    dims_t half, concat;
    std::size_t split = 0;
    if (shape.empty()) {
        half = {1};
        concat = {2};
    } else {
        std::ptrdiff_t sd = -1;
        for (std::size_t i = 0; i < shape.size(); ++i)
            if (shape[i] % 2 == 0) {
                sd = static_cast<std::ptrdiff_t>(i);
                break;
            }
        if (sd == -1)
            for (std::size_t i = 0; i < shape.size(); ++i)
                if (sd == -1 || shape[i] > shape[static_cast<std::size_t>(sd)]) sd = static_cast<std::ptrdiff_t>(i);
        split = static_cast<std::size_t>(sd);
        for (std::size_t i = 0; i < shape.size(); ++i) {
            if (i == split) {
                half.push_back((shape[i] + 1) / 2);
                half.push_back(1);
                concat.push_back(half[i]);
                concat.push_back(2);
            } else {
                half.push_back(shape[i]);
                concat.push_back(shape[i]);
            }
        }
    }
    const auto in = threefry_inputs(s, half);
    ns = s + count(half);
    std::vector<std::uint32_t> o0(in.size()), o1(in.size());
    for (std::size_t f = 0; f < in.size(); ++f) {
        const auto r = tf(key, in[f]);
        o0[f] = r[0];
        o1[f] = r[1];
    }
    if (shape.empty()) return {o0[0]};
    // ConcatInDim(pair, split + 1): element (.., w, ..) of the concat shape is o_w at (.., 0, ..).
    std::vector<std::uint32_t> cat(count(concat));
    for (std::size_t f = 0; f < cat.size(); ++f) {
        auto idx = unflatten(f, concat);
        const std::size_t w = idx[split + 1];
        idx[split + 1] = 0;
        cat[f] = (w ? o1 : o0)[flatten(idx, half)];
    }
    // Reshape to shape with dimension split rounded up to even, then Slice to shape.
    dims_t rs = shape;
    rs[split] = (shape[split] + 1) / 2 * 2;
    std::vector<std::uint32_t> out(count(shape));
    for (std::size_t f = 0; f < out.size(); ++f)
        out[f] = cat[flatten(unflatten(f, shape), rs)];
    return out;
}

std::vector<std::uint64_t> threefry64(std::uint64_t key, std::uint64_t s, const dims_t& shape, std::uint64_t& ns) {
    const auto in = threefry_inputs(s, shape);
    ns = s + count(shape);
    std::vector<std::uint64_t> out(in.size());
    for (std::size_t f = 0; f < in.size(); ++f) {
        const auto r = tf(key, in[f]);
        out[f] = r[0] | std::uint64_t{r[1]} << 32;
    }
    return out;
}

// GeneratePhiloxBits(num_elems): ceil(num_elems / 4) counters state + iota (u128), round-robin.
std::vector<std::uint32_t> philox_words(std::uint64_t key, detail::u128_counter c, std::size_t n,
                                        detail::u128_counter& nc) {
    const std::size_t nv = (n + 3) / 4;
    std::vector<std::uint32_t> w(4 * nv);
    for (std::size_t j = 0; j < nv; ++j) {
        const detail::u128_counter cj{c.lo + j, c.lo + j < c.lo ? c.hi + 1 : c.hi};
        const auto r =
            philox4x32<10>(cj.words(), {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)});
        for (std::size_t k = 0; k < 4; ++k)
            w[4 * j + k] = r[k];
    }
    nc = {c.lo + nv, c.lo + nv < c.lo ? c.hi + 1 : c.hi};
    w.resize(n);
    return w;
}
} // namespace ref

template<class T>
std::uint64_t bits_of(T v) {
    if constexpr (sizeof(T) == 8) {
        std::uint64_t u;
        std::memcpy(&u, &v, 8);
        return u;
    } else if constexpr (sizeof(T) == 4) {
        std::uint32_t u;
        std::memcpy(&u, &v, 4);
        return u;
    } else if constexpr (sizeof(T) == 2) {
        std::uint16_t u;
        std::memcpy(&u, &v, 2);
        return u;
    } else {
        std::uint8_t u;
        std::memcpy(&u, &v, 1);
        return u;
    }
}

// rng_bit_generator<Alg, Shape>(state) against the reference, on 1 and 2 threads.
template<rng_algorithm Alg, class Shape, std::size_t K>
void check_against_xla(const std::array<std::uint64_t, K>& st) {
    using T = typename Shape::value_type;
    const ref::dims_t shape(Shape::extents.begin(), Shape::extents.end());
    constexpr std::size_t W = sizeof(T) * 8;
    std::vector<std::uint64_t> want;
    std::array<std::uint64_t, K> want_state = st;
    if constexpr (Alg == rng_algorithm::three_fry) {
        if constexpr (W == 64) {
            want = ref::threefry64(st[0], st[1], shape, want_state[1]);
        } else {
            for (auto w : ref::threefry32(st[0], st[1], shape, want_state[1]))
                want.push_back(W == 32 ? w : w & ((std::uint64_t{1} << W) - 1));
        }
    } else {
        // RngBitGeneratorExpander: philox counter (state[1], state[2]) or Rev(state) = (state[1], state[0]).
        const detail::u128_counter c = K >= 3 ? detail::u128_counter{st[1], st[2]} : detail::u128_counter{st[1], st[0]};
        detail::u128_counter nc;
        const std::size_t n = ref::count(shape);
        const auto w = ref::philox_words(st[0], c, W == 64 ? 2 * n : n, nc);
        for (std::size_t i = 0; i < n; ++i)
            want.push_back(W == 64 ? (w[2 * i] | std::uint64_t{w[2 * i + 1]} << 32)
                                   : (W == 32 ? w[i] : w[i] & ((std::uint64_t{1} << W) - 1)));
        want_state[1] = nc.lo;
        if constexpr (K >= 3) want_state[2] = nc.hi;
    }
    tensor<std::uint64_t, K> s0;
    std::copy(st.begin(), st.end(), s0.data());
    for (int threads : {1, 2}) {
        CAPTURE(threads);
        tbb::task_arena arena(threads);
        arena.execute([&] {
            auto [ns, bits] = rng_bit_generator<Alg, Shape>(s0);
            for (std::size_t k = 0; k < K; ++k)
                CHECK(ns.data()[k] == want_state[k]);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < want.size(); ++i)
                bad += bits_of(bits.data()[i]) != want[i];
            CHECK(bad == 0);
        });
    }
}

TEST_CASE("rng_bit_generator: three_fry laid out as XLA's ThreeFryBitGenerator") {
    const std::array<std::uint64_t, 2> st{0x0123456789abcdefull, 42};
    check_against_xla<rng_algorithm::three_fry, u32<>>(st);
    check_against_xla<rng_algorithm::three_fry, u32<1>>(st);
    check_against_xla<rng_algorithm::three_fry, u32<7>>(st);
    check_against_xla<rng_algorithm::three_fry, u32<8>>(st);
    check_against_xla<rng_algorithm::three_fry, u32<4, 6>>(st);    // split 0, planar rows of 6
    check_against_xla<rng_algorithm::three_fry, u32<3, 40>>(st);   // split 1: interleaved
    check_against_xla<rng_algorithm::three_fry, u32<3, 5, 7>>(st); // no even dimension: split 2, odd rows
    check_against_xla<rng_algorithm::three_fry, u32<5, 9, 3>>(st); // no even dimension, largest is 1
    check_against_xla<rng_algorithm::three_fry, u32<1, 3, 2, 1>>(st);
    check_against_xla<rng_algorithm::three_fry, u32<0, 3>>(st);
    check_against_xla<rng_algorithm::three_fry, f32<5, 2, 33>>(st);
    check_against_xla<rng_algorithm::three_fry, s32<9, 4>>(st);
    check_against_xla<rng_algorithm::three_fry, u16<3, 7>>(st);
    check_against_xla<rng_algorithm::three_fry, u8<10>>(st);
    check_against_xla<rng_algorithm::three_fry, u64<3, 7>>(st);
    check_against_xla<rng_algorithm::three_fry, f64<5>>(st);
    check_against_xla<rng_algorithm::three_fry, u64<>>(st);
    // Above the parallel threshold: TBB splits (rows, counter blocks).
    check_against_xla<rng_algorithm::three_fry, u32<301, 257>>(st);  // odd: split 1 (largest), odd rows
    check_against_xla<rng_algorithm::three_fry, u32<128, 1024>>(st); // planar
    check_against_xla<rng_algorithm::three_fry, u32<70001, 2>>(st);  // planar rows of 2 (split 0)
    check_against_xla<rng_algorithm::three_fry, u64<40000>>(st);
    // The u64 counter wraps modulo 2^64.
    check_against_xla<rng_algorithm::three_fry, u32<50>>(std::array<std::uint64_t, 2>{7, ~std::uint64_t{0} - 5});
}

TEST_CASE("rng_bit_generator: philox (and default) laid out as XLA's PhiloxBitGenerator") {
    const std::array<std::uint64_t, 3> s3{0xfedcba9876543210ull, 1000, 3};
    const std::array<std::uint64_t, 2> s2{0xfedcba9876543210ull, 1000};
    check_against_xla<rng_algorithm::philox, u32<>>(s3);
    check_against_xla<rng_algorithm::philox, u32<7>>(s3);
    check_against_xla<rng_algorithm::philox, u32<3, 5, 7>>(s2);
    check_against_xla<rng_algorithm::philox, s32<2, 33>>(s3);
    check_against_xla<rng_algorithm::philox, f32<9>>(s2);
    check_against_xla<rng_algorithm::philox, u64<5>>(s3);
    check_against_xla<rng_algorithm::philox, f64<3, 3>>(s2);
    check_against_xla<rng_algorithm::philox, u16<13>>(s3);
    check_against_xla<rng_algorithm::philox, s8<6>>(s2);
    check_against_xla<rng_algorithm::philox, u32<100003>>(s3); // TBB
    check_against_xla<rng_algorithm::philox, u64<50001>>(s2);
    check_against_xla<rng_algorithm::default_, u32<3, 5>>(s3); // default_ is philox
    check_against_xla<rng_algorithm::philox, u32<3, 5>>(s3);
    // The 128-bit counter carries from the low word into the high word (u64[3]) ...
    check_against_xla<rng_algorithm::philox, u32<77>>(std::array<std::uint64_t, 3>{1, ~std::uint64_t{0} - 3, 9});
    // ... and with u64[2] the high word is the key; the new state keeps the low word only.
    check_against_xla<rng_algorithm::philox, u32<77>>(std::array<std::uint64_t, 2>{1, ~std::uint64_t{0} - 3});
}

TEST_CASE("rng_bit_generator: default_ equals philox; state advance and no overlap") {
    u64<3> s{11, 0, 0};
    auto [a_state, a] = rng_bit_generator<rng_algorithm::default_, u32<64>>(s);
    auto [b_state, b] = rng_bit_generator<rng_algorithm::philox, u32<64>>(s);
    CHECK(std::equal(a.data(), a.data() + 64, b.data()));
    CHECK(a_state.data()[1] == 16);
    // Consecutive states continue the stream: two calls of 64 equal one call of 128.
    auto [c_state, c] = rng_bit_generator<rng_algorithm::philox, u32<64>>(a_state);
    auto [d_state, d] = rng_bit_generator<rng_algorithm::philox, u32<128>>(s);
    CHECK(std::equal(a.data(), a.data() + 64, d.data()));
    CHECK(std::equal(c.data(), c.data() + 64, d.data() + 64));
    CHECK(c_state.data()[1] == d_state.data()[1]);
    // ThreeFry: likewise along a 1-D even shape; and no word of the second call repeats the first.
    u64<2> t{5, 100};
    auto [t1s, t1] = rng_bit_generator<rng_algorithm::three_fry, u64<1000>>(t);
    auto [t2s, t2] = rng_bit_generator<rng_algorithm::three_fry, u64<1000>>(t1s);
    auto [t3s, t3] = rng_bit_generator<rng_algorithm::three_fry, u64<2000>>(t);
    CHECK(t1s.data()[0] == 5);
    CHECK(t1s.data()[1] == 1100);
    CHECK(t2s.data()[1] == t3s.data()[1]);
    CHECK(std::equal(t1.data(), t1.data() + 1000, t3.data()));
    CHECK(std::equal(t2.data(), t2.data() + 1000, t3.data() + 1000));
    std::set<std::uint64_t> seen(t1.data(), t1.data() + 1000);
    std::size_t repeats = 0;
    for (std::size_t i = 0; i < 1000; ++i)
        repeats += seen.count(t2.data()[i]);
    CHECK(repeats == 0);
    // A partly used Philox counter is not reused: 5 words use 2 counters.
    auto [p5s, p5] = rng_bit_generator<rng_algorithm::philox, u32<5>>(s);
    CHECK(p5s.data()[1] == 2);
    (void)p5;
    (void)b_state;
}

TEST_CASE("rng_bit_generator: the bits are balanced (per bit position, fixed state)") {
    constexpr std::size_t n = std::size_t{1} << 18;
    for (int alg = 0; alg < 2; ++alg) {
        CAPTURE(alg);
        u64<2> s{2024, 0};
        auto bits = alg == 0 ? std::get<1>(rng_bit_generator<rng_algorithm::three_fry, u32<n>>(s))
                             : std::get<1>(rng_bit_generator<rng_algorithm::philox, u32<n>>(s));
        // Each bit is Binomial(n, 1/2): sd = 256; 5 sd = 1280.
        for (int b = 0; b < 32; ++b) {
            std::size_t ones = 0;
            for (std::size_t i = 0; i < n; ++i)
                ones += (bits.data()[i] >> b) & 1u;
            CHECK(std::abs(static_cast<double>(ones) - n / 2.0) < 1280);
        }
    }
}

// ---- distributions ---------------------------------------------------------------------------

// Chi-square of counts against equal expectation.
double chi_square(const std::vector<double>& counts) {
    double total = 0;
    for (double c : counts)
        total += c;
    const double e = total / static_cast<double>(counts.size());
    double x = 0;
    for (double c : counts)
        x += (c - e) * (c - e) / e;
    return x;
}

TEST_CASE("rng_uniform f32: [a, b), moments, chi-square, fixed seed, thread count") {
    constexpr std::size_t n = std::size_t{1} << 20;
    rng_generator gen(7);
    const auto u = rng_uniform<f32<n>>(gen, 0.0f, 1.0f);
    CHECK(gen.state().data()[1] == n / 4);
    double m = 0, m2 = 0;
    std::vector<double> buckets(256);
    std::size_t odd_lsb = 0; // 24-bit resolution: values that are odd multiples of 2^-24 occur
    for (std::size_t i = 0; i < n; ++i) {
        const float x = u.data()[i];
        REQUIRE(x >= 0.0f);
        REQUIRE(x < 1.0f);
        m += x;
        m2 += (x - 0.5) * (x - 0.5);
        buckets[static_cast<std::size_t>(x * 256)] += 1;
        const double k = std::ldexp(static_cast<double>(x), 24);
        REQUIRE(k == std::floor(k)); // exact multiples of 2^-24
        odd_lsb += static_cast<std::uint64_t>(k) & 1;
    }
    m /= n;
    m2 /= n;
    CHECK(std::abs(m - 0.5) < 5 * 0.2887 / 1024);                // sd of the mean: 1/sqrt(12 n)
    CHECK(std::abs(m2 - 1.0 / 12) < 5 * 0.0745 / 1024);          // sd of (x - 1/2)^2: 1/sqrt(180) / sqrt(n)
    CHECK(chi_square(buckets) < 255 + 5 * std::sqrt(2 * 255.0)); // df 255
    CHECK(std::abs(static_cast<double>(odd_lsb) - n / 2.0) < 5 * 512);
    // The same seed gives the same values on 2 threads.
    rng_generator gen2(7);
    tbb::task_arena two(2);
    two.execute([&] {
        const auto v = rng_uniform<f32<n>>(gen2, 0.0f, 1.0f);
        CHECK(std::memcmp(u.data(), v.data(), n * sizeof(float)) == 0);
    });
    // [a, b) maps the same bits: 2 + 3u exactly, values below 5.
    rng_generator gen3(7);
    const auto w = rng_uniform<f32<4096>>(gen3, -2.0f, 6.0f);
    for (std::size_t i = 0; i < 4096; ++i) {
        CHECK(w.data()[i] == -2.0f + 8.0f * u.data()[i]);
        CHECK(w.data()[i] < 6.0f);
    }
}

TEST_CASE("rng_uniform: edges (b just above a, a >= b, NaN, huge ranges, static bounds)") {
    rng_generator gen(1);
    const float b1 = std::nextafter(1.0f, 2.0f);
    const auto one = rng_uniform<f32<1000>>(gen, 1.0f, b1); // only 1.0f is in [1, b1)
    CHECK(std::all_of(one.data(), one.data() + 1000, [](float x) { return x == 1.0f; }));
    const auto eq = rng_uniform<f32<10>>(gen, 3.0f, 3.0f);
    CHECK(std::all_of(eq.data(), eq.data() + 10, [](float x) { return x == 3.0f; }));
    const auto rev = rng_uniform<s32<10>>(gen, 9, -4);
    CHECK(std::all_of(rev.data(), rev.data() + 10, [](std::int32_t x) { return x == 9; }));
    const auto nan = rng_uniform<f32<3>>(gen, 0.0f, std::numeric_limits<float>::quiet_NaN());
    CHECK(std::isnan(nan.data()[0]));
    const float big = std::numeric_limits<float>::max();
    const auto huge = rng_uniform<f32<10000>>(gen, -big, big);
    std::size_t neg = 0;
    for (std::size_t i = 0; i < 10000; ++i) {
        REQUIRE(std::isfinite(huge.data()[i]));
        neg += huge.data()[i] < 0;
    }
    CHECK(neg > 4500);
    CHECK(neg < 5500);
    const auto s = rng_uniform<s64<1000>, -3, 4>(gen);
    CHECK(std::all_of(s.data(), s.data() + 1000, [](std::int64_t x) { return x >= -3 && x < 4; }));
    const auto p = rng_uniform<pred<8>>(gen, false, true);
    CHECK(std::none_of(p.data(), p.data() + 8, [](bool x) { return x; }));
    const auto h = rng_uniform<f16<5000>>(gen, half(0.0f), half(1.0f));
    const auto bh = rng_uniform<bf16<5000>>(gen, bfloat16(-1.0f), bfloat16(1.0f));
    for (std::size_t i = 0; i < 5000; ++i) {
        REQUIRE(static_cast<float>(h.data()[i]) >= 0.0f);
        REQUIRE(static_cast<float>(h.data()[i]) < 1.0f);
        REQUIRE(static_cast<float>(bh.data()[i]) >= -1.0f);
        REQUIRE(static_cast<float>(bh.data()[i]) < 1.0f);
    }
    // f64 with 53 bits: [0, 1), exact multiples of 2^-53.
    const auto d = rng_uniform<f64<100000>>(gen, 0.0, 1.0);
    double md = 0;
    for (std::size_t i = 0; i < 100000; ++i) {
        REQUIRE(d.data()[i] >= 0.0);
        REQUIRE(d.data()[i] < 1.0);
        md += d.data()[i];
    }
    CHECK(std::abs(md / 100000 - 0.5) < 5 * 0.2887 / std::sqrt(100000.0));
}

TEST_CASE("rng_uniform integers: exactly uniform over [a, b), wide ranges") {
    rng_generator gen(99);
    constexpr std::size_t n = 700000;
    const auto x = rng_uniform<s32<n>>(gen, -3, 4); // 7 values
    std::vector<double> c(7);
    for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(x.data()[i] >= -3);
        REQUIRE(x.data()[i] < 4);
        c[static_cast<std::size_t>(x.data()[i] + 3)] += 1;
    }
    CHECK(chi_square(c) < 6 + 5 * std::sqrt(12.0));
    // A range of 2^63 + 1 (half of the draws rejected by Lemire's test, redrawn): still in range,
    // and the top bit is balanced.
    const std::uint64_t lo = 10, hi = lo + (std::uint64_t{1} << 63) + 1;
    const auto w = rng_uniform<u64<20000>>(gen, lo, hi);
    std::size_t top = 0;
    for (std::size_t i = 0; i < 20000; ++i) {
        REQUIRE(w.data()[i] >= lo);
        REQUIRE(w.data()[i] < hi);
        top += (w.data()[i] - lo) >> 62 & 1;
    }
    CHECK(std::abs(static_cast<double>(top) - 10000) < 5 * 71);
    const auto full =
        rng_uniform<s64<1000>>(gen, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
    CHECK(std::count_if(full.data(), full.data() + 1000, [](std::int64_t v) { return v < 0; }) > 400);
    const auto bytes = rng_uniform<u8<100000>>(gen, std::uint8_t{0}, std::uint8_t{255});
    std::vector<double> cb(255);
    for (std::size_t i = 0; i < 100000; ++i)
        cb[bytes.data()[i]] += 1;
    CHECK(chi_square(cb) < 254 + 5 * std::sqrt(2 * 254.0));
}

// Kolmogorov-Smirnov distance of sorted samples from N(0, 1).
double ks_normal(std::vector<double> z) {
    std::sort(z.begin(), z.end());
    double d = 0;
    const double n = static_cast<double>(z.size());
    for (std::size_t i = 0; i < z.size(); ++i) {
        const double f = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
        d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
    }
    return d;
}

template<class Shape>
void check_normal(rng_generator& gen, double mu, double sigma, double tail_min) {
    using T = typename Shape::value_type;
    constexpr std::size_t n = Shape::num_elements;
    const auto x = rng_normal<Shape>(gen, T(mu), T(sigma));
    std::vector<double> z(n);
    double m1 = 0, m2 = 0, m3 = 0, m4 = 0, zmax = 0;
    for (std::size_t i = 0; i < n; ++i) {
        z[i] = (static_cast<double>(x.data()[i]) - mu) / sigma;
        REQUIRE(std::isfinite(z[i]));
        m1 += z[i];
        m2 += z[i] * z[i];
        m3 += z[i] * z[i] * z[i];
        m4 += z[i] * z[i] * z[i] * z[i];
        zmax = std::max(zmax, std::abs(z[i]));
    }
    const double sn = std::sqrt(static_cast<double>(n));
    CHECK(std::abs(m1 / n) < 5 / sn);
    CHECK(std::abs(m2 / n - 1) < 5 * std::sqrt(2.0) / sn);
    CHECK(std::abs(m3 / n) < 5 * std::sqrt(15.0) / sn);
    CHECK(std::abs(m4 / n - 3) < 5 * std::sqrt(96.0) / sn);
    CHECK(ks_normal(z) * sn < 1.95); // P(K > 1.95) ~ 0.001
    CHECK(zmax > tail_min);          // the tails are there
}

TEST_CASE("rng_normal: moments, Kolmogorov-Smirnov, tails (f32, f64, f16)") {
    rng_generator gen(12345);
    check_normal<f32<std::size_t{1} << 20>>(gen, 0.0, 1.0, 4.5);
    check_normal<f32<100001>>(gen, -3.0, 0.25, 3.5);
    check_normal<f64<200001>>(gen, 10.0, 2.0, 3.8);
    check_normal<f16<20000>>(gen, 1.0, 0.5, 3.0);
    // The same values on 1 and 2 threads, and with the default generator's form.
    rng_generator g1(5), g2(5);
    auto a = rng_normal<f32<300000>>(g1, 0.0f, 1.0f);
    tbb::task_arena two(2);
    two.execute([&] {
        auto b = rng_normal<f32<300000>>(g2, 0.0f, 1.0f);
        CHECK(std::memcmp(a.data(), b.data(), sizeof(float) * 300000) == 0);
    });
    // mu and sigma as rank-0 arrays.
    rng_generator g3(5);
    f32<> mu{0.0f}, sigma{1.0f};
    auto c = rng_normal<f32<300000>>(g3, mu, sigma);
    CHECK(std::memcmp(a.data(), c.data(), sizeof(float) * 300000) == 0);
}

TEST_CASE("rng_generator: default instance, thread-safe disjoint reservations") {
    const auto before = default_rng_generator().state().data()[1];
    auto x = rng_uniform<f32<40>>(0.0f, 1.0f);
    CHECK(default_rng_generator().state().data()[1] == before + 10);
    auto y = rng_uniform<f32<40>>(0.0f, 1.0f);
    CHECK(std::memcmp(x.data(), y.data(), sizeof(float) * 40) != 0);
    auto z = rng_normal<f32<8>>(0.0f, 1.0f);
    (void)z;
    // Four threads draw 200 times each from one generator: the reservations never overlap, so the
    // counter ends at the sum, and no two draws are equal.
    rng_generator gen(3);
    std::vector<std::vector<float>> firsts(4);
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&, t] {
            for (int k = 0; k < 200; ++k) {
                auto v = rng_uniform<f32<16>>(gen, 0.0f, 1.0f);
                firsts[static_cast<std::size_t>(t)].push_back(v.data()[0]);
            }
        });
    for (auto& t : ts)
        t.join();
    CHECK(gen.state().data()[1] == 4 * 200 * 4);
    std::set<float> all;
    for (auto& f : firsts)
        all.insert(f.begin(), f.end());
    CHECK(all.size() == 800);
    const auto s = gen.get_and_update_state(5);
    CHECK(s.data()[0] == 3);
    CHECK(s.data()[1] == 3200);
    CHECK(gen.state().data()[1] == 3205);
}
