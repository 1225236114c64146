// DynamicSlice and DynamicUpdateSlice: static sizes, run-time start indices (one integer per
// dimension: any C++ integer or a rank-0 integer array). Starts are clamped as the spec says,
// start[i] = clamp(start[i], 0, operand_size[i] - slice_size[i]), so no index is ever out of range.
// Both evaluate: the result is a tensor (a run-time offset does not fit the static loop plan).
//   dynamic_slice(x, sizes<...>, starts...)          C1 one start per dimension;
//                                                    C2 0 <= size <= operand size
//   dynamic_update_slice(x, update, starts...)       C1 one start per dimension; C2 update has
//                                                    the operand's rank and element type and fits
#pragma once
#include <algorithm>

#include "../elementwise/elementwise.hpp"

namespace xlet::detail {

template<class S>
concept start_index = std::is_integral_v<std::remove_cvref_t<S>> && !std::is_same_v<std::remove_cvref_t<S>, bool>;
template<class S>
concept start_array = expression<S> && shape_of<S>::rank == 0 && is_integer<element_of<S>>;

template<class S>
std::int64_t start_value(const S& s) {
    if constexpr (start_array<S>)
        return start_value(eval(s).data()[0]);
    else if constexpr (std::is_unsigned_v<S>)
        return s > static_cast<std::make_unsigned_t<std::int64_t>>(INT64_MAX) ? INT64_MAX
                                                                              : static_cast<std::int64_t>(s);
    else
        return static_cast<std::int64_t>(s);
}

template<std::size_t R>
std::array<std::size_t, R> clamp_starts(const std::array<std::int64_t, R>& start, const extents_t<R>& whole,
                                        const extents_t<R>& part) {
    std::array<std::size_t, R> s{};
    for (std::size_t i = 0; i < R; ++i)
        s[i] = static_cast<std::size_t>(
            std::clamp<std::int64_t>(start[i], 0, static_cast<std::int64_t>(whole[i] - part[i])));
    return s;
}

// Copy a `pe`-shaped box between row-major arrays, one contiguous run per row: out of the larger
// array (FromWhole: to[j] = from[j + off]) or into it (to[j + off] = from[j]).
template<bool FromWhole, class T, std::size_t R>
void copy_box(const T* from, T* to, const extents_t<R>& we, const extents_t<R>& pe,
              const std::array<std::size_t, R>& off) {
    if constexpr (R == 0) {
        to[0] = from[0];
    } else {
        std::size_t rows = 1;
        for (std::size_t i = 0; i + 1 < R; ++i)
            rows *= pe[i];
        const std::size_t run = pe[R - 1];
        if (run == 0) return;
        const auto ws = row_major_strides(we);
        extents_t<R - 1> outer{};
        for (std::size_t i = 0; i + 1 < R; ++i)
            outer[i] = pe[i];
        for (std::size_t r = 0; r < rows; ++r) {
            auto idx = unflatten(r, outer);
            std::ptrdiff_t o = static_cast<std::ptrdiff_t>(off[R - 1]);
            for (std::size_t i = 0; i + 1 < R; ++i)
                o += static_cast<std::ptrdiff_t>(idx[i] + off[i]) * ws[i];
            if constexpr (FromWhole)
                std::copy(from + o, from + o + static_cast<std::ptrdiff_t>(run), to + r * run);
            else
                std::copy(from + r * run, from + (r + 1) * run, to + o);
        }
    }
}

} // namespace xlet::detail

