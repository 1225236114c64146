// Scatter (spec: Scatter; StableHLO scatter for the batching dimensions):
//   scatter<scatter_dims{.update_window_dims = {1}, .inserted_window_dims = {0},
//                        .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 1}>(
//       operand, scatter_indices, updates, [](auto current, auto update) { return current + update; })
// Variadic form: operands and updates as std::tuple (same count), the computation takes all
// current values then all updates and returns a std::tuple; the result is a std::tuple of tensors.
// The computation is called as (current..., update...), in that order.
// Semantics chosen where the spec leaves them open (docs/semantics.md): an update window that
// does not fit inside the operand (any index out of bounds) is skipped whole, as XLA does; updates
// are applied one at a time, window after window in row-major order of the scatter (batch) index,
// and within a window in row-major window order, so any computation, commutative or not, gives a
// deterministic result. indices_are_sorted and unique_indices are hints only.
// Large scatters with windows of 4 KiB or more split the operand's dimension 0 between threads:
// each thread walks every window in that order and applies the elements that land in its rows, so
// every element receives its updates in the sequential order and the result is the same for any
// thread count (the computation is then called from several threads at once, on different
// elements). Smaller windows (embedding rows) go on one thread, which prefetches the operand rows
// of the windows 16 ahead: that beats two threads on a two-core machine (docs/performance.md). Updates that
// are arrays are read in place; an rvalue operand tensor is updated in place.
// Rules:
//   C1 rank(updates) = |update_window_dims| + number of scatter (batch) dimensions of indices
//   C2 update_window_dims sorted, unique, in range of the updates
//   C3 inserted_window_dims sorted, unique, in range, not batching dims
//   C4 rank(operand) = |update_window_dims| + |inserted_window_dims| + |input_batching_dims|
//   C5 scatter_dims_to_operand_dims: one per index-vector element, unique, in range, not batching
//   C6 index_vector_dim in [0, rank(scatter_indices)]
//   C7 update scatter dimension sizes equal the indices' batch sizes; window sizes fit the operand
//   C8 scatter_indices has an integer element type
//   C9 updates have the operands' element types; the computation returns them
//   C10 input_batching_dims / scatter_indices_batching_dims pair up dimensions of equal size
#pragma once
#include "../../core/simd.hpp" // first: the intrinsic headers before TBB reads them (see there)
#include <algorithm>
#include <array>
#include <tuple>

#include "gather.hpp" // (and eval/parallel.hpp)

namespace xlet {

struct scatter_dims {
    dim_list update_window_dims{};
    dim_list inserted_window_dims{};
    dim_list scatter_dims_to_operand_dims{};
    std::int64_t index_vector_dim = -1; // -1: rank(scatter_indices), the implicit trailing dimension
    dim_list input_batching_dims{};
    dim_list scatter_indices_batching_dims{};
    bool indices_are_sorted = false;
    bool unique_indices = false;
};

namespace detail {

template<scatter_dims S, std::size_t Ro, extents_t<Ro> Eo, std::size_t Ri, extents_t<Ri> Ei, std::size_t Ru,
         extents_t<Ru> Eu>
struct scatter_plan {
    static constexpr std::size_t ivd = S.index_vector_dim < 0 ? Ri : static_cast<std::size_t>(S.index_vector_dim);
    static constexpr std::size_t index_vector = ivd < Ri ? Ei[ivd] : 1;
    static constexpr std::size_t batch_rank = ivd < Ri ? Ri - 1 : Ri;

