// CustomCall (spec: CustomCall):
//
//   extern "C" void myfunc(void* out, const void** in);          // the spec's form (also `void** in`)
//   register_custom_call("myfunc", &myfunc);
//   f32<3, 3> z = custom_call<"myfunc", f32<3, 3>>(x, y);
//
//   register_custom_call<f32<3>(f32<3>, f32<3>)>("axpy", [](const f32<3>& a, const f32<3>& b) {
//       return f32<3>(a * 2.0f + b); });                          // the typed C++ form
//   f32<3> r = custom_call<"axpy", f32<3>>(v, v);
//
// Targets are found by name in a registry (custom_call_registry::global(), or one passed as the
// first argument), thread-safe; a name registered twice replaces the first. The C form gets
// `in[i]`, a pointer to operand i's elements (row-major, contiguous: expressions are evaluated
// first, arrays are passed in place), and `out`, the result's elements; a std::tuple result makes
// `out` a `void**` with one pointer per element, as XLA does for tuple shapes. The function must
// not write its inputs, and should be free of side effects and idempotent (spec). The typed form
// is checked at run time against the call: a target registered as f32[3](f32[3], f32[3]) called
// with other types is an xlet::error naming both signatures. A name nobody registered is an
// xlet::error naming it; an exception thrown by the target reaches the caller as
// "xlet::custom_call: target 'name' threw: ..." with the original nested.
// Not supported: XLA's api_version, backend_config, has_side_effect, operand layouts (xlet is
// row-major only), tuple operands.
//
// Rules:
//   custom_call C1  the result type is given (custom_call<"target", Out>) and is a tensor type or a
//                   std::tuple of tensor types
//               C2  every operand is an array expression (tensor, tensor_map or lazy expression)
#pragma once
#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "computation.hpp"

namespace xlet {

// The spec's signatures: in[i] points to operand i's elements, out to the result's.
using custom_call_target = void (*)(void* out, const void** in);
using custom_call_target_mutable = void (*)(void* out, void** in); // the older spec text's `void** in`

namespace detail {

template<class... A>
std::string type_labels();

// "f32[2,3]", "(f32[2], s32[])": a type as messages spell it.
template<class T>
std::string type_label() {
    if constexpr (is_std_tuple<T>) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            // (appended, not "(" + s: GCC 12 reports a false -Wrestrict in operator+(const char*,
            // string&&) at -O2, PR 105329)
            std::string r(1, '(');
            r += type_labels<std::tuple_element_t<K, T>...>();
            return r += ')';
        }
        (std::make_index_sequence<std::tuple_size_v<T>>{});
    } else if constexpr (expression<T>) {
        std::string r(xla_name<typename T::value_type>);
        r += '[';
        for (std::size_t i = 0; i < T::rank; ++i)
            r += (i ? "," : "") + std::to_string(T::extents[i]);
        return r + ']';
    } else {
        return typeid(T).name();
    }
}

template<class... A>
std::string type_labels() {
    std::string r;
    bool first = true;
    ((r += (first ? "" : ", ") + type_label<A>(), first = false), ...);
    return r;
}

template<class T>
inline constexpr bool custom_call_result = false;
template<class T, std::size_t... D>
inline constexpr bool custom_call_result<tensor<T, D...>> = true;
template<class... T>
inline constexpr bool custom_call_result<std::tuple<T...>> = (is_owning_tensor<T> && ...);

} // namespace detail

// The registry of custom-call targets by name. Thread-safe: lookups share a lock, registration
// takes it exclusively; a call copies the entry and runs the target outside the lock.
// (A template of nothing: compiled only in a translation unit that uses custom calls.)
template<class = void>
class basic_custom_call_registry {
public:
    // A target as called: fn(out, in). Copies share the callable (a call copies its entry).
    struct target {
        void (*call)(const void* self, void* out, const void** in) = nullptr;
        std::shared_ptr<const void> self;
        void operator()(void* out, const void** in) const { call(self.get(), out, in); }
    };
    struct entry {
        // C form: in[i] points to elements. Typed form: in[i] points to the operand tensors
        // themselves, out to the result object; `signature` names the typed form's types.
        target fn;
        bool typed = false;
        std::type_index signature = typeid(void);
        std::string signature_label;
    };

