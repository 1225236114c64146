// RngUniform and RngNormal (spec: RngUniform, RngNormal; StableHLO rng):
//   rng_uniform<f32<2, 3>>(a, b)        U[a, b) from default_rng_generator()
//   rng_uniform<f32<2, 3>>(gen, a, b)   the same from an explicit generator (rng_generator.hpp)
//   rng_uniform<s32<2, 3>, 0, 10>(gen)  static bounds (integers; floats where the compiler accepts
//                                       floating template arguments): a < b checked at compile time
//   rng_normal<f32<2, 3>>(mu, sigma), rng_normal<f32<2, 3>>(gen, mu, sigma)   N(mu, sigma^2)
// a, b, mu, sigma: C++ values (converted as literals are) or rank-0 arrays of the element type.
//
// Every call reserves its counters from the generator (get_and_update_state) and evaluates the
// Philox-4x32-10 stream of that state (kernels/rng.hpp): one 32-bit word per element for f32, f16,
// bf16; two (one u64) per element for f64 and the integer types. The values depend only on the
// reserved state: identical for any thread count. docs/semantics.md "Random numbers" gives the
// methods; in short:
//   floats, U[0, 1): the top p bits of a word, k * 2^-p (p = 24 f32, 53 f64, 11 f16, 8 bf16): every
//     multiple of 2^-p in [0, 1) with probability 2^-p, exactly (no rounding);
//     U[a, b): fma(u, b - a, a) in the compute type (f32 for f16/bf16), rounded to T, and a value
//     that rounding carried to b becomes the largest T below b: always in [a, b).
//   integers, U[a, b): r = b - a (unsigned); x * r >> 64 of a u64 word x, rejected (Lemire) when
//     the low half is below 2^64 mod r and redrawn from a reserved side stream: exactly uniform.
//   normals: Box-Muller; f32: u1 = fl(x0 >> 1) * 2^-31 + 2^-32 in (0, 1], u2 = (x1 >> 8) * 2^-24,
//     (r cos 2 pi u2, r sin 2 pi u2), r = sqrt(-2 log u1): tails to 6.66 sigma; f64 from u64 words
//     with u1 = (2k + 1) * 2^-53: tails to 8.57 sigma; f16/bf16: the f32 values rounded.
//   a >= b (either type): every element is a (XLA: implementation-defined). NaN bounds: NaN.
//   sigma < 0: mu + sigma * z, i.e. N(mu, sigma^2) (z is symmetric).
//
// Rules (StableHLO rng numbering, then xlet's):
//   C1 a, b (mu, sigma) and the result have the same element type
//   C2 rng_normal: the element type is floating-point
//   C3 result shape = Shape                                        (by construction)
//   C4 (xlet) a, b (mu, sigma) are scalars (rank 0)
//   C5 (xlet) rng_uniform: the element type is pred, an integer or a floating-point type
//   C6 (xlet) static bounds: a < b
#pragma once
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "rng_bit_generator.hpp"
#include "rng_generator.hpp"

