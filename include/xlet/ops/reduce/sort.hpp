// Sort and TopK (spec: Sort, TopK):
//   sort(x)                                             ascending along the last dimension (sort_less)
//   sort<sort_config{.dimension = 0, .is_stable = true}>(x, comparator)
//   auto [k, v] = sort(std::forward_as_tuple(keys, values), sort_less{})   variadic: std::tuple
//   auto [values, indices] = top_k<8>(x)                f32[..., n] -> f32[..., 8], s32[..., 8]
//
// sort: every 1-D slice along `dimension` is sorted independently and every operand is permuted
// the same way. `dimension` counts from the end when negative (default -1: the last dimension).
// The comparator is called as comparator(x_i, x_j, y_i, y_j, ...) with the operands' element
// types (storage types: xlet::half for f16) and returns bool: "element i goes before element j".
// sort_less / sort_greater compare the first operand only (the key of a variadic sort) in XLA's
// total order: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN (sort_greater reverses it).
// They take the radix fast path when the first operand has a pred, integer or floating type: an
// LSD radix sort of order-preserving unsigned keys (carrying each element's position when there
// are other operands to permute), in parallel over slices, or inside one slice when it is long.
// Any other comparator sorts each slice with std::stable_sort (a parallel merge of stably sorted
// chunks for one long slice).
//
// Implementation-defined choices (docs/semantics.md): every path is stable, so is_stable only
// documents intent; results never depend on the thread count. A comparator that is not a strict
// weak order (IEEE < with NaN, <=) gives some permutation of the operands, never undefined
// behaviour, as long as it is a pure function.
//
// top_k<k, largest = true>(x): along the last dimension, values[..., j] is the j-th largest
// (largest = false: smallest) element of its row and indices[..., j] its position (s32). Ties: the
// lower index first. Order: the total order above, so +NaN ranks above +inf (largest) and -NaN
// below -inf (smallest), and -0 < +0.
//
// Rules:
//   sort  C1 at least one operand
//         C3 every operand has the shape of the first (element types may differ)
//         C4 -rank <= dimension < rank
//         C5 the comparator takes 2n scalars of the element types (x_i, x_j, y_i, y_j, ...) and
//            returns bool
//         (C2 of StableHLO, result types = operand types, holds by construction)
//   top_k C1 rank >= 1
//         C2 0 <= k <= size of the last dimension
//         C3 the element type is ordered: pred, integer or floating
#pragma once
#include <numeric>
#include <tuple>

#include "../../kernels/sort.hpp"
#include "../elementwise/compare.hpp"

namespace xlet {

struct sort_config {
    std::int64_t dimension = -1; // negative: counted from the end
    bool is_stable = false;      // every path is stable anyway (see above)
};

// "Less than" in XLA's total order on the first pair of arguments; later pairs (the other operands
// of a variadic sort) are ignored.
struct sort_less {
    template<class T, class... Rest>
    requires(detail::radix_sortable<T> && sizeof...(Rest) % 2 == 0) constexpr bool
    operator()(const T& a, const T& b, const Rest&...) const noexcept {
        return detail::to_radix_key(a) < detail::to_radix_key(b);
    }
};
// "Greater than" in the same order: descending.
struct sort_greater {
    template<class T, class... Rest>
    requires(detail::radix_sortable<T> && sizeof...(Rest) % 2 == 0) constexpr bool
    operator()(const T& a, const T& b, const Rest&...) const noexcept {
        return detail::to_radix_key(b) < detail::to_radix_key(a);
    }
};

namespace detail {

// C5: comparator(T0, T0, T1, T1, ...) -> bool.
template<class F, class... T>
consteval bool comparator_fits() {
    using Args = decltype(std::tuple_cat(std::declval<std::tuple<const T&, const T&>>()...));
    return []<class... A>(std::type_identity<std::tuple<A...>>) {
        if constexpr (!std::is_invocable_v<const F&, A...>)
            return false;
        else
            return std::is_same_v<std::invoke_result_t<const F&, A...>, bool>;
    }(std::type_identity<Args>{});
}

template<class X>
struct sort_shape {
    static constexpr std::size_t rank = shape_of<X>::rank;
    static constexpr auto extents = shape_of<X>::extents;
};

template<sort_config C, class F, class... X>
struct sort_rules {
    static constexpr bool c1 = sizeof...(X) > 0;
    using X0 = std::tuple_element_t<0, std::tuple<X..., tensor<float, 1>>>; // a stand-in when there are none
    static constexpr std::int64_t R = static_cast<std::int64_t>(shape_of<X0>::rank);
    static constexpr bool c3 = (same_extents(shape_of<X>::extents, shape_of<X0>::extents) && ...);
    static constexpr bool c4 = -R <= C.dimension && C.dimension < R;
    static constexpr bool c5 = comparator_fits<F, element_of<X>...>();
    static constexpr bool ok = c1 && c3 && c4 && c5;
    static constexpr std::size_t dim =
        static_cast<std::size_t>(c4 ? (C.dimension < 0 ? C.dimension + R : C.dimension) : 0);

