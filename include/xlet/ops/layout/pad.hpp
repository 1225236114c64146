// Pad: pad<padding_config<R>{.edge_padding_low = {...}, .edge_padding_high = {...},
// .interior_padding = {...}}>(x, value), or pad(x, value, dims<low...>, dims<high...>,
// dims<interior...>). Edge padding may be negative (it crops); interior padding puts that many
// values between neighbours. A lazy node that fuses; under a view it is evaluated first.
// Rules: C1 one entry per operand dimension; C2 interior >= 0; C3 every result size >= 0;
// C4 the padding value is a scalar of the operand's element type.
#pragma once
#include <algorithm>
#include <cstring>

#include "piecewise.hpp"

namespace xlet {

template<std::size_t R>
struct padding_config {
    std::array<std::int64_t, R> edge_padding_low{};
    std::array<std::int64_t, R> edge_padding_high{};
    std::array<std::int64_t, R> interior_padding{};
};

namespace detail {

// Output size of one padded dimension.
constexpr std::int64_t padded_size(std::int64_t n, std::int64_t lo, std::int64_t hi, std::int64_t in) {
    return lo + hi + n + (n > 0 ? (n - 1) * in : 0);
}
// Operand index read at output index o along one dimension, or -1 where o is padding.
constexpr std::int64_t pad_source(std::int64_t o, std::int64_t n, std::int64_t lo, std::int64_t in) {
    std::int64_t t = o - lo;
    if (t < 0 || t % (in + 1) != 0 || t / (in + 1) >= n) return -1;
    return t / (in + 1);
}

template<bool InnerPadded, class T, std::int64_t Lo, std::int64_t In, std::int64_t Nsrc, class K>
struct pad_cursor {
    using C = compute_t<T>;
    K c{};
    C v{};
    bool all_pad = false;

    template<std::size_t N>
    vec<C, N> range(std::size_t i0, std::size_t cnt) const {
        const auto i = static_cast<std::int64_t>(i0);
        const auto n = static_cast<std::int64_t>(cnt);
        constexpr std::int64_t S = In + 1;
        // operand indices j0 <= j < j1 land inside [i, i + n)
        std::int64_t first = std::max(i, Lo);
        std::int64_t j0 = (first - Lo + S - 1) / S;
        std::int64_t j1 = i + n - 1 < Lo ? 0 : std::min<std::int64_t>(Nsrc, (i + n - 1 - Lo) / S + 1);
        if (j1 <= j0) return vec<C, N>::broadcast(v);
        if constexpr (In == 0) {
            if (Lo + j0 == i && j1 - j0 == n)
                return cnt == N ? c.template load<N>(static_cast<std::size_t>(j0))
                                : c.template load_partial<N>(static_cast<std::size_t>(j0), cnt);
        }
        std::array<C, N> out;
        out.fill(v);
        auto vals =
            to_lanes(c.template load_partial<N>(static_cast<std::size_t>(j0), static_cast<std::size_t>(j1 - j0)));
        // Lane by lane (a loop over operand indices makes GCC 12 warn of out-of-range iterations
        // it cannot rule out): lane k holds operand element (i + k - Lo) / S when that divides.
        for (std::size_t k = 0; k < N && k < cnt; ++k) {
            const std::int64_t q = i + static_cast<std::int64_t>(k) - Lo;
            if (q < 0 || q % S != 0) continue;
            const std::int64_t j = q / S;
            if (j >= j1) break;
            out[k] = vals[static_cast<std::size_t>(j - j0)];
        }
        return vec<C, N>::from_lanes(out.data());
    }
    template<std::size_t N>
    vec<C, N> load(std::size_t i) const {
        if (all_pad) return vec<C, N>::broadcast(v);
        if constexpr (InnerPadded)
            return range<N>(i, N);
        else
            return c.template load<N>(i);
    }
    template<std::size_t N>
    vec<C, N> load_partial(std::size_t i, std::size_t n) const {
        if (all_pad) return vec<C, N>::broadcast(v);
        if constexpr (InnerPadded)
            return range<N>(i, n);
        else
            return c.template load_partial<N>(i, n);
    }
};

template<class X, class V, std::size_t R, extents_t<R> E, padding_config<R> Cfg>
struct pad_node : node_shape<typename X::value_type, R, E> {
    using T = typename X::value_type;
    static constexpr std::size_t lanes = X::lanes;
    static constexpr double cost = X::cost + 2;
    static constexpr bool linear = false;
    static constexpr bool viewable = false;
    static constexpr std::array<bool, R> padded = [] {
        std::array<bool, R> p{};
        for (std::size_t d = 0; d < R; ++d)
            p[d] = Cfg.edge_padding_low[d] != 0 || Cfg.edge_padding_high[d] != 0 || Cfg.interior_padding[d] != 0;
        return p;
    }();
    static constexpr std::size_t barriers = [] {
        std::size_t k = 0;
        for (std::size_t d = 0; d < R; ++d)
            k += padded[d] && E[d] != 1;
        return k;
    }();
    static constexpr std::int64_t src(std::size_t d, std::int64_t o) {
        return pad_source(o, static_cast<std::int64_t>(X::extents[d]), Cfg.edge_padding_low[d],
                          Cfg.interior_padding[d]);
    }
    // Dimensions of extent 1 leave the loop plan; the operand index they read is a constant.
    static constexpr bool static_pad = [] {
        if (X::size() == 0) return true;
        for (std::size_t d = 0; d < R; ++d)
            if (E[d] == 1 && src(d, 0) < 0) return true;
        return false;
    }();
    static constexpr index_map<R, R> child_map = [] {
        auto m = identity_map<R>();
        for (std::size_t d = 0; d < R; ++d)
            if (E[d] == 1) {
                m.src[d] = -1;
                m.offset[d] = static_pad ? 0 : src(d, 0);
            }
        return m;
    }();
    static constexpr bool child_map_is_identity = [] {
        for (std::size_t d = 0; d < R; ++d)
            if (child_map.src[d] != static_cast<int>(d) || child_map.offset[d] != 0) return false;
        return true;
    }();
    static constexpr std::size_t leaf_count = X::leaf_count + barriers;
    X child;
    V value;