namespace xlet::detail {

template<class T, class X>
inline constexpr bool rng_operand_fits = [] {
    if constexpr (expression<X>)
        return std::is_same_v<element_of<X>, T>;
    else
        return scalar_fits<std::remove_cvref_t<X>, T>;
}();

template<class T, class X>
T rng_operand_value(X&& x) {
    if constexpr (expression<X>)
        return as_array(std::forward<X>(x)).data()[0];
    else
        return static_cast<T>(x);
}

// The largest T below b (b finite, or +inf).
template<class T>
T rng_below(T b) {
    if constexpr (std::is_floating_point_v<T>) {
        return std::nextafter(b, -std::numeric_limits<T>::infinity());
    } else { // half, bfloat16: sign-magnitude bits
        const std::uint16_t u = b.bits();
        if ((u & 0x7fffu) == 0) return T::from_bits(0x8001u);
        return T::from_bits(static_cast<std::uint16_t>(u & 0x8000u ? u + 1 : u - 1));
    }
}

// [a, b): fma(u, b - a, a) = fma(k, (b - a) 2^-24, a) for u = k 2^-24 (the same exact product,
// one rounding), kept below b; on halves (Halves: a, span are a/2, b/2 - a/2, the result doubled)
// when b - a overflows, and with u itself when (b - a) 2^-24 would lose bits (tiny spans).
// Clamp = false when the largest k already rounds below b (value() is monotone in k): the min is
// then a no-op, e.g. for [0, 1).
template<bool Halves, bool Folded, bool Clamp = true>
struct uniform_f32_fn {
    float a, span, bmax;
    float value(float k) const { // the scalar twin of word(), for k = 2^24 - 1
        float r = Folded ? std::fma(k, span * 0x1p-24f, a) : std::fma(k * 0x1p-24f, span, a);
        return Halves ? r + r : r;
    }
    XLET_RNG_INLINE rng_u32 word(const rng_u32& w) const {
        using fb = xsimd::batch<float>;
        using ib = xsimd::batch<std::int32_t>;
        fb k = xsimd::to_float(xsimd::bitwise_cast<ib>(w >> 8));
        if constexpr (!Folded) k = k * fb(0x1p-24f);
        fb r = xsimd::fma(k, fb(Folded ? span * 0x1p-24f : span), fb(a));
        if constexpr (Halves) r = r + r;
        if constexpr (Clamp) r = xsimd::min(r, fb(bmax));
        return xsimd::bitwise_cast<rng_u32>(r);
    }
};

// Box-Muller on the pairs (x0, x1) and (x2, x3). (A template of nothing: xsimd's log and sincos
// are compiled only where normal numbers are drawn.)
template<class = void>
struct normal_f32_fn {
    float mu, sigma;
    XLET_RNG_INLINE void operator()(std::array<rng_u32, 4>& x) const {
        using fb = xsimd::batch<float>;
        using ib = xsimd::batch<std::int32_t>;
        for (std::size_t p = 0; p < 4; p += 2) {
            const fb u1 = xsimd::fma(xsimd::to_float(xsimd::bitwise_cast<ib>(x[p] >> 1)), fb(0x1p-31f), fb(0x1p-32f));
            const fb u2 = xsimd::to_float(xsimd::bitwise_cast<ib>(x[p + 1] >> 8)) * fb(0x1p-24f);
            const fb r = xsimd::sqrt(fb(-2.0f) * xsimd::log(u1));
            const auto sc = xsimd::sincos(fb(2 * std::numbers::pi_v<float>) * u2);
            x[p] = xsimd::bitwise_cast<rng_u32>(xsimd::fma(fb(sigma), r * sc.second, fb(mu)));
            x[p + 1] = xsimd::bitwise_cast<rng_u32>(xsimd::fma(fb(sigma), r * sc.first, fb(mu)));
        }
    }
};

// f(i0, i1) over [0, n) elements, on TBB above the kernels' threshold.
template<class F>
void rng_elements(std::size_t n, const F& f) {
    rng_for(n, rng_task_words, n >= rng_parallel_words, f);
}

inline u128_counter rng_reserve(rng_generator& gen, std::size_t words, std::array<std::uint32_t, 2>& key) {
    const auto s = gen.get_and_update_state((words + 3) / 4);
    const std::uint64_t* d = s.data();
    key = {static_cast<std::uint32_t>(d[0]), static_cast<std::uint32_t>(d[0] >> 32)};
    return {d[1], d[2]};
}

// An exactly uniform integer in [0, r) from u64 words (r > 0): Lemire's multiply-shift with
// rejection; the redraws of element i come from counters {i, 2^63 | attempt} of the same key, a
// range the generator's counters (high word 0) never reach.
__extension__ typedef unsigned __int128 rng_u128;
inline std::uint64_t rng_bounded(std::uint64_t x, std::uint64_t r, std::uint64_t i,
                                 const std::array<std::uint32_t, 2>& key) {
    const std::uint64_t t = (0 - r) % r; // 2^64 mod r
    for (std::uint64_t attempt = 0;; ++attempt) {
        const rng_u128 m = static_cast<rng_u128>(x) * r;
        if (static_cast<std::uint64_t>(m) >= t) return static_cast<std::uint64_t>(m >> 64);
        const auto w = philox4x32(u128_counter{i, (std::uint64_t{1} << 63) | attempt}.words(), key);
        x = w[0] | std::uint64_t{w[1]} << 32;
    }
}

template<class T>
void rng_uniform_fill(rng_generator& gen, T a, T b, T* out, std::size_t n) {
    std::array<std::uint32_t, 2> key{};
    if constexpr (std::is_same_v<T, bool>) {
        rng_reserve(gen, n, key);
        std::fill_n(out, n, a); // [false, true) holds false only; a >= b gives a
    } else if constexpr (is_integer<T>) {
        const u128_counter c = rng_reserve(gen, 2 * n, key);
        using U = std::make_unsigned_t<T>;
        if (!(a < b)) {
            std::fill_n(out, n, a);
            return;
        }
        const std::uint64_t r = static_cast<U>(static_cast<U>(b) - static_cast<U>(a));
        const auto ua = static_cast<U>(a);
        std::vector<std::uint64_t> w(n);
        philox_stream(key, c, reinterpret_cast<std::uint32_t*>(w.data()), 2 * n);
        rng_elements(n, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i)
                out[i] = static_cast<T>(static_cast<U>(ua + static_cast<U>(rng_bounded(w[i], r, i, key))));
        });
    } else if constexpr (std::is_same_v<T, float>) {
        const u128_counter c = rng_reserve(gen, n, key);
        if (std::isnan(a) || std::isnan(b) || !(a < b)) {
            std::fill_n(out, n, std::isnan(b) ? b : a);
            return;
        }
        const float span = b - a, bmax = rng_below(b);
        auto* dst = reinterpret_cast<std::uint32_t*>(out);
        if (!std::isfinite(span))
            philox_stream(key, c, dst, n, uniform_f32_fn<true, false>{a / 2, b / 2 - a / 2, bmax});
        else if (span >= 0x1p-100f) { // span 2^-24 is a normal float: folding the scale is exact
            const uniform_f32_fn<false, true> fn{a, span, bmax};
            if (fn.value(0x1p24f - 1) < b)
                philox_stream(key, c, dst, n, uniform_f32_fn<false, true, false>{a, span, bmax});
            else
                philox_stream(key, c, dst, n, fn);
        } else
            philox_stream(key, c, dst, n, uniform_f32_fn<false, false>{a, span, bmax});
    } else if constexpr (std::is_same_v<T, double>) {
        const u128_counter c = rng_reserve(gen, 2 * n, key);
        if (std::isnan(a) || std::isnan(b) || !(a < b)) {
            std::fill_n(out, n, std::isnan(b) ? b : a);
            return;
        }
        philox_stream(key, c, reinterpret_cast<std::uint32_t*>(out), 2 * n);
        double span = b - a, a0 = a, scale = 1;
        if (!std::isfinite(span)) span = b / 2 - a / 2, a0 = a / 2, scale = 2;
        const double bmax = rng_below(b);
        rng_elements(n, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) {
                std::uint64_t x;
                std::memcpy(&x, out + i, 8);
                const double u = static_cast<double>(x >> 11) * 0x1p-53;
                out[i] = std::min(std::fma(u, span, a0) * scale, bmax);
            }
        });
    } else { // half, bfloat16: computed in f32 from p-bit uniforms, rounded, kept below b
        const u128_counter c = rng_reserve(gen, n, key);
        const float fa = static_cast<float>(a), fb = static_cast<float>(b);
        if (std::isnan(fa) || std::isnan(fb) || !(fa < fb)) {
            std::fill_n(out, n, std::isnan(fb) ? b : a);
            return;
        }
        std::vector<std::uint32_t> w(n);
        philox_stream(key, c, w.data(), n);
        constexpr int p = std::is_same_v<T, half> ? 11 : 8;
        const T bmax = rng_below(b);
        const float span = fb - fa; // finite: f16/bf16 ranges fit in f32
        rng_elements(n, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t i = i0; i < i1; ++i) {
                const float u = std::ldexp(static_cast<float>(w[i] >> (32 - p)), -p);
                const T v = T(std::fma(u, span, fa));
                out[i] = static_cast<float>(v) >= fb ? bmax : v;
            }
        });
    }
}