    static consteval bool check() {
        static_assert(c1, "xlet::sort [C1]: sort needs at least one operand");
        if constexpr (c1) {
            static_assert(diag::got<c3, shown_t<X>...>::value,
                          "xlet::sort [C3]: all operands must have the same shape (element types may differ)");
            static_assert(diag::got<c4, shown_t<X>..., diag::dimensions<C.dimension>>::value,
                          "xlet::sort [C4]: dimension must be in [-rank, rank)");
            static_assert(diag::got<c5, shown_t<X>..., F>::value,
                          "xlet::sort [C5]: the comparator must take 2n scalars of the operand element types "
                          "(x_i, x_j, y_i, y_j, ...) and return bool");
        }
        if constexpr (ok) {
            static_assert(shape_of<X0>::extents[dim] <= std::size_t{0xFFFFFFFFu},
                          "xlet::sort: a sorted dimension longer than 2^32 - 1 is not supported");
        }
        return ok;
    }
};

// An operand seen as [outer, n, inner] (row-major), sorted along n.
struct slice_geom {
    std::size_t outer, n, inner;
    std::size_t at(std::size_t o, std::size_t r, std::size_t i) const { return (o * n + r) * inner + i; }
};
template<std::size_t R>
constexpr slice_geom make_slice_geom(const extents_t<R>& e, std::size_t d) {
    slice_geom g{1, e[d], 1};
    for (std::size_t k = 0; k < d; ++k)
        g.outer *= e[k];
    for (std::size_t k = d + 1; k < R; ++k)
        g.inner *= e[k];
    return g;
}

// Slices that run across the memory (dimension not last) are handled sort_group at a time: one
// sweep over their rows reads sort_group neighbouring elements, not one per cache line.
inline constexpr std::size_t sort_group = 16;
// Work (elements) above which slices are spread over TBB tasks; fewer slices than
// sort_big_slices with at least radix_parallel_min elements each are parallelised inside instead.
inline constexpr std::size_t sort_parallel_elements = std::size_t{1} << 15;
inline constexpr std::size_t sort_big_slices = 4;

inline bool sort_inside_slices(const slice_geom& g) {
    return g.outer * g.inner < sort_big_slices && g.n >= radix_parallel_min;
}

// body(scratch, o, i0, G): sort slices (o, i0 .. i0 + G) of g; make() gives each task its scratch.
template<class Make, class Body>
void for_slice_groups(const slice_geom& g, const Make& make, const Body& body) {
    const std::size_t width = std::min(sort_group, g.inner);
    const std::size_t per_outer = width == 0 ? 0 : (g.inner + width - 1) / width;
    const std::size_t groups = g.outer * per_outer;
    auto run = [&](std::size_t b, std::size_t e) {
        if (b == e) return;
        auto scratch = make(width);
        for (std::size_t q = b; q < e; ++q) {
            const std::size_t i0 = q % per_outer * width;
            body(scratch, q / per_outer, i0, std::min(width, g.inner - i0));
        }
    };
    const std::size_t work = g.n * width;
    if (groups > 1 && groups * work >= sort_parallel_elements) {
        const std::size_t grain = std::max<std::size_t>(1, sort_parallel_elements / std::max<std::size_t>(1, work));
        run_parallel(tbb::blocked_range<std::size_t>(0, groups, grain),
                     [&](const tbb::blocked_range<std::size_t>& r) { run(r.begin(), r.end()); });
    } else {
        run(0, groups);
    }
}

// body over every slice: one slice at a time when each is sorted by several tasks inside (par),
// else in groups of neighbouring slices spread over TBB tasks.
template<class Make, class Body>
void for_slices(const slice_geom& g, bool par, const Make& make, const Body& body) {
    if (par) {
        auto s = make(1);
        for (std::size_t o = 0; o < g.outer; ++o)
            for (std::size_t i = 0; i < g.inner; ++i)
                body(s, o, i, 1);
    } else {
        for_slice_groups(g, make, body);
    }
}

// f(rb, re) over [0, n): in chunks on TBB when par (the long-slice case), else at once.
template<class F>
void row_ranges(bool par, std::size_t n, const F& f) {
    if (!par) {
        f(std::size_t{0}, n);
        return;
    }
    const std::size_t chunks = chunk_count(n, radix_min_chunk, radix_max_chunks);
    for_chunks(chunks, [&](std::size_t c) { f(chunk_begin(c, chunks, n), chunk_begin(c + 1, chunks, n)); });
}

template<class It>
struct sort_scratch {
    std::unique_ptr<It[]> a, b;
};

// The radix path: sort_less (Desc = false) or sort_greater (Desc = true) on operand 0's keys.
template<bool Desc, class... T, std::size_t... K>
void radix_sort_op(const slice_geom& g, const std::tuple<const T*...>& in, const std::tuple<T*...>& out,
                   std::index_sequence<K...>) {
    using T0 = std::tuple_element_t<0, std::tuple<T...>>;
    using Key = radix_key_t<T0>;
    constexpr bool keyed = sizeof...(T) > 1;
    using It = std::conditional_t<keyed, radix_item<Key, std::uint32_t>, Key>;
    const bool par = sort_inside_slices(g);
    auto make = [&](std::size_t width) {
        return sort_scratch<It>{item_buffer<It>(width * g.n), item_buffer<It>(width * g.n)};
    };
    auto body = [&](sort_scratch<It>& s, std::size_t o, std::size_t i0, std::size_t G) {
        const std::size_t n = g.n;
        It* a = s.a.get();
        It* b = s.b.get();
        const T0* src = std::get<0>(in);
        row_ranges(par, n, [&](std::size_t rb, std::size_t re) {
            for (std::size_t r = rb; r < re; ++r) {
                const T0* row = src + g.at(o, r, i0);
                for (std::size_t j = 0; j < G; ++j) {
                    if constexpr (keyed)
                        a[j * n + r] = It{to_radix_key<T0, Desc>(row[j]), static_cast<std::uint32_t>(r)};
                    else
                        a[j * n + r] = to_radix_key<T0, Desc>(row[j]);
                }
            }
        });
        std::array<const It*, sort_group> res{};
        for (std::size_t j = 0; j < G; ++j)
            res[j] = par ? radix_sort_par(a + j * n, b + j * n, n) : radix_sort_seq(a + j * n, b + j * n, n);
        row_ranges(par, n, [&](std::size_t rb, std::size_t re) {
            for (std::size_t r = rb; r < re; ++r) {
                const std::size_t at = g.at(o, r, i0);
                for (std::size_t j = 0; j < G; ++j) {
                    const It& it = res[j][r];
                    std::get<0>(out)[at + j] = from_radix_key<T0, Desc>(item_key(it));
                    if constexpr (keyed) {
                        const std::size_t from = g.at(o, it.idx, i0 + j);
                        ((K == 0 ? void() : void(std::get<K>(out)[at + j] = std::get<K>(in)[from])), ...);
                    }
                }
            }
        });
    };
    for_slices(g, par, make, body);
}

// The general path: std::stable_sort of each slice's values (one operand) or of its positions
// (several), with the comparator as given.
template<class F, class... T, std::size_t... K>
void generic_sort_op(const slice_geom& g, const F& cmp, const std::tuple<const T*...>& in, const std::tuple<T*...>& out,
                     std::index_sequence<K...>) {
    using T0 = std::tuple_element_t<0, std::tuple<T...>>;
    const bool par = g.outer * g.inner < sort_big_slices && g.n >= merge_parallel_min;
    auto stable = [&](auto* first, std::size_t n, const auto& less) {
        if (par)
            parallel_stable_sort(first, n, less);
        else
            std::stable_sort(first, first + n, less);
    };
    if constexpr (sizeof...(T) == 1) {
        auto make = [&](std::size_t width) { return std::make_unique<T0[]>(width * g.n); };
        auto body = [&](std::unique_ptr<T0[]>& buf, std::size_t o, std::size_t i0, std::size_t G) {
            const std::size_t n = g.n;
            row_ranges(par, n, [&](std::size_t rb, std::size_t re) {
                for (std::size_t r = rb; r < re; ++r)
                    for (std::size_t j = 0; j < G; ++j)
                        buf[j * n + r] = std::get<0>(in)[g.at(o, r, i0 + j)];
            });
            for (std::size_t j = 0; j < G; ++j)
                stable(buf.get() + j * n, n, [&](const T0& x, const T0& y) { return static_cast<bool>(cmp(x, y)); });
            row_ranges(par, n, [&](std::size_t rb, std::size_t re) {
                for (std::size_t r = rb; r < re; ++r)
                    for (std::size_t j = 0; j < G; ++j)
                        std::get<0>(out)[g.at(o, r, i0 + j)] = buf[j * n + r];
            });
        };
        for_slices(g, par, make, body);
    } else {
        struct scratch {
            std::tuple<std::unique_ptr<T[]>...> vals; // not std::vector: vector<bool> has no data()
            std::vector<std::uint32_t> perm;
        };
        auto make = [&](std::size_t width) {
            return scratch{{std::make_unique<T[]>(width * g.n)...}, std::vector<std::uint32_t>(width * g.n)};
        };
        auto body = [&](scratch& s, std::size_t o, std::size_t i0, std::size_t G) {
            const std::size_t n = g.n;
            row_ranges(par, n, [&](std::size_t rb, std::size_t re) {
                for (std::size_t r = rb; r < re; ++r)
                    for (std::size_t j = 0; j < G; ++j)
                        ((std::get<K>(s.vals)[j * n + r] = std::get<K>(in)[g.at(o, r, i0 + j)]), ...);
            });
            for (std::size_t j = 0; j < G; ++j) {
                std::uint32_t* p = s.perm.data() + j * n;
                std::iota(p, p + n, std::uint32_t{0});
                const std::tuple<const T*...> v{(std::get<K>(s.vals).get() + j * n)...};
                stable(p, n, [&](std::uint32_t a, std::uint32_t b) {
                    return static_cast<bool>(detail::apply(
                        cmp, std::tuple_cat(std::forward_as_tuple(std::get<K>(v)[a], std::get<K>(v)[b])...)));
                });
            }
            row_ranges(par, n, [&](std::size_t rb, std::size_t re) {
                for (std::size_t r = rb; r < re; ++r)
                    for (std::size_t j = 0; j < G; ++j) {
                        const std::size_t from = j * n + s.perm[j * n + r];
                        ((std::get<K>(out)[g.at(o, r, i0 + j)] = std::get<K>(s.vals)[from]), ...);
                    }
            });
        };
        for_slices(g, par, make, body);
    }
}

template<class F>
inline constexpr bool is_sort_less = std::is_same_v<F, sort_less>;
template<class F>
inline constexpr bool is_sort_greater = std::is_same_v<F, sort_greater>;

// Sorts the materialised operands (tensors or maps) into a std::tuple of new tensors.
template<std::size_t D, class F, class... A, std::size_t... K>
auto sort_arrays(const F& cmp, std::index_sequence<K...> ks, const A&... arrays) {
    using A0 = std::tuple_element_t<0, std::tuple<A...>>;
    using T0 = typename A0::value_type;
    std::tuple<tensor_type_of<A>...> outs{tensor_type_of<A>(no_init)...}; // every element written below
    constexpr slice_geom g = make_slice_geom(A0::extents, D);
    if constexpr (A0::size() > 0) {
        const std::tuple<const typename A::value_type*...> in{arrays.data()...};
        const std::tuple<typename A::value_type*...> out{std::get<K>(outs).data()...};
        if constexpr (g.n <= 1) {
            ((std::copy(arrays.data(), arrays.data() + A::size(), std::get<K>(outs).data())), ...);
        } else if constexpr (radix_sortable<T0> && is_sort_less<F>) {
            radix_sort_op<false>(g, in, out, ks);
        } else if constexpr (radix_sortable<T0> && is_sort_greater<F>) {
            radix_sort_op<true>(g, in, out, ks);
        } else {
            generic_sort_op(g, cmp, in, out, ks);
        }
    }
    return outs;
}

template<std::int64_t Kk, bool Largest, class X>
struct top_k_rules {
    static constexpr std::size_t R = shape_of<X>::rank;
    static constexpr bool c1 = R >= 1;
    static constexpr std::size_t n = [] {
        if constexpr (R >= 1)
            return shape_of<X>::extents[R - 1];
        else
            return std::size_t{0};
    }();
    static constexpr bool c2 = c1 && Kk >= 0 && static_cast<std::size_t>(Kk) <= n;
    static constexpr bool c3 = radix_sortable<element_of<X>>;
    static constexpr bool ok = c1 && c2 && c3;
    static consteval bool check() {
        static_assert(diag::got<c1, shown_t<X>>::value, "xlet::top_k [C1]: the operand must have rank >= 1");
        if constexpr (c1)
            static_assert(diag::got<c2, shown_t<X>, diag::dimensions<Kk>>::value,
                          "xlet::top_k [C2]: k must be in [0, size of the last dimension]");
        static_assert(diag::got<c3, shown_t<X>>::value,
                      "xlet::top_k [C3]: the element type must be pred, an integer or floating type");
        if constexpr (ok)
            static_assert(n <= std::size_t{0x7FFFFFFF}, "xlet::top_k: the last dimension must fit s32 indices");
        return ok;
    }
};

template<std::size_t R, std::size_t K>
consteval extents_t<R> top_k_extents(const extents_t<R>& e) {
    extents_t<R> o = e;
    o[R - 1] = K;
    return o;
}

// Rows whose best k are selected by one task: at least this many elements per task.
inline constexpr std::size_t top_k_parallel_elements = std::size_t{1} << 14;

template<bool Largest, class T>
void top_k_rows(const T* x, std::size_t rows, std::size_t n, std::size_t k, T* vals, std::int32_t* idx) {
    using It = radix_item<radix_key_t<T>, std::uint32_t>;
    auto run = [&](std::size_t b, std::size_t e) {
        if (b == e) return;
        auto best = item_buffer<It>(k);
        auto scratch = item_buffer<It>(k * top_k_scan_ratio > n ? n : 0);
        for (std::size_t row = b; row < e; ++row) {
            top_k_row<T, Largest>(x + row * n, n, k, best.get(), scratch.get());
            for (std::size_t j = 0; j < k; ++j) {
                vals[row * k + j] = from_radix_key<T, Largest>(best[j].key);
                idx[row * k + j] = static_cast<std::int32_t>(best[j].idx);
            }
        }
    };
    if (rows > 1 && rows * n >= top_k_parallel_elements) {
        const std::size_t grain = std::max<std::size_t>(1, top_k_parallel_elements / std::max<std::size_t>(1, n));
        run_parallel(tbb::blocked_range<std::size_t>(0, rows, grain),
                     [&](const tbb::blocked_range<std::size_t>& r) { run(r.begin(), r.end()); });
    } else {
        run(0, rows);
    }
}

} // namespace detail

namespace detail {
// Traced (to_stablehlo): one stablehlo.sort, the comparator as its region.
template<std::size_t Dim, bool Stable, class Ts, class F, class Run, class... X>
auto traced_sort(const F& comparator, Run&& run, const X&... xs) {
    trace::recorder* const r = trace::current();
    std::vector<int> ins, regions;
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]] {
            ins = trace::operand_ids(*r, xs...);
            regions = {trace::computation_of<Ts, trace::args::pairs>(*r, comparator, "sort")};
        }
    return trace::run_op(
        r, "stablehlo.sort",
        [] { return "dimension = " + std::to_string(Dim) + " : i64, is_stable = " + (Stable ? "true" : "false"); },
        std::move(ins), std::move(regions), run);
}
} // namespace detail

