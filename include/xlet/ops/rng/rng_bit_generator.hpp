// RngBitGenerator (spec: RngBitGenerator; StableHLO rng_bit_generator):
//   auto [new_state, bits] = rng_bit_generator<rng_algorithm::philox, u32<4, 8>>(state);
//       state u64[2] or u64[3] -> (u64[same], Shape)
//
// Semantics: bits is filled with uniform random bits, a deterministic function of the state (the
// same bits for any thread count and SIMD width); new_state is the state advanced past every
// counter used, so the next call never reproduces a stream already used. Laid out as XLA's
// RngBitGeneratorExpander + prng.cc do (bit-exact with XLA's CPU/GPU backends):
//   key = state[0] (key words: its low and high 32 bits).
//   three_fry (u64[2]): the counter is the u64 state[1] (words: low, high 32 bits).
//     64-bit outputs: element i = w0 | w1 << 32 of counter state[1] + i (row-major i);
//       new state [key, state[1] + N].
//     32-bit outputs: XLA's SplitShapeIntoHalves: the split dimension s is the first even
//       dimension, else the first largest one; with H = ceil(d_s / 2) the counters run over the
//       "half shape" (d_s replaced by H, row-major); element (.., 2j + w, ..) is word w of the
//       counter of (.., j, ..) (word 1 of the last counter is dropped when d_s is odd). Rank 0:
//       word 0 of counter state[1]. New state [key, state[1] + elements of the half shape].
//   philox: the 128-bit counter is (state[1], state[2]) (low, high) for u64[3], and
//     (state[1], state[0]) for u64[2]; its words (low to high) are the Philox input x0..x3.
//     32-bit outputs: element i = word i % 4 of counter + i / 4 (ceil(N / 4) counters);
//     64-bit outputs: the same stream of 2N words, little-endian pairs (ceil(N / 2) counters).
//     New state: [key, counter + used] (u64[3], 128-bit add) or [key, low 64 bits] (u64[2]).
//   default_: philox (XLA's CPU and GPU default).
//   8- and 16-bit outputs: the low bits of the 32-bit output of the same shape (XLA converts it).
//   Signed and floating outputs: the unsigned bits of their width, reinterpreted (bitcast).
//
// Rules (StableHLO numbering, then xlet's):
//   C1 type(new_state) = type(initial_state)                          (by construction)
//   C2 size(initial_state) = 2 for three_fry, 2 or 3 for philox and default
//   C3 (xlet) initial_state is a rank-1 u64 array
//   C4 (xlet) the output element type is an integer or floating-point type (not pred, complex)
#pragma once
#include <bit>
#include <tuple>
#include <vector>

#include "../../kernels/rng.hpp"
#include "../elementwise/elementwise.hpp"

namespace xlet {

// RandomAlgorithm: RNG_DEFAULT, RNG_THREE_FRY, RNG_PHILOX.
enum class rng_algorithm { default_, three_fry, philox };

namespace detail {

static_assert(std::endian::native == std::endian::little, "xlet: rng kernels assume a little-endian host");

template<class T>
inline constexpr bool rng_bits_element = (is_integer<T> || is_float<T>)&&!std::is_same_v<T, bool>;

// Fills dst (32-bit words, XLA's 32-bit layout for extents e) and returns the new counter u64
// (three_fry) from the state words.
template<class = void>
std::uint64_t threefry_bits32(const std::uint64_t* s, const std::size_t* e, std::size_t rank, std::uint32_t* dst) {
    const std::array<std::uint32_t, 2> key{static_cast<std::uint32_t>(s[0]), static_cast<std::uint32_t>(s[0] >> 32)};
    const std::uint64_t base = s[1];
    if (rank == 0) {
        threefry_interleaved(key, base, dst, 1);
        return base + 1;
    }
    std::size_t sd = rank;
    for (std::size_t d = 0; d < rank; ++d)
        if (e[d] % 2 == 0) {
            sd = d;
            break;
        }
    if (sd == rank) {
        sd = 0;
        for (std::size_t d = 1; d < rank; ++d)
            if (e[d] > e[sd]) sd = d;
    }
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < sd; ++d)
        outer *= e[d];
    for (std::size_t d = sd + 1; d < rank; ++d)
        inner *= e[d];
    const std::size_t ds = e[sd], h = (ds + 1) / 2, total = outer * ds * inner;
    const bool par = total >= rng_parallel_words;
    if (inner == 1 && ds % 2 == 0) {
        threefry_interleaved(key, base, dst, total);
    } else if (inner == 1) { // odd rows: each row's last counter keeps word 0 only
        rng_for(outer, std::max<std::size_t>(1, rng_task_words / std::max<std::size_t>(1, ds)), par,
                [&](std::size_t o0, std::size_t o1) {
                    for (std::size_t o = o0; o < o1; ++o)
                        threefry_interleaved(key, base + o * h, dst + o * ds, ds, false);
                });
    } else { // planar: row 2j holds word 0, row 2j + 1 word 1 of the same `inner` counters
        rng_for(outer * h, std::max<std::size_t>(1, rng_task_words / (2 * inner)), par,
                [&](std::size_t q0, std::size_t q1) {
                    for (std::size_t q = q0; q < q1; ++q) {
                        const std::size_t o = q / h, j = q % h;
                        std::uint32_t* d0 = dst + (o * ds + 2 * j) * inner;
                        threefry_planar(key, base + q * inner, d0, 2 * j + 1 < ds ? d0 + inner : nullptr, inner);
                    }
                });
    }
    return base + outer * h * inner;
}

// Philox's counter from the state (XLA's GetPhiloxStateOp) and the state after `used` counters.
inline u128_counter philox_counter(const std::uint64_t* s, std::size_t k) {
    return k >= 3 ? u128_counter{s[1], s[2]} : u128_counter{s[1], s[0]};
}

template<rng_algorithm Alg, std::size_t K>
std::array<std::uint64_t, K> rng_words(const std::uint64_t* s, const std::size_t* e, std::size_t rank, std::size_t n,
                                       std::size_t width, std::uint32_t* dst) {
    std::array<std::uint64_t, K> ns{};
    for (std::size_t k = 0; k < K; ++k)
        ns[k] = s[k];
    const std::array<std::uint32_t, 2> key{static_cast<std::uint32_t>(s[0]), static_cast<std::uint32_t>(s[0] >> 32)};
    if constexpr (Alg == rng_algorithm::three_fry) {
        if (width == 64) {
            threefry_interleaved(key, s[1], dst, 2 * n);
            ns[1] = s[1] + n;
        } else {
            ns[1] = threefry_bits32(s, e, rank, dst);
        }
    } else {
        const std::size_t words = width == 64 ? 2 * n : n;
        const u128_counter c = philox_counter(s, K);
        philox_stream(key, c, dst, words);
        const u128_counter nc = c.plus((words + 3) / 4);
        ns[1] = nc.lo;
        if constexpr (K >= 3) ns[2] = nc.hi;
    }
    return ns;
}

template<class S, class Shape>
struct rng_bit_generator_rules {
    using T = typename Shape::value_type;
    static constexpr bool c3 = shape_of<S>::rank == 1 && std::is_same_v<element_of<S>, std::uint64_t>;
    static constexpr std::size_t k = c3 ? shape_of<S>::extents[0] : 0;
    static constexpr bool c4 = rng_bits_element<T>;
};

} // namespace detail

