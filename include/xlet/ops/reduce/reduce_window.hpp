// ReduceWindow (spec: ReduceWindow, StableHLO reduce_window):
//   reduce_window<window_config{.window_dimensions = {2, 3}, .window_strides = {2, 3}}>(x, init, max_fn{})
//   reduce_window<window_config{.window_dimensions = {3}, .window_strides = {2}, .mode = pad_mode::same}>(v, init,
//   min_fn{}) variadic: reduce_window<W>(std::forward_as_tuple(x, y), std::tuple{ix, iy}, f) -> std::tuple
// The operand is conceptually base-dilated (holes between elements), padded, and every window
// (window_dilations apart inside, window_strides apart between windows) is reduced.
// Output size per dimension: (padded - dilated window) / stride + 1, or 0 when the window does not
// fit, where padded = (size - 1) * base_dilation + 1 + low + high.
//
// Implementation-defined choices (docs/semantics.md): padding cells (which hold init in the spec)
// and base-dilation holes (which the spec skips) are both skipped, and init is applied once per
// window, f(init, fold): the same result whenever init is an identity, as the spec requires. Each
// window folds its elements in row-major window order; monoid tags run it over SIMD lanes of the
// last dimension when that dimension is not windowed (NHWC pooling), other cases element by
// element. Outputs are spread over threads; results never depend on the thread count.
// pad_mode::same pads so that the output has ceil(size / stride) elements, low = total / 2 (XLA's
// MakePadding); pad_mode::valid pads nothing; pad_mode::explicit_ uses padding_low/high.
// Rules:
//   C1 window_dimensions has one entry per operand dimension, each > 0
//   C2 window_strides, base_dilations, window_dilations: empty (all 1) or one entry > 0 per dimension
//   C3 padding_low/high: empty (0) or one entry per dimension; explicit mode only; padded size >= 0
//   C4..C8 as reduce: operands same shape, one init each, init types, computation type, monoid type
#pragma once
#include "reduce.hpp"

namespace xlet {

struct window_config {
    dim_list window_dimensions{};
    dim_list window_strides{};   // empty: 1
    dim_list base_dilations{};   // empty: 1
    dim_list window_dilations{}; // empty: 1
    dim_list padding_low{};      // empty: 0
    dim_list padding_high{};     // empty: 0
    pad_mode mode = pad_mode::explicit_;
};

namespace detail {

template<window_config W, std::size_t R, extents_t<R> E>
struct window_plan {
    static constexpr bool sized(const dim_list& l) { return l.size() == 0 || l.size() == R; }
    static constexpr bool positive(const dim_list& l) {
        for (std::size_t i = 0; i < l.size(); ++i)
            if (l[i] <= 0) return false;
        return true;
    }
    static constexpr bool c1 = W.window_dimensions.size() == R && positive(W.window_dimensions);
    static constexpr bool c2 = sized(W.window_strides) && sized(W.base_dilations) && sized(W.window_dilations) &&
                               positive(W.window_strides) && positive(W.base_dilations) && positive(W.window_dilations);
    static constexpr std::int64_t at(const dim_list& l, std::size_t d, std::int64_t dflt) {
        return l.size() == 0 ? dflt : l[d];
    }

    struct dims_info {
        std::array<std::int64_t, R> win{}, stride{}, bdil{}, wdil{}, lo{}, hi{}, dilated{};
        extents_t<R> out{};
        bool ok = true;
    };
    static constexpr dims_info info = [] {
        dims_info r;
        if (!c1 || !c2) {
            r.ok = false;
            return r;
        }
        for (std::size_t d = 0; d < R; ++d) {
            const auto n = static_cast<std::int64_t>(E[d]);
            r.win[d] = W.window_dimensions[d];
            r.stride[d] = at(W.window_strides, d, 1);
            r.bdil[d] = at(W.base_dilations, d, 1);
            r.wdil[d] = at(W.window_dilations, d, 1);
            const std::int64_t dw = (r.win[d] - 1) * r.wdil[d] + 1;
            const std::int64_t base = n == 0 ? 0 : (n - 1) * r.bdil[d] + 1;
            if (W.mode == pad_mode::same) {
                const std::int64_t out = (base + r.stride[d] - 1) / r.stride[d];
                const std::int64_t total = std::max<std::int64_t>((out - 1) * r.stride[d] + dw - base, 0);
                r.lo[d] = total / 2;
                r.hi[d] = total - r.lo[d];
            } else if (W.mode == pad_mode::explicit_) {
                r.lo[d] = at(W.padding_low, d, 0);
                r.hi[d] = at(W.padding_high, d, 0);
            }
            const std::int64_t padded = base + r.lo[d] + r.hi[d];
            if (padded < 0) r.ok = false;
            r.dilated[d] = base;
            r.out[d] = padded < dw ? 0 : static_cast<std::size_t>((padded - dw) / r.stride[d] + 1);
        }
        return r;
    }();
    static constexpr bool c3 =
        sized(W.padding_low) && sized(W.padding_high) &&
        (W.mode == pad_mode::explicit_ || (W.padding_low.size() == 0 && W.padding_high.size() == 0)) &&
        (!c1 || !c2 || info.ok); // a C1/C2 failure is reported once
    static constexpr bool ok = c1 && c2 && c3;
    static constexpr std::size_t window_size = [] {
        std::size_t n = 1;
        for (std::size_t d = 0; d < R; ++d)
            n *= static_cast<std::size_t>(info.win[d]);
        return n;
    }();
    // SIMD over the last dimension: not windowed, not strided, dilated or padded.
    static constexpr bool row_path = R > 0 && info.win[R - 1] == 1 && info.stride[R - 1] == 1 &&
                                     info.bdil[R - 1] == 1 && info.lo[R - 1] == 0 && info.hi[R - 1] == 0;