// Sort(operands = {x}, comparator, dimension, is_stable): a tensor of x's shape and type.
template<sort_config C = sort_config{}, expression X, class F = sort_less>
auto sort(X&& x, const F& comparator = {}) {
    using Rules = detail::sort_rules<C, F, X>;
    if constexpr (Rules::check()) {
        auto run = [&] {
            const auto& a = detail::as_array(std::forward<X>(x));
            return std::get<0>(detail::sort_arrays<Rules::dim>(comparator, std::index_sequence<0>{}, a));
        };
        return detail::traced_sort<Rules::dim, C.is_stable, std::tuple<detail::element_of<X>>>(comparator, run, x);
    }
}

// Variadic Sort: operands as a tuple (std::forward_as_tuple keeps them by reference), the
// comparator over 2n scalars; returns a std::tuple of tensors, operand k's permuted as operand 0's.
template<sort_config C = sort_config{}, class... X, class F>
requires((expression<X> && ...)) auto sort(std::tuple<X...> xs, const F& comparator) {
    using Rules = detail::sort_rules<C, F, X...>;
    if constexpr (Rules::check()) {
        auto run = [&] {
            return [&]<std::size_t... K>(std::index_sequence<K...> ks) {
                std::tuple<decltype(detail::as_array(std::get<K>(std::move(xs))))...> held{
                    detail::as_array(std::get<K>(std::move(xs)))...};
                return detail::sort_arrays<Rules::dim>(comparator, ks, std::get<K>(held)...);
            }
            (std::index_sequence_for<X...>{});
        };
        return detail::traced_sort<Rules::dim, C.is_stable, std::tuple<detail::element_of<X>...>>(comparator, run, xs);
    }
}

