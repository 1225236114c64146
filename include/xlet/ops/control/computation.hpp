// Call (spec: Call) and what every control-flow op shares: compile-time names, the
// materialisation of a computation's result, and errors raised inside a computation.
//
//   call(fn, args...)            fn is any callable valid on the arguments (generic lambdas
//                                included, eval/callable.hpp); its result is materialised
//   auto f = computation<"axpy", f32<3>(f32<>, f32<3>, f32<3>)>(
//       [](const f32<>& a, const f32<3>& x, const f32<3>& y) { return a * x + y; });
//   call(f, z, v * 2.0f, v)       a named, typed computation: operands are evaluated into the
//                                declared parameter types, the result into the declared one
//
// A computation may return a lazy expression over its parameters when it takes them by reference
// (`const f32<3>&`, `const auto&`): call evaluates the result before its operands go out of scope.
// A computation that takes a parameter *by value* must not return an expression over it (the
// parameter dies when the function returns): declare the return type (`-> f32<3>`) instead.
//
// An exception thrown inside a computation reaches the caller as an xlet::error naming the op and
// the computation ("xlet::call: computation 'axpy' threw: ..."), with the original exception
// nested (std::rethrow_if_nested gives it back).
//
// Rules:
//   call C1  a typed computation gets as many operands as it has parameters
//        C2  operand i evaluates to parameter i's type (same element type and shape)
//        C3  a typed computation's function takes its parameters and its result evaluates to the
//            declared result type (checked when the computation is made)
//        C4  a plain callable is callable with the operands
#pragma once
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../../core/error.hpp"
#include "../../core/shape.hpp"
#include "../../core/tensor.hpp"
#include "../../eval/assign.hpp"