    // Offset of the input element a window cell reads, or -1 for padding and holes.
    static std::ptrdiff_t source(const std::array<std::size_t, R>& o, const std::array<std::size_t, R>& k,
                                 std::size_t dims) {
        constexpr auto strides = row_major_strides(E);
        std::ptrdiff_t off = 0;
        for (std::size_t d = 0; d < dims; ++d) {
            const std::int64_t p = static_cast<std::int64_t>(o[d]) * info.stride[d] +
                                   static_cast<std::int64_t>(k[d]) * info.wdil[d] - info.lo[d];
            if (p < 0 || p >= info.dilated[d] || p % info.bdil[d] != 0) return -1;
            off += static_cast<std::ptrdiff_t>(p / info.bdil[d]) * strides[d];
        }
        return off;
    }
};

template<class Body>
void for_outputs(std::size_t n, double work, const Body& body) {
    if (n > 1 && work >= parallel_threshold)
        run_parallel(tbb::blocked_range<std::size_t>(0, n), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t u = r.begin(); u != r.end(); ++u)
                body(u);
        });
    else
        for (std::size_t u = 0; u < n; ++u)
            body(u);
}

// Generic: every output folds its window's elements sequentially (all operands at once).
template<class P, std::size_t R, class F, class... T>
void window_generic(const std::tuple<T*...>& outs, const std::tuple<const T*...>& ins, const F& f,
                    const acc_tuple<T...>& init) {
    constexpr std::size_t n_out = product(P::info.out);
    constexpr extents_t<R> wext = [] {
        extents_t<R> e{};
        for (std::size_t d = 0; d < R; ++d)
            e[d] = static_cast<std::size_t>(P::info.win[d]);
        return e;
    }();
    for_outputs(n_out, static_cast<double>(n_out) * static_cast<double>(P::window_size), [&](std::size_t u) {
        const auto o = unflatten(u, P::info.out);
        acc_tuple<T...> acc = init;
        std::array<std::size_t, R> k{};
        for (std::size_t w = 0; w < P::window_size; ++w) {
            const std::ptrdiff_t at = P::source(o, k, R);
            if (at >= 0) [&]<std::size_t... I>(std::index_sequence<I...>) {
                    fold_step(f, acc, std::get<I>(ins)[at]...);
                }
            (std::index_sequence_for<T...>{});
            for (std::size_t d = R; d-- > 0 && ++k[d] == wext[d];)
                k[d] = 0;
        }
        [&]<std::size_t... I>(std::index_sequence<I...>) { ((std::get<I>(outs)[u] = std::get<I>(acc)), ...); }
        (std::index_sequence_for<T...>{});
    });
}