// TopK(operand, k, largest): std::tuple{values, indices} along the last dimension, shape [..., k],
// indices s32.
namespace detail {
template<std::int64_t K, bool Largest, expression X>
auto top_k_untraced(X&& x) {
    using Rules = detail::top_k_rules<K, Largest, X>;
    if constexpr (Rules::check()) {
        using T = detail::element_of<X>;
        constexpr std::size_t R = Rules::R;
        constexpr std::size_t k = static_cast<std::size_t>(K);
        constexpr auto OE = detail::top_k_extents<R, k>(detail::shape_of<X>::extents);
        using V = typename detail::tensor_of_impl<T, OE, std::make_index_sequence<R>>::type;
        using Ix = typename detail::tensor_of_impl<std::int32_t, OE, std::make_index_sequence<R>>::type;
        std::tuple<V, Ix> outs{V(detail::no_init), Ix(detail::no_init)}; // every element written below
        constexpr std::size_t n = Rules::n;
        constexpr std::size_t size = product(detail::shape_of<X>::extents);
        if constexpr (k > 0 && size > 0) {
            const auto& a = detail::as_array(std::forward<X>(x));
            detail::top_k_rows<Largest>(a.data(), size / n, n, k, std::get<0>(outs).data(), std::get<1>(outs).data());
        }
        return outs;
    }
}
} // namespace detail