namespace xlet {

template<expression X, std::int64_t... Z, class... S>
requires((detail::start_index<S> || detail::start_array<S>)&&...) auto dynamic_slice(X&& x, dims_t<Z...>,
                                                                                     const S&... start) {
    using N = detail::node_t<X>;
    using T = typename N::value_type;
    constexpr std::size_t R = N::rank;
    constexpr bool c1 = sizeof...(S) == R && sizeof...(Z) == R;
    static_assert(diag::got<c1, detail::shown_t<X>, diag::dimensions<Z...>>::value,
                  "xlet::dynamic_slice [C1]: needs one slice size and one start index per operand dimension");
    static_assert(diag::got<!is_per_axis_quantized<T>, detail::shown_t<X>>::value,
                  "xlet::dynamic_slice [I1]: the operand must not be per-axis quantized (the spec's dynamic_slice "
                  "takes per-tensor quantized tensors only)");
    if constexpr (c1 && !is_per_axis_quantized<T>) {
        static constexpr auto sz = dims_t<Z...>::value;
        constexpr bool c2 = [] {
            for (std::size_t i = 0; i < R; ++i)
                if (sz[i] < 0 || sz[i] > static_cast<std::int64_t>(N::extents[i])) return false;
            return true;
        }();
        static_assert(diag::got<c2, detail::shown_t<X>, diag::dimensions<Z...>>::value,
                      "xlet::dynamic_slice [C2]: slice sizes must be in [0, operand size]");
        if constexpr (c2) {
            auto run = [&] {
                tensor<T, static_cast<std::size_t>(Z)...> out;
                const auto& src = detail::as_array(x);
                auto off = detail::clamp_starts<R>({detail::start_value(start)...}, N::extents, out.extents);
                detail::copy_box<true, T, R>(src.data(), out.data(), N::extents, out.extents, off);
                return out;
            };
            trace::recorder* const r = trace::current();
            std::vector<int> ins;
            if constexpr (trace::compiled_in)
                if (r) [[unlikely]] {
                    ins = trace::operand_ids(*r, x);
                    (ins.push_back(trace::index_id(*r, start, [](const auto& v) { return detail::start_value(v); })),
                     ...);
                }
            return trace::run_op(
                r, "stablehlo.dynamic_slice", [] { return "slice_sizes = " + trace::i64_list(sz); }, std::move(ins), {},
                run);
        }
    }
}

template<expression X, expression U, class... S>
requires((detail::start_index<S> || detail::start_array<S>)&&...) auto dynamic_update_slice(X&& x, U&& update,
                                                                                            const S&... start) {
    using N = detail::node_t<X>;
    using T = typename N::value_type;
    constexpr std::size_t R = N::rank;
    constexpr bool c1 = sizeof...(S) == R;
    constexpr bool c2 = detail::shape_of<U>::rank == R && std::is_same_v<detail::element_of<U>, T> && [] {
        if constexpr (detail::shape_of<U>::rank != R)
            return false;
        else {
            for (std::size_t i = 0; i < R; ++i)
                if (detail::shape_of<U>::extents[i] > N::extents[i]) return false;
            return true;
        }
    }();
    static_assert(diag::got<c1, detail::shown_t<X>>::value,
                  "xlet::dynamic_update_slice [C1]: needs one start index per operand dimension");
    static_assert(
        diag::got<c2, detail::shown_t<X>, detail::shown_t<U>>::value,
        "xlet::dynamic_update_slice [C2]: update must have the operand's rank and element type and fit inside it");
    static_assert(diag::got<!is_per_axis_quantized<T>, detail::shown_t<X>>::value,
                  "xlet::dynamic_update_slice [I1]: the operand must not be per-axis quantized (the spec's "
                  "dynamic_update_slice takes per-tensor quantized tensors only)");
    if constexpr (c1 && c2 && !is_per_axis_quantized<T>) {
        auto run = [&] {
            tensor_type_of<N> out(x);
            auto up = eval(update);
            auto off = detail::clamp_starts<R>({detail::start_value(start)...}, N::extents, up.extents);
            detail::copy_box<false, T, R>(up.data(), out.data(), N::extents, up.extents, off);
            return out;
        };
        trace::recorder* const r = trace::current();
        std::vector<int> ins;
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]] {
                ins = trace::operand_ids(*r, x, update);
                (ins.push_back(trace::index_id(*r, start, [](const auto& v) { return detail::start_value(v); })), ...);
            }
        return trace::run_op(
            r, "stablehlo.dynamic_update_slice", [] { return std::string(); }, std::move(ins), {}, run);
    }
}

} // namespace xlet