    static constexpr bool c6 =
        S.index_vector_dim >= -1 && (S.index_vector_dim < 0 || static_cast<std::size_t>(S.index_vector_dim) <= Ri);
    static constexpr bool c1 = Ru == S.update_window_dims.size() + batch_rank;
    static constexpr bool c2 =
        S.update_window_dims.sorted() && S.update_window_dims.unique() && S.update_window_dims.in_range(Ru);
    static constexpr bool c3 = S.inserted_window_dims.sorted() && S.inserted_window_dims.unique() &&
                               S.inserted_window_dims.in_range(Ro) && [] {
                                   for (std::size_t i = 0; i < S.inserted_window_dims.size(); ++i)
                                       if (S.input_batching_dims.contains(S.inserted_window_dims[i])) return false;
                                   return true;
                               }();
    static constexpr bool c4 =
        Ro == S.update_window_dims.size() + S.inserted_window_dims.size() + S.input_batching_dims.size();
    static constexpr bool c5 = S.scatter_dims_to_operand_dims.size() == index_vector &&
                               S.scatter_dims_to_operand_dims.unique() && S.scatter_dims_to_operand_dims.in_range(Ro) &&
                               [] {
                                   for (std::size_t i = 0; i < S.scatter_dims_to_operand_dims.size(); ++i)
                                       if (S.input_batching_dims.contains(S.scatter_dims_to_operand_dims[i]))
                                           return false;
                                   return true;
                               }();
    static constexpr bool c10 = S.input_batching_dims.sorted() && S.input_batching_dims.unique() &&
                                S.input_batching_dims.in_range(Ro) && S.scatter_indices_batching_dims.unique() &&
                                S.scatter_indices_batching_dims.in_range(Ri) &&
                                !S.scatter_indices_batching_dims.contains(static_cast<std::int64_t>(ivd)) &&
                                S.input_batching_dims.size() == S.scatter_indices_batching_dims.size() && [] {
                                    for (std::size_t i = 0; i < S.input_batching_dims.size(); ++i) {
                                        auto od = static_cast<std::size_t>(S.input_batching_dims[i]);
                                        auto id = static_cast<std::size_t>(S.scatter_indices_batching_dims[i]);
                                        if (od >= Ro || id >= Ri || Eo[od] != Ei[id]) return false;
                                    }
                                    return true;
                                }();
    static constexpr bool shape_rules = c1 && c2 && c3 && c4 && c5 && c6 && c10;

    static constexpr std::array<std::size_t, batch_rank> batch_src = [] { // indices dims, in order
        std::array<std::size_t, batch_rank> b{};
        for (std::size_t d = 0, k = 0; d < Ri; ++d)
            if (d != ivd) b[k++] = d;
        return b;
    }();
    static constexpr std::array<std::size_t, batch_rank> batch_pos = [] { // update dims not window dims
        std::array<std::size_t, batch_rank> b{};
        for (std::size_t p = 0, k = 0; p < Ru && k < batch_rank; ++p)
            if (!S.update_window_dims.contains(static_cast<std::int64_t>(p))) b[k++] = p;
        return b;
    }();
    // The operand dimension each update window dimension moves along, in order.
    static constexpr std::array<std::size_t, Ro> window_operand_dim = [] {
        std::array<std::size_t, Ro> w{};
        for (std::size_t d = 0, k = 0; d < Ro; ++d)
            if (!S.inserted_window_dims.contains(static_cast<std::int64_t>(d)) &&
                !S.input_batching_dims.contains(static_cast<std::int64_t>(d)))
                w[k++] = d;
        return w;
    }();
    static constexpr bool c7 = shape_rules && [] {
        for (std::size_t k = 0; k < batch_rank; ++k)
            if (Eu[batch_pos[k]] != Ei[batch_src[k]]) return false;
        for (std::size_t k = 0; k < S.update_window_dims.size(); ++k)
            if (Eu[static_cast<std::size_t>(S.update_window_dims[k])] > Eo[window_operand_dim[k]]) return false;
        return true;
    }();
    static constexpr bool ok = shape_rules && c7;