namespace trace {
// sort_less / sort_greater: XLA's total order on the first operand (the keys).
template<>
struct form<sort_less> : compare_form<lt_dir, true> {
    static constexpr std::size_t arity = 2;
};
template<>
struct form<sort_greater> : compare_form<gt_dir, true> {
    static constexpr std::size_t arity = 2;
};
} // namespace trace

namespace detail {
// Traced top_k of the smallest (chlo.top_k has the largest only): what chlo.top_k decomposes to
// with the order reversed, a stable sort of (x, iota) by sort_less (ties keep the lower index, as
// top_k does) and the first k of each.
template<std::int64_t K, class X, class Run>
XLET_TRACE_COLD auto top_k_smallest_traced(trace::recorder& r, const X& x, Run& run) {
    using T = element_of<X>;
    static constexpr auto E = shape_of<X>::extents;
    constexpr std::size_t R = E.size();
    const int v = trace::value_of(r, x);
    const std::string last = std::to_string(R - 1) + " : i64";
    const int ix = r.emit("stablehlo.iota", {}, {trace::tensor_type<std::int32_t, R>(E)}, "iota_dimension = " + last);
    const int g = trace::computation<T, T, std::int32_t, std::int32_t>(r, sort_less{}, "top_k");
    const int s =
        r.emit("stablehlo.sort", {v, ix}, {trace::tensor_type<T, R>(E), trace::tensor_type<std::int32_t, R>(E)},
               "dimension = " + last + ", is_stable = true", {g});
    auto out = [&] {
        trace::pause_if p(&r);
        return run();
    }();
    std::vector<std::int64_t> zeros(R, 0), limits(E.begin(), E.end()), ones(R, 1);
    limits[R - 1] = K;
    const std::string attrs = "start_indices = " + trace::i64_array(zeros) +
                              ", limit_indices = " + trace::i64_array(limits) + ", strides = " + trace::i64_array(ones);
    trace::bind(r, std::get<0>(out),
                r.emit("stablehlo.slice", {s}, {trace::type_of<std::tuple_element_t<0, decltype(out)>>()}, attrs));
    trace::bind(r, std::get<1>(out),
                r.emit("stablehlo.slice", {s + 1}, {trace::type_of<std::tuple_element_t<1, decltype(out)>>()}, attrs));
    return out;
}
} // namespace detail

template<std::int64_t K, bool Largest = true, expression X>
auto top_k(X&& x) {
    auto run = [&] { return detail::top_k_untraced<K, Largest>(std::forward<X>(x)); };
    if constexpr (!Largest && trace::compiled_in && !std::is_void_v<decltype(run())>)
        if (trace::recorder* r = trace::current()) [[unlikely]]
            return detail::top_k_smallest_traced<K>(*r, x, run);
    return trace::heavy(
        "chlo.top_k", [] { return "k = " + std::to_string(K) + " : i64"; }, run, x);
}

} // namespace xlet