template<class T>
void rng_normal_fill(rng_generator& gen, T mu, T sigma, T* out, std::size_t n) {
    std::array<std::uint32_t, 2> key{};
    if constexpr (std::is_same_v<T, float>) {
        const u128_counter c = rng_reserve(gen, n, key);
        philox_stream(key, c, reinterpret_cast<std::uint32_t*>(out), n, normal_f32_fn<>{mu, sigma});
    } else if constexpr (std::is_same_v<T, double>) {
        const u128_counter c = rng_reserve(gen, 2 * n, key);
        // One more u64 word when n is odd: the pair of the last element.
        std::vector<std::uint64_t> w(n + 1);
        philox_stream(key, c, reinterpret_cast<std::uint32_t*>(w.data()), 2 * (n + (n % 2)));
        rng_elements((n + 1) / 2, [&](std::size_t p0, std::size_t p1) {
            for (std::size_t p = p0; p < p1; ++p) {
                const double u1 = static_cast<double>(w[2 * p] >> 12) * 0x1p-52 + 0x1p-53;
                const double u2 = static_cast<double>(w[2 * p + 1] >> 11) * 0x1p-53;
                const double r = std::sqrt(-2.0 * std::log(u1)), t = 2 * std::numbers::pi * u2;
                out[2 * p] = std::fma(sigma, r * std::cos(t), mu);
                if (2 * p + 1 < n) out[2 * p + 1] = std::fma(sigma, r * std::sin(t), mu);
            }
        });
    } else { // half, bfloat16: the f32 normals rounded
        const u128_counter c = rng_reserve(gen, n, key);
        std::vector<float> f(n);
        philox_stream(key, c, reinterpret_cast<std::uint32_t*>(f.data()), n,
                      normal_f32_fn<>{static_cast<float>(mu), static_cast<float>(sigma)});
        for (std::size_t i = 0; i < n; ++i)
            out[i] = T(f[i]);
    }
}