    template<std::size_t Ro, auto M>
    static consteval auto leaf_strides() {
        std::array<leaf_view<Ro>, leaf_count> all{};
        std::size_t at = 0;
        for (const auto& v : X::template leaf_strides<Ro, compose(child_map, M)>())
            all[at++] = v;
        for (std::size_t d = 0; d < R; ++d)
            if (padded[d] && E[d] != 1) all[at++] = barrier<Ro>(d);
        return all;
    }
    template<std::size_t Ro, auto M, loop_plan<Ro> P>
    auto cursor(const outer_index<Ro>& outer) const {
        constexpr int last = P.rep[P.groups - 1];
        constexpr bool inner = last >= 0 && padded[static_cast<std::size_t>(last)];
        constexpr std::size_t dl = last < 0 ? 0 : static_cast<std::size_t>(last);
        constexpr auto cm = compose(child_map, M);
        using K = decltype(child.template cursor<Ro, cm, P>(outer));
        pad_cursor<inner, T, Cfg.edge_padding_low[dl], Cfg.interior_padding[dl],
                   static_cast<std::int64_t>(X::extents[dl]), K>
            c;
        c.v = value.at({});
        c.all_pad = static_pad;
        if (static_pad) return c;
        auto o = outer;
        // The child is read at shifted positions along the inner dimension, outside the range a
        // tile buffer row holds (eval/tile_buffer.hpp): its strided leaves read their source.
        if constexpr (inner) o.tile = nullptr;
        for (std::size_t g = 0; g + 1 < P.groups; ++g) {
            auto d = static_cast<std::size_t>(P.rep[g]);
            if (!padded[d]) continue;
            auto s = src(d, static_cast<std::int64_t>(outer[g]));
            if (s < 0) {
                c.all_pad = true;
                return c;
            }
            o[g] = static_cast<std::size_t>(s);
        }
        c.c = child.template cursor<Ro, cm, P>(o);
        return c;
    }
    // Materialised on its own (`y = pad(a, v, ...)` with `a` an array, no interior padding, rows of
    // at least 64 elements), a pad is written row by row as fill, memcpy, fill instead of lane
    // assembly through the cursor: [2048,2048] padded by 8 goes from 58 to ~90 GB/s, the level of a
    // hand loop (docs/performance.md). Rows are independent, so any split gives the same result.
    static constexpr bool direct = [] {
        if constexpr (!requires(const X& x) { x.ptr(); }) {
            return false;
        } else {
            for (auto in : Cfg.interior_padding)
                if (in != 0) return false;
            return std::is_same_v<compute_t<T>, T> && std::is_trivially_copyable_v<T> && R >= 1 && E[R - 1] >= 64 &&
                   X::size() > 0;
        }
    }();
    void write_into(T* dst) const requires direct {
        constexpr std::size_t inner = E[R - 1];
        constexpr std::size_t rows = product(E) / inner;
        constexpr auto sstr = row_major_strides(X::extents);
        constexpr std::int64_t lo = Cfg.edge_padding_low[R - 1], n = static_cast<std::int64_t>(X::extents[R - 1]);
        // Along the row: [0, a) padding, [a, b) operand elements from a - lo on, [b, inner) padding.
        constexpr std::int64_t a = std::clamp<std::int64_t>(lo, 0, static_cast<std::int64_t>(inner));
        constexpr std::int64_t b = std::clamp<std::int64_t>(lo + n, a, static_cast<std::int64_t>(inner));
        const T v = value.at({});
        const T* src = child.ptr();
        auto some = [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                T* out = dst + r * inner;
                std::ptrdiff_t off = 0;
                bool inside = true;
                std::size_t rest = r;
                for (std::size_t d = R - 1; d-- > 0;) {
                    const std::int64_t s = static_cast<std::int64_t>(rest % E[d]) - Cfg.edge_padding_low[d];
                    rest /= E[d];
                    if (s < 0 || s >= static_cast<std::int64_t>(X::extents[d])) inside = false;
                    off += static_cast<std::ptrdiff_t>(s) * sstr[d];
                }
                if (!inside) {
                    std::fill_n(out, inner, v);
                    continue;
                }
                std::fill_n(out, a, v);
                if constexpr (b > a)
                    std::memcpy(out + a, src + off + (a - lo), static_cast<std::size_t>(b - a) * sizeof(T));
                std::fill_n(out + b, static_cast<std::int64_t>(inner) - b, v);
            }
        };
        if constexpr (static_cast<double>(product(E)) >= parallel_threshold && rows > 1) {
            constexpr std::size_t grain = std::max<std::size_t>(1, static_cast<std::size_t>(task_work) / inner);
            run_parallel(tbb::blocked_range<std::size_t>(0, rows, grain),
                         [&](const tbb::blocked_range<std::size_t>& r) { some(r.begin(), r.end()); });
        } else {
            some(0, rows);
        }
    }
    compute_t<T> at(const std::array<std::size_t, R>& idx) const {
        std::array<std::size_t, R> ci{};
        for (std::size_t d = 0; d < R; ++d) {
            auto s = src(d, static_cast<std::int64_t>(idx[d]));
            if (s < 0) return value.at({});
            ci[d] = static_cast<std::size_t>(s);
        }
        return child.at(ci);
    }
    int trace(trace::recorder& r) const {
        const int x = trace::value_of(r, child), v = trace::value_of(r, value);
        return r.emit("stablehlo.pad", {x, v}, {trace::type_of<pad_node>()},
                      "edge_padding_low = " + trace::i64_list(Cfg.edge_padding_low) +
                          ", edge_padding_high = " + trace::i64_list(Cfg.edge_padding_high) +
                          ", interior_padding = " + trace::i64_list(Cfg.interior_padding));
    }
    template<std::size_t Ro, auto M, leaf_view<Ro> D>
    bool may_alias(const void* b, const void* e) const {
        return child.template may_alias<Ro, compose(child_map, M), moved_view<Ro>>(b, e) ||
               value.template may_alias<Ro, index_map<0, Ro>{}, moved_view<Ro>>(b, e);
    }
};

} // namespace detail