// RngBitGenerator(algorithm, initial_state, shape): (new_state, bits of type Shape).
namespace detail {
template<rng_algorithm Algorithm, class Shape, expression S>
auto rng_bit_generator_untraced(S&& initial_state) {
    using R = detail::rng_bit_generator_rules<S, Shape>;
    using T = typename Shape::value_type;
    constexpr std::size_t K = R::k;
    constexpr bool c2 = !R::c3 || (Algorithm == rng_algorithm::three_fry ? K == 2 : (K == 2 || K == 3));
    using Sh = detail::shown_t<S>;
    static_assert(diag::got<R::c3, Sh>::value,
                  "xlet::rng_bit_generator [C3]: initial_state must be a rank-1 u64 array");
    static_assert(diag::got<c2, Sh>::value,
                  "xlet::rng_bit_generator [C2]: initial_state must be u64[2] for three_fry, u64[2] or u64[3] for "
                  "philox and default_");
    static_assert(diag::got<R::c4, Shape>::value,
                  "xlet::rng_bit_generator [C4]: the output element type must be an integer or floating-point type "
                  "(not pred or complex)");
    if constexpr (R::c3 && c2 && R::c4) {
        constexpr rng_algorithm A = Algorithm == rng_algorithm::default_ ? rng_algorithm::philox : Algorithm;
        const auto& st = detail::as_array(std::forward<S>(initial_state));
        const std::uint64_t* s = st.data();
        constexpr std::size_t N = Shape::num_elements, W = sizeof(T) * 8;
        constexpr auto e = Shape::extents;
        Shape out(detail::no_init);
        std::array<std::uint64_t, K> ns;
        if constexpr (W >= 32) {
            ns = detail::rng_words<A, K>(s, e.data(), e.size(), N, W, reinterpret_cast<std::uint32_t*>(out.data()));
        } else {
            std::vector<std::uint32_t> w(N);
            ns = detail::rng_words<A, K>(s, e.data(), e.size(), N, 32, w.data());
            using U = std::conditional_t<W == 8, std::uint8_t, std::uint16_t>;
            for (std::size_t i = 0; i < N; ++i) {
                const auto u = static_cast<U>(w[i]);
                std::memcpy(out.data() + i, &u, sizeof(U));
            }
        }
        tensor<std::uint64_t, K> new_state(detail::no_init);
        for (std::size_t k = 0; k < K; ++k)
            new_state.data()[k] = ns[k];
        return std::tuple<tensor<std::uint64_t, K>, Shape>(std::move(new_state), std::move(out));
    }
}

} // namespace detail

template<rng_algorithm Algorithm, class Shape, expression S>
requires is_array_leaf<Shape>
auto rng_bit_generator(S&& initial_state) {
    return trace::heavy(
        "stablehlo.rng_bit_generator",
        [] {
            constexpr const char* names[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
            return std::string("rng_algorithm = #stablehlo<rng_algorithm ") + names[static_cast<int>(Algorithm)] + ">";
        },
        [&] { return detail::rng_bit_generator_untraced<Algorithm, Shape>(std::forward<S>(initial_state)); },
        initial_state);
}

} // namespace xlet
