// Conditional (spec: Conditional, both forms; StableHLO if / case):
//
//   conditional(pred, true_operand, true_fn, false_operand, false_fn)
//   conditional(branch_index, std::tuple{fn_0, ..., fn_n-1}, std::tuple{operand_0, ..., operand_n-1})
//
// Only the chosen branch runs (the other is not called at all); its result is materialised
// (tensors, or a std::tuple of tensors). The pred may be a bool, a pred<> or a rank-0 pred
// expression (`k < 3`), the index an std::int32_t, an s32<> or a rank-0 s32 expression. An index
// < 0 or >= N runs branch N-1, as the spec says. Branch operands are passed as given (an
// expression stays lazy until the branch uses it); std::forward_as_tuple(x, y) passes references.
// A branch that throws: xlet::error "xlet::conditional: branch 1 threw: ..." (the original nested).
//
// Rules:
//   conditional C1  the selector is a pred scalar (pred form) or an s32 scalar (index form)
//               C2  at least one branch, and as many operands as branches (index form)
//               C3  branch b is callable with operand b
//               C4  every branch's result evaluates to the same type
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "computation.hpp"

namespace xlet {

namespace detail {

template<class F, class A>
constexpr bool branch_callable() {
    return std::is_invocable_v<F&, A&&>;
}

template<class F, class A>
using branch_result_t = materialized_t<std::invoke_result_t<F&, A&&>>;

// The materialised result types of every branch (for the C4 message).
template<class F, class AT, class Seq>
struct branch_results;
template<class F, class AT, std::size_t... K>
struct branch_results<F, AT, std::index_sequence<K...>> {
    using type = std::tuple<branch_result_t<std::tuple_element_t<K, F>, decltype(std::get<K>(std::declval<AT>()))>...>;
};

template<std::size_t K, class R, class Fns, class Args>
R run_branch(Fns& fns, Args&& args) {
    return R(materialize(std::get<K>(fns)(std::get<K>(std::forward<Args>(args)))));
}

// Branch b of N (b already clamped to [0, N)): one direct call per branch, no table.
template<class R, class Fns, class Args, std::size_t... K>
R dispatch_branch(std::int32_t b, Fns& fns, Args&& args, std::index_sequence<K...>) {
    std::optional<R> r;
    (void)((b == static_cast<std::int32_t>(K) ? (r.emplace(run_branch<K, R>(fns, std::forward<Args>(args))), true)
                                              : false) ||
           ...);
    return std::move(*r);
}

// Traced (to_stablehlo): a branch as a region without arguments (StableHLO's if and case capture
// their operands), called once on its operand.
template<class R, class F, class A>
XLET_TRACE_COLD int trace_branch(trace::recorder& r, F& fn, A& operand) {
    if constexpr (!trace::arrays_only<R> || !std::is_invocable_v<F&, A&>)
        throw error("to_stablehlo", "conditional: a branch that returns other than tensors, or takes its operand as "
                                    "an rvalue, cannot be exported");
    else
        return trace_region<void>(r, "conditional", "a branch", [&] { return materialize(fn(operand)); });
}

} // namespace detail

// Conditional(predicate, true_operand, true_computation, false_operand, false_computation).
template<class P, class TA, class TF, class FA, class FF>
auto conditional(const P& pred, TA&& true_operand, TF&& true_fn, FA&& false_operand, FF&& false_fn) {
    constexpr bool c1 = std::is_same_v<detail::scalar_type_t<P>, bool>;
    static_assert(diag::got<c1, std::remove_cvref_t<P>>::value,
                  "xlet::conditional [C1]: the predicate must be a pred scalar (bool, pred<> or a rank-0 pred "
                  "expression)");
    constexpr bool c3 = detail::branch_callable<TF, TA>() && detail::branch_callable<FF, FA>();
    static_assert(diag::got<c3, std::remove_cvref_t<TA>, std::remove_cvref_t<FA>>::value,
                  "xlet::conditional [C3]: each branch must be callable with its operand");
    if constexpr (c1 && c3) {
        using RT = detail::branch_result_t<TF, TA>;
        using RF = detail::branch_result_t<FF, FA>;
        constexpr bool c4 = std::is_same_v<RT, RF>;
        static_assert(diag::got<c4, RT, RF>::value,
                      "xlet::conditional [C4]: the branches must return the same type (element types and shapes)");
        if constexpr (c4) {
            auto run = [&]() -> RT {
                if (detail::scalar_value(pred)) {
                    try {
                        return RT(detail::materialize(true_fn(std::forward<TA>(true_operand))));
                    } catch (...) {
                        detail::rethrow_in("conditional", "the true branch");
                    }
                }
                try {
                    return RT(detail::materialize(false_fn(std::forward<FA>(false_operand))));
                } catch (...) {
                    detail::rethrow_in("conditional", "the false branch");
                }
            };
            trace::recorder* const r = trace::current();
            std::vector<int> ins, regions;
            if constexpr (trace::compiled_in)
                if (r) [[unlikely]] {
                    ins = {trace::init_id<bool>(*r, pred)};
                    regions = {detail::trace_branch<RT>(*r, true_fn, true_operand),
                               detail::trace_branch<RT>(*r, false_fn, false_operand)};
                }
            return trace::run_op(
                r, "stablehlo.if", [] { return std::string(); }, std::move(ins), std::move(regions), run);
        }
    }
}

// Conditional(branch_index, branch_computations, branch_operands): fns and operands are tuples
// (std::tuple, or anything std::get and std::tuple_size accept) of N entries each.
template<class I, class Fns, class Args>
auto conditional(const I& branch_index, Fns&& fns, Args&& operands) {
    constexpr bool c1 = std::is_same_v<detail::scalar_type_t<I>, std::int32_t>;
    static_assert(diag::got<c1, std::remove_cvref_t<I>>::value,
                  "xlet::conditional [C1]: the branch index must be an s32 scalar (std::int32_t, s32<> or a rank-0 "
                  "s32 expression)");
    constexpr std::size_t N = std::tuple_size_v<std::remove_cvref_t<Fns>>;
    constexpr std::size_t M = std::tuple_size_v<std::remove_cvref_t<Args>>;
    constexpr bool c2 = N >= 1 && N == M;
    static_assert(diag::got<c2, std::remove_cvref_t<Fns>, std::remove_cvref_t<Args>>::value,
                  "xlet::conditional [C2]: there must be at least one branch and as many operands as branches");
    if constexpr (c1 && c2) {
        using F = std::remove_reference_t<Fns>;
        using AT = Args&&;
        constexpr bool c3 = []<std::size_t... K>(std::index_sequence<K...>) {
            return (detail::branch_callable<std::tuple_element_t<K, F>, decltype(std::get<K>(std::declval<AT>()))>() &&
                    ...);
        }
        (std::make_index_sequence<N>{});
        static_assert(diag::got<c3, std::remove_cvref_t<Fns>, std::remove_cvref_t<Args>>::value,
                      "xlet::conditional [C3]: each branch must be callable with its operand");
        if constexpr (c3) {
            using R0 = detail::branch_result_t<std::tuple_element_t<0, F>, decltype(std::get<0>(std::declval<AT>()))>;
            constexpr bool c4 = []<std::size_t... K>(std::index_sequence<K...>) {
                return (
                    std::is_same_v<
                        detail::branch_result_t<std::tuple_element_t<K, F>, decltype(std::get<K>(std::declval<AT>()))>,
                        R0> &&
                    ...);
            }
            (std::make_index_sequence<N>{});
            static_assert(
                diag::got<c4, typename detail::branch_results<F, AT, std::make_index_sequence<N>>::type>::value,
                "xlet::conditional [C4]: the branches must return the same type (element types and "
                "shapes)");
            if constexpr (c4) {
                auto run = [&]() -> R0 {
                    std::int32_t b = static_cast<std::int32_t>(detail::scalar_value(branch_index));
                    if (b < 0 || b >= static_cast<std::int32_t>(N)) b = static_cast<std::int32_t>(N) - 1;
                    try {
                        return detail::dispatch_branch<R0>(b, fns, std::forward<Args>(operands),
                                                           std::make_index_sequence<N>{});
                    } catch (...) {
                        detail::rethrow_in("conditional", "branch " + std::to_string(b));
                    }
                };
                trace::recorder* const r = trace::current();
                std::vector<int> ins, regions;
                if constexpr (trace::compiled_in)
                    if (r) [[unlikely]] {
                        ins = {trace::init_id<std::int32_t>(*r, branch_index)};
                        [&]<std::size_t... K>(std::index_sequence<K...>) {
                            (regions.push_back(detail::trace_branch<R0>(*r, std::get<K>(fns), std::get<K>(operands))),
                             ...);
                        }
                        (std::make_index_sequence<N>{});
                    }
                return trace::run_op(
                    r, "stablehlo.case", [] { return std::string(); }, std::move(ins), std::move(regions), run);
            }
        }
    }
}

} // namespace xlet
