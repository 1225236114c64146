// Scan (spec: Scan):
//   auto [ys, c] = scan<scan_config{.dimension = 0}>(x, 0.0f, [](float x, float c) { return std::tuple{x + c, x + c};
//   }); scan<C>(std::forward_as_tuple(x0, x1), std::tuple{c0, c1}, f)   m inputs, k carries
// f(inputs..., carries...) returns a tuple-like of n outputs then k new carries; the result is a
// std::tuple of the n output arrays (the inputs' shape, f's element types) then the k final
// carries (the inputs' shape without the scan dimension; a rank-1 scan gives rank-0 tensors). Each
// init is a scalar (the same start for every slice) or an array of the carry shape.
// Elements are visited along `dimension` from 0 to N-1, or N-1 to 0 with is_reverse; outputs are
// written at the visited position.
// Evaluation: slices along the other dimensions run in parallel, a block of neighbouring slices
// at a time so memory is read in order. is_associative = true (the caller promises that f's carry
// update is associative) additionally cuts long scans into chunks of `scan_chunk` steps: each
// chunk's carry is folded from its first element, the chunk carries are combined in order, and the
// chunks are rescanned in parallel from their incoming carries (a three-phase parallel prefix).
// It needs m = k with equal types (an element can stand for a carry). Chunks depend on the shape
// only, so the result is the same for any thread count; without is_associative the scan is the
// spec's sequential recursion, exactly.
// Rules:
//   C1 dimension in [0, rank); C2 all inputs have one shape; C3 each init is a scalar or an array of
//   the carry shape, of the carry's element type; C4 f accepts (inputs..., carries...) and returns
//   a tuple-like of n >= 0 element values then k values convertible to the carry types;
//   C5 is_associative: m = k and the input element types equal the carry types
#pragma once
#include "reduce_window.hpp"