    static basic_custom_call_registry& global() {
        static basic_custom_call_registry r;
        return r;
    }

    void add(std::string name, custom_call_target f) {
        if (!f) throw error("custom_call", "target '", name, "' registered as a null function");
        entry e;
        e.fn = make_target([f](void* out, const void** in) { f(out, in); });
        put(std::move(name), std::move(e));
    }
    void add(std::string name, custom_call_target_mutable f) {
        if (!f) throw error("custom_call", "target '", name, "' registered as a null function");
        entry e;
        e.fn = make_target([f](void* out, const void** in) { f(out, const_cast<void**>(in)); });
        put(std::move(name), std::move(e));
    }
    // The typed form: Sig = Out(Operands...), f callable with const Operands&... and returning an
    // Out (or an expression evaluating to it).
    template<class Sig, class F>
    void add(std::string name, F f) {
        add_typed(std::move(name), std::move(f), static_cast<Sig*>(nullptr));
    }

    bool remove(const std::string& name) {
        std::unique_lock lock(m_);
        const auto it = position(name);
        if (it == targets_.end() || it->first != name) return false;
        targets_.erase(it);
        return true;
    }
    bool contains(const std::string& name) const {
        std::shared_lock lock(m_);
        const auto it = position(name);
        return it != targets_.end() && it->first == name;
    }
    entry find(std::string_view name) const {
        std::shared_lock lock(m_);
        const auto it = position(name);
        if (it == targets_.end() || it->first != name)
            throw error("custom_call", "no target named '", name, "' is registered (register_custom_call(\"", name,
                        "\", f) first)");
        return it->second;
    }

private:
    template<class Out, class... A, class F>
    void add_typed(std::string name, F f, Out (*)(A...)) {
        using R = std::remove_cvref_t<Out>;
        static_assert(diag::got<detail::custom_call_result<R>, R>::value,
                      "xlet::custom_call [C1]: the result type must be a tensor type or a std::tuple of tensor types");
        static_assert(std::is_invocable_v<const F&, const std::remove_cvref_t<A>&...>,
                      "xlet::custom_call: the typed target must be callable with its declared operand types");
        entry e;
        e.fn = make_target([f = std::move(f)](void* out, const void** in) {
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                *static_cast<R*>(out) = R(f(*static_cast<const std::remove_cvref_t<A>*>(in[K])...));
            }
            (std::index_sequence_for<A...>{});
        });
        e.typed = true;
        e.signature = typeid(R(std::remove_cvref_t<A>...));
        e.signature_label = detail::type_label<R>() + "(" + detail::type_labels<std::remove_cvref_t<A>...>() + ")";
        put(std::move(name), std::move(e));
    }
    template<class F>
    static target make_target(F f) {
        return {[](const void* self, void* out, const void** in) { (*static_cast<const F*>(self))(out, in); },
                std::make_shared<F>(std::move(f))};
    }
    // Targets sorted by name (few, looked up on every call without building a string).
    using targets = std::vector<std::pair<std::string, entry>>;
    typename targets::const_iterator position(std::string_view name) const {
        return std::lower_bound(targets_.begin(), targets_.end(), name,
                                [](const auto& t, std::string_view n) { return std::string_view(t.first) < n; });
    }
    void put(std::string name, entry e) {
        std::unique_lock lock(m_);
        const auto at = targets_.begin() + (position(name) - targets_.cbegin());
        if (at != targets_.end() && at->first == name)
            at->second = std::move(e);
        else
            targets_.emplace(at, std::move(name), std::move(e));
    }
    mutable std::shared_mutex m_;
    targets targets_;
};
using custom_call_registry = basic_custom_call_registry<>;

