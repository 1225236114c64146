// Fft (spec: Fft; StableHLO fft):
//   fft<fft_type::fft, 1024>(x)          complex -> complex along the innermost axis, same shape
//   fft<fft_type::ifft, 64, 64>(x)       inverse over the two innermost axes, scaled by 1 / (64 * 64)
//   fft<fft_type::rfft, 16>(r)           f32[..., 16] -> c64[..., 9]   (16 / 2 + 1; 17 gives 9 too)
//   fft<fft_type::irfft, 16>(z)          c64[..., 9]  -> f32[..., 16]  (the missing half from conj symmetry)
// fft_length (the template arguments after the type) names the time-domain lengths of the 1 to 3
// innermost axes. Multi-axis transforms are the cascade of 1-D transforms (RFFT: innermost first,
// IRFFT: innermost last). IFFT and IRFFT are normalised by 1 / prod(fft_length), as XLA does.
// IRFFT ignores the imaginary parts of the DC (and, for even lengths, the Nyquist) input, as a
// Hermitian spectrum has none (it takes the real part of the inverse of the extended spectrum).
// Types: FFT / IFFT c64, c128; RFFT f32 -> c64, f64 -> c128; IRFFT c64 -> f32, c128 -> f64.
// Operands are any expressions, evaluated once; the result is a tensor that fuses like a leaf.
// Kernels: kernels/fft.hpp (column-vectorised Stockham, four-step for long single transforms,
// Bluestein for lengths with a prime factor above 13): every length is O(n log n).
// Accuracy (docs/semantics.md): error within a small multiple of eps * log2(n) * ||x||.
//
// Rules (StableHLO fft numbering):
//   C1 fft_length has at most rank(operand) entries
//   C2 element types: FFT / IFFT complex; RFFT floating (f32, f64); IRFFT complex
//   C3 fft_length has 1 to 3 entries
//   C4 the operand's innermost dimensions equal fft_length (IRFFT: the last one is
//      fft_length[-1] / 2 + 1, or 0 when fft_length[-1] is 0)
#pragma once
#include <array>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../../kernels/fft.hpp"
#include "../elementwise/elementwise.hpp"

