// Export: the StableHLO module of an expression or of a C++ callable written with xlet ops.
//
//   std::string m = xlet::to_stablehlo(a * b + exp(a));   // arrays become the arguments
//   std::string p = xlet::to_stablehlo(f, x, w);            // f traced on example arguments
//
// A callable is traced the way JAX traces a Python function: it runs once on the example
// arguments (core/trace.hpp records what each op does), so C++ control flow on values is taken as
// it went for these arguments, and xlet's own control flow (while_loop, conditional) becomes
// regions. The text is StableHLO's generic form inside a `func.func @main`, which
// `xlet-translate` imports again and MLIR's own parser reads (mlir-opt --allow-unregistered-dialect).
//
// Tracing is compiled into the ops only where XLET_TRACE is defined before the first xlet header
// (core/trace.hpp): this header defines it, so include it first in a file that exports.
#pragma once
#ifndef XLET_TRACE
#define XLET_TRACE
#endif
#include "../core/trace.hpp"
#if !XLET_TRACE_COMPILED
#error                                                                                                                 \
    "xlet: include <xlet/stablehlo/export.hpp> before any other xlet header (or define XLET_TRACE first): the ops record what they do for to_stablehlo only when it is defined before they are compiled"
#endif
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "../core/tensor.hpp"
#include "../distributed/pool.hpp"
#include "../eval/assign.hpp"

namespace xlet {

struct stablehlo_options {
    std::string module_name = "xlet";
    std::string function_name = "main";
    // 15: integer lists as dense<[...]> : tensor<Nxi64> (what MLIR 15, Debian 12's mlir-opt, reads)
    // instead of array<i64: ...>.
    int mlir_compat = 0;
    // An SPMD program (f takes an xlet::replica_context& first): it runs on a replica_pool of
    // replicas x partitions devices, device 0 is traced, and the module says how many it needs
    // (mhlo.num_replicas / mhlo.num_partitions, as JAX writes them).
    std::uint32_t replicas = 1;
    std::uint32_t partitions = 1;
};

namespace trace::impl {

inline std::string compat_attrs(std::string s, int compat) {
    if (compat != 15) return s;
    // array<i64: 1, 2> -> dense<[1, 2]> : tensor<2xi64>; array<i64> -> dense<> : tensor<0xi64>
    std::string out;
    std::size_t i = 0;
    for (std::size_t k; (k = s.find("array<", i)) != std::string::npos;) {
        out.append(s, i, k - i);
        const std::size_t end = s.find('>', k);
        const std::size_t colon = s.find(':', k);
        const bool empty = colon == std::string::npos || colon > end;
        const std::string type = s.substr(k + 6, (empty ? end : colon) - k - 6);
        const std::string body = empty ? "" : s.substr(colon + 2, end - colon - 2);
        std::size_t n = 0;
        if (!body.empty()) {
            n = 1;
            for (char c : body)
                n += c == ',';
        }
        out += (n ? "dense<[" + body + "]>" : std::string("dense<>")) + " : tensor<" + std::to_string(n) + "x" + type +
               ">";
        i = end + 1;
    }
    return out + s.substr(i);
}

class printer {
public:
    printer(const recorder& r, const stablehlo_options& o) : r_(r), o_(o) {}

    std::string module() {
        const region& body = r_.regions[0];
        std::string s = "module @" + o_.module_name;
        if (o_.replicas != 1 || o_.partitions != 1)
            s += " attributes {mhlo.num_partitions = " + std::to_string(o_.partitions) +
                 " : i32, mhlo.num_replicas = " + std::to_string(o_.replicas) + " : i32}";
        s += " {\n  func.func @" + o_.function_name + "(";
        for (std::size_t i = 0; i < body.args.size(); ++i) {
            const int a = body.args[i];
            names_[a] = "%arg" + std::to_string(next_arg_++);
            s += (i ? ", " : "") + names_[a] + ": " + r_.types[static_cast<std::size_t>(a)];
        }
        s += ") -> (";
        for (std::size_t i = 0; i < body.results.size(); ++i)
            s += (i ? ", " : "") + r_.types[static_cast<std::size_t>(body.results[i])];
        s += ") {\n";
        ops(body, s, 4);
        s +=
            std::string(4, ' ') + "\"func.return\"(" + list(body.results) + ") : (" + types(body.results) + ") -> ()\n";
        return s + "  }\n}\n";
    }

private:
    const recorder& r_;
    const stablehlo_options& o_;
    std::unordered_map<int, std::string> names_;
    int next_arg_ = 0, next_value_ = 0;

