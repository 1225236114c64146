// The tracing side of expressions and ops (the recorder itself: core/trace.hpp). Every node type
// has a member `int trace(trace::recorder&) const` that emits its StableHLO ops and returns the
// value id of its result; heavy ops go through trace::record; computations (reduce bodies, sort
// comparators, ...) through trace::computation.
#pragma once
#include <algorithm>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../core/tensor.hpp"

namespace xlet {

// Opt-in for tracing a user computation into a StableHLO region (export only; evaluation never
// needs it): a promise that f's body is also valid on rank-0 xlet arrays (it is called with
// xlet::tensor_map<const float> views for f32), i.e. written with operators and xlet's functions
// rather than `?:` or std:: calls on values.
template<class F>
struct traceable_fn {
    F f;
    template<class... A>
    constexpr auto operator()(A&&... a) const -> decltype(f(std::forward<A>(a)...)) {
        return f(std::forward<A>(a)...);
    }
};
template<class F>
constexpr traceable_fn<std::decay_t<F>> traceable(F&& f) {
    return {std::forward<F>(f)};
}
template<class F>
inline constexpr bool enable_traceable = false;

} // namespace xlet

namespace xlet::trace {

// The StableHLO op of an element-wise functor (specialised next to the functors, in the op
// headers): its name and, for the element types of its operands, its attributes.
template<class F>
struct form {
    static constexpr std::string_view name{};
    template<class T>
    static std::string attrs() {
        return {};
    }
};

struct plain_form {
    template<class T>
    static std::string attrs() {
        return {};
    }
};
// The form of a functor whose op has no attributes (use inside namespace xlet::trace).
#define XLET_STABLEHLO_FORM(Functor, Name)                                                                             \
    template<>                                                                                                         \
    struct form<Functor> : plain_form {                                                                                \
        static constexpr std::string_view name = Name;                                                                 \
    };

// A constant of one value, rank 0.
template<class T>
int scalar_value(recorder& r, const T& v) {
    const std::string type = tensor_type<T, 0>({});
    return r.emit("stablehlo.constant", {}, {type}, "value = " + dense_literal(&v, {}, type));
}

// A bounded value (eval/bounded.hpp) read as the static array of its padded contents: its sizes
// set to the bounds, so StableHLO's type is static (the padding is unspecified there, computed in xlet).
template<class = void>
XLET_TRACE_COLD int padded_view(recorder& r, int b, const std::string& type);

// The value held by memory (a tensor, tensor_map, or the leaf of an expression): what a traced op
// wrote there, or else a constant of its current contents.
template<class T, std::size_t R>
XLET_TRACE_COLD int memory_value(recorder& r, const T* p, const extents_t<R>& e);

// An affine view (eval/view.hpp) as StableHLO ops: child dimension j reads
// scale[j] * out[src[j]] + offset[j] (src[j] < 0: offset[j]). Spelled as reverse (negative
// scales), slice (offsets and strides), reshape (dropping the fixed dimensions), transpose (when
// the kept dimensions are out of order) and broadcast_in_dim (new or size-1 dimensions); each
// only when it does something. `elem` is the child's element type, `out_elem` the view's; they
// differ for a per-axis quantized type (its quantization dimension `axis` of the child moves with
// the dimensions: each op's result names where it is).
template<class = void>
XLET_TRACE_COLD int view(recorder& r, int v, std::string_view elem, std::vector<std::size_t> cur,
                         const std::vector<std::size_t>& out, const std::vector<int>& src,
                         std::vector<std::ptrdiff_t> scale, std::vector<std::ptrdiff_t> offset,
                         std::string_view out_elem = {}, std::int64_t axis = -1);

// The value of any operand: an array, or an expression traced node by node.
template<class X>
int value_of(recorder& r, const X& x) {
    if constexpr (is_array_leaf<X>)
        return memory_value(r, x.data(), X::extents);
    else if constexpr (requires { x.trace(r); })
        return x.trace(r);
    else
        throw error("to_stablehlo", "an expression node without a StableHLO form");
}

// An init value or other scalar operand: an expression (rank 0), or a C++ value as a constant.
template<class T, class I>
int init_id(recorder& r, const I& v) {
    if constexpr (requires { typename I::xlet_node; })
        return value_of(r, v);
    else
        return scalar_value<T>(r, static_cast<T>(v));
}

// A run-time index operand (a start of dynamic_slice, ...) as tensor<i64>: C++ integers as
// constants (`clamped` gives the value the op uses), rank-0 integer arrays converted.
template<class S, class Clamped>
int index_id(recorder& r, const S& s, Clamped clamped) {
    if constexpr (requires { typename S::xlet_node; }) {
        const int v = value_of(r, s);
        if constexpr (std::is_same_v<typename S::value_type, std::int64_t>)
            return v;
        else
            return r.emit("stablehlo.convert", {v}, {"tensor<i64>"});
    } else {
        return scalar_value<std::int64_t>(r, clamped(s));
    }
}

// evaluate_into's two halves: the expression's ops before it is evaluated, its storage after.
// (By value where it can: a reference would make the expression's address escape, and keep the
// hot path from holding a small expression's nodes in registers.)
template<class E>
XLET_TRACE_COLD int expression_id(recorder& r, std::conditional_t<std::is_copy_constructible_v<E>, E, const E&> e) {
    return value_of(r, e);
}
template<class E, class S>
XLET_TRACE_COLD void bind_into(recorder& r, const S* dst, int id) {
    r.bind(dst, E::num_elements * sizeof(S), type_of<E>(), id);
}

template<class A>
void bind(recorder& r, const A& a, int id) {
    r.bind(a.data(), A::num_elements * sizeof(typename A::value_type), type_of<A>(), id);
}

// The result types of an op that returns an array or a tuple of arrays.
template<class R>
void result_types(std::vector<std::string>& out) {
    if constexpr (is_array_leaf<R>) {
        out.push_back(type_of<R>());
    } else {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (result_types<std::remove_cvref_t<std::tuple_element_t<I, R>>>(out), ...);
        }
        (std::make_index_sequence<std::tuple_size_v<R>>{});
    }
}
template<class R>
void bind_results(recorder& r, const R& res, int& id) {
    if constexpr (is_array_leaf<R>) {
        bind(r, res, id++);
    } else {
        detail::apply([&](const auto&... e) { (bind_results(r, e, id), ...); }, res);
    }
}
template<class R>
void values_of(recorder& r, const R& res, std::vector<int>& out) {
    if constexpr (
        is_array_leaf<R> || requires { typename R::xlet_node; } || requires { res.trace(r); }) {
        out.push_back(value_of(r, res));
    } else {
        detail::apply([&](const auto&... e) { (values_of(r, e, out), ...); }, res);
    }
}