template<class Shape, class A, class B>
struct rng_rules {
    using T = typename Shape::value_type;
    static constexpr bool c1 = rng_operand_fits<T, A> && rng_operand_fits<T, B>;
    static constexpr bool c4 = shape_of<A>::rank == 0 && shape_of<B>::rank == 0;
    static constexpr bool c5 = std::is_same_v<T, bool> || is_integer<T> || is_float<T>;
    static constexpr bool c2 = is_float<T>;
};

// Traced (to_stablehlo): StableHLO's rng over a, b and the shape. The generator is not part of the
// op (StableHLO's rng draws from an implementation-defined one), so an import draws from xlet's
// default generator: the same distribution, not the same numbers.
template<class Shape, class A, class B, class Run>
auto rng_traced(const char* distribution, const A& a, const B& b, Run&& run) {
    using T = typename Shape::value_type;
    trace::recorder* const r = trace::current();
    std::vector<int> ins;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]] {
            std::string dims, type = "tensor<" + std::to_string(Shape::rank) + "xi64>";
            for (std::size_t k = 0; k < Shape::rank; ++k)
                dims += (k ? ", " : "") + std::to_string(Shape::extents[k]);
            ins = {
                trace::init_id<T>(*r, a), trace::init_id<T>(*r, b),
                r->emit("stablehlo.constant", {}, {type},
                        "value = " + (Shape::rank ? "dense<[" + dims + "]>" : std::string("dense<>")) + " : " + type)};
        }
    return trace::run_op(
        r, "stablehlo.rng",
        [distribution] { return std::string("rng_distribution = #stablehlo<rng_distribution ") + distribution + ">"; },
        std::move(ins), {}, run);
}

} // namespace xlet::detail

