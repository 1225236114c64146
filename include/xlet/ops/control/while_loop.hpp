// While (spec: While; StableHLO while):
//
//   auto [n, acc] = while_loop([](const s32<>& i, const f32<10>&) { return i < 1000; },
//                              [&](const s32<>& i, const f32<10>& a) { return std::tuple{i + 1, a + c}; },
//                              std::tuple{s32<>(0), f32<10>{}});
//
// The state T is a tensor, any copyable value, or a std::tuple of them (expressions in `init` are
// evaluated first). cond(T) -> pred scalar, body(T) -> T. With a tuple state the computations
// take the elements as separate parameters, or the whole tuple as one: a tuple of 0 or >= 2
// elements is passed unpacked when the computation takes that many parameters, else whole; a
// one-element tuple is passed whole when the computation accepts the tuple (the spec's T), else
// unpacked (so a generic one-parameter lambda over a one-element tuple state receives the tuple).
//
// The body may return expressions (`a + c`): each is evaluated straight into the next state.
// They may read the body's parameters and anything outside it, never the body's own local
// variables, which are gone when it returns (GCC's -Wmaybe-uninitialized or ASan report it):
// evaluate those first, `std::tuple{i + 1, s32<>(a + step)}` for a local `step`.
// Two states are kept and swapped (the body reads one and writes the other, so an element may
// read any other): a state that is stored inline (tensors up to 4 KiB) costs no allocation at all,
// and a heap state allocates its second buffer once, not per iteration. The loop has no iteration
// cap (the spec leaves non-termination open). The result is the state after the last body.
// An exception in cond or body: xlet::error "xlet::while_loop: the body (iteration 3) threw: ...",
// the original nested; both states are destroyed normally.
//
// Rules:
//   while_loop C1  cond is callable with the state and returns a pred scalar (bool, pred<> or a
//                  rank-0 pred expression)
//              C2  body is callable with the state and its result evaluates to the state's type:
//                  same tuple size, and every element the same type (element type and shape)
//                  as before: the state cannot change type across iterations
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "computation.hpp"

namespace xlet {

namespace detail {

// How f takes a state S: 0 whole, 1 unpacked, -1 not at all.
template<class F, class S, class = std::make_index_sequence<std::tuple_size_v<S>>>
struct unpacked_callable;
template<class F, class S, std::size_t... K>
struct unpacked_callable<F, S, std::index_sequence<K...>>
    : std::bool_constant<std::is_invocable_v<F&, const std::tuple_element_t<K, S>&...>> {};

template<class F, class S>
constexpr int state_form() {
    if constexpr (!is_std_tuple<S>) {
        return std::is_invocable_v<F&, const S&> ? 0 : -1;
    } else if constexpr (std::tuple_size_v<S> != 1) {
        if constexpr (unpacked_callable<F, S>::value)
            return 1;
        else
            return std::is_invocable_v<F&, const S&> ? 0 : -1;
    } else {
        if constexpr (std::is_invocable_v<F&, const S&>)
            return 0;
        else
            return unpacked_callable<F, S>::value ? 1 : -1;
    }
}

template<class F, class S>
decltype(auto) call_with_state(F& f, const S& s) {
    if constexpr (state_form<F, S>() == 1)
        return detail::apply(f, s);
    else
        return f(s);
}
template<class F, class S>
using state_result_t = decltype(call_with_state(std::declval<F&>(), std::declval<const S&>()));

// The body's result R fits the state S: evaluates to S element by element.
template<class R, class S>
inline constexpr bool state_fits = std::is_same_v<materialized_t<R>, S>;

template<class S, class R>
void assign_state(S& dst, R&& r) {
    if constexpr (is_std_tuple<S>) {
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            (assign_state(std::get<K>(dst), std::get<K>(std::forward<R>(r))), ...);
        }
        (std::make_index_sequence<std::tuple_size_v<S>>{});
    } else {
        dst = std::forward<R>(r);
    }
}

template<class S, class C, class B>
S run_while(C& cond, B& body, S first) {
    std::optional<S> second;
    S* cur = &first;
    S* next = nullptr;
    std::size_t iteration = 0;
    bool in_body = false;
    try {
        while (scalar_value(call_with_state(cond, *cur))) {
            in_body = true;
            if (next)
                assign_state(*next, call_with_state(body, *cur));
            else
                next = &second.emplace(materialize(call_with_state(body, *cur)));
            in_body = false;
            std::swap(cur, next);
            ++iteration;
        }
    } catch (...) {
        rethrow_in("while_loop", std::string(in_body ? "the body" : "the condition") + " (iteration " +
                                     std::to_string(iteration) + ")");
    }
    return S(std::move(*cur));
}

// Traced (to_stablehlo): cond and body become the regions of one stablehlo.while, each called
// once on a fresh state bound to the block arguments; the loop itself runs untraced.
template<class S, class C, class B>
XLET_TRACE_COLD void trace_while(trace::recorder& r, C& cond, B& body, const S& first, std::vector<int>& ins,
                                 std::vector<int>& regions) {
    if constexpr (!trace::arrays_only<S>) {
        throw error("to_stablehlo", "while_loop: a state that is not made of tensors cannot be exported");
    } else {
        trace::values_of(r, first, ins);
        regions = {trace_region<S>(r, "while_loop", "the condition",
                                   [&](const S& st) -> decltype(auto) { return call_with_state(cond, st); }),
                   trace_region<S>(r, "while_loop", "the body",
                                   [&](const S& st) -> decltype(auto) { return call_with_state(body, st); })};
    }
}

} // namespace detail

// While(condition, body, init).
template<class C, class B, class T>
auto while_loop(C&& cond, B&& body, T&& init) {
    using S = detail::materialized_t<T>;
    using CF = std::remove_reference_t<C>;
    using BF = std::remove_reference_t<B>;
    constexpr int cform = detail::state_form<CF, S>();
    constexpr bool c1 = [] {
        if constexpr (cform < 0)
            return false;
        else
            return std::is_same_v<detail::scalar_type_t<detail::state_result_t<CF, S>>, bool>;
    }();
    static_assert(diag::got<c1, S>::value, "xlet::while_loop [C1]: cond must be callable with the state and return "
                                           "a pred scalar (bool, pred<> or a rank-0 pred expression)");
    constexpr int bform = detail::state_form<BF, S>();
    constexpr bool c2 = [] {
        if constexpr (bform < 0)
            return false;
        else
            return detail::state_fits<detail::state_result_t<BF, S>, S>;
    }();
    if constexpr (bform < 0) {
        static_assert(diag::got<c2, S>::value,
                      "xlet::while_loop [C2]: body must be callable with the state and return the state's type");
    } else {
        static_assert(diag::got<c2, S, detail::materialized_t<detail::state_result_t<BF, S>>>::value,
                      "xlet::while_loop [C2]: body must return the state's type (same tuple size, element types and "
                      "shapes): the state cannot change type across iterations");
    }
    if constexpr (c1 && c2) {
        S first = detail::materialize(std::forward<T>(init));
        trace::recorder* const r = trace::current();
        std::vector<int> ins, regions;
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]]
                detail::trace_while(*r, cond, body, first, ins, regions);
        return trace::run_op(
            r, "stablehlo.while", [] { return std::string(); }, std::move(ins), std::move(regions),
            [&] { return detail::run_while(cond, body, std::move(first)); });
    }
}

} // namespace xlet