    // The window as a box over operand dimensions (size 1 on inserted and batching dimensions),
    // with the update's stride for each.
    static constexpr extents_t<Ro> window = [] {
        extents_t<Ro> w{};
        w.fill(1);
        if constexpr (ok)
            for (std::size_t k = 0; k < S.update_window_dims.size(); ++k)
                w[window_operand_dim[k]] = Eu[static_cast<std::size_t>(S.update_window_dims[k])];
        return w;
    }();
    static constexpr std::array<std::ptrdiff_t, Ro> window_update_stride = [] {
        std::array<std::ptrdiff_t, Ro> s{};
        if constexpr (ok) {
            auto us = row_major_strides(Eu);
            for (std::size_t k = 0; k < S.update_window_dims.size(); ++k)
                s[window_operand_dim[k]] = us[static_cast<std::size_t>(S.update_window_dims[k])];
        }
        return s;
    }();
    static constexpr extents_t<batch_rank> batch_extents = [] {
        extents_t<batch_rank> e{};
        for (std::size_t k = 0; k < batch_rank; ++k)
            e[k] = Ei[batch_src[k]];
        return e;
    }();
};

template<class T>
struct is_tuple : std::false_type {};
template<class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

// Work (window elements × windows) above which the operand's rows are split between threads, if
// the windows are large: each thread walks every window and skips those outside its rows, so with
// small windows the threads' update reads interleave at random and the hardware prefetchers fetch
// the update rows for both (the [65536,64] embedding scatter-add ran at 0.6x of one thread).
inline constexpr std::size_t scatter_parallel_elements = 1 << 16;
inline constexpr std::size_t scatter_parallel_window_bytes = 4096;

template<scatter_dims S, class Ops, class I, class Ups, class F>
auto scatter_impl(Ops ops, const I& indices, const Ups& ups, F&& f) {
    // ops: tuple of owning result tensors (copies of the operands); ups: tuple of evaluated updates
    // (references to the caller's arrays where they already were arrays).
    using O0 = std::remove_cvref_t<std::tuple_element_t<0, Ops>>;
    using U0 = std::remove_cvref_t<std::tuple_element_t<0, Ups>>;
    using P = scatter_plan<S, O0::rank, O0::extents, I::rank, I::extents, U0::rank, U0::extents>;
    constexpr std::size_t Ro = O0::rank;
    constexpr auto op_strides = row_major_strides(O0::extents);
    constexpr auto idx_strides = row_major_strides(I::extents);
    constexpr auto up_strides = row_major_strides(U0::extents);
    constexpr std::size_t n = std::tuple_size_v<Ops>;
    constexpr std::size_t batches = product(P::batch_extents);
    // A window is walked as rows along the operand's last dimension (contiguous there); the rows
    // are the window's other dimensions, row-major: the spec's window order.
    constexpr std::size_t Rw = Ro == 0 ? 0 : Ro - 1;
    constexpr std::size_t run = Ro == 0 ? 1 : P::window[Ro - 1];
    constexpr std::ptrdiff_t ustep = Ro == 0 ? 0 : P::window_update_stride[Ro - 1];
    constexpr extents_t<Rw> wrow_extents = [] {
        extents_t<Rw> e{};
        for (std::size_t d = 0; d < Rw; ++d)
            e[d] = P::window[d];
        return e;
    }();
    constexpr std::size_t wrows = product(wrow_extents);
    constexpr std::size_t rows0 = Ro == 0 ? 1 : O0::extents[0];

    // Elements [k0, k1) of one window row: operand offset oo, update offset uo. The result is a
    // copy of the operand (or an rvalue operand no update shares storage with, checked by the
    // caller), so it never aliases an update: the one-operand loop vectorises without overlap checks.
    auto apply_run = [&](std::ptrdiff_t oo, std::ptrdiff_t uo, std::size_t k0, std::size_t k1) {
        if constexpr (n == 1) {
            auto* __restrict dst = std::get<0>(ops).data() + oo;
            const auto* __restrict up = std::get<0>(ups).data() + uo;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push // GCC 12 warns of 16-byte vector stores into 8-byte (inline) arrays, on a
#pragma GCC diagnostic ignored "-Wstringop-overflow" // path a run of at most `run` <= 8 never takes
#endif
            for (std::size_t k = k0; k < k1; ++k)
                dst[k] = f(dst[k], up[static_cast<std::ptrdiff_t>(k) * ustep]);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
        } else {
            for (std::size_t k = k0; k < k1; ++k) {
                const std::ptrdiff_t o = oo + static_cast<std::ptrdiff_t>(k),
                                     u = uo + static_cast<std::ptrdiff_t>(k) * ustep;
                [&]<std::size_t... K>(std::index_sequence<K...>) {
                    auto r = f(std::get<K>(ops).data()[o]..., std::get<K>(ups).data()[u]...);
                    ((std::get<K>(ops).data()[o] = std::get<K>(r)), ...);
                }
                (std::make_index_sequence<n>{});
            }
        }
    };
    // Where window b lands: its operand start (false if it is skipped: out of bounds, or none of
    // its rows along dimension 0 lies in [lo, hi)), its operand and update offsets.
    struct placed {
        std::ptrdiff_t obase, ubase;
        std::size_t s0;
    };
    auto place = [&](std::size_t b, std::size_t lo, std::size_t hi, placed& out) {
        auto bi = unflatten(b, P::batch_extents);
        std::ptrdiff_t ibase = 0, ubase = 0;
        for (std::size_t k = 0; k < P::batch_rank; ++k) {
            ibase += static_cast<std::ptrdiff_t>(bi[k]) * idx_strides[P::batch_src[k]];
            ubase += static_cast<std::ptrdiff_t>(bi[k]) * up_strides[P::batch_pos[k]];
        }
        std::array<std::int64_t, Ro> start{};
        for (std::size_t k = 0; k < S.scatter_dims_to_operand_dims.size(); ++k) {
            std::ptrdiff_t at =
                ibase +
                (P::ivd < I::rank ? static_cast<std::ptrdiff_t>(k) * idx_strides[P::ivd < I::rank ? P::ivd : 0] : 0);
            start[static_cast<std::size_t>(S.scatter_dims_to_operand_dims[k])] = start_value(indices.data()[at]);
        }
        for (std::size_t k = 0; k < S.input_batching_dims.size(); ++k) {
            std::size_t pos = 0;
            while (P::batch_src[pos] != static_cast<std::size_t>(S.scatter_indices_batching_dims[k]))
                ++pos;
            start[static_cast<std::size_t>(S.input_batching_dims[k])] = static_cast<std::int64_t>(bi[pos]);
        }
        bool inside = true;
        for (std::size_t d = 0; d < Ro; ++d)
            inside &= start[d] >= 0 && start[d] <= static_cast<std::int64_t>(O0::extents[d] - P::window[d]);
        if (!inside) return false;  // the whole window is skipped
        std::size_t s0 = 0, w0 = 1; // the window's rows along dimension 0
        if constexpr (Ro > 0) {
            s0 = static_cast<std::size_t>(start[0]);
            w0 = P::window[0];
        }
        if (s0 >= hi || s0 + w0 <= lo) return false;
        std::ptrdiff_t obase = 0;
        for (std::size_t d = 0; d < Ro; ++d)
            obase += static_cast<std::ptrdiff_t>(start[d]) * op_strides[d];
        out = {obase, ubase, s0};
        return true;
    };
    auto apply_window = [&](const placed& w, std::size_t lo, std::size_t hi) {
        for (std::size_t r = 0; r < wrows; ++r) {
            auto wi = unflatten(r, wrow_extents);
            std::ptrdiff_t oo = w.obase, uo = w.ubase;
            for (std::size_t d = 0; d < Rw; ++d) {
                oo += static_cast<std::ptrdiff_t>(wi[d]) * op_strides[d];
                uo += static_cast<std::ptrdiff_t>(wi[d]) * P::window_update_stride[d];
            }
            if constexpr (Ro == 1) { // the run itself lies along dimension 0
                apply_run(oo, uo, std::max(w.s0, lo) - w.s0, std::min(w.s0 + run, hi) - w.s0);
            } else {
                if constexpr (Ro > 1) {
                    const std::size_t row = w.s0 + wi[0];
                    if (row < lo || row >= hi) continue;
                }
                apply_run(oo, uo, 0, run);
            }
        }
    };
    // Every window in order, but only its elements in operand rows [lo, hi) of dimension 0: split
    // into row ranges, each element still receives its updates in the sequential order. Windows go
    // through walk_ahead (gather.hpp): the operand rows are random accesses (the updates stream),
    // so the start of each window's first operand row is prefetched, for writing, 16 windows before
    // it is applied (27% faster on the embedding scatter-add of bench/layout_bench).
    constexpr std::size_t prefetch_bytes = std::min<std::size_t>(run * sizeof(typename O0::value_type), 256);
    auto apply_rows = [&](std::size_t lo, std::size_t hi) {
        walk_ahead<16, placed>(
            0, batches,
            [&](std::size_t b, placed& w) {
                if (!place(b, lo, hi, w)) return false;
                prefetch_lines<true>(std::get<0>(ops).data() + w.obase, prefetch_bytes);
                return true;
            },
            [&](const placed& w) { apply_window(w, lo, hi); });
    };
    constexpr bool parallel = batches * product(P::window) >= scatter_parallel_elements && rows0 > 1 &&
                              product(P::window) * sizeof(typename O0::value_type) >= scatter_parallel_window_bytes;
    const std::size_t parts = parallel ? std::min(rows0, parallel_threads()) : 1;
    if (parts > 1) {
        run_parallel(tbb::blocked_range<std::size_t>(0, parts, 1), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t p = r.begin(); p != r.end(); ++p)
                apply_rows(p * rows0 / parts, (p + 1) * rows0 / parts);
        });
    } else {
        apply_rows(0, rows0);
    }
    return ops;
}

} // namespace detail