namespace xlet {

// RngUniform(a, b, shape) from an explicit generator: U[a, b); a >= b gives a everywhere.
template<class Shape, class A, class B>
requires is_array_leaf<Shape>
auto rng_uniform(rng_generator& gen, A&& a, B&& b) {
    using R = detail::rng_rules<Shape, A, B>;
    using T = typename Shape::value_type;
    using SA = detail::shown_t<A>;
    using SB = detail::shown_t<B>;
    static_assert(diag::got<R::c1, Shape, SA, SB>::value,
                  "xlet::rng_uniform [C1]: a, b and the result must have the same element type");
    static_assert(diag::got<R::c4, SA, SB>::value, "xlet::rng_uniform [C4]: a and b must be scalars (rank 0)");
    static_assert(diag::got<R::c5, Shape>::value,
                  "xlet::rng_uniform [C5]: the element type must be pred, an integer or a floating-point type");
    if constexpr (R::c1 && R::c4 && R::c5) {
        return detail::rng_traced<Shape>("UNIFORM", a, b, [&] {
            Shape out(detail::no_init);
            detail::rng_uniform_fill<T>(gen, detail::rng_operand_value<T>(std::forward<A>(a)),
                                        detail::rng_operand_value<T>(std::forward<B>(b)), out.data(),
                                        Shape::num_elements);
            return out;
        });
    }
}

// RngUniform(a, b, shape) from default_rng_generator().
template<class Shape, class A, class B>
requires is_array_leaf<Shape> &&(!std::is_same_v<std::remove_cvref_t<A>, rng_generator>)auto rng_uniform(A&& a, B&& b) {
    return rng_uniform<Shape>(default_rng_generator(), std::forward<A>(a), std::forward<B>(b));
}

// RngUniform with compile-time bounds: a < b is rule C6.
template<class Shape, auto A, auto B>
requires is_array_leaf<Shape>
auto rng_uniform(rng_generator& gen = default_rng_generator()) {
    static_assert(diag::got<(A < B), Shape>::value, "xlet::rng_uniform [C6]: the static bounds must satisfy a < b");
    if constexpr (A < B) return rng_uniform<Shape>(gen, A, B);
}

// RngNormal(mu, sigma, shape) from an explicit generator: N(mu, sigma^2), Box-Muller.
template<class Shape, class M, class S>
requires is_array_leaf<Shape>
auto rng_normal(rng_generator& gen, M&& mu, S&& sigma) {
    using R = detail::rng_rules<Shape, M, S>;
    using T = typename Shape::value_type;
    using SM = detail::shown_t<M>;
    using SS = detail::shown_t<S>;
    static_assert(diag::got<R::c1, Shape, SM, SS>::value,
                  "xlet::rng_normal [C1]: mu, sigma and the result must have the same element type");
    static_assert(diag::got<R::c2, Shape>::value, "xlet::rng_normal [C2]: the element type must be floating-point");
    static_assert(diag::got<R::c4, SM, SS>::value, "xlet::rng_normal [C4]: mu and sigma must be scalars (rank 0)");
    if constexpr (R::c1 && R::c2 && R::c4) {
        return detail::rng_traced<Shape>("NORMAL", mu, sigma, [&] {
            Shape out(detail::no_init);
            detail::rng_normal_fill<T>(gen, detail::rng_operand_value<T>(std::forward<M>(mu)),
                                       detail::rng_operand_value<T>(std::forward<S>(sigma)), out.data(),
                                       Shape::num_elements);
            return out;
        });
    }
}

// RngNormal(mu, sigma, shape) from default_rng_generator().
template<class Shape, class M, class S>
requires is_array_leaf<Shape> &&
    (!std::is_same_v<std::remove_cvref_t<M>, rng_generator>)auto rng_normal(M&& mu, S&& sigma) {
    return rng_normal<Shape>(default_rng_generator(), std::forward<M>(mu), std::forward<S>(sigma));
}

} // namespace xlet