namespace xlet {

struct scan_config {
    std::int64_t dimension = 0;
    bool is_reverse = false;
    bool is_associative = false;
};

namespace detail {

inline constexpr std::size_t scan_chunk = 4096;

template<class R, std::size_t... I>
auto tuple_types(std::index_sequence<I...>) -> std::tuple<std::remove_cvref_t<std::tuple_element_t<I, R>>...>;

// What f returns, split into outputs and carries.
template<class F, class Ins, class Cs>
struct scan_sig;
template<class F, class... In, class... C>
struct scan_sig<F, std::tuple<In...>, std::tuple<C...>> {
    static constexpr bool callable = std::is_invocable_v<const F&, In..., C...>;
    using R = std::remove_cvref_t<std::invoke_result_t<const F&, In..., C...>>;
    static constexpr std::size_t total = std::tuple_size_v<R>;
    static constexpr std::size_t k = sizeof...(C);
    static constexpr std::size_t n = total - k;
    using outs = decltype(tuple_types<R>(std::make_index_sequence<n>{}));
    static constexpr bool ok = [] {
        return []<std::size_t... O, std::size_t... K>(std::index_sequence<O...>, std::index_sequence<K...>) {
            return (element<std::tuple_element_t<O, outs>> && ...) &&
                   (std::is_convertible_v<std::tuple_element_t<n + K, R>, C> && ...);
        }
        (std::make_index_sequence<n>{}, std::index_sequence_for<C...>{});
    }();
};
template<class F, class Ins, class Cs>
struct scan_call;
template<class F, class... In, class... C>
struct scan_call<F, std::tuple<In...>, std::tuple<C...>> {
    static constexpr bool callable = std::is_invocable_v<const F&, In..., C...>;
    static constexpr std::size_t k = sizeof...(C);
    template<class G = F>
    static auto result() -> std::remove_cvref_t<std::invoke_result_t<const G&, In..., C...>>;
};
// Checked step by step so a wrong computation is one message, not a cascade.
template<class F, class Ins, class Cs>
consteval bool scan_sig_ok() {
    using Call = scan_call<F, Ins, Cs>;
    if constexpr (!Call::callable) {
        return false;
    } else {
        using R = decltype(Call::result());
        if constexpr (!requires { std::tuple_size<R>::value; })
            return false;
        else if constexpr (std::tuple_size_v<R> < Call::k)
            return false;
        else
            return scan_sig<F, Ins, Cs>::ok;
    }
}

// The carry element type an init stands for: a scalar's own type, an array's element type.
template<class I>
struct carry_of {
    using type = std::remove_cvref_t<I>;
};
template<expression I>
struct carry_of<I> {
    using type = element_of<I>;
};
template<class I>
using carry_t = typename carry_of<I>::type;

template<scan_config Cfg, std::size_t R, extents_t<R> E>
struct scan_shape {
    static constexpr std::size_t d = static_cast<std::size_t>(Cfg.dimension);
    static constexpr std::size_t outer = [] {
        std::size_t n = 1;
        for (std::size_t i = 0; i < d; ++i)
            n *= E[i];
        return n;
    }();
    static constexpr std::size_t len = E[d];
    static constexpr std::size_t inner = [] {
        std::size_t n = 1;
        for (std::size_t i = d + 1; i < R; ++i)
            n *= E[i];
        return n;
    }();
    static constexpr extents_t<R - 1> carry_extents = [] {
        extents_t<R - 1> c{};
        for (std::size_t i = 0, at = 0; i < R; ++i)
            if (i != d) c[at++] = E[i];
        return c;
    }();
    static constexpr std::size_t block = inner < 64 ? inner : 64; // neighbouring slices walked together
};

template<class Outs, class Cs, std::size_t R, extents_t<R> XE, extents_t<R - 1> CE>
struct scan_result;
template<class... O, class... C, std::size_t R, extents_t<R> XE, extents_t<R - 1> CE>
struct scan_result<std::tuple<O...>, std::tuple<C...>, R, XE, CE> {
    using outs = std::tuple<tensor_of_extents<O, R, XE>...>;
    using carries = std::tuple<tensor_of_extents<C, R - 1, CE>...>;
};

template<class I, class C, std::size_t R, extents_t<R> CE>
consteval bool init_ok() {
    if constexpr (expression<I>)
        return std::is_same_v<element_of<I>, C> && (shape_of<I>::rank == 0 || same_extents(shape_of<I>::extents, CE));
    else
        return is_scalar_value<I> && scalar_fits<std::remove_cvref_t<I>, C>;
}

template<class Xs, std::size_t... Mi>
auto scan_sources(Xs&& xs, std::index_sequence<Mi...>) {
    return std::tuple<decltype(as_array(std::get<Mi>(std::forward<Xs>(xs))))...>{
        as_array(std::get<Mi>(std::forward<Xs>(xs)))...};
}

template<scan_config Cfg, class S, class Sig, class Res, class Cs, class Srcs, class Inits, class F, std::size_t... Mi,
         std::size_t... Ki, std::size_t... Ni>
auto scan_run(const Srcs& src, const Inits& inits, const F& f, std::index_sequence<Mi...>, std::index_sequence<Ki...>,
              std::index_sequence<Ni...>) {
    constexpr std::size_t n = Sig::n;
    typename Res::outs outs;
    typename Res::carries carries;
    // Start carries: scalars broadcast, arrays copied.
    auto start = [&](std::size_t slice) {
        return Cs{[&] {
            using C = std::tuple_element_t<Ki, Cs>;
            using In = std::remove_cvref_t<std::tuple_element_t<Ki, Inits>>;
            if constexpr (expression<In> && detail::shape_of<In>::rank > 0)
                return static_cast<C>(
                    detail::narrow<C>(detail::as_node(std::get<Ki>(inits)).at(unflatten(slice, S::carry_extents))));
            else
                return detail::narrow<C>(detail::init_value<C>(std::get<Ki>(inits)));
        }()...};
    };
    // One step at operand offset `at`: outputs written, carries updated.
    auto step = [&](Cs& c, std::size_t at) {
        auto r = detail::apply([&](const auto&... cv) { return f(std::get<Mi>(src).data()[at]..., cv...); }, c);
        ((std::get<Ni>(outs).data()[at] = static_cast<std::tuple_element_t<Ni, typename Sig::outs>>(std::get<Ni>(r))),
         ...);
        c = Cs{static_cast<std::tuple_element_t<Ki, Cs>>(std::get<n + Ki>(r))...};
    };
    // Position of step i along the scan dimension.
    auto pos = [](std::size_t i) { return Cfg.is_reverse ? S::len - 1 - i : i; };
    auto offset = [](std::size_t o, std::size_t p, std::size_t j) { return (o * S::len + p) * S::inner + j; };
    constexpr std::size_t nb = S::inner == 0 ? 0 : (S::inner + S::block - 1) / S::block;
    constexpr std::size_t chunks =
        Cfg.is_associative && S::len > detail::scan_chunk ? (S::len + detail::scan_chunk - 1) / detail::scan_chunk : 1;
    constexpr double work = static_cast<double>(S::outer * S::len * S::inner) * 8;
    if constexpr (chunks == 1) {
        detail::for_outputs(S::outer * nb, work, [&](std::size_t u) {
            const std::size_t o = u / nb, j0 = (u % nb) * S::block, j1 = std::min(S::inner, j0 + S::block);
            std::array<Cs, S::block> c;
            for (std::size_t j = j0; j < j1; ++j)
                c[j - j0] = start(o * S::inner + j);
            for (std::size_t i = 0; i < S::len; ++i)
                for (std::size_t j = j0; j < j1; ++j)
                    step(c[j - j0], offset(o, pos(i), j));
            for (std::size_t j = j0; j < j1; ++j)
                ((std::get<Ki>(carries).data()[o * S::inner + j] = std::get<Ki>(c[j - j0])), ...);
        });
    } else {
        // Phase 1: every chunk folds its elements into one carry, starting from its first element.
        constexpr std::size_t slices = S::outer * S::inner;
        std::vector<Cs> total(slices * chunks), in(slices * chunks);
        detail::for_outputs(slices * chunks, work, [&](std::size_t u) {
            const std::size_t s = u / chunks, b = u % chunks, o = s / S::inner, j = s % S::inner;
            const std::size_t i0 = b * detail::scan_chunk, i1 = std::min(S::len, i0 + detail::scan_chunk);
            Cs c{std::get<Ki>(src).data()[offset(o, pos(i0), j)]...};
            for (std::size_t i = i0 + 1; i < i1; ++i) {
                auto r = detail::apply(
                    [&](const auto&... cv) { return f(std::get<Mi>(src).data()[offset(o, pos(i), j)]..., cv...); }, c);
                c = Cs{static_cast<std::tuple_element_t<Ki, Cs>>(std::get<n + Ki>(r))...};
            }
            total[u] = c;
        });
        // Phase 2: incoming carries in chunk order, in(b) = f(total(b - 1), in(b - 1)).carries.
        for (std::size_t s = 0; s < slices; ++s) {
            in[s * chunks] = start(s);
            for (std::size_t b = 1; b < chunks; ++b) {
                const Cs& c = in[s * chunks + b - 1];
                auto r = detail::apply(
                    [&](const auto&... tv) {
                        return detail::apply([&](const auto&... cv) { return f(tv..., cv...); }, c);
                    },
                    total[s * chunks + b - 1]);
                in[s * chunks + b] = Cs{static_cast<std::tuple_element_t<Ki, Cs>>(std::get<n + Ki>(r))...};
            }
        }
        // Phase 3: every chunk rescanned from its incoming carry, in parallel.
        detail::for_outputs(slices * chunks, work, [&](std::size_t u) {
            const std::size_t s = u / chunks, b = u % chunks, o = s / S::inner, j = s % S::inner;
            Cs c = in[u];
            for (std::size_t i = b * detail::scan_chunk; i < std::min(S::len, (b + 1) * detail::scan_chunk); ++i)
                step(c, offset(o, pos(i), j));
            if (b == chunks - 1) ((std::get<Ki>(carries).data()[s] = std::get<Ki>(c)), ...);
        });
    }
    return std::tuple_cat(std::move(outs), std::move(carries));
}

// Traced (to_stablehlo): one chlo.scan. Its body computes a slice (the carry shape) from slices,
// so a traceable f (declared with xlet::traceable) is called once on views of slice-shaped block
// arguments: an element-wise f is the same computation on every element of a slice.
template<class T, std::size_t RC, extents_t<RC> CE, std::size_t... I>
auto slice_map(const T* p, std::index_sequence<I...>) {
    return tensor_map<const T, CE[I]...>(p);
}
// A body result (an expression of the slice shape or rank 0, or a C++ value) as a value of
// tensor<CE x Want>.
template<class Want, std::size_t RC, extents_t<RC> CE, class V>
int scan_result_id(trace::recorder& r, const V& v) {
    const std::string want = trace::tensor_type<Want, RC>(CE);
    if constexpr (requires { typename V::xlet_node; } || is_array_leaf<V>) {
        using E = element_of<V>;
        int id = trace::value_of(r, v);
        if constexpr (shape_of<V>::rank == 0 && RC > 0)
            id = r.emit("stablehlo.broadcast_in_dim", {id}, {trace::tensor_type<E, RC>(CE)},
                        "broadcast_dimensions = array<i64>");
        else if constexpr (!same_extents(shape_of<V>::extents, CE))
            throw error("to_stablehlo", "scan: the computation returned an array that is not of the slice shape");
        if constexpr (!std::is_same_v<E, Want>) id = r.emit("stablehlo.convert", {id}, {want});
        return id;
    } else if constexpr (std::is_convertible_v<V, Want>) {
        const int id = trace::scalar_value<Want>(r, static_cast<Want>(v));
        if constexpr (RC == 0)
            return id;
        else
            return r.emit("stablehlo.broadcast_in_dim", {id}, {want}, "broadcast_dimensions = array<i64>");
    } else {
        throw error("to_stablehlo", "scan: the computation returned a value without a StableHLO form");
    }
}
template<class Sig, class Cs, std::size_t RC, extents_t<RC> CE, class... In, class F>
XLET_TRACE_COLD int scan_body(trace::recorder& r, const F& f, std::tuple<In...>*) {
    if constexpr (trace::is_traceable<F>) {
        return [&]<class... C, std::size_t... A, std::size_t... O>(std::tuple<C...>*, std::index_sequence<A...>,
                                                                   std::index_sequence<O...>) {
            const int g = r.open_region({trace::tensor_type<In, RC>(CE)..., trace::tensor_type<C, RC>(CE)...});
            int id = r.regions[static_cast<std::size_t>(g)].args.front();
            // The block arguments live here; f gets views of them (see trace::computation).
            std::tuple<tensor_of_extents<In, RC, CE>..., tensor_of_extents<C, RC, CE>...> args;
            detail::apply([&](const auto&... a) { (trace::bind(r, a, id++), ...); }, args);
            const auto res = f(slice_map<typename std::tuple_element_t<A, decltype(args)>::value_type, RC, CE>(
                std::get<A>(args).data(), std::make_index_sequence<RC>{})...);
            using Want = decltype(std::tuple_cat(std::declval<typename Sig::outs>(), std::declval<Cs>()));
            r.close_region({scan_result_id<std::tuple_element_t<O, Want>, RC, CE>(r, std::get<O>(res))...});
            return g;
        }(static_cast<Cs*>(nullptr), std::make_index_sequence<sizeof...(In) + std::tuple_size_v<Cs>>{},
               std::make_index_sequence<Sig::total>{});
    } else {
        throw error("to_stablehlo", "scan: the computation is a C++ callable without a StableHLO form; declare it "
                                    "with xlet::traceable(f)");
    }
}
// A carry's start: an array of the carry shape, or a scalar / rank-0 value broadcast to it.
template<class C, std::size_t RC, extents_t<RC> CE, class I>
int scan_init_id(trace::recorder& r, const I& init) {
    if constexpr (expression<I> && shape_of<I>::rank > 0) {
        return trace::value_of(r, init);
    } else {
        const int id = trace::init_id<C>(r, init);
        if constexpr (RC == 0)
            return id;
        else
            return r.emit("stablehlo.broadcast_in_dim", {id}, {trace::tensor_type<C, RC>(CE)},
                          "broadcast_dimensions = array<i64>");
    }
}

} // namespace detail

template<scan_config Cfg, class... X, class... I, class F>
requires(sizeof...(X) > 0 && (expression<X> && ...)) auto scan(std::tuple<X...> xs, const std::tuple<I...>& inits,
                                                               const F& f) {
    using X0 = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<X...>>>;
    constexpr std::size_t R = X0::rank;
    using XT = detail::shown_t<X0>;
    constexpr bool c1 = Cfg.dimension >= 0 && static_cast<std::size_t>(Cfg.dimension) < R;
    constexpr bool c2 = (same_extents(detail::shape_of<X>::extents, X0::extents) && ...);
    static_assert(diag::got<c1, XT, diag::dimensions<Cfg.dimension>>::value,
                  "xlet::scan [C1]: dimension must be in [0, rank)");
    static_assert(diag::got<c2, detail::shown_t<X>...>::value, "xlet::scan [C2]: all inputs must have the same shape");
    if constexpr (c1 && c2) {
        using S = detail::scan_shape<Cfg, R, X0::extents>;
        constexpr bool c3 = (detail::init_ok<I, detail::carry_t<I>, R - 1, S::carry_extents>() && ...);
        static_assert(
            diag::got<c3, XT, detail::shown_t<I>...>::value,
            "xlet::scan [C3]: each init must be a scalar or an array of the carry shape (the input shape without the "
            "scan dimension)");
        using Ins = std::tuple<detail::element_of<X>...>;
        using Cs = std::tuple<detail::carry_t<I>...>;
        constexpr bool c4 = detail::scan_sig_ok<F, Ins, Cs>();
        static_assert(
            diag::got<c4, detail::shown_t<X>..., F>::value,
            "xlet::scan [C4]: the computation must take (inputs..., carries...) and return a tuple of outputs "
            "then one value per carry");
        constexpr bool c5 = !Cfg.is_associative || std::is_same_v<Ins, Cs>;
        static_assert(diag::got<c5, detail::shown_t<X>..., detail::shown_t<I>...>::value,
                      "xlet::scan [C5]: is_associative needs one carry per input, of the input's element type");
        if constexpr (c3 && c4 && c5) {
            using Sig = detail::scan_sig<F, Ins, Cs>;
            constexpr extents_t<R> XE = X0::extents; // named first: GCC 12 crashes on members as arguments
            constexpr extents_t<R - 1> CE = S::carry_extents;
            using Res = detail::scan_result<typename Sig::outs, Cs, R, XE, CE>;
            constexpr std::size_t m = sizeof...(X), k = sizeof...(I), n = Sig::n;
            trace::recorder* const r = trace::current();
            std::vector<int> ins, regions;
            if constexpr (trace::compiled_in)
                if (r) [[unlikely]] {
                    ins = trace::operand_ids(*r, xs);
                    [&]<std::size_t... Ki>(std::index_sequence<Ki...>) {
                        (ins.push_back(
                             detail::scan_init_id<std::tuple_element_t<Ki, Cs>, R - 1, CE>(*r, std::get<Ki>(inits))),
                         ...);
                    }
                    (std::make_index_sequence<k>{});
                    regions = {detail::scan_body<Sig, Cs, R - 1, CE>(*r, f, static_cast<Ins*>(nullptr))};
                }
            auto src = detail::scan_sources(std::move(xs), std::make_index_sequence<m>{});
            return trace::run_op(
                r, "chlo.scan",
                [] {
                    return "dimension = " + std::to_string(Cfg.dimension) + " : i64" +
                           (Cfg.is_reverse ? ", is_reverse = true" : "") +
                           (Cfg.is_associative ? ", is_associative = true" : "") +
                           ", operandSegmentSizes = array<i32: " + std::to_string(m) + ", " + std::to_string(k) + ">";
                },
                std::move(ins), std::move(regions),
                [&] {
                    return detail::scan_run<Cfg, S, Sig, Res, Cs>(src, inits, f, std::make_index_sequence<m>{},
                                                                  std::make_index_sequence<k>{},
                                                                  std::make_index_sequence<n>{});
                });
        }
    }
}

// One input, one carry: returns std::tuple{outputs..., final carry}.
template<scan_config Cfg, expression X, class I, class F>
auto scan(X&& x, const I& init, const F& f) {
    return scan<Cfg>(std::forward_as_tuple(std::forward<X>(x)), std::tie(init), f);
}

} // namespace xlet