namespace xlet {

enum class fft_type { fft, ifft, rfft, irfft };

namespace detail {

template<class T>
inline constexpr bool fft_real = std::is_same_v<T, float> || std::is_same_v<T, double>;
template<class T>
inline constexpr bool fft_complex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template<fft_type Ty, class X, std::size_t... L>
struct fft_rules {
    using T = element_of<X>;
    static constexpr std::size_t R = shape_of<X>::rank, K = sizeof...(L);
    static constexpr std::array<std::size_t, K> len{L...};
    static constexpr bool c1 = K <= R;
    static constexpr bool c2 = (Ty == fft_type::rfft) ? fft_real<T> : fft_complex<T>;
    static constexpr bool c3 = K >= 1 && K <= 3;
    static constexpr bool c4 = [] {
        if constexpr (!(c1 && c3))
            return true;
        else {
            const auto& e = shape_of<X>::extents;
            for (std::size_t i = 0; i < K; ++i) {
                std::size_t want = len[i];
                if (Ty == fft_type::irfft && i == K - 1) want = len[i] == 0 ? 0 : len[i] / 2 + 1;
                if (e[R - K + i] != want) return false;
            }
            return true;
        }
    }();
    static constexpr bool ok = c1 && c2 && c3 && c4;
    static consteval bool check() {
        using S = shown_t<X>;
        using Len = diag::dimensions<static_cast<std::int64_t>(L)...>;
        static_assert(diag::got<c1, S, Len>::value,
                      "xlet::fft [C1]: fft_length must not have more entries than the operand's rank");
        static_assert(diag::got<c2, S, Len>::value,
                      "xlet::fft [C2]: FFT and IFFT take c64 / c128, RFFT f32 / f64, IRFFT c64 / c128");
        static_assert(diag::got<c3, S, Len>::value, "xlet::fft [C3]: fft_length must have 1 to 3 entries");
        static_assert(diag::got<c4, S, Len>::value,
                      "xlet::fft [C4]: the operand's innermost dimensions must equal fft_length (IRFFT: the last "
                      "one fft_length[-1] / 2 + 1)");
        return ok;
    }
};

// The DFT along axis D of a complex array of extents E, in place.
template<auto E, std::size_t D, class C>
void fft_axis(const C* src, C* data, bool inverse, bool parallel = true) {
    using T = typename C::value_type;
    constexpr std::size_t n = E[D];
    constexpr std::size_t outer = [] {
        std::size_t o = 1;
        for (std::size_t i = 0; i < D; ++i)
            o *= E[i];
        return o;
    }();
    constexpr std::size_t cols = [] {
        std::size_t c = 1;
        for (std::size_t i = D + 1; i < E.size(); ++i)
            c *= E[i];
        return c;
    }();
    if constexpr (outer * n * cols > 0) {
        const fft_io io{inverse, inverse ? 1.0 / static_cast<double>(n) : 1.0};
        if constexpr (cols == 1)
            fft_axis_inner<T, n>(src, data, outer, io, parallel);
        else
            fft_axis_columns<T>(fft_plan_of<T, n>(), src, data, outer, cols, io, parallel);
    }
}
// Axes R - K + i for i < sizeof...(I), innermost first; the first reads src, the others work in
// place on data.
template<auto E, std::size_t K, bool Inverse, class C, std::size_t... I>
void fft_axes([[maybe_unused]] const C* src, [[maybe_unused]] C* data, std::index_sequence<I...>) {
    constexpr std::size_t R = E.size();
    (fft_axis<E, R - K + (sizeof...(I) - 1 - I)>(I == 0 ? src : data, data, Inverse), ...);
}

template<auto E>
inline constexpr std::size_t fft_count = [] {
    std::size_t n = 1;
    for (auto e : E)
        n *= e;
    return n;
}();

template<class T, auto E>
using fft_tensor_t = typename tensor_of_impl<T, E, std::make_index_sequence<E.size()>>::type;

// exp(-2 pi i k / N) for k = 0 .. N / 2 (long double, rounded once): RFFT's and IRFFT's twiddles.
template<class T, std::size_t N>
const std::vector<std::complex<T>>& fft_half_twiddles() {
    static const std::vector<std::complex<T>> w = [] {
        using LD = long double;
        const LD pi = 3.141592653589793238462643383279502884L;
        std::vector<std::complex<T>> t(N / 2 + 1);
        for (std::size_t k = 0; k <= N / 2; ++k) {
            const LD a = -2 * pi * static_cast<LD>(k) / static_cast<LD>(N);
            t[k] = std::complex<T>(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
        }
        return t;
    }();
    return w;
}

// Outputs k0 <= k < k1 of a pass that combines in[k] with in[h - k] and w[k] (RFFT's post-pass,
// IRFFT's pre-pass): f(ar, ai, br, bi, wr, wi) -> {re, im}, one generic expression on scalars and
// on SIMD batches (W outputs k.., the mirrored inputs in[h-k-W+1 .. h-k] reversed in registers),
// so every output has the same bits whichever path, or thread, made it. edge(k) gives the scalar
// operands (a, b) where the mirror leaves the plain pattern (k = 0, k = h).
template<class T, class Edge, class F>
inline void fft_mirror_pass(const std::complex<T>* in, const std::complex<T>* w, std::complex<T>* out, std::size_t h,
                            std::size_t k0, std::size_t k1, const Edge& edge, const F& f) {
    using CB = xsimd::batch<std::complex<T>>;
    constexpr std::size_t W = CB::size;
    auto one = [&](std::size_t k) {
        const auto [a, b] = (k == 0 || k == h) ? edge(k) : std::pair{in[k], in[h - k]};
        const auto [re, im] = f(a.real(), a.imag(), b.real(), b.imag(), w[k].real(), w[k].imag());
        out[k] = std::complex<T>(re, im);
    };
    std::size_t k = k0;
    for (; k < k1 && (k == 0 || k + W > k1); ++k) // k = 0, or too few left
        one(k);
    for (; k + W <= k1 && k + W <= h; k += W) { // mirrored block h-k-W+1 >= 1
        const CB a = CB::load_unaligned(in + k), bm = CB::load_unaligned(in + (h - k - W + 1));
        const CB wv = CB::load_unaligned(w + k);
        const auto [re, im] =
            f(a.real(), a.imag(), fft_reverse(bm.real()), fft_reverse(bm.imag()), wv.real(), wv.imag());
        CB(re, im).store_unaligned(out + k);
    }
    for (; k < k1; ++k)
        one(k);
}

template<class V>
struct fft_scalar_of {
    using type = V;
};
template<class T, class A>
struct fft_scalar_of<xsimd::batch<T, A>> {
    using type = T;
};

// (a + conj b) / 2 and (a - conj b) / 2 as {er, ei, dr, di}.
template<class V>
std::array<V, 4> fft_half_sums(V ar, V ai, V br, V bi) {
    const V half(static_cast<typename fft_scalar_of<V>::type>(0.5));
    return {half * (ar + br), half * (ai - bi), half * (ar - br), half * (ai + bi)};
}

// RFFT's post-pass: with a = Z_k, b = Z_{h-k}, X_k = e + w^k o, e = (a + conj b) / 2, o = -i d,
// d = (a - conj b) / 2.
struct fft_rfft_post {
    template<class V>
    std::pair<V, V> operator()(V ar, V ai, V br, V bi, V wr, V wi) const {
        const auto [er, ei, dr, di] = fft_half_sums(ar, ai, br, bi);
        const V orr = di, oi = -dr;
        return {er + (wr * orr - wi * oi), ei + (wr * oi + wi * orr)};
    }
};

// IRFFT's pre-pass (the post-pass inverted): with a = X_k, b = X_{h-k}, E = (a + conj b) / 2,
// D = (a - conj b) / 2, O = D conj(w^k): Z_k = E + i O.
struct fft_irfft_pre {
    template<class V>
    std::pair<V, V> operator()(V ar, V ai, V br, V bi, V wr, V wi) const {
        const auto [er, ei, dr, di] = fft_half_sums(ar, ai, br, bi);
        const V orr = dr * wr + di * wi, oi = di * wr - dr * wi;
        return {er - oi, ei + orr};
    }
};

// f over the `rows` rows of h + 1 (RFFT) or h (IRFFT) outputs, in parallel; one long row split by k.
template<class T, class Edge, class F>
void fft_mirror_rows(const std::complex<T>* in, std::size_t in_row, const std::complex<T>* w, std::complex<T>* out,
                     std::size_t out_row, std::size_t h, std::size_t rows, const Edge& edge, const F& f) {
    if (rows == 1 && h >= 4096)
        fft_for(true, out_row, 4096, [&](std::size_t k0, std::size_t k1) {
            fft_mirror_pass<T>(
                in, w, out, h, k0, k1, [&](std::size_t k) { return edge(in, k); }, f);
        });
    else
        fft_for(rows * 2 * h >= fft_parallel_work, rows, std::max<std::size_t>(1, 2048 / h),
                [&](std::size_t r0, std::size_t r1) {
                    for (std::size_t r = r0; r < r1; ++r) {
                        const std::complex<T>* row = in + r * in_row;
                        fft_mirror_pass<T>(
                            row, w, out + r * out_row, h, 0, out_row, [&](std::size_t k) { return edge(row, k); }, f);
                    }
                });
}

// RFFT of `rows` real rows of even length N: the N / 2 complex values z_j = x_2j + i x_2j+1 take
// one complex DFT Z of length h = N / 2, and the post-pass above gives X_k, k = 0 .. h (half the
// work of a complex transform).
template<class T, std::size_t N>
void fft_rfft_even(const T* x, std::complex<T>* out, std::size_t rows) {
    using C = std::complex<T>;
    constexpr std::size_t h = N / 2;
    scratch<C> z(rows * h);
    const std::size_t bytes = rows * N * sizeof(T), chunk = std::size_t{1} << 20;
    fft_for(bytes >= 2 * chunk, (bytes + chunk - 1) / chunk, 1, [&](std::size_t c0, std::size_t c1) {
        const std::size_t b0 = c0 * chunk, b1 = std::min(bytes, c1 * chunk);
        std::memcpy(reinterpret_cast<char*>(z.data()) + b0, reinterpret_cast<const char*>(x) + b0, b1 - b0);
    });
    fft_axis_inner<T, h>(z.data(), z.data(), rows, fft_io{}, true);
    // Z_h is Z_0 (period h)
    auto edge = [](const C* Z, std::size_t k) { return std::pair{Z[k == h ? 0 : k], Z[k == 0 ? 0 : h - k]}; };
    fft_mirror_rows<T>(z.data(), h, fft_half_twiddles<T, N>().data(), out, h + 1, h, rows, edge, fft_rfft_post{});
}

// IRFFT of `rows` spectra (h + 1 = N / 2 + 1 complex each) to real rows of even length N: the
// pre-pass above (DC and Nyquist inputs taken as real), one complex inverse DFT of length h scaled
// by 1 / h, which is x_2j + i x_2j+1, read as reals (half the work of the complex inverse of the
// extended spectrum).
template<class T, std::size_t N>
void fft_irfft_even(const std::complex<T>* X, T* out, std::size_t rows) {
    using C = std::complex<T>;
    constexpr std::size_t h = N / 2;
    scratch<C> z(rows * h);
    auto edge = [](const C* x, std::size_t k) { // k = 0 only (outputs stop before h)
        return std::pair{C(x[k].real(), T(0)), C(x[h - k].real(), T(0))};
    };
    fft_mirror_rows<T>(X, h + 1, fft_half_twiddles<T, N>().data(), z.data(), h, h, rows, edge, fft_irfft_pre{});
    fft_axis_inner<T, h>(z.data(), z.data(), rows, fft_io{true, 1.0 / static_cast<double>(h)}, true);
    const std::size_t bytes = rows * N * sizeof(T), chunk = std::size_t{1} << 20;
    fft_for(bytes >= 2 * chunk, (bytes + chunk - 1) / chunk, 1, [&](std::size_t c0, std::size_t c1) {
        const std::size_t b0 = c0 * chunk, b1 = std::min(bytes, c1 * chunk);
        std::memcpy(reinterpret_cast<char*>(out) + b0, reinterpret_cast<const char*>(z.data()) + b0, b1 - b0);
    });
}

template<fft_type Ty, std::size_t... L, class X>
auto fft_impl(X&& x) {
    using T = element_of<X>;
    static constexpr auto E = shape_of<X>::extents;
    constexpr std::size_t R = E.size(), K = sizeof...(L);
    static constexpr std::array<std::size_t, K> len{L...};
    if constexpr (Ty == fft_type::fft || Ty == fft_type::ifft) {
        const auto& xa = as_array(std::forward<X>(x)); // an array is read in place
        fft_tensor_t<T, E> out(no_init);
        if constexpr (fft_count < E >> 0)
            fft_axes<E, K, Ty == fft_type::ifft>(xa.data(), out.data(), std::make_index_sequence<K>{});
        return out;
    } else if constexpr (Ty == fft_type::rfft) {
        using C = std::complex<T>;
        constexpr std::size_t n = len[K - 1];
        static constexpr auto OE = [] {
            auto e = E;
            e[R - 1] = n == 0 ? 0 : n / 2 + 1;
            return e;
        }();
        fft_tensor_t<C, OE> out(no_init); // every element is written below
        if constexpr (n >= 2 && n % 2 == 0) {
            const auto& xr = as_array(std::forward<X>(x));
            constexpr std::size_t rows = fft_count<E> / n;
            fft_rfft_even<T, n>(xr.data(), out.data(), rows);
            fft_axes<OE, K, false>(out.data(), out.data(), std::make_index_sequence<K - 1>{});
        } else if constexpr (n > 0) {
            const auto& xr = as_array(std::forward<X>(x));
            constexpr std::size_t rows = fft_count<E> / (n == 0 ? 1 : n);
            // The innermost axis as a complex transform of (x, 0), its first n / 2 + 1 outputs kept.
            scratch<C> full(rows * n);
            for (std::size_t i = 0; i < rows * n; ++i)
                full[i] = C(xr.data()[i], T(0));
            fft_axis_inner<T, n>(full.data(), full.data(), rows, fft_io{}, true);
            constexpr std::size_t h = n / 2 + 1;
            for (std::size_t r = 0; r < rows; ++r)
                std::copy_n(full.data() + r * n, h, out.data() + r * h);
            fft_axes<OE, K, false>(out.data(), out.data(), std::make_index_sequence<K - 1>{});
        }
        return out;
    } else {
        using Re = typename T::value_type;
        constexpr std::size_t n = len[K - 1];
        static constexpr auto OE = [] {
            auto e = E;
            e[R - 1] = n;
            return e;
        }();
        fft_tensor_t<Re, OE> out(no_init); // every element is written below
        constexpr std::size_t h = n / 2 + 1, rows = fft_count<E> / (h == 0 ? 1 : h);
        if constexpr (n >= 2 && n % 2 == 0 && K == 1 && (fft_count < E >> 0)) {
            const auto& xa = as_array(std::forward<X>(x)); // an array is read in place
            fft_irfft_even<Re, n>(xa.data(), out.data(), rows);
        } else if constexpr (n >= 2 && n % 2 == 0 && (fft_count<E> > 0)) {
            // The outer axes first (complex inverse transforms of a copy), then the innermost.
            fft_tensor_t<T, E> z(x);
            fft_axes<E, K, true>(z.data(), z.data(), std::make_index_sequence<K - 1>{});
            fft_irfft_even<Re, n>(z.data(), out.data(), rows);
        } else if constexpr (n % 2 == 1 && (fft_count<E> > 0)) {
            // Odd n: the outer axes first (complex inverse transforms of a copy), then the
            // innermost as the complex inverse of the extended spectrum, real part kept.
            fft_tensor_t<T, E> z(x);
            fft_axes<E, K, true>(z.data(), z.data(), std::make_index_sequence<K - 1>{});
            scratch<T> full(rows * n);
            for (std::size_t r = 0; r < rows; ++r) {
                const T* src = z.data() + r * h;
                T* dst = full.data() + r * n;
                std::copy_n(src, h, dst);
                for (std::size_t k = h; k < n; ++k)
                    dst[k] = std::conj(src[n - k]);
            }
            fft_axis_inner<Re, n>(full.data(), full.data(), rows, fft_io{true, 1.0 / static_cast<double>(n)}, true);
            for (std::size_t i = 0; i < rows * n; ++i)
                out.data()[i] = full[i].real();
        }
        return out;
    }
}

} // namespace detail

// Fft(operand, fft_type, fft_length): see the header comment.
template<fft_type Ty, std::size_t... L, expression X>
auto fft(X&& x) {
    using Rules = detail::fft_rules<Ty, X, L...>;
    if constexpr (Rules::check())
        return trace::heavy(
            "stablehlo.fft",
            [] {
                constexpr const char* names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
                return std::string("fft_type = #stablehlo<fft_type ") + names[static_cast<int>(Ty)] +
                       ">, fft_length = " + trace::i64_list(std::array<std::size_t, sizeof...(L)>{L...});
            },
            [&] { return detail::fft_impl<Ty, L...>(std::forward<X>(x)); }, x);
}

} // namespace xlet