// What an exported op may return: arrays, or tuples of them.
template<class R>
inline constexpr bool arrays_only = is_array_leaf<R>;
template<class... T>
inline constexpr bool arrays_only<std::tuple<T...>> = (arrays_only<std::remove_cvref_t<T>> && ...);

// Records an op whose operands and regions were traced before it ran; binds its result(s).
// Cold and out of line: the trace path stays out of the code (and the optimiser's work) of the
// ops, which only test a thread-local pointer.
template<class R, class Attrs>
XLET_TRACE_COLD void finish(recorder& r, const char* name, const Attrs& attrs, std::vector<int>& ins,
                            std::vector<int>& regions, const R& result) {
    if constexpr (arrays_only<R>) {
        std::vector<std::string> types;
        result_types<R>(types);
        int id = r.emit(name, std::move(ins), types, attrs(), std::move(regions));
        bind_results(r, result, id);
    } else {
        throw error("to_stablehlo", name, ": a result that is not made of tensors");
    }
}

// Pauses the recorder, if there is one, for the op's own work (its kernels, nested evaluations).
struct pause_if {
    recorder* r;
    explicit pause_if(recorder* x) : r(x) {
        if (r) active = nullptr;
    }
    ~pause_if() {
        if (r) active = r;
    }
    pause_if(const pause_if&) = delete;
    pause_if& operator=(const pause_if&) = delete;
};

// An op: `run()` computes it, once, with the recorder paused; with a recorder (r not null) it is
// then recorded as `name` over the operand ids `ins` with `regions` (traced before), its
// attributes from `attrs()`.
template<class Run, class Attrs>
auto run_op(recorder* r, const char* name, const Attrs& attrs, std::vector<int> ins, std::vector<int> regions,
            Run&& run) {
    if constexpr (compiled_in) {
        auto result = [&] {
            pause_if p(r);
            return run();
        }();
        if (r) [[unlikely]]
            finish(*r, name, attrs, ins, regions, result);
        return result;
    } else {
        return run();
    }
}

template<class... X>
XLET_TRACE_COLD std::vector<int> operand_ids(recorder& r, const X&... operands) {
    std::vector<int> ins;
    (values_of(r, operands, ins), ...);
    return ins;
}