// Monoid with an unwindowed last dimension: each output row accumulates whole input rows in vec
// lanes, window cell after window cell (the same per-element order as the generic fold).
template<class P, std::size_t R, extents_t<R> E, class Fm, class T>
void window_rows(T* out, const T* in, compute_t<T> init) {
    using C = compute_t<T>;
    constexpr std::size_t N = std::max<std::size_t>(4, lanes_of<C>());
    using V = vec<C, N>;
    constexpr std::size_t cols = E[R - 1];
    constexpr std::size_t blk = std::min<std::size_t>((cols + N - 1) / N * N, 16 * N); // accumulators stay in registers
    constexpr std::size_t nblk = (cols + blk - 1) / blk;
    constexpr std::size_t rows = cols == 0 ? 0 : product(P::info.out) / cols;
    constexpr C id = monoid_identity<Fm, C>();
    constexpr extents_t<R> wext = [] {
        extents_t<R> e{};
        for (std::size_t d = 0; d < R; ++d)
            e[d] = static_cast<std::size_t>(P::info.win[d]);
        return e;
    }();
    for_outputs(rows * nblk, static_cast<double>(rows * cols) * static_cast<double>(P::window_size),
                [&](std::size_t u) {
                    const std::size_t row = u / nblk, c0 = (u % nblk) * blk, w = std::min(blk, cols - c0);
                    auto o = unflatten(row * cols, P::info.out);
                    std::array<V, blk / N> acc;
                    acc.fill(V::broadcast(id));
                    std::array<std::size_t, R> k{};
                    for (std::size_t cell = 0; cell < P::window_size; ++cell) {
                        const std::ptrdiff_t at = P::source(o, k, R - 1);
                        if (at >= 0) {
                            const T* p = in + at + static_cast<std::ptrdiff_t>(c0);
                            std::size_t j = 0;
                            for (; j + N <= w; j += N)
                                acc[j / N] = apply_vec<Fm, C, N>(acc[j / N], load_vec<N, 1>(p + j));
                            if (j < w)
                                acc[j / N] = apply_vec<Fm, C, N>(acc[j / N], load_vec_partial<N, 1>(p + j, w - j));
                        }
                        for (std::size_t d = R - 1; d-- > 0 && ++k[d] == wext[d];)
                            k[d] = 0;
                    }
                    T* dst = out + row * cols + c0;
                    for (std::size_t j = 0; j < w; j += N) {
                        auto l = to_lanes(acc[j / N]);
                        for (std::size_t q = 0; q < N && j + q < w; ++q)
                            dst[j + q] = narrow<T>(round_scalar_to_storage<T>(static_cast<C>(Fm::scalar(init, l[q]))));
                    }
                });
}

template<window_config W, class F, class Xs, class Is>
struct window_rules;
template<window_config W, class F, class... X, class... I>
struct window_rules<W, F, std::tuple<X...>, std::tuple<I...>> {
    using X0 = std::tuple_element_t<0, std::tuple<X...>>;
    static constexpr std::size_t R = shape_of<X0>::rank;
    using P = window_plan<W, R, shape_of<X0>::extents>;
    using base = reduce_rules<F, std::tuple<X...>, std::tuple<I...>, dims_t<>>;
    static consteval bool check() {
        static_assert(diag::got<P::c1, shown_t<X0>>::value,
                      "xlet::reduce_window [C1]: window_dimensions needs one entry > 0 per operand dimension");
        static_assert(diag::got<P::c2, shown_t<X0>>::value,
                      "xlet::reduce_window [C2]: window_strides, base_dilations and window_dilations must be empty or "
                      "give one entry > 0 per dimension");
        static_assert(
            diag::got<P::c3, shown_t<X0>>::value,
            "xlet::reduce_window [C3]: padding_low/high must be empty or give one entry per dimension (explicit "
            "mode only) and leave every padded size >= 0");
        static_assert(diag::got<base::c2, shown_t<X>...>::value,
                      "xlet::reduce_window [C4]: all operands must have the same shape");
        static_assert(diag::got<base::c3, shown_t<X>..., I...>::value,
                      "xlet::reduce_window [C5]: one init value per operand");
        static_assert(diag::got<base::c4, shown_t<X>..., shown_t<I>...>::value,
                      "xlet::reduce_window [C6]: each init value must be a scalar of its operand's element type");
        static_assert(diag::got<base::c5, shown_t<X>..., F>::value,
                      "xlet::reduce_window [C7]: the computation must take (accumulators..., values...) of the operand "
                      "element types and return one value per operand (a tuple when there are several)");
        static_assert(diag::got<base::c6, shown_t<X>..., F>::value,
                      "xlet::reduce_window [C8]: the monoid is not defined on this element type");
        return P::ok && base::c2 && base::c3 && base::c4 && base::c5 && base::c6;
    }
};

// The window attributes of reduce_window and select_and_scatter, as StableHLO spells them (the
// padding that pad_mode chose, explicit).
template<class P, std::size_t R>
std::string window_attrs(bool dilations) {
    std::string pad = "dense<";
    if (R == 0) {
        pad += "";
    } else {
        pad += "[";
        for (std::size_t d = 0; d < R; ++d)
            pad += (d ? ", [" : "[") + std::to_string(P::info.lo[d]) + ", " + std::to_string(P::info.hi[d]) + "]";
        pad += "]";
    }
    pad += "> : tensor<" + std::to_string(R) + "x2xi64>";
    std::string s =
        "window_dimensions = " + trace::i64_list(P::info.win) + ", window_strides = " + trace::i64_list(P::info.stride);
    if (dilations)
        s += ", base_dilations = " + trace::i64_list(P::info.bdil) +
             ", window_dilations = " + trace::i64_list(P::info.wdil);
    return s + ", padding = " + pad;
}