namespace xlet {

// A string usable as a template argument: custom_call<"target">, composite_call<"foo.bar">,
// computation<"name", Sig>. Compares equal to a string literal at compile time.
template<std::size_t N>
struct fixed_string {
    char value[N]{};
    constexpr fixed_string(const char (&s)[N]) {
        for (std::size_t i = 0; i < N; ++i)
            value[i] = s[i];
    }
    static constexpr std::size_t size() { return N - 1; }
    constexpr std::string_view view() const { return {value, N - 1}; }
    constexpr const char* c_str() const { return value; }
    template<std::size_t M>
    constexpr bool operator==(const fixed_string<M>& o) const {
        return view() == o.view();
    }
    template<std::size_t M>
    constexpr bool operator==(const char (&s)[M]) const {
        return view() == std::string_view(s, M - 1);
    }
};

namespace detail {

template<class T>
inline constexpr bool is_std_tuple = false;
template<class... T>
inline constexpr bool is_std_tuple<std::tuple<T...>> = true;

template<class T>
inline constexpr bool is_owning_tensor = false;
template<class T, std::size_t... D>
inline constexpr bool is_owning_tensor<tensor<T, D...>> = true;

// What a computation's result becomes: expressions are evaluated into tensors, tuples element by
// element (a tuple of expressions becomes a tuple of tensors), anything else is kept as it is.
template<class R>
auto materialize(R&& r) {
    using D = std::remove_cvref_t<R>;
    if constexpr (is_owning_tensor<D>)
        return D(std::forward<R>(r));
    else if constexpr (expression<D>)
        return eval(r);
    else if constexpr (is_std_tuple<D>)
        return detail::apply(
            [](auto&&... e) {
                return std::tuple<decltype(materialize(std::forward<decltype(e)>(e)))...>(
                    materialize(std::forward<decltype(e)>(e))...);
            },
            std::forward<R>(r));
    else
        return D(std::forward<R>(r));
}
template<class R>
using materialized_t = decltype(materialize(std::declval<R>()));

// Export (to_stablehlo): what a traced computation may return (xlet values, or tuples of them).
template<class O>
inline constexpr bool traceable_result = expression<O>;
template<class... T>
inline constexpr bool traceable_result<std::tuple<T...>> = (traceable_result<std::remove_cvref_t<T>> && ...);

// Traces call(args) into a new region: its block arguments hold a fresh value of type A (none
// when A is void: the `if` and `case` branches, which capture their operands), and it returns
// what call returns. Returns the region's index.
template<class A, class Call>
XLET_TRACE_COLD int trace_region(trace::recorder& r, const std::string& op, const char* what, Call&& call) {
    std::vector<std::string> types;
    if constexpr (!std::is_void_v<A>) trace::result_types<A>(types);
    const int g = r.open_region(types);
    try {
        std::vector<int> results;
        auto collect = [&](const auto& out) {
            using O = std::remove_cvref_t<decltype(out)>;
            if constexpr (traceable_result<O>)
                trace::values_of(r, out, results);
            else
                throw error("to_stablehlo", op, ": ", what,
                            " returns a C++ value, which cannot be traced; return xlet tensors or "
                            "expressions (pred<>, `i < n`)");
        };
        if constexpr (std::is_void_v<A>) {
            collect(call());
        } else {
            A st{};
            int id = r.regions[static_cast<std::size_t>(g)].args.empty()
                         ? 0
                         : r.regions[static_cast<std::size_t>(g)].args.front();
            trace::bind_results(r, st, id);
            collect(call(st));
        }
        r.close_region(std::move(results));
    } catch (...) {
        r.close_region({});
        throw;
    }
    return g;
}

// Inside a catch block: throw an xlet::error naming the op and where, with the caught exception
// nested in it.
[[noreturn]] inline void rethrow_in(const std::string& op, const std::string& where) {
    try {
        throw;
    } catch (const std::exception& e) {
        std::throw_with_nested(error(op, where, " threw: ", e.what()));
    } catch (...) {
        std::throw_with_nested(error(op, where, " threw a non-standard exception"));
    }
}

// The value of a scalar selector or condition: a C++ scalar, a rank-0 array, or a rank-0
// expression (evaluated here, no allocation).
template<class X>
auto scalar_value(const X& x) {
    using D = std::remove_cvref_t<X>;
    if constexpr (!expression<D>)
        return x;
    else if constexpr (is_array_leaf<D>)
        return *x.data();
    else {
        typename D::value_type v{};
        evaluate_into(&v, x);
        return v;
    }
}

// The element type of a rank-0 expression or C++ scalar, else void.
template<class X, class = void>
struct scalar_type {
    using type = void;
};
template<class X>
struct scalar_type<X, std::enable_if_t<std::is_arithmetic_v<X>>> {
    using type = X;
};
template<class X>
requires expression<X>
struct scalar_type<X, void> {
    using type = std::conditional_t<X::rank == 0, typename X::value_type, void>;
};
template<class X>
using scalar_type_t = typename scalar_type<std::remove_cvref_t<X>>::type;

// An operand of a typed computation as its parameter P: the argument itself when it is a P, else
// a P evaluated from it.
template<class P, class A>
decltype(auto) as_parameter(A&& a) {
    if constexpr (std::is_same_v<std::remove_cvref_t<A>, P>)
        return std::forward<A>(a);
    else
        return P(std::forward<A>(a));
}

// Operand A can be passed as parameter P: the same type, or an expression evaluating to P.
template<class A, class P>
inline constexpr bool parameter_fits = [] {
    using D = std::remove_cvref_t<A>;
    if constexpr (std::is_same_v<D, P>)
        return true;
    else if constexpr (expression<D> && expression<P>)
        return std::is_same_v<tensor_type_of<D>, tensor_type_of<P>>;
    else
        return false;
}();

} // namespace detail

// A named, typed computation (XLA's XlaComputation): Name, the parameter types and the result
// type are part of its type. Made by computation<Name, R(P...)>(f); called by call(c, args...).
template<fixed_string Name, class R, class Params, class F>
class computation_t;
template<fixed_string Name, class R, class... P, class F>
class computation_t<Name, R, std::tuple<P...>, F> {
public:
    static constexpr auto name = Name;
    static constexpr std::size_t arity = sizeof...(P);
    using result_type = R;
    using parameter_types = std::tuple<P...>;