template<auto Cfg, expression X, class V>
requires detail::operand<V>
auto pad(X&& x, V&& value) {
    using N = detail::node_t<X>;
    using T = typename N::value_type;
    constexpr std::size_t R = N::rank;
    using XT = detail::shown_t<X>;
    constexpr bool c1 = std::is_same_v<std::remove_cv_t<decltype(Cfg)>, padding_config<R>>;
    static_assert(diag::got<c1, XT, std::remove_cvref_t<decltype(Cfg)>>::value,
                  "xlet::pad [C1]: the padding config needs one entry per operand dimension");
    if constexpr (c1) {
        constexpr bool c2 = [] {
            for (auto v : Cfg.interior_padding)
                if (v < 0) return false;
            return true;
        }();
        constexpr bool c3 = c2 && [] {
            for (std::size_t d = 0; d < R; ++d)
                if (detail::padded_size(static_cast<std::int64_t>(N::extents[d]), Cfg.edge_padding_low[d],
                                        Cfg.edge_padding_high[d], Cfg.interior_padding[d]) < 0)
                    return false;
            return true;
        }();
        constexpr bool c4 = detail::shape_of<V>::rank == 0 && detail::common_element<X, V>::ok;
        static_assert(diag::got<c2, XT>::value, "xlet::pad [C2]: interior padding must be >= 0");
        static_assert(diag::got<c3, XT>::value, "xlet::pad [C3]: every padded dimension must have a size >= 0");
        static_assert(diag::got<c4, XT, detail::shown_t<V>>::value,
                      "xlet::pad [C4]: the padding value must be a scalar of the operand's element type");
        static_assert(diag::got<!is_per_axis_quantized<T>, XT>::value,
                      "xlet::pad [I1]: the operand must not be per-axis quantized (the spec's pad takes per-tensor "
                      "quantized tensors only)");
        if constexpr (c2 && c3 && c4 && R == 0) {
            return detail::as_node(std::forward<X>(x)); // nothing to pad
        } else if constexpr (c2 && c3 && c4 && !is_per_axis_quantized<T>) {
            constexpr auto E = [] {
                extents_t<R> e{};
                for (std::size_t d = 0; d < R; ++d)
                    e[d] = static_cast<std::size_t>(
                        detail::padded_size(static_cast<std::int64_t>(N::extents[d]), Cfg.edge_padding_low[d],
                                            Cfg.edge_padding_high[d], Cfg.interior_padding[d]));
                return e;
            }();
            auto v = detail::operand_node<T>(std::forward<V>(value));
            using PN = detail::pad_node<N, decltype(v), R, E, Cfg>;
            if constexpr (N::viewable || PN::child_map_is_identity) {
                return PN{{}, detail::as_node(std::forward<X>(x)), std::move(v)};
            } else {
                // A result dimension of size 1 reads its operand at a constant offset, which pad and
                // concatenate operands (identity maps only) cannot take: evaluate the operand first.
                using Tn = tensor_type_of<N>;
                using Own = detail::array_node<Tn, true>;
                return detail::pad_node<Own, decltype(v), R, E, Cfg>{{}, Own{{}, Tn(x)}, std::move(v)};
            }
        }
    }
}
template<expression X, class V, std::int64_t... L, std::int64_t... H, std::int64_t... I>
requires detail::operand<V>
auto pad(X&& x, V&& value, dims_t<L...>, dims_t<H...>, dims_t<I...>) {
    constexpr std::size_t R = sizeof...(L);
    static_assert(sizeof...(H) == R && sizeof...(I) == R,
                  "xlet::pad [C1]: low, high and interior need one entry per dimension");
    return pad<padding_config<R>{{L...}, {H...}, {I...}}>(std::forward<X>(x), std::forward<V>(value));
}

} // namespace xlet