// Register a target in the global registry: the C form, or the typed form with its signature.
template<class = void>
void register_custom_call(std::string name, custom_call_target f) {
    custom_call_registry::global().add(std::move(name), f);
}
template<class = void>
void register_custom_call(std::string name, custom_call_target_mutable f) {
    custom_call_registry::global().add(std::move(name), f);
}
template<class Sig, class F>
void register_custom_call(std::string name, F f) {
    custom_call_registry::global().template add<Sig>(std::move(name), std::move(f));
}

// CustomCall(target_name, operands..., shape): Out is the declared result type.
template<fixed_string Target, class Out = void, class... A>
auto custom_call(custom_call_registry& registry, A&&... operands) {
    constexpr bool c1 = detail::custom_call_result<Out>;
    static_assert(diag::got<c1, Out>::value,
                  "xlet::custom_call [C1]: the result type must be given, custom_call<\"target\", Out>(operands...), "
                  "as a tensor type or a std::tuple of tensor types");
    constexpr bool c2 = (expression<std::remove_cvref_t<A>> && ...);
    static_assert(diag::got<c2, std::remove_cvref_t<A>...>::value,
                  "xlet::custom_call [C2]: every operand must be an array expression");
    if constexpr (c1 && c2) {
        // Traced (to_stablehlo): one stablehlo.custom_call of the target (the registry is the
        // importer's business: xlet-translate calls the target registered under the same name).
        return trace::heavy(
            "stablehlo.custom_call",
            [] {
                std::string a = "call_target_name = \"";
                for (char c : Target.view()) {
                    if (c == '"' || c == '\\') a += '\\';
                    a += c;
                }
                return a += '"';
            },
            [&] {
                const auto e = registry.find(Target.view());
                Out out{};
                auto run = [&](const void** in) {
                    try {
                        if (e.typed) {
                            e.fn(&out, in);
                        } else if constexpr (detail::is_std_tuple<Out>) {
                            void* outs[std::tuple_size_v<Out>];
                            detail::apply(
                                [&](auto&... o) {
                                    std::size_t k = 0;
                                    ((outs[k++] = o.data()), ...);
                                },
                                out);
                            e.fn(static_cast<void*>(outs), in);
                        } else {
                            e.fn(out.data(), in);
                        }
                    } catch (...) {
                        detail::rethrow_in("custom_call", "target '" + std::string(Target.view()) + "'");
                    }
                };
                if (e.typed) {
                    using Sig = Out(tensor_type_of<A>...);
                    if (e.signature != std::type_index(typeid(Sig)))
                        throw error("custom_call", "target '", Target.view(), "' was registered as ", e.signature_label,
                                    " but is called as ", detail::type_label<Out>(), "(",
                                    detail::type_labels<tensor_type_of<A>...>(), ")");
                    // The typed form takes tensors: expressions and maps are evaluated into them.
                    auto held =
                        std::tuple<decltype(detail::as_parameter<tensor_type_of<A>>(std::forward<A>(operands)))...>(
                            detail::as_parameter<tensor_type_of<A>>(std::forward<A>(operands))...);
                    detail::apply(
                        [&](const auto&... h) {
                            const void* in[sizeof...(A) + 1] = {static_cast<const void*>(&h)..., nullptr};
                            run(in);
                        },
                        held);
                } else {
                    auto held = std::tuple<decltype(detail::as_array(std::forward<A>(operands)))...>(
                        detail::as_array(std::forward<A>(operands))...);
                    detail::apply(
                        [&](const auto&... h) {
                            const void* in[sizeof...(A) + 1] = {static_cast<const void*>(h.data())..., nullptr};
                            run(in);
                        },
                        held);
                }
                return out;
            },
            operands...);
    }
}

template<fixed_string Target, class Out = void, class... A>
auto custom_call(A&&... operands) {
    return custom_call<Target, Out>(custom_call_registry::global(), std::forward<A>(operands)...);
}

} // namespace xlet