    constexpr explicit computation_t(F f) : f_(std::move(f)) {}
    const F& function() const { return f_; }

private:
    F f_;
};

namespace detail {
template<class Sig>
struct signature;
template<class R, class... P>
struct signature<R(P...)> {
    using result = std::remove_cvref_t<R>;
    using params = std::tuple<std::remove_cvref_t<P>...>;
};

template<class F, class R, class Params>
struct typed_computation_fits : std::false_type {};
template<class F, class R, class... P>
struct typed_computation_fits<F, R, std::tuple<P...>> : std::bool_constant<[] {
    if constexpr (std::is_invocable_v<const F&, const P&...>)
        return std::is_same_v<materialized_t<std::invoke_result_t<const F&, const P&...>>, R>;
    else
        return false;
}()> {};

template<class T>
inline constexpr bool is_computation = false;
template<fixed_string N, class R, class P, class F>
inline constexpr bool is_computation<computation_t<N, R, P, F>> = true;
} // namespace detail

// computation<"name", R(P...)>(f): f must take const P&... (or P by value, or auto) and return
// an R or an expression evaluating to R.
template<fixed_string Name, class Sig, class F>
auto computation(F f) {
    using S = detail::signature<Sig>;
    static_assert(
        diag::got<detail::typed_computation_fits<F, typename S::result, typename S::params>::value, Sig>::value,
        "xlet::call [C3]: the computation's function must take its declared parameters and return its "
        "declared result type");
    return computation_t<Name, typename S::result, typename S::params, F>(std::move(f));
}

// Call(computation, operands...): the computation applied to the operands; its result
// materialised (tensors, or a std::tuple of tensors). Zero operands are allowed.
template<class Fn, class... A>
auto call(const Fn& fn, A&&... args) {
    if constexpr (detail::is_computation<Fn>) {
        using P = typename Fn::parameter_types;
        using R = typename Fn::result_type;
        constexpr bool arity_ok = sizeof...(A) == Fn::arity;
        static_assert(diag::got<arity_ok, P, std::remove_cvref_t<A>...>::value,
                      "xlet::call [C1]: the number of operands must equal the computation's number of parameters");
        if constexpr (arity_ok) {
            constexpr bool types_ok = [&]<std::size_t... K>(std::index_sequence<K...>) {
                return (detail::parameter_fits<A, std::tuple_element_t<K, P>> && ...);
            }
            (std::index_sequence_for<A...>{});
            static_assert(diag::got<types_ok, P, std::remove_cvref_t<A>...>::value,
                          "xlet::call [C2]: each operand must evaluate to its parameter's type (element type and "
                          "shape)");
            if constexpr (types_ok) {
                try {
                    return [&]<std::size_t... K>(std::index_sequence<K...>) {
                        // One full-expression: parameters evaluated from expressions live until
                        // the result has been evaluated.
                        return R(
                            fn.function()(detail::as_parameter<std::tuple_element_t<K, P>>(std::forward<A>(args))...));
                    }
                    (std::index_sequence_for<A...>{});
                } catch (...) {
                    detail::rethrow_in("call", "computation '" + std::string(Fn::name.view()) + "'");
                }
            } else {
                return R{};
            }
        } else {
            return R{};
        }
    } else {
        constexpr bool ok = std::is_invocable_v<const Fn&, A&&...>;
        static_assert(diag::got<ok, std::remove_cvref_t<A>...>::value,
                      "xlet::call [C4]: the computation must be callable with the operands (arity and types)");
        if constexpr (ok) {
            try {
                return detail::materialize(fn(std::forward<A>(args)...));
            } catch (...) {
                detail::rethrow_in("call", "the computation");
            }
        }
    }
}

} // namespace xlet
