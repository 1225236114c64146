// SelectAndScatter (spec: SelectAndScatter, StableHLO select_and_scatter):
//   select_and_scatter<window_config{.window_dimensions = {3, 3}, .window_strides = {2, 2}}>(
//       operand, [](float a, float b) { return a >= b; }, source, 0.0f, [](float a, float b) { return a + b; })
// Every window of the operand (windows as reduce_window, without dilations: SelectAndScatter has
// none, but window_config's dilation lists are accepted at their default, empty or all 1) selects one element:
// walking the window in row-major order, the selected element s is replaced by the next element e
// when select(s, e) is false (select is always called with the lower index first, as the spec
// says). The output starts as init everywhere; for each window, in row-major window order,
// out[selected] = scatter(out[selected], source[window]). Overlapping windows that pick the same
// element combine there (the spec's "9 selected twice gives 8").
// Implementation-defined choices (docs/semantics.md): padding cells are never selected, and a
// window with no operand element drops its source value; scatter runs in row-major window order
// (deterministic); the selection runs in parallel over windows, the scatter sequentially.
// Rules:
//   C1-C3 the window rules of reduce_window
//   C4 source has the shape of reduce_window's result and the operand's element type
//   C5 init is a scalar of the element type
//   C6 select(T, T) returns bool; C7 scatter(T, T) returns T
//   C8 base_dilations and window_dilations are empty or all 1 (their default: the op has none)
#pragma once
#include "reduce_window.hpp"

namespace xlet {

namespace detail {
template<window_config W, expression X, class F, expression Src, class I, class G>
auto select_and_scatter_untraced(X&& operand, const F& select, Src&& source, const I& init, const G& scatter) {
    using T = detail::element_of<X>;
    constexpr std::size_t R = detail::shape_of<X>::rank;
    using P = detail::window_plan<W, R, detail::shape_of<X>::extents>;
    using XT = detail::shown_t<X>;
    using ST = detail::shown_t<Src>;
    constexpr auto all_one = [](const dim_list& l) {
        for (std::size_t i = 0; i < l.size(); ++i)
            if (l[i] != 1) return false;
        return true;
    };
    constexpr bool no_dil = all_one(W.base_dilations) && all_one(W.window_dilations);
    constexpr bool c4 = [] {
        if constexpr (!P::ok || !no_dil)
            return true; // reported by C1-C3 or C8
        else
            return same_extents(detail::shape_of<Src>::extents, P::info.out) &&
                   std::is_same_v<detail::element_of<Src>, T>;
    }();
    constexpr bool c5 = detail::init_fits<T, I>;
    constexpr bool c6 = std::is_invocable_r_v<bool, const F&, T, T>;
    constexpr bool c7 = std::is_invocable_r_v<T, const G&, T, T>;
    static_assert(diag::got<P::c1, XT>::value,
                  "xlet::select_and_scatter [C1]: window_dimensions needs one entry > 0 per operand dimension");
    static_assert(diag::got<P::c2, XT>::value,
                  "xlet::select_and_scatter [C2]: window_strides, base_dilations and window_dilations must be empty or "
                  "give one entry > 0 per dimension");
    static_assert(
        diag::got<P::c3, XT>::value,
        "xlet::select_and_scatter [C3]: padding_low/high must be empty or give one entry per dimension (explicit mode "
        "only) and leave every padded size >= 0");
    static_assert(diag::got<c4, XT, ST>::value, "xlet::select_and_scatter [C4]: source must have the shape of the "
                                                "window outputs and the operand's element type");
    static_assert(diag::got<c5, XT, detail::shown_t<I>>::value,
                  "xlet::select_and_scatter [C5]: init must be a scalar of the element type");
    static_assert(diag::got<c6, XT, F>::value,
                  "xlet::select_and_scatter [C6]: select must take two elements and return bool");
    static_assert(diag::got<c7, XT, G>::value,
                  "xlet::select_and_scatter [C7]: scatter must take two elements and return one");
    static_assert(diag::got < !P::c2 || no_dil, XT > ::value,
                  "xlet::select_and_scatter [C8]: base_dilations and window_dilations must be empty or all 1 "
                  "(SelectAndScatter has no dilations)");
    if constexpr (P::ok && no_dil && c4 && c5 && c6 && c7) {
        decltype(auto) op = detail::as_array(std::forward<X>(operand));
        decltype(auto) src = detail::as_array(std::forward<Src>(source));
        constexpr std::size_t n_win = product(P::info.out);
        constexpr extents_t<R> wext = [] {
            extents_t<R> e{};
            for (std::size_t d = 0; d < R; ++d)
                e[d] = static_cast<std::size_t>(P::info.win[d]);
            return e;
        }();
        // Phase 1 (parallel, read-only): the selected offset of every window, -1 if none.
        std::vector<std::ptrdiff_t> picked(n_win);
        detail::for_outputs(n_win, static_cast<double>(n_win) * static_cast<double>(P::window_size),
                            [&](std::size_t u) {
                                const auto o = unflatten(u, P::info.out);
                                std::array<std::size_t, R> k{};
                                std::ptrdiff_t sel = -1;
                                for (std::size_t c = 0; c < P::window_size; ++c) {
                                    const std::ptrdiff_t at = P::source(o, k, R);
                                    if (at >= 0 && (sel < 0 || !select(op.data()[sel], op.data()[at]))) sel = at;
                                    for (std::size_t d = R; d-- > 0 && ++k[d] == wext[d];)
                                        k[d] = 0;
                                }
                                picked[u] = sel;
                            });
        // Phase 2 (sequential, window order): scatter.
        using Out = tensor_type_of<std::remove_cvref_t<X>>;
        Out out;
        const T iv = detail::narrow<T>(detail::init_value<T>(init));
        std::fill(out.data(), out.data() + Out::size(), iv);
        for (std::size_t u = 0; u < n_win; ++u)
            if (picked[u] >= 0) out.data()[picked[u]] = static_cast<T>(scatter(out.data()[picked[u]], src.data()[u]));
        return out;
    }
}

} // namespace detail

template<window_config W, expression X, class F, expression Src, class I, class G>
auto select_and_scatter(X&& operand, const F& select, Src&& source, const I& init, const G& scatter) {
    auto run = [&] {
        return detail::select_and_scatter_untraced<W>(std::forward<X>(operand), select, std::forward<Src>(source), init,
                                                      scatter);
    };
    if constexpr (!std::is_void_v<decltype(run())>) {
        using T = detail::element_of<X>;
        constexpr std::size_t R = detail::shape_of<X>::rank;
        using P = detail::window_plan<W, R, detail::shape_of<X>::extents>;
        trace::recorder* const r = trace::current();
        std::vector<int> ins, regions;
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]] {
                ins = trace::operand_ids(*r, operand, source);
                ins.push_back(trace::init_id<T>(*r, init));
                regions = {trace::computation<T, T>(*r, select, "select_and_scatter (select)"),
                           trace::computation<T, T>(*r, scatter, "select_and_scatter (scatter)")};
            }
        return trace::run_op(
            r, "stablehlo.select_and_scatter", [] { return detail::window_attrs<P, R>(false); }, std::move(ins),
            std::move(regions), run);
    } else {
        return run();
    }
}

} // namespace xlet