    const std::string& name(int id) {
        auto it = names_.find(id);
        if (it == names_.end()) throw error("to_stablehlo", "a value used outside the region that defines it");
        return it->second;
    }
    std::string list(const std::vector<int>& ids) {
        std::string s;
        for (std::size_t i = 0; i < ids.size(); ++i)
            s += (i ? ", " : "") + name(ids[i]);
        return s;
    }
    std::string types(const std::vector<int>& ids) const {
        std::string s;
        for (std::size_t i = 0; i < ids.size(); ++i)
            s += (i ? ", " : "") + r_.types[static_cast<std::size_t>(ids[i])];
        return s;
    }
    void ops(const region& g, std::string& s, int indent) {
        for (const op& o : g.ops) {
            s += std::string(static_cast<std::size_t>(indent), ' ');
            const std::string args = list(o.operands);
            if (!o.results.empty()) {
                const std::string base = "%" + std::to_string(next_value_++);
                if (o.results.size() == 1) {
                    names_[o.results[0]] = base;
                    s += base;
                } else {
                    for (std::size_t i = 0; i < o.results.size(); ++i)
                        names_[o.results[i]] = base + "#" + std::to_string(i);
                    s += base + ":" + std::to_string(o.results.size());
                }
                s += " = ";
            }
            s += "\"" + o.name + "\"(" + args + ")";
            if (!o.regions.empty()) {
                s += " (";
                for (std::size_t k = 0; k < o.regions.size(); ++k) {
                    const region& g2 = r_.regions[static_cast<std::size_t>(o.regions[k])];
                    s += k ? ", {\n" : "{\n";
                    s += std::string(static_cast<std::size_t>(indent), ' ') + "^bb0(";
                    for (std::size_t i = 0; i < g2.args.size(); ++i) {
                        names_[g2.args[i]] = "%arg" + std::to_string(next_arg_++);
                        s += (i ? ", " : "") + names_[g2.args[i]] + ": " +
                             r_.types[static_cast<std::size_t>(g2.args[i])];
                    }
                    s += "):\n";
                    ops(g2, s, indent + 2);
                    s += std::string(static_cast<std::size_t>(indent + 2), ' ') + "\"" + g2.terminator + "\"(" +
                         list(g2.results) + ") : (" + types(g2.results) + ") -> ()\n";
                    s += std::string(static_cast<std::size_t>(indent), ' ') + "}";
                }
                s += ")";
            }
            if (!o.attrs.empty()) s += " {" + compat_attrs(o.attrs, o_.mlir_compat) + "}";
            s += " : (" + types(o.operands) + ") -> ";
            s += o.results.size() == 1 ? types(o.results) : "(" + types(o.results) + ")";
            s += "\n";
        }
    }
};

// Makes r the thread's recorder for a scope.
struct activate {
    recorder* saved = active;
    explicit activate(recorder& r) { active = &r; }
    ~activate() { active = saved; }
    activate(const activate&) = delete;
    activate& operator=(const activate&) = delete;
};

} // namespace trace::impl

// The module of one expression: its arrays are the function's arguments (in the order the
// expression reads them), C++ values in it are constants, and nothing is evaluated.
template<expression E>
std::string to_stablehlo(const E& e, const stablehlo_options& o = {}) {
    trace::recorder r;
    r.leaves_are_arguments = true;
    {
        trace::impl::activate a(r);
        r.regions[0].results.push_back(trace::value_of(r, e));
    }
    return trace::impl::printer(r, o).module();
}

// The module of a callable: f runs once on copies of the example arguments (arrays or
// expressions, which become the function's arguments in order); what it returns (an array, an
// expression or a tuple of them) is the function's result.
template<class F, class... A>
requires(!expression<F> && (expression<A> && ...)) std::string to_stablehlo(F&& f, const A&... args) {
    return to_stablehlo(stablehlo_options{}, std::forward<F>(f), args...);
}
template<class F, class... A>
requires(expression<A>&&...) std::string to_stablehlo(const stablehlo_options& o, F&& f, const A&... args) {
    trace::recorder r;
    // Device 0's program is recorded; with a replica_context every device runs (the collectives
    // need them all), on its own copies of the example arguments.
    auto device = [&](auto&&... ctx) {
        std::tuple<tensor_type_of<A>...> xs{tensor_type_of<A>(args)...};
        auto call = [&] { return detail::apply([&](auto&... x) { return f(ctx..., x...); }, xs); };
        if constexpr (sizeof...(ctx) > 0)
            if ((... || (ctx.device_id() != 0))) {
                call();
                return;
            }
        detail::apply(
            [&](const auto&... x) {
                (trace::bind(r, x, r.argument(trace::type_of<std::remove_cvref_t<decltype(x)>>())), ...);
            },
            xs);
        trace::impl::activate a(r);
        decltype(auto) out = call();
        trace::values_of(r, out, r.regions[0].results);
    };
    // (tested in this order: a generic lambda's body is instantiated only with arguments it can take)
    if constexpr (std::is_invocable_v<F&, tensor_type_of<A>&...>) {
        if (o.replicas != 1 || o.partitions != 1)
            throw error("to_stablehlo",
                        "replicas x partitions > 1 needs a program that takes an xlet::replica_context&");
        device();
    } else {
        replica_pool(o.replicas, o.partitions).run(device);
    }
    return trace::impl::printer(r, o).module();
}

} // namespace xlet