template<window_config W, class F, class Xs, class Is, std::size_t... K>
auto reduce_window_run(Xs&& xs, const Is& inits, const F& f, std::index_sequence<K...>);

// Traced (to_stablehlo): one stablehlo.reduce_window with the computation as its region.
template<window_config W, class F, class Xs, class Is, std::size_t... K>
auto reduce_window_impl(Xs&& xs, const Is& inits, const F& f, std::index_sequence<K...> ks) {
    using Rules = window_rules<W, F, std::remove_cvref_t<Xs>, Is>;
    trace::recorder* const r = trace::current();
    std::vector<int> ins, regions;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]] {
            using Ts = std::tuple<element_of<std::tuple_element_t<K, std::remove_cvref_t<Xs>>>...>;
            ins = trace::operand_ids(*r, xs);
            (ins.push_back(trace::init_id<std::tuple_element_t<K, Ts>>(*r, std::get<K>(inits))), ...);
            regions = {trace::computation_of<Ts, trace::args::twice>(*r, f, "reduce_window")};
        }
    return trace::run_op(
        r, "stablehlo.reduce_window", [] { return window_attrs<typename Rules::P, Rules::R>(true); }, std::move(ins),
        std::move(regions), [&] { return reduce_window_run<W>(std::forward<Xs>(xs), inits, f, ks); });
}

template<window_config W, class F, class Xs, class Is, std::size_t... K>
auto reduce_window_run(Xs&& xs, const Is& inits, const F& f, std::index_sequence<K...>) {
    using Rules = window_rules<W, F, std::remove_cvref_t<Xs>, Is>;
    using P = typename Rules::P;
    constexpr std::size_t R = Rules::R;
    using X0 = std::remove_cvref_t<std::tuple_element_t<0, std::remove_cvref_t<Xs>>>;
    // Arrays by reference, anything else evaluated once into a tensor held here.
    std::tuple<decltype(as_array(std::get<K>(std::forward<Xs>(xs))))...> src{
        as_array(std::get<K>(std::forward<Xs>(xs)))...};
    static constexpr extents_t<R> OE = P::info.out; // named first: GCC 12 crashes on the member as an argument
    std::tuple<tensor_of_extents<element_of<std::tuple_element_t<K, std::remove_cvref_t<Xs>>>, R, OE>...> outs;
    if constexpr (sizeof...(K) == 1 && is_monoid<F> && P::row_path) {
        using T = element_of<X0>;
        window_rows<P, R, X0::extents, F>(std::get<0>(outs).data(), std::get<0>(src).data(),
                                          init_value<T>(std::get<0>(inits)));
    } else {
        using Ts = acc_tuple<element_of<std::tuple_element_t<K, std::remove_cvref_t<Xs>>>...>;
        Ts init{narrow<std::tuple_element_t<K, Ts>>(init_value<std::tuple_element_t<K, Ts>>(std::get<K>(inits)))...};
        const std::tuple<const element_of<std::tuple_element_t<K, std::remove_cvref_t<Xs>>>*...> ins{
            std::get<K>(src).data()...};
        if constexpr (is_monoid<F>) { // a monoid off the row path: its scalar form as the callable
            using T = std::tuple_element_t<0, Ts>;
            auto g = [](T a, T b) {
                return narrow<T>(round_scalar_to_storage<T>(static_cast<compute_t<T>>(F::scalar(widen(a), widen(b)))));
            };
            window_generic<P, R>(std::make_tuple(std::get<K>(outs).data()...), ins, g, init);
        } else {
            window_generic<P, R>(std::make_tuple(std::get<K>(outs).data()...), ins, f, init);
        }
    }
    return outs;
}

} // namespace detail

template<window_config W, expression X, class I, class F>
auto reduce_window(X&& x, const I& init, const F& f) {
    using Rules = detail::window_rules<W, F, std::tuple<X>, std::tuple<I>>;
    if constexpr (Rules::check())
        return std::move(std::get<0>(detail::reduce_window_impl<W>(std::forward_as_tuple(std::forward<X>(x)),
                                                                   std::tie(init), f, std::index_sequence<0>{})));
}

template<window_config W, class... X, class... I, class F>
requires(sizeof...(X) > 0 && (expression<X> && ...)) auto reduce_window(std::tuple<X...> xs,
                                                                        const std::tuple<I...>& inits, const F& f) {
    using Rules = detail::window_rules<W, F, std::tuple<X...>, std::tuple<I...>>;
    if constexpr (Rules::check())
        return detail::reduce_window_impl<W>(std::move(xs), inits, f, std::index_sequence_for<X...>{});
}

} // namespace xlet