// Ops with no StableHLO export yet: an xlet::error while exporting, rather than a result that
// would silently become a constant of the traced run.
inline void not_exported(const char* op) {
    if (active) [[unlikely]]
        throw error("to_stablehlo", op, " is not exported yet (docs/architecture.md, \"Export\")");
}

// A heavy op without regions: `run()` computes it (it holds the op's rules: when they fail it
// returns void after its static_asserts, and nothing here adds to the diagnostics); when a
// recorder is active the op is recorded as `name` over `operands`.
template<class Run, class Attrs, class... X>
auto heavy(const char* name, const Attrs& attrs, Run&& run, const X&... operands) {
    using R = decltype(run());
    if constexpr (std::is_void_v<R>) {
        return run();
    } else {
        recorder* const r = current();
        std::vector<int> ins;
        if constexpr (compiled_in)
            if (r) [[unlikely]]
                ins = operand_ids(*r, operands...);
        return run_op(r, name, attrs, std::move(ins), {}, run);
    }
}

template<class F>
inline constexpr bool is_traceable = enable_traceable<F>;
template<class F>
inline constexpr bool is_traceable<traceable_fn<F>> = true;

// The element type a form's op returns: the functor's `result`, else what a call returns.
template<class F, class... T>
struct form_result {
    using type = std::remove_cvref_t<std::invoke_result_t<const F&, T...>>;
};
template<class F, class T0, class... T>
requires requires { typename F::template result<T0>; }
struct form_result<F, T0, T...> {
    using type = typename F::template result<T0>;
};

// A computation over scalars of types T... as a region: an element-wise functor becomes its op,
// a traceable user callable is called on rank-0 views of the block arguments. Anything
// else cannot be exported: xlet::error naming the op.
template<class... T, class F>
XLET_TRACE_COLD int computation(recorder& r, const F& f, std::string_view op) {
    const int g = r.open_region({tensor_type<T, 0>({})...});
    const int first = r.regions[static_cast<std::size_t>(g)].args.front();
    if constexpr (!form<F>::name.empty()) {
        // A form may use only its first arguments (sort_less compares the keys of a variadic sort).
        std::size_t arity = sizeof...(T);
        if constexpr (requires { form<F>::arity; }) arity = form<F>::arity;
        std::vector<int> args;
        for (std::size_t i = 0; i < arity; ++i)
            args.push_back(first + static_cast<int>(i));
        using T0 = std::tuple_element_t<0, std::tuple<T...>>;
        using Out = typename form_result<F, T...>::type;
        const int v =
            r.emit(std::string(form<F>::name), args, {tensor_type<Out, 0>({})}, form<F>::template attrs<T0>());
        r.close_region({v});
    } else if constexpr (is_traceable<F>) {
        // The block arguments live here; f gets rank-0 views of them. Views, not the tensors: a
        // generic lambda takes its parameters by value, and the expression it returns must not
        // point into those copies (gone when it returns) but here.
        std::tuple<tensor<T>...> args;
        int id = first;
        detail::apply([&](const auto&... a) { (bind(r, a, id++), ...); }, args);
        std::vector<int> results;
        detail::apply([&](const tensor<T>&... a) { values_of(r, f(tensor_map<const T>(a.data())...), results); }, args);
        r.close_region(std::move(results));
    } else {
        r.close_region({});
        throw error("to_stablehlo", op,
                    ": the computation is a C++ callable without a StableHLO form; use xlet's "
                    "function objects (add_fn, max_fn, ...) or declare it with xlet::traceable(f)");
    }
    return g;
}
// The same with the scalar types given as a tuple type: once, twice (scatter's computation
// takes (current..., update...)) or in pairs (a sort comparator takes (x_i, x_j, y_i, y_j, ...)).
enum class args { once, twice, pairs };
template<class Tuple, args A = args::once, class F>
int computation_of(recorder& r, const F& f, std::string_view op) {
    return [&]<class... T>(std::tuple<T...>*) {
        if constexpr (A == args::twice)
            return computation<T..., T...>(r, f, op);
        else if constexpr (A == args::once)
            return computation<T...>(r, f, op);
        else
            return computation_of<decltype(std::tuple_cat(std::declval<std::tuple<T, T>>()...))>(r, f, op);
    }(static_cast<Tuple*>(nullptr));
}

} // namespace xlet::trace

#if XLET_TRACE_COMPILED
#include "trace_record.hpp"
#endif