namespace detail {
template<scatter_dims S, std::size_t RI>
std::string scatter_attrs() {
    const std::int64_t ivd = S.index_vector_dim < 0 ? static_cast<std::int64_t>(RI) : S.index_vector_dim;
    std::string d = "update_window_dims = " + trace::int_list(S.update_window_dims) +
                    ", inserted_window_dims = " + trace::int_list(S.inserted_window_dims);
    if (S.input_batching_dims.size())
        d += ", input_batching_dims = " + trace::int_list(S.input_batching_dims) +
             ", scatter_indices_batching_dims = " + trace::int_list(S.scatter_indices_batching_dims);
    d += ", scatter_dims_to_operand_dims = " + trace::int_list(S.scatter_dims_to_operand_dims) +
         ", index_vector_dim = " + std::to_string(ivd);
    return "scatter_dimension_numbers = #stablehlo.scatter<" + d +
           ">, indices_are_sorted = " + (S.indices_are_sorted ? "true" : "false") +
           ", unique_indices = " + (S.unique_indices ? "true" : "false");
}

// The element types of scatter's operands, as a tuple type.
template<class X>
struct operand_elements {
    using type = std::tuple<element_of<X>>;
};
template<class... X>
struct operand_elements<std::tuple<X...>> {
    using type = std::tuple<element_of<X>...>;
};

template<scatter_dims S, class X, expression I, class U, class F>
auto scatter_untraced(X&& operands, I&& scatter_indices, U&& updates, F&& computation) {
    constexpr bool variadic = detail::is_tuple<std::remove_cvref_t<X>>::value;
    // Updates that are arrays are read in place (a reference, no copy); expressions are evaluated.
    // They are taken before the operand may be moved from: an update expression may read it.
    auto ups = [&] {
        if constexpr (variadic)
            return detail::apply(
                [](const auto&... u) { return std::tuple<decltype(detail::as_array(u))...>(detail::as_array(u)...); },
                updates);
        else
            return std::tuple<decltype(detail::as_array(updates))>(detail::as_array(updates));
    }();
    auto ops = [&] {
        if constexpr (variadic) {
            return detail::apply([](const auto&... o) { return std::make_tuple(tensor_type_of<decltype(o)>(o)...); },
                                 operands);
        } else if constexpr (!std::is_lvalue_reference_v<X> &&
                             std::is_same_v<std::remove_cvref_t<X>, tensor_type_of<X>>) {
            // An rvalue operand tensor is updated in place, unless an update is that very array.
            const auto* lo = operands.data();
            const auto* hi = lo + std::remove_cvref_t<X>::size();
            const bool shared = detail::apply(
                [&](const auto&... u) {
                    return (detail::ranges_overlap(u.data(), u.data() + u.size(), lo, hi) || ...);
                },
                ups);
            if (shared) return std::make_tuple(tensor_type_of<X>(operands));
            return std::make_tuple(std::move(operands));
        } else {
            return std::make_tuple(tensor_type_of<X>(operands));
        }
    }();
    using Ops = decltype(ops);
    using Ups = decltype(ups);
    using O0 = std::tuple_element_t<0, Ops>;
    using U0 = std::remove_cvref_t<std::tuple_element_t<0, Ups>>;
    using NI = detail::node_t<I>;
    using P = detail::scatter_plan<S, O0::rank, O0::extents, NI::rank, NI::extents, U0::rank, U0::extents>;
    using XT = O0;
    using IT = detail::shown_t<I>;
    using UT = U0;
    static_assert(diag::got<P::c1, XT, IT, UT>::value,
                  "xlet::scatter [C1]: rank(updates) must equal |update_window_dims| + the number of batch dimensions "
                  "of scatter_indices");
    static_assert(diag::got<P::c2, UT>::value,
                  "xlet::scatter [C2]: update_window_dims must be sorted, unique dimensions of the updates");
    static_assert(diag::got<P::c3, XT>::value, "xlet::scatter [C3]: inserted_window_dims must be sorted, unique "
                                               "operand dimensions that are not batching dimensions");
    static_assert(diag::got<P::c4, XT, UT>::value, "xlet::scatter [C4]: rank(operand) must equal |update_window_dims| "
                                                   "+ |inserted_window_dims| + |input_batching_dims|");
    static_assert(diag::got<P::c5, XT, IT>::value,
                  "xlet::scatter [C5]: scatter_dims_to_operand_dims needs one unique operand dimension per "
                  "index-vector element, none a batching dimension");
    static_assert(diag::got<P::c6, IT>::value,
                  "xlet::scatter [C6]: index_vector_dim must be in [0, rank(scatter_indices)]");
    static_assert(diag::got<P::c10, XT, IT>::value,
                  "xlet::scatter [C10]: input_batching_dims and scatter_indices_batching_dims must pair up dimensions "
                  "of equal size");
    static_assert(diag::got < !P::shape_rules || P::c7, XT, IT, UT > ::value,
                  "xlet::scatter [C7]: update batch sizes must equal the indices' batch sizes and window sizes must "
                  "fit the operand");
    static_assert(diag::got<is_integer<typename NI::value_type>, IT>::value,
                  "xlet::scatter [C8]: scatter_indices must have an integer element type");
    constexpr bool types_ok =
        std::tuple_size_v<Ops> == std::tuple_size_v<Ups>&& [&]<std::size_t... K>(std::index_sequence<K...>) {
        return (std::is_same_v<typename std::tuple_element_t<K, Ops>::value_type,
                               typename std::remove_cvref_t<std::tuple_element_t<K, Ups>>::value_type> &&
                ...) &&
               (same_extents(std::tuple_element_t<K, Ops>::extents, O0::extents) && ...) &&
               (same_extents(std::remove_cvref_t<std::tuple_element_t<K, Ups>>::extents, U0::extents) && ...);
    }
    (std::make_index_sequence<std::tuple_size_v<Ops>>{});
    static_assert(diag::got<types_ok, XT, UT>::value, "xlet::scatter [C9]: one update per operand, of the operand's "
                                                      "element type; operands share a shape, updates share a shape");
    if constexpr (P::ok && types_ok && is_integer<typename NI::value_type>) {
        const auto& idx = detail::as_array(scatter_indices);
        auto r = detail::scatter_impl<S>(std::move(ops), idx, ups, computation);
        if constexpr (variadic)
            return r;
        else
            return std::get<0>(std::move(r));
    }
}

} // namespace detail

template<scatter_dims S, class X, expression I, class U, class F>
auto scatter(X&& operands, I&& scatter_indices, U&& updates, F&& computation) {
    auto run = [&] {
        return detail::scatter_untraced<S>(std::forward<X>(operands), std::forward<I>(scatter_indices),
                                           std::forward<U>(updates), computation);
    };
    if constexpr (!std::is_void_v<decltype(run())>) {
        trace::recorder* const r = trace::current();
        std::vector<int> ins, regions;
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]] {
                ins = trace::operand_ids(*r, operands, scatter_indices, updates);
                using Ts = typename detail::operand_elements<std::remove_cvref_t<X>>::type;
                regions = {trace::computation_of<Ts, trace::args::twice>(*r, computation, "scatter")};
            }
        return trace::run_op(
            r, "stablehlo.scatter", [] { return detail::scatter_attrs<S, detail::node_t<I>::rank>(); }, std::move(ins),
            std::move(regions), run);
    } else {
        return run();
    }
}

} // namespace xlet
