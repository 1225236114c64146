// The seed's passes on xlet-translate's IR. Each is a function over the module; they share a few
// helpers to make ops, rename uses and drop dead ops. Shape refinement is an abstract
// interpretation: every value gets a type (static where it can be) and, for small integer
// tensors (the shape computations of exported programs), its value.
#include "passes.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "attr_values.hpp"
#include "parser.hpp"
#include "pass_chlo.hpp"
#include "pass_quant.hpp"
#include "pass_shape_legalize.hpp"
#include "vhlo_ops.hpp"

namespace xlt {

namespace {

using options = std::map<std::string, std::string>;

// "types=tensor<2xf32>,tensor<3xf32> version=2" -> {types: ..., version: 2}; quotes removed.
bool parse_options(const std::string& text, options& out, std::string& why) {
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ')
            ++i;
        if (i >= text.size()) break;
        std::size_t eq = text.find('=', i);
        if (eq == std::string::npos) {
            why = "expected key=value in the pass options, found '" + text.substr(i) + "'";
            return false;
        }
        std::string key = text.substr(i, eq - i);
        i = eq + 1;
        std::string value;
        if (i < text.size() && (text[i] == '\'' || text[i] == '"')) {
            char q = text[i++];
            std::size_t e = text.find(q, i);
            if (e == std::string::npos) {
                why = "unterminated quote in the pass options";
                return false;
            }
            value = text.substr(i, e - i);
            i = e + 1;
        } else {
            int depth = 0;
            std::size_t b = i;
            while (i < text.size() && !(text[i] == ' ' && depth == 0)) {
                if (text[i] == '<') ++depth;
                if (text[i] == '>') --depth;
                ++i;
            }
            value = text.substr(b, i - b);
        }
        out[key] = value;
    }
    return true;
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> v;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
        if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            v.push_back(cur);
            cur.clear();
        } else if (!(c == ' ' && cur.empty())) {
            cur += c;
        }
    }
    if (!cur.empty()) v.push_back(cur);
    return v;
}

// ---- IR helpers -------------------------------------------------------------------------------

template<class F>
void walk_ops(region& r, F&& f) {
    for (auto& b : r.blocks)
        for (auto& o : b.ops) {
            f(*o);
            for (auto& g : o->regions)
                walk_ops(g, f);
        }
}

// Unique names for new values of a function (n0, n1, ... not used anywhere in it yet).
struct namer {
    std::set<std::string> taken;
    int next = 0;
    explicit namer(func& f) {
        for (auto& a : f.args)
            taken.insert(a.name);
        std::function<void(region&)> rec = [&](region& r) {
            for (auto& b : r.blocks) {
                for (auto& n : b.arg_names)
                    taken.insert(n);
                for (auto& o : b.ops) {
                    for (auto& n : o->results)
                        taken.insert(n.substr(0, n.find('#')));
                    for (auto& g : o->regions)
                        rec(g);
                }
            }
        };
        rec(f.body);
    }
    std::string operator()(const std::string& base = "x") {
        for (;;) {
            std::string n = base + std::to_string(next++);
            if (taken.insert(n).second) return n;
        }
    }
};

std::unique_ptr<op> make_op(const std::string& name, std::vector<value_ref> operands, std::vector<type> operand_types,
                            std::vector<std::string> results, std::vector<type> result_types, loc at) {
    auto o = std::make_unique<op>();
    o->name = name;
    o->operands = std::move(operands);
    o->operand_types = std::move(operand_types);
    o->results = std::move(results);
    o->result_types = std::move(result_types);
    o->at = at;
    return o;
}

// Nodes of both forms of an attribute: attr here, the VHLO passes' vnode below (both have the
// kinds boolean, integer and string, and the fields k, b, i, s, t).
template<class N>
N bool_node(bool v) {
    N a;
    a.k = N::kind::boolean;
    a.b = v;
    return a;
}
template<class N>
N string_node(const std::string& s) {
    N a;
    a.k = N::kind::string;
    a.s = s;
    return a;
}

attr string_attr(const std::string& s) { return string_node<attr>(s); }
attr bool_attr(bool v) { return bool_node<attr>(v); }
attr named(attr a, const std::string& name) {
    a.name = name;
    return a;
}
attr dense_ints(const std::vector<std::int64_t>& v, const type& t) {
    attr a;
    a.k = attr::kind::dense;
    a.t = t;
    for (auto x : v)
        a.elems.push_back(t.elem == "i1" ? (x ? "true" : "false") : std::to_string(x));
    if (a.elems.size() > 1 &&
        std::all_of(a.elems.begin(), a.elems.end(), [&](const std::string& e) { return e == a.elems[0]; }))
        a.elems.resize(1);
    return a;
}
attr dense_float(const std::string& text, const type& t) {
    attr a;
    a.k = attr::kind::dense;
    a.t = t;
    a.elems.push_back(text);
    return a;
}
attr enum_attr(const std::string& kind, const std::string& value) {
    attr a;
    a.k = attr::kind::dialect;
    a.s = "stablehlo";
    a.raw = kind + " " + value;
    return a;
}
attr symbol_attr(const std::string& s) {
    attr a;
    a.k = attr::kind::symbol;
    a.s = s;
    return a;
}

// A dialect attribute's body as text from its fields, as the parser keeps both.
attr& with_raw(attr& a) {
    std::string full = attr_str(a);
    a.raw = full.substr(a.s.size() + 2, full.size() - a.s.size() - 3);
    return a;
}
// #stablehlo.channel_handle<handle = h, type = t>
attr channel_handle(std::int64_t h, std::int64_t t, loc at) {
    attr a;
    a.k = attr::kind::dialect;
    a.s = "stablehlo.channel_handle";
    a.fields = {named(int_attr(h, ""), "handle"), named(int_attr(t, ""), "type")};
    a.at = at;
    return with_raw(a);
}

// Renames every use of value `from` to `to` (type `t`) in a region, nested regions included.
void replace_uses(region& r, const std::string& from, const std::string& to, const type& t) {
    walk_ops(r, [&](op& o) {
        for (std::size_t k = 0; k < o.operands.size(); ++k)
            if (o.operands[k].name == from) {
                o.operands[k].name = to;
                if (k < o.operand_types.size()) o.operand_types[k] = t;
            }
    });
}

std::map<std::string, int> count_uses(region& r) {
    std::map<std::string, int> u;
    walk_ops(r, [&](op& o) {
        for (auto& v : o.operands)
            ++u[v.name];
    });
    return u;
}

bool is_pure(const std::string& n) {
    static const std::set<std::string> impure = {"func.return",
                                                 "stablehlo.return",
                                                 "func.call",
                                                 "stablehlo.custom_call",
                                                 "stablehlo.while",
                                                 "stablehlo.if",
                                                 "stablehlo.case",
                                                 "stablehlo.infeed",
                                                 "stablehlo.outfeed",
                                                 "stablehlo.send",
                                                 "stablehlo.recv",
                                                 "stablehlo.all_reduce",
                                                 "stablehlo.all_gather",
                                                 "stablehlo.all_to_all",
                                                 "stablehlo.reduce_scatter",
                                                 "stablehlo.collective_permute",
                                                 "stablehlo.collective_broadcast",
                                                 "stablehlo.rng_bit_generator",
                                                 "stablehlo.rng",
                                                 "stablehlo.optimization_barrier",
                                                 "stablehlo.composite",
                                                 "stablehlo.after_all",
                                                 "stablehlo.create_token",
                                                 "stablehlo.replica_id",
                                                 "stablehlo.partition_id"};
    return (n.rfind("stablehlo.", 0) == 0 || n.rfind("chlo.", 0) == 0) && !impure.count(n);
}

// Drops pure ops none of whose results is used, until nothing changes.
void dead_code(func& f) {
    for (bool changed = true; changed;) {
        changed = false;
        auto uses = count_uses(f.body);
        std::function<void(region&)> rec = [&](region& r) {
            for (auto& b : r.blocks) {
                auto& ops = b.ops;
                for (std::size_t i = ops.size(); i-- > 0;) {
                    op& o = *ops[i];
                    for (auto& g : o.regions)
                        rec(g);
                    bool wrapper =
                        o.name == "stablehlo.custom_call" && o.callee == "stablehlo.shape_refinement_operand_wrapper";
                    if ((!is_pure(o.name) && !wrapper) || o.results.empty()) continue;
                    bool used = false;
                    for (auto& n : o.results)
                        used = used || uses[n] > 0;
                    if (!used) {
                        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(i));
                        changed = true;
                    }
                }
            }
        };
        rec(f.body);
    }
}

// ---- stablehlo-refine-arguments ----------------------------------------------------------------

func* entry_function(module& m) {
    if (func* f = const_cast<func*>(m.find("main"))) return f;
    func* only = nullptr;
    for (auto& f : m.funcs)
        if (f.is_public()) {
            if (only) return nullptr;
            only = &f;
        }
    return only;
}

bool refine_arguments(module& m, const options& opt, std::vector<diagnostic>& errs) {
    func* f = entry_function(m);
    if (!f) {
        errs.push_back({{}, "stablehlo-refine-arguments: no @main (nor a single public function) to refine"});
        return false;
    }
    auto it = opt.find("types");
    if (it == opt.end()) {
        errs.push_back({f->at, "stablehlo-refine-arguments: expected types='tensor<...>, ...'"});
        return false;
    }
    std::vector<type> types;
    for (auto& t : split_commas(it->second)) {
        auto r = parse_module("func.func @t(%a: " + t + ") { func.return }", "types");
        if (!r.errors.empty() || r.mod.funcs.empty() || r.mod.funcs[0].args.size() != 1) {
            errs.push_back({f->at, "stablehlo-refine-arguments: cannot read the type '" + t + "'"});
            return false;
        }
        types.push_back(r.mod.funcs[0].args[0].t);
    }
    if (types.size() != f->args.size()) {
        errs.push_back({f->at, "stablehlo-refine-arguments: @" + f->name + " has " + std::to_string(f->args.size()) +
                                   " arguments but " + std::to_string(types.size()) + " types were given"});
        return false;
    }
    namer fresh(*f);
    std::vector<std::unique_ptr<op>> prologue;
    for (std::size_t i = 0; i < types.size(); ++i) {
        type old = f->args[i].t, now = types[i];
        if (old == now) continue;
        bool compatible = old.k == now.k && old.elem == now.elem && old.dims.size() == now.dims.size();
        for (std::size_t d = 0; compatible && d < old.dims.size(); ++d)
            compatible = old.dims[d] < 0 || old.dims[d] == now.dims[d];
        if (!compatible || !now.is_static()) {
            errs.push_back({f->args[i].at, "stablehlo-refine-arguments: " + type_str(now) +
                                               " is not a static refinement of " + type_str(old) + " (argument %" +
                                               f->args[i].name + ")"});
            return false;
        }
        // %c = constant dense<dims>; %w = custom_call @stablehlo.shape_refinement_operand_wrapper(%arg, %c)
        std::string c = fresh("c"), w = fresh("w");
        type ct = tensor_type({static_cast<std::int64_t>(now.dims.size())}, "i64");
        auto co = make_op("stablehlo.constant", {}, {}, {c}, {ct}, f->args[i].at);
        co->set("value", dense_ints(now.dims, ct));
        // uses of the argument read the wrapper from now on
        replace_uses(f->body, f->args[i].name, w, old);
        auto wo = make_op("stablehlo.custom_call", {{f->args[i].name, f->args[i].at}, {c, f->args[i].at}}, {now, ct},
                          {w}, {old}, f->args[i].at);
        wo->callee = "stablehlo.shape_refinement_operand_wrapper";
        wo->set("call_target_name", string_attr(wo->callee));
        wo->set("indices_of_shape_operands", i64_array({1}));
        prologue.push_back(std::move(co));
        prologue.push_back(std::move(wo));
        f->args[i].t = now;
        f->body.blocks[0].arg_types[i] = now;
    }
    auto& ops = f->body.blocks[0].ops;
    ops.insert(ops.begin(), std::make_move_iterator(prologue.begin()), std::make_move_iterator(prologue.end()));
    return true;
}

// ---- stablehlo-refine-shapes / canonicalize-dynamism --------------------------------------------

struct value_fact {
    type t;
    std::optional<std::vector<std::int64_t>> ints; // the value, for small integer tensors
};

class refiner {
public:
    refiner(module& m, std::vector<diagnostic>& errs, bool only_dynamism)
        : m_(m), errs_(errs), dyn_only_(only_dynamism) {}

    bool run() {
        if (dyn_only_) {
            for (auto& f : m_.funcs)
                refine_func(f, {});
            return ok_;
        }
        func* e = entry_function(m_);
        std::vector<func*> roots;
        if (e) roots.push_back(e);
        for (auto& f : m_.funcs)
            if (f.is_public() && &f != e) roots.push_back(&f);
        for (func* f : roots) {
            std::vector<value_fact> args;
            for (auto& a : f->args)
                args.push_back({a.t, {}});
            refine_func(*f, args);
        }
        for (auto& f : m_.funcs)
            dead_code(f);
        return ok_;
    }

private:
    module& m_;
    std::vector<diagnostic>& errs_;
    bool dyn_only_;
    bool ok_ = true;
    std::map<std::string, std::vector<value_fact>> done_; // function -> the facts it was refined with
    std::vector<std::map<std::string, value_fact>> env_;
    namer* fresh_ = nullptr;
    std::map<std::string, const op*>* defs_ = nullptr; // the function's values -> the ops defining them

    void fail(loc at, const std::string& t) {
        errs_.push_back({at, t});
        ok_ = false;
    }
    value_fact* find(const std::string& n) {
        for (auto it = env_.rbegin(); it != env_.rend(); ++it) {
            auto f = it->find(n);
            if (f != it->end()) return &f->second;
        }
        return nullptr;
    }

    std::vector<value_fact> refine_func(func& f, const std::vector<value_fact>& args) {
        if (!dyn_only_) {
            auto d = done_.find(f.name);
            if (d != done_.end()) {
                // every call must see the same argument shapes (the seed's restriction)
                for (std::size_t i = 0; i < args.size() && i < d->second.size(); ++i)
                    if (!(args[i].t == d->second[i].t) ||
                        (args[i].ints && d->second[i].ints && *args[i].ints != *d->second[i].ints))
                        fail(f.at, "stablehlo-refine-shapes: @" + f.name +
                                       " is called with different argument shapes or constants; refine each call site "
                                       "separately (not supported)");
                return results_of(f);
            }
            done_[f.name] = args;
        }
        namer fresh(f);
        namer* saved = fresh_;
        fresh_ = &fresh;
        std::map<std::string, const op*> defs;
        auto* saved_defs = defs_;
        defs_ = &defs;
        env_.emplace_back();
        for (std::size_t i = 0; i < f.args.size(); ++i) {
            if (!dyn_only_ && i < args.size()) {
                f.args[i].t = args[i].t;
                f.body.blocks[0].arg_types[i] = args[i].t;
                env_.back()[f.args[i].name] = args[i];
            } else {
                env_.back()[f.args[i].name] = {f.args[i].t, {}};
            }
        }
        refine_block(f.body.blocks[0], &f);
        env_.pop_back();
        fresh_ = saved;
        defs_ = saved_defs;
        return results_of(f);
    }

    std::vector<value_fact> results_of(func& f) {
        std::vector<value_fact> r;
        for (auto& t : f.results)
            r.push_back({t, {}});
        return r;
    }

    void refine_region(region& r, const std::vector<type>& arg_types) {
        block& b = r.blocks[0];
        env_.emplace_back();
        for (std::size_t i = 0; i < b.arg_names.size(); ++i) {
            if (i < arg_types.size() && arg_types[i].k != type::kind::none) b.arg_types[i] = arg_types[i];
            env_.back()[b.arg_names[i]] = {b.arg_types[i], {}};
        }
        refine_block(b, nullptr);
        env_.pop_back();
    }

    void refine_block(block& b, func* owner) {
        for (std::size_t i = 0; i < b.ops.size(); ++i) {
            op& o = *b.ops[i];
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                if (value_fact* v = find(o.operands[k].name); v && k < o.operand_types.size())
                    o.operand_types[k] = v->t;
            if (o.name == "func.return" && owner) {
                for (std::size_t k = 0; k < o.operand_types.size() && k < owner->results.size(); ++k)
                    if (!dyn_only_) owner->results[k] = o.operand_types[k];
                continue;
            }
            std::vector<value_fact> facts = refine_op(o, b, i);
            while (i < b.ops.size() && b.ops[i].get() != &o) // past the ops refine_op put before o
                ++i;
            for (std::size_t k = 0; k < o.results.size() && k < facts.size(); ++k) {
                o.result_types[k] = facts[k].t;
                env_.back()[o.results[k]] = facts[k];
                if (defs_) (*defs_)[o.results[k]] = &o;
            }
        }
    }

    static bool all_static(const std::vector<std::int64_t>& d) {
        return std::all_of(d.begin(), d.end(), [](std::int64_t x) { return x >= 0; });
    }
    const std::optional<std::vector<std::int64_t>>& ints_of(const op& o, std::size_t k) {
        static const std::optional<std::vector<std::int64_t>> none;
        value_fact* v = find(o.operands[k].name);
        return v ? v->ints : none;
    }

    // Replaces op i of b by a constant of the folded integers.
    value_fact make_constant(op& o, const std::vector<std::int64_t>& vals) {
        type t = o.result_types[0];
        o.name = "stablehlo.constant";
        o.operands.clear();
        o.operand_types.clear();
        o.regions.clear();
        o.attrs.clear();
        o.set("value", dense_ints(vals, t));
        return {t, vals};
    }

    static bool small_int(const type& t) {
        return t.k == type::kind::tensor && (is_integer_elem(t.elem) || t.elem == "i1") && t.is_static() &&
               num_elements(t) <= 64;
    }

    std::vector<value_fact> refine_op(op& o, block& b, std::size_t index) {
        const std::string& n = o.name;
        std::vector<value_fact> keep;
        for (auto& t : o.result_types)
            keep.push_back({t, {}});
        static const type none;
        auto in = [&](std::size_t k) -> const type& { return k < o.operand_types.size() ? o.operand_types[k] : none; };
        if (o.result_types.empty() && n != "func.call") return keep;
        // constants and folding of small integer computations (shapes)
        if (n == "stablehlo.constant") {
            const attr* v = o.get("value");
            if (v && small_int(o.result_types[0])) {
                std::vector<std::int64_t> vals = int_list(v);
                if (static_cast<std::int64_t>(vals.size()) == num_elements(o.result_types[0]))
                    return {{o.result_types[0], vals}};
            }
            return keep;
        }
        if (dyn_only_) return canonicalize_only(o, keep, b, index);
        if (n == "stablehlo.get_dimension_size") {
            std::int64_t d = o.get("dimension") ? o.get("dimension")->i : 0;
            if (d >= 0 && static_cast<std::size_t>(d) < in(0).dims.size() &&
                in(0).dims[static_cast<std::size_t>(d)] >= 0)
                return {make_constant(o, {in(0).dims[static_cast<std::size_t>(d)]})};
            return keep;
        }
        if (n == "stablehlo.custom_call" && o.callee == "stablehlo.shape_refinement_operand_wrapper") {
            // the wrapped value is static now: its uses read it directly
            if (in(0).is_static()) {
                replace_in_rest(b, index, o.results[0], o.operands[0].name, in(0));
                return {{in(0), ints_of(o, 0)}};
            }
            return keep;
        }
        std::vector<value_fact> r = infer(o);
        // fold small integer element-wise and layout computations whose operands are known
        if (!r.empty() && small_int(r[0].t) && o.regions.empty() && !o.operands.empty()) {
            bool known = true;
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                known = known && ints_of(o, k).has_value();
            if (known) {
                o.result_types[0] = r[0].t;
                if (auto v = fold(o)) return {make_constant(o, *v)};
            }
        }
        for (std::size_t k = 0; k < r.size() && k < o.result_types.size(); ++k)
            o.result_types[k] = r[k].t;
        canonicalize(o, b, index);
        for (std::size_t k = 0; k < r.size() && k < o.result_types.size(); ++k)
            r[k].t = o.result_types[k];
        return r;
    }

    void replace_in_rest(block& b, std::size_t index, const std::string& from, const std::string& to, const type& t) {
        for (std::size_t j = index + 1; j < b.ops.size(); ++j) {
            op& u = *b.ops[j];
            for (std::size_t k = 0; k < u.operands.size(); ++k)
                if (u.operands[k].name == from) {
                    u.operands[k].name = to;
                    u.operand_types[k] = t;
                }
            for (auto& g : u.regions)
                replace_uses(g, from, to, t);
        }
    }

    std::vector<value_fact> canonicalize_only(op& o, std::vector<value_fact> keep, block& b, std::size_t index) {
        // shape operands must be constants defined in the function for the static form
        canonicalize(o, b, index);
        for (std::size_t k = 0; k < keep.size(); ++k)
            keep[k].t = o.result_types[k];
        return keep;
    }

    // An element of a small integer value as `root[index] + offset` (index -1: root is a scalar;
    // root empty: the constant `offset`); `exact` names a rank-0 value equal to it, if one is at
    // hand. Traced through concatenate, reshape, and add / subtract of a constant.
    struct term {
        std::string root;
        std::int64_t index = -1;
        std::int64_t offset = 0;
        std::string exact;
    };
    std::optional<term> element(const std::string& name, std::size_t i, int depth = 0) {
        value_fact* v = find(name);
        if (!v || depth > 32 || v->t.k != type::kind::tensor || v->t.dims.size() > 1 || !is_integer_elem(v->t.elem))
            return std::nullopt;
        const bool scalar = v->t.dims.empty();
        if (!scalar && (v->t.dims[0] < 0 || i >= static_cast<std::size_t>(v->t.dims[0]))) return std::nullopt;
        if (v->ints && !v->ints->empty()) {
            const auto& x = *v->ints;
            if (x.size() != 1 && i >= x.size()) return std::nullopt;
            return term{"", -1, x.size() == 1 ? x[0] : x[i], scalar ? name : ""};
        }
        term opaque{name, scalar ? -1 : static_cast<std::int64_t>(i), 0, scalar ? name : ""};
        if (!defs_) return opaque;
        auto d = defs_->find(name);
        if (d == defs_->end()) return opaque;
        const op& o = *d->second;
        if (o.operands.size() != o.operand_types.size() || o.results.size() != 1) return opaque;
        if (o.name == "stablehlo.concatenate" && !scalar) {
            for (std::size_t k = 0; k < o.operands.size(); ++k) {
                const type& t = o.operand_types[k];
                if (t.dims.size() != 1 || t.dims[0] < 0) return opaque;
                if (i < static_cast<std::size_t>(t.dims[0])) {
                    auto r = element(o.operands[k].name, i, depth + 1);
                    return r ? r : opaque;
                }
                i -= static_cast<std::size_t>(t.dims[0]);
            }
            return opaque;
        }
        if (o.name == "stablehlo.reshape" && o.operands.size() == 1 && o.operand_types[0].dims.size() <= 1 &&
            o.operand_types[0].elem == v->t.elem) {
            auto r = element(o.operands[0].name, i, depth + 1);
            if (!r) return opaque;
            if (scalar) r->exact = name;
            return r;
        }
        if ((o.name == "stablehlo.add" || o.name == "stablehlo.subtract") && o.operands.size() == 2) {
            auto a = element(o.operands[0].name, i, depth + 1), c = element(o.operands[1].name, i, depth + 1);
            if (!a || !c) return opaque;
            bool sub = o.name == "stablehlo.subtract";
            auto plus = [](std::int64_t x, std::int64_t y) {
                return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
            };
            term r;
            if (c->root.empty() && c->index < 0) {
                r = *a;
                r.offset = plus(a->offset, sub ? -c->offset : c->offset);
            } else if (!sub && a->root.empty()) {
                r = *c;
                r.offset = plus(c->offset, a->offset);
            } else {
                return opaque;
            }
            r.exact = scalar ? name : "";
            return r;
        }
        return opaque;
    }

    // real_dynamic_slice of unit strides whose limit - start is a known constant in every dimension
    // (limit = add(start, constant), upstream's pattern, or elements such as [i + 1, 3] against
    // [i, 0]) -> dynamic_slice of those sizes, each start element a rank-0 value: the one it was
    // made of, a constant, or a slice and reshape of the start operand put before the op.
    bool real_dynamic_slice_to_dynamic_slice(op& o, block& b, std::size_t index) {
        if (o.operands.size() != 4 || o.operand_types.size() != 4 || o.result_types.size() != 1) return false;
        const type &x = o.operand_types[0], &st = o.operand_types[1];
        if (x.k != type::kind::tensor || st.k != type::kind::tensor || st.dims.size() != 1 ||
            st.dims[0] != static_cast<std::int64_t>(x.dims.size()) || !is_integer_elem(st.elem) ||
            o.result_types[0].dims.size() != x.dims.size())
            return false;
        const auto& strides = ints_of(o, 3);
        if (!strides || std::any_of(strides->begin(), strides->end(), [](std::int64_t s) { return s != 1; }))
            return false;
        const std::size_t rank = x.dims.size();
        std::vector<std::int64_t> sizes;
        std::vector<term> starts;
        for (std::size_t i = 0; i < rank; ++i) {
            auto s = element(o.operands[1].name, i), l = element(o.operands[2].name, i);
            if (!s || !l || s->root != l->root || s->index != l->index) return false;
            std::int64_t size = l->offset - s->offset;
            if (size < 0 || (x.dims[i] >= 0 && size > x.dims[i])) return false;
            sizes.push_back(size);
            starts.push_back(*s);
        }
        const type scalar = tensor_type({}, st.elem);
        std::vector<value_ref> idx;
        std::vector<std::unique_ptr<op>> made;
        for (std::size_t i = 0; i < rank; ++i) {
            const term& s = starts[i];
            value_fact* e = s.exact.empty() ? nullptr : find(s.exact);
            if (e && e->t == scalar) {
                idx.push_back({s.exact, o.at});
                continue;
            }
            if (s.root.empty()) { // a constant
                std::string r = (*fresh_)("start");
                made.push_back(make_op("stablehlo.constant", {}, {}, {r}, {scalar}, o.at));
                made.back()->set("value", dense_ints({s.offset}, scalar));
                env_.back()[r] = {scalar, std::vector<std::int64_t>{s.offset}};
                idx.push_back({r, o.at});
            } else { // start[i:i+1] reshaped
                if (!st.is_static()) return false;
                std::string sl = (*fresh_)("start"), r = (*fresh_)("start");
                type one = tensor_type({1}, st.elem);
                made.push_back(make_op("stablehlo.slice", {o.operands[1]}, {st}, {sl}, {one}, o.at));
                made.back()->set("start_indices", i64_array({static_cast<std::int64_t>(i)}));
                made.back()->set("limit_indices", i64_array({static_cast<std::int64_t>(i) + 1}));
                made.back()->set("strides", i64_array({1}));
                env_.back()[sl] = {one, {}};
                made.push_back(make_op("stablehlo.reshape", {{sl, o.at}}, {one}, {r}, {scalar}, o.at));
                env_.back()[r] = {scalar, {}};
                idx.push_back({r, o.at});
            }
        }
        std::vector<type> types{x};
        value_ref operand = o.operands[0];
        o.operands = {operand};
        for (auto& v : idx) {
            o.operands.push_back(v);
            types.push_back(scalar);
        }
        o.operand_types = types;
        o.name = "stablehlo.dynamic_slice";
        o.set("slice_sizes", i64_array(sizes));
        o.result_types[0].dims = sizes;
        for (auto& m : made)
            if (defs_) (*defs_)[m->results[0]] = m.get();
        b.ops.insert(b.ops.begin() + static_cast<std::ptrdiff_t>(index), std::make_move_iterator(made.begin()),
                     std::make_move_iterator(made.end()));
        return true;
    }

    // Dynamic ops whose shape operands are known become their static forms.
    void canonicalize(op& o, block& b, std::size_t index) {
        const std::string& n = o.name;
        auto known = [&](std::size_t k) { return k < o.operands.size() && ints_of(o, k).has_value(); };
        auto set_result = [&](const std::vector<std::int64_t>& dims) {
            if (o.result_types[0].dims.size() == dims.size()) o.result_types[0].dims = dims;
        };
        if (n == "stablehlo.dynamic_broadcast_in_dim" && known(1)) {
            // each operand extent must be 1 or the output's (shapes that do not broadcast, 3 and 4)
            const auto& out = *ints_of(o, 1);
            std::vector<std::int64_t> bd = int_list(o.get("broadcast_dimensions"));
            for (std::size_t i = 0; i < bd.size() && i < o.operand_types[0].dims.size(); ++i) {
                std::int64_t e = o.operand_types[0].dims[i];
                if (bd[i] < 0 || static_cast<std::size_t>(bd[i]) >= out.size() || e < 0 || e == 1 ||
                    e == out[static_cast<std::size_t>(bd[i])])
                    continue;
                fail(o.at, "stablehlo-refine-shapes: stablehlo.dynamic_broadcast_in_dim of " +
                               type_str(o.operand_types[0]) + ": dimension " + std::to_string(i) + " (" +
                               std::to_string(e) + ") is neither 1 nor the output's " +
                               std::to_string(out[static_cast<std::size_t>(bd[i])]) + " (the shapes do not broadcast)");
                return;
            }
            set_result(*ints_of(o, 1));
            o.name = "stablehlo.broadcast_in_dim";
            drop_operands(o, 1);
            erase_attr(o, "known_expanding_dimensions");
            erase_attr(o, "known_nonexpanding_dimensions");
        } else if (n == "stablehlo.dynamic_reshape" && known(1)) {
            set_result(*ints_of(o, 1));
            o.name = "stablehlo.reshape";
            drop_operands(o, 1);
        } else if (n == "stablehlo.dynamic_iota" && known(0)) {
            set_result(*ints_of(o, 0));
            o.name = "stablehlo.iota";
            drop_operands(o, 0);
        } else if (n == "stablehlo.real_dynamic_slice" && known(1) && known(2) && known(3)) {
            o.set("start_indices", i64_array(*ints_of(o, 1)));
            o.set("limit_indices", i64_array(*ints_of(o, 2)));
            o.set("strides", i64_array(*ints_of(o, 3)));
            std::vector<std::int64_t> d;
            for (std::size_t i = 0; i < ints_of(o, 1)->size(); ++i) {
                std::int64_t s = (*ints_of(o, 1))[i], l = (*ints_of(o, 2))[i], st = (*ints_of(o, 3))[i];
                d.push_back(st > 0 && l >= s ? (l - s + st - 1) / st : 0);
            }
            set_result(d);
            o.name = "stablehlo.slice";
            drop_operands(o, 1);
        } else if (n == "stablehlo.real_dynamic_slice" && fresh_) {
            real_dynamic_slice_to_dynamic_slice(o, b, index);
        } else if (n == "stablehlo.dynamic_pad" && known(2) && known(3) && known(4)) {
            o.set("edge_padding_low", i64_array(*ints_of(o, 2)));
            o.set("edge_padding_high", i64_array(*ints_of(o, 3)));
            o.set("interior_padding", i64_array(*ints_of(o, 4)));
            o.name = "stablehlo.pad";
            drop_operands(o, 2);
            auto r = infer(o);
            if (!r.empty()) o.result_types[0] = r[0].t;
        } else if (n == "stablehlo.dynamic_gather" && known(2)) {
            o.set("slice_sizes", i64_array(*ints_of(o, 2)));
            o.name = "stablehlo.gather";
            drop_operands(o, 2);
            auto r = infer(o);
            if (!r.empty()) o.result_types[0] = r[0].t;
        } else if (n == "stablehlo.dynamic_conv" && known(2)) {
            // padding operand [N x 2] -> the padding attribute
            auto p = *ints_of(o, 2);
            attr pa;
            pa.k = attr::kind::dense;
            pa.t = tensor_type({static_cast<std::int64_t>(p.size() / 2), 2}, "i64");
            for (auto x : p)
                pa.elems.push_back(std::to_string(x));
            o.set("padding", pa);
            o.name = "stablehlo.convolution";
            drop_operands(o, 2);
            auto r = infer(o);
            if (!r.empty()) o.result_types[0] = r[0].t;
        }
    }
    static void drop_operands(op& o, std::size_t from) {
        o.operands.resize(from);
        o.operand_types.resize(from);
    }
    static void erase_attr(op& o, const std::string& k) {
        o.attrs.erase(std::remove_if(o.attrs.begin(), o.attrs.end(), [&](auto& p) { return p.first == k; }),
                      o.attrs.end());
    }

    // Integer folding of one op over known operand values (results in the result type's range).
    std::optional<std::vector<std::int64_t>> fold(const op& o) {
        const std::string& n = o.name;
        const type& rt = o.result_types[0];
        std::size_t count = static_cast<std::size_t>(num_elements(rt));
        auto at = [&](std::size_t k, std::size_t i) -> std::int64_t {
            const auto& v = *ints_of(o, k);
            return v.size() == 1 ? v[0] : v[i % v.size()];
        };
        std::vector<std::int64_t> out;
        static const std::map<std::string, std::function<std::int64_t(std::int64_t, std::int64_t)>> bin = {
            {"stablehlo.add",
             [](std::int64_t a, std::int64_t b) {
                 return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
             }},
            {"stablehlo.subtract",
             [](std::int64_t a, std::int64_t b) {
                 return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
             }},
            {"stablehlo.multiply",
             [](std::int64_t a, std::int64_t b) {
                 return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
             }},
            {"stablehlo.divide",
             [](std::int64_t a, std::int64_t b) { return b == 0 ? -1 : (a == INT64_MIN && b == -1 ? a : a / b); }},
            {"stablehlo.remainder", [](std::int64_t a, std::int64_t b) { return b == 0 ? a : (b == -1 ? 0 : a % b); }},
            {"stablehlo.maximum", [](std::int64_t a, std::int64_t b) { return std::max(a, b); }},
            {"stablehlo.minimum", [](std::int64_t a, std::int64_t b) { return std::min(a, b); }}};
        if (auto it = bin.find(n); it != bin.end() && o.operands.size() == 2) {
            if (ints_of(o, 0)->size() != count || ints_of(o, 1)->size() != count) return std::nullopt;
            for (std::size_t i = 0; i < count; ++i)
                out.push_back(it->second(at(0, i), at(1, i)));
        } else if (n == "stablehlo.convert" || n == "stablehlo.reshape" || n == "stablehlo.broadcast_in_dim") {
            const auto& v = *ints_of(o, 0);
            if (n == "stablehlo.broadcast_in_dim" && v.size() != 1) return std::nullopt; // only splats
            if (n != "stablehlo.broadcast_in_dim" && v.size() != count) return std::nullopt;
            for (std::size_t i = 0; i < count; ++i)
                out.push_back(v.size() == 1 ? v[0] : v[i]);
        } else if (n == "stablehlo.concatenate" && rt.dims.size() == 1) {
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                for (auto x : *ints_of(o, k))
                    out.push_back(x);
        } else if (n == "stablehlo.slice" && rt.dims.size() == 1) {
            auto s = int_list(o.get("start_indices")), l = int_list(o.get("limit_indices")),
                 st = int_list(o.get("strides"));
            const auto& v = *ints_of(o, 0);
            if (s.size() != 1 || l.size() != 1) return std::nullopt;
            std::int64_t step = st.empty() ? 1 : st[0];
            for (std::int64_t i = s[0]; i < l[0] && step > 0 && static_cast<std::size_t>(i) < v.size(); i += step)
                out.push_back(v[static_cast<std::size_t>(i)]);
        } else {
            return std::nullopt;
        }
        if (out.size() != count) return std::nullopt;
        // wrap to the result type's width
        int bits = elem_bits(rt.elem);
        if (bits > 0 && bits < 64)
            for (auto& x : out) {
                std::uint64_t u = static_cast<std::uint64_t>(x) & ((std::uint64_t{1} << bits) - 1);
                x = is_unsigned_elem(rt.elem) || bits == 1 ? static_cast<std::int64_t>(u)
                                                           : static_cast<std::int64_t>(u << (64 - bits)) >> (64 - bits);
            }
        return out;
    }

    // Result types from operand types (what stays unknown stays as the module wrote it).
    std::vector<value_fact> infer(op& o) {
        const std::string& n = o.name;
        std::vector<value_fact> keep;
        for (auto& t : o.result_types)
            keep.push_back({t, {}});
        if (o.result_types.empty()) return keep;
        static const type none;
        auto in = [&](std::size_t k) -> const type& { return k < o.operand_types.size() ? o.operand_types[k] : none; };
        auto with = [&](std::vector<std::int64_t> dims, std::size_t k = 0) {
            std::vector<value_fact> r = keep;
            type& t = r[k].t;
            if (t.k == type::kind::tensor && t.dims.size() == dims.size())
                for (std::size_t d = 0; d < dims.size(); ++d)
                    if (t.dims[d] < 0) t.dims[d] = dims[d];
            return r;
        };
        static const std::set<std::string> elementwise = [] {
            std::set<std::string> e = elementwise_ops();
            e.insert({"stablehlo.complex", "stablehlo.is_finite", "stablehlo.compare", "stablehlo.select",
                      "stablehlo.clamp", "stablehlo.reduce_precision", "chlo.erf", "chlo.tan", "chlo.cosh", "chlo.sinh",
                      "chlo.is_inf", "chlo.is_pos_inf", "chlo.is_neg_inf", "chlo.square", "chlo.conj",
                      "stablehlo.map"});
            return e;
        }();
        if (elementwise.count(n) ||
            (n == "stablehlo.bitcast_convert" && elem_bits(in(0).elem) == elem_bits(o.result_types[0].elem))) {
            std::vector<std::int64_t> dims(o.result_types[0].dims.size(), -1);
            for (auto& t : o.operand_types)
                if (t.dims.size() == dims.size())
                    for (std::size_t d = 0; d < dims.size(); ++d)
                        if (t.dims[d] >= 0) dims[d] = t.dims[d];
            if (n == "stablehlo.map" && !o.regions.empty()) {
                std::vector<type> args;
                for (auto& t : o.operand_types)
                    args.push_back(tensor_type({}, t.elem));
                refine_region(o.regions[0], args);
            }
            return with(dims);
        }
        if (n == "stablehlo.broadcast_in_dim" || n == "stablehlo.dynamic_broadcast_in_dim") {
            std::vector<std::int64_t> dims = o.result_types[0].dims, bd = int_list(o.get("broadcast_dimensions"));
            for (std::size_t i = 0; i < bd.size() && i < in(0).dims.size(); ++i) {
                std::int64_t od = in(0).dims[i];
                auto r = static_cast<std::size_t>(bd[i]);
                if (r < dims.size() && dims[r] < 0 && od > 1) dims[r] = od;
            }
            return with(dims);
        }
        if (n == "stablehlo.transpose") {
            std::vector<std::int64_t> p = int_list(o.get("permutation")), dims;
            for (auto x : p)
                dims.push_back(static_cast<std::size_t>(x) < in(0).dims.size() ? in(0).dims[static_cast<std::size_t>(x)]
                                                                               : -1);
            return with(dims);
        }
        if (n == "stablehlo.reverse" || n == "stablehlo.sort" || n == "stablehlo.optimization_barrier") {
            std::vector<value_fact> r = keep;
            for (std::size_t k = 0; k < r.size() && k < o.operand_types.size(); ++k)
                r[k].t = o.operand_types[k];
            if (n == "stablehlo.sort" && !o.regions.empty()) {
                std::vector<type> args;
                for (auto& t : o.operand_types) {
                    args.push_back(tensor_type({}, t.elem));
                    args.push_back(tensor_type({}, t.elem));
                }
                refine_region(o.regions[0], args);
            }
            return r;
        }
        if (n == "stablehlo.reshape" && in(0).is_static()) {
            std::vector<std::int64_t> dims = o.result_types[0].dims;
            std::int64_t known = 1, unknown = 0;
            for (auto d : dims)
                d < 0 ? ++unknown : known *= d;
            if (unknown == 1 && known > 0)
                for (auto& d : dims)
                    if (d < 0) d = num_elements(in(0)) / known;
            return with(dims);
        }
        if (n == "stablehlo.slice") {
            auto s = int_list(o.get("start_indices")), l = int_list(o.get("limit_indices")),
                 st = int_list(o.get("strides"));
            std::vector<std::int64_t> dims;
            for (std::size_t d = 0; d < s.size() && d < l.size(); ++d) {
                std::int64_t step = d < st.size() ? st[d] : 1;
                dims.push_back(step > 0 && l[d] >= s[d] ? (l[d] - s[d] + step - 1) / step : 0);
            }
            return with(dims);
        }
        if (n == "stablehlo.concatenate") {
            std::int64_t ax = o.get("dimension") ? o.get("dimension")->i : 0;
            std::vector<std::int64_t> dims(o.result_types[0].dims.size(), -1);
            std::int64_t sum = 0;
            for (auto& t : o.operand_types) {
                if (t.dims.size() != dims.size()) return keep;
                for (std::size_t d = 0; d < dims.size(); ++d) {
                    if (static_cast<std::int64_t>(d) == ax)
                        sum = sum < 0 || t.dims[d] < 0 ? -1 : sum + t.dims[d];
                    else if (t.dims[d] >= 0)
                        dims[d] = t.dims[d];
                }
            }
            if (ax >= 0 && static_cast<std::size_t>(ax) < dims.size()) dims[static_cast<std::size_t>(ax)] = sum;
            return with(dims);
        }
        if (n == "stablehlo.pad") {
            auto lo = int_list(o.get("edge_padding_low")), hi = int_list(o.get("edge_padding_high")),
                 it = int_list(o.get("interior_padding"));
            std::vector<std::int64_t> dims;
            for (std::size_t d = 0; d < in(0).dims.size() && d < lo.size() && d < hi.size() && d < it.size(); ++d) {
                std::int64_t x = in(0).dims[d];
                dims.push_back(x < 0 ? -1 : x + lo[d] + hi[d] + (x > 0 ? (x - 1) * it[d] : 0));
            }
            return with(dims);
        }
        if (n == "stablehlo.dot_general") {
            const attr* dd = o.get("dot_dimension_numbers");
            if (!dd) return keep;
            auto lb = int_list(dd->field("lhs_batching_dimensions")),
                 lc = int_list(dd->field("lhs_contracting_dimensions"));
            auto rb = int_list(dd->field("rhs_batching_dimensions")),
                 rc = int_list(dd->field("rhs_contracting_dimensions"));
            std::vector<std::int64_t> dims;
            auto has = [](const std::vector<std::int64_t>& v, std::size_t x) {
                return std::find(v.begin(), v.end(), static_cast<std::int64_t>(x)) != v.end();
            };
            for (auto b : lb)
                dims.push_back(static_cast<std::size_t>(b) < in(0).dims.size() ? in(0).dims[static_cast<std::size_t>(b)]
                                                                               : -1);
            for (std::size_t d = 0; d < in(0).dims.size(); ++d)
                if (!has(lb, d) && !has(lc, d)) dims.push_back(in(0).dims[d]);
            for (std::size_t d = 0; d < in(1).dims.size(); ++d)
                if (!has(rb, d) && !has(rc, d)) dims.push_back(in(1).dims[d]);
            return with(dims);
        }
        if ((n == "stablehlo.reduce" || n == "stablehlo.reduce_window") && o.regions.size() == 1 &&
            o.operand_types.size() == 2 * o.results.size() && o.result_types.size() == o.results.size()) {
            std::size_t k = o.results.size();
            std::vector<type> args;
            for (std::size_t i = 0; i < 2 * k && i < o.operand_types.size() + k; ++i)
                args.push_back(tensor_type({}, o.operand_types[k + i % k].elem));
            refine_region(o.regions[0], args);
            std::vector<value_fact> r = keep;
            for (std::size_t j = 0; j < k; ++j) {
                std::vector<std::int64_t> dims;
                const type& x = in(j);
                if (n == "stablehlo.reduce") {
                    auto red = int_list(o.get("dimensions"));
                    for (std::size_t d = 0; d < x.dims.size(); ++d)
                        if (std::find(red.begin(), red.end(), static_cast<std::int64_t>(d)) == red.end())
                            dims.push_back(x.dims[d]);
                } else {
                    auto w = int_list(o.get("window_dimensions")), s = int_list(o.get("window_strides")),
                         bd = int_list(o.get("base_dilations")), wd = int_list(o.get("window_dilations")),
                         p = int_list(o.get("padding"));
                    for (std::size_t d = 0; d < x.dims.size() && d < w.size(); ++d) {
                        std::int64_t size = x.dims[d];
                        if (size < 0) {
                            dims.push_back(-1);
                            continue;
                        }
                        std::int64_t based = size == 0 ? 0 : (size - 1) * (d < bd.size() ? bd[d] : 1) + 1;
                        std::int64_t padded = based + (2 * d + 1 < p.size() ? p[2 * d] + p[2 * d + 1] : 0);
                        std::int64_t win = (w[d] - 1) * (d < wd.size() ? wd[d] : 1) + 1;
                        std::int64_t st = d < s.size() ? s[d] : 1;
                        dims.push_back(padded < win || st <= 0 ? 0 : (padded - win) / st + 1);
                    }
                }
                type& t = r[j].t;
                if (t.dims.size() == dims.size())
                    for (std::size_t d = 0; d < dims.size(); ++d)
                        if (t.dims[d] < 0) t.dims[d] = dims[d];
            }
            return r;
        }
        if (n == "stablehlo.iota" || n == "stablehlo.constant" || n == "stablehlo.dynamic_slice" ||
            n == "stablehlo.dynamic_update_slice") {
            if (n == "stablehlo.dynamic_update_slice") return {{in(0), {}}};
            return keep;
        }
        if (n == "func.call") {
            func* f = const_cast<func*>(m_.find(o.callee));
            if (!f) return keep;
            std::vector<value_fact> args;
            for (std::size_t k = 0; k < o.operands.size(); ++k) {
                value_fact* v = find(o.operands[k].name);
                args.push_back(v ? *v : value_fact{o.operand_types[k], {}});
            }
            auto res = refine_func(*f, args);
            std::vector<value_fact> r = keep;
            for (std::size_t k = 0; k < r.size() && k < f->results.size(); ++k)
                r[k].t = f->results[k];
            return r;
        }
        if (n == "stablehlo.while" && o.regions.size() == 2 && o.results.size() == o.operands.size()) {
            refine_region(o.regions[0], o.operand_types);
            refine_region(o.regions[1], o.operand_types);
            std::vector<value_fact> r;
            for (auto& t : o.operand_types)
                r.push_back({t, {}});
            return r;
        }
        if (n == "stablehlo.if" || n == "stablehlo.case") {
            for (auto& g : o.regions)
                refine_region(g, {});
            std::vector<value_fact> r = keep;
            const op* ret = o.regions.empty() || o.regions[0].blocks[0].ops.empty()
                                ? nullptr
                                : o.regions[0].blocks[0].ops.back().get();
            if (ret)
                for (std::size_t k = 0; k < r.size() && k < ret->operand_types.size(); ++k)
                    r[k].t = ret->operand_types[k];
            return r;
        }
        return keep;
    }
};

bool refine_shapes(module& m, const options&, std::vector<diagnostic>& errs) {
    refiner r(m, errs, false);
    bool ok = r.run();
    // anything still dynamic is reported, by op
    for (auto& f : m.funcs) {
        for (auto& a : f.args)
            if (!a.t.is_static())
                errs.push_back({a.at, "stablehlo-refine-shapes: argument %" + a.name + " of @" + f.name + " is still " +
                                          type_str(a.t) + " (give its type with --stablehlo-refine-arguments)"}),
                    ok = false;
        walk_ops(f.body, [&](op& o) {
            for (std::size_t k = 0; k < o.result_types.size(); ++k)
                if (o.result_types[k].k == type::kind::tensor && !o.result_types[k].is_static()) {
                    errs.push_back({o.at, "stablehlo-refine-shapes: cannot refine the result of " + o.name + " (" +
                                              type_str(o.result_types[k]) + ")"});
                    ok = false;
                }
        });
    }
    return ok;
}

bool canonicalize_dynamism(module& m, const options&, std::vector<diagnostic>& errs) {
    refiner r(m, errs, true);
    bool ok = r.run();
    for (auto& f : m.funcs)
        dead_code(f);
    return ok;
}

// ---- composites ----------------------------------------------------------------------------

bool composite_to_call(module& m, const options& opt, std::vector<diagnostic>&) {
    std::set<std::string> except;
    if (auto it = opt.find("except"); it != opt.end())
        for (auto& n : split_commas(it->second))
            except.insert(n);
    for (auto& f : m.funcs)
        walk_ops(f.body, [&](op& o) {
            if (o.name != "stablehlo.composite") return;
            const attr* nm = o.get("name");
            const attr* dec = o.get("decomposition");
            if (!dec || dec->k != attr::kind::symbol || (nm && except.count(nm->s))) return;
            o.name = "func.call";
            o.callee = dec->s;
            o.attrs.clear();
        });
    return true;
}

bool wrap_in_composite(module& m, const options& opt, std::vector<diagnostic>& errs) {
    auto it = opt.find("op-names");
    if (it == opt.end()) {
        errs.push_back({{}, "stablehlo-wrap-in-composite: expected op-names='stablehlo.add,...'"});
        return false;
    }
    std::set<std::string> names;
    for (auto& n : split_commas(it->second))
        names.insert(n);
    std::int64_t version = 0;
    if (auto v = opt.find("version"); v != opt.end()) version = std::strtoll(v->second.c_str(), nullptr, 10);
    std::set<std::string> symbols;
    for (auto& f : m.funcs)
        symbols.insert(f.name);
    std::vector<func> added;
    for (auto& f : m.funcs) {
        std::function<void(region&)> rec = [&](region& r) {
            for (auto& b : r.blocks)
                for (auto& op_ptr : b.ops) {
                    op& o = *op_ptr;
                    for (auto& g : o.regions)
                        rec(g);
                    if (!names.count(o.name) || !o.regions.empty()) continue;
                    // the private function <op>.impl[.N] holds the op on its arguments
                    std::string fn = o.name + ".impl";
                    for (int k = 0; symbols.count(fn); ++k)
                        fn = o.name + ".impl." + std::to_string(k);
                    symbols.insert(fn);
                    func impl;
                    impl.name = fn;
                    impl.visibility = "private";
                    impl.at = o.at;
                    impl.body.blocks.emplace_back();
                    block& ib = impl.body.blocks[0];
                    auto inner = make_op(o.name, o.operands, o.operand_types, o.results, o.result_types, o.at);
                    inner->attrs = o.attrs;
                    inner->callee = o.callee;
                    for (std::size_t k = 0; k < o.operands.size(); ++k) {
                        std::string a = "arg" + std::to_string(k);
                        impl.args.push_back({a, o.operand_types[k], {}, o.at});
                        ib.arg_names.push_back(a);
                        ib.arg_types.push_back(o.operand_types[k]);
                        ib.arg_locs.push_back(o.at);
                        inner->operands[k].name = a;
                    }
                    std::vector<value_ref> rets;
                    for (std::size_t k = 0; k < o.results.size(); ++k) {
                        inner->results[k] = "r" + std::to_string(k);
                        rets.push_back({inner->results[k], o.at});
                    }
                    impl.results = o.result_types;
                    impl.result_attrs.resize(o.result_types.size());
                    ib.ops.push_back(std::move(inner));
                    ib.ops.push_back(make_op("func.return", rets, o.result_types, {}, {}, o.at));
                    added.push_back(std::move(impl));
                    // the op becomes the composite, keeping its attributes as composite_attributes
                    attr ca;
                    ca.k = attr::kind::dict;
                    for (auto& [k, v] : o.attrs) {
                        ca.fields.push_back(v);
                        ca.fields.back().name = k;
                    }
                    std::string original = o.name;
                    o.name = "stablehlo.composite";
                    o.attrs.clear();
                    o.set("name", string_attr(original));
                    if (!ca.fields.empty()) o.set("composite_attributes", ca);
                    o.set("decomposition", symbol_attr(fn));
                    if (version) o.set("version", int_attr(version, "i32"));
                }
        };
        rec(f.body);
    }
    for (auto& f : added)
        m.funcs.push_back(std::move(f));
    return true;
}

// ---- deprecated ops (StableHLO v1.0 opset deprecations, RFC #2283) --------------------------

bool legalize_deprecated(module& m, const options& opt, std::vector<diagnostic>& errs) {
    bool fail_unused = false;
    if (auto it = opt.find("fail-on-unused"); it != opt.end()) fail_unused = it->second == "true" || it->second == "1";
    bool ok = true;
    for (auto& f : m.funcs)
        walk_ops(f.body, [&](op& o) {
            const std::string& n = o.name;
            if ((n == "stablehlo.broadcast" || n == "stablehlo.dot") && (o.operands.empty() || o.results.size() != 1))
                return;
            if (n == "stablehlo.broadcast") {
                // broadcast(x, sizes) == broadcast_in_dim(x, dims = [k..k+rank-1]) with the sizes first
                std::size_t lead = int_list(o.get("broadcast_sizes")).size();
                std::vector<std::int64_t> dims;
                for (std::size_t d = 0; d < o.operand_types[0].dims.size(); ++d)
                    dims.push_back(static_cast<std::int64_t>(lead + d));
                o.name = "stablehlo.broadcast_in_dim";
                o.attrs.clear();
                o.set("broadcast_dimensions", i64_array(dims));
            } else if (n == "stablehlo.dot") {
                attr dd;
                dd.k = attr::kind::dialect;
                dd.s = "stablehlo.dot";
                dd.fields = {named(int_list_attr({static_cast<std::int64_t>(o.operand_types[0].dims.size()) - 1}),
                                   "lhs_contracting_dimensions"),
                             named(int_list_attr({0}), "rhs_contracting_dimensions")};
                o.name = "stablehlo.dot_general";
                o.set("dot_dimension_numbers", dd);
            } else if (n == "stablehlo.create_token") {
                o.name = "stablehlo.after_all";
                o.operands.clear();
                o.operand_types.clear();
            } else if (n == "stablehlo.einsum" || n == "stablehlo.unary_einsum" ||
                       n == "stablehlo.torch_index_select" || n == "stablehlo.rng" ||
                       n == "stablehlo.cross-replica-sum") {
                if (fail_unused) {
                    errs.push_back({o.at, "stablehlo-legalize-deprecated-ops: " + n +
                                              " is deprecated and has no fallback (fail-on-unused)"});
                    ok = false;
                }
            }
        });
    return ok;
}

// ---- signless integers -----------------------------------------------------------------------

void signless(type& t) {
    if (t.elem.rfind("si", 0) == 0 || t.elem.rfind("ui", 0) == 0) t.elem = t.elem.substr(1);
    for (auto& e : t.elems)
        signless(e);
}
bool convert_to_signless(module& m, const options&, std::vector<diagnostic>&) {
    for (auto& f : m.funcs) {
        for (auto& a : f.args)
            signless(a.t);
        for (auto& t : f.results)
            signless(t);
        std::function<void(region&)> rec = [&](region& r) {
            for (auto& b : r.blocks) {
                for (auto& t : b.arg_types)
                    signless(t);
                for (auto& o : b.ops) {
                    for (auto& t : o->operand_types)
                        signless(t);
                    for (auto& t : o->result_types)
                        signless(t);
                    for (auto& [k, v] : o->attrs)
                        if (v.k == attr::kind::dense) signless(v.t);
                    for (auto& g : o->regions)
                        rec(g);
                }
            }
        };
        rec(f.body);
    }
    return true;
}

// ---- expansions: op -> ops before it ---------------------------------------------------------

// Rewrites each matching op into a sequence of new ops (the last defines the op's results).
// `expand` returns false to keep the op.
using expander = std::function<bool(op&, namer&, std::vector<std::unique_ptr<op>>&)>;

// A result named %x#k must belong to an op defining the whole group %x:n; an expansion that split
// a group across ops gets fresh names for the pieces (and their uses renamed).
void fix_group_names(func& f, namer& fresh) {
    std::vector<std::pair<std::string, std::pair<std::string, type>>> renames;
    walk_ops(f.body, [&](op& o) {
        for (std::size_t k = 0; k < o.results.size(); ++k) {
            auto h = o.results[k].find('#');
            if (h == std::string::npos) continue;
            if (o.results[k] == o.results[k].substr(0, h) + "#" + std::to_string(k) &&
                (k == 0 || o.results[0].find('#') != std::string::npos))
                continue;
            std::string n = fresh("r");
            renames.push_back({o.results[k], {n, o.result_types[k]}});
            o.results[k] = n;
        }
        if (o.results.size() == 1 && o.results[0].find('#') != std::string::npos) {
            std::string n = fresh("r");
            renames.push_back({o.results[0], {n, o.result_types[0]}});
            o.results[0] = n;
        }
    });
    for (auto& [from, to] : renames)
        replace_uses(f.body, from, to.first, to.second);
}

// `done(f)`, when given, runs on each function once its ops are expanded.
void expand_ops(module& m, const expander& expand, const std::function<void(func&, namer&)>& done = {}) {
    for (auto& f : m.funcs) {
        namer fresh(f);
        std::function<void(region&)> rec = [&](region& r) {
            for (auto& b : r.blocks) {
                std::vector<std::unique_ptr<op>> out;
                for (auto& o : b.ops) {
                    for (auto& g : o->regions)
                        rec(g);
                    std::vector<std::unique_ptr<op>> seq;
                    if (expand(*o, fresh, seq)) {
                        for (auto& s : seq)
                            out.push_back(std::move(s));
                    } else {
                        out.push_back(std::move(o));
                    }
                }
                b.ops = std::move(out);
            }
        };
        rec(f.body);
        if (done) done(f, fresh);
        fix_group_names(f, fresh);
    }
}

struct builder {
    namer& fresh;
    std::vector<std::unique_ptr<op>>& seq;
    loc at;
    value_ref emit(const std::string& name, std::vector<value_ref> args, std::vector<type> arg_types, type result,
                   const std::string& result_name = "") {
        std::string r = result_name.empty() ? fresh("e") : result_name;
        seq.push_back(make_op(name, std::move(args), std::move(arg_types), {r}, {result}, at));
        return {r, at};
    }
    value_ref constant(const std::string& text, const type& t) {
        std::string r = fresh("cst");
        auto o = make_op("stablehlo.constant", {}, {}, {r}, {t}, at);
        o->set("value", dense_float(text, t));
        seq.push_back(std::move(o));
        return {r, at};
    }
    op& last() { return *seq.back(); }
};

// ---- stablehlo-compatibility-expander ----------------------------------------------------------

std::optional<vhlo::version> parse_version(const std::string& s); // with the VHLO passes, below
bool expand_mesh_axes(module& m, std::vector<diagnostic>& errs);  // likewise

// The `target` option's version, from vhlo::minimum_version to vhlo::current_version; nullopt with
// an error otherwise, in the pass's words: `missing` when there is none, else `invalid` + the text
// + `expected`.
std::optional<vhlo::version> target_version(const options& opt, const std::string& pass, const std::string& missing,
                                            const std::string& invalid, const std::string& expected,
                                            std::vector<diagnostic>& errs) {
    auto it = opt.find("target");
    std::optional<vhlo::version> target = it == opt.end() ? std::nullopt : parse_version(it->second);
    if (!target) {
        errs.push_back({{}, pass + ": " + (it == opt.end() ? missing : invalid + it->second + expected)});
        return std::nullopt;
    }
    if (*target < vhlo::minimum_version || vhlo::current_version < *target) {
        errs.push_back(
            {{},
             pass + ": target version " + target->str() + " is " +
                 (*target < vhlo::minimum_version ? "less than minimum supported " + vhlo::minimum_version.str()
                                                  : "greater than current version " + vhlo::current_version.str())});
        return std::nullopt;
    }
    return target;
}

// result_accuracy absent or DEFAULT: upstream's expanders rewrite only those ops (a TOLERANCE or
// HIGHEST accuracy asks for the op itself).
bool default_accuracy(const op& o) {
    const attr* a = o.get("result_accuracy");
    if (!a) return true;
    std::string t = attr_str(*a);
    return t.find("TOLERANCE") == std::string::npos && t.find("HIGHEST") == std::string::npos;
}

// Whether a dimension size is a value of the integer element type `elem` (as llvm::isIntN /
// isUIntN: signless counts as signed).
bool size_fits(std::int64_t size, const std::string& elem) {
    int bits = elem_bits(elem);
    int value_bits = is_unsigned_elem(elem) ? bits : bits - 1;
    if (value_bits >= 63) return true;
    return value_bits >= 0 && size < (std::int64_t{1} << value_bits);
}

// The start (scatter) indices with one iota per batching dim concatenated before them along
// index_vector_dim, as upstream's expander builds them: converted to i32 (i64 if that is too small)
// when a batching dim's size does not fit their type, reshaped to a trailing dim of 1 when
// index_vector_dim is their rank. `t` becomes the type of the result.
value_ref batching_indices(builder& b, value_ref idx, type& t, std::int64_t ivd,
                           const std::vector<std::int64_t>& bdims) {
    std::string e = t.elem;
    for (auto d : bdims)
        if (!size_fits(t.dims[static_cast<std::size_t>(d)], e))
            e = size_fits(t.dims[static_cast<std::size_t>(d)], "i32") ? "i32" : "i64";
    if (e != t.elem) {
        type c = t;
        c.elem = e;
        idx = b.emit("stablehlo.convert", {idx}, {t}, c);
        t = c;
    }
    type it = t;
    auto v = static_cast<std::size_t>(ivd);
    if (v == t.dims.size()) {
        it.dims.push_back(1);
        idx = b.emit("stablehlo.reshape", {idx}, {t}, it);
        t = it;
    } else {
        it.dims[v] = 1;
    }
    std::vector<value_ref> parts;
    std::vector<type> types;
    for (auto d : bdims) {
        parts.push_back(b.emit("stablehlo.iota", {}, {}, it));
        b.last().set("iota_dimension", int_attr(d));
        types.push_back(it);
    }
    parts.push_back(idx);
    types.push_back(t);
    type ct = t;
    ct.dims[v] += static_cast<std::int64_t>(bdims.size());
    auto r = b.emit("stablehlo.concatenate", parts, types, ct);
    b.last().set("dimension", int_attr(ivd));
    t = ct;
    return r;
}

// A #stablehlo.gather / #stablehlo.scatter attribute with these lists (the empty ones left out, as
// MLIR prints them) and index_vector_dim.
attr dims_attr(const attr& old, const std::vector<std::pair<const char*, std::vector<std::int64_t>>>& lists,
               std::int64_t ivd) {
    attr a;
    a.k = attr::kind::dialect;
    a.s = old.s;
    a.at = old.at;
    for (auto& [name, v] : lists)
        if (!v.empty()) a.fields.push_back(named(int_list_attr(v), name));
    a.fields.push_back(named(int_attr(ivd, ""), "index_vector_dim"));
    return with_raw(a);
}

// Gather / scatter with batching dims (StableHLO 1.1.0) as one without: each batching dim becomes
// a collapsed slice (inserted window) dim indexed by an iota concatenated to the indices. The
// indices must have a static shape (upstream's condition too).
bool expand_batching(op& o, builder& b) {
    bool gather = o.name == "stablehlo.gather";
    std::size_t k = gather ? 1 : o.results.size(); // scatter: inputs..., indices, updates...
    if (gather ? o.operands.size() != 2 || o.results.size() != 1 : k == 0 || o.operands.size() != 2 * k + 1)
        return false;
    if (o.operand_types.size() != o.operands.size() || o.result_types.size() != o.results.size()) return false;
    if (!gather && o.regions.size() != 1) return false;
    const attr* d = o.get(gather ? "dimension_numbers" : "scatter_dimension_numbers");
    if (!d || d->k != attr::kind::dialect) return false;
    const char* obd_name = gather ? "operand_batching_dims" : "input_batching_dims";
    const char* ibd_name = gather ? "start_indices_batching_dims" : "scatter_indices_batching_dims";
    const char* collapsed_name = gather ? "collapsed_slice_dims" : "inserted_window_dims";
    const char* map_name = gather ? "start_index_map" : "scatter_dims_to_operand_dims";
    auto obd = int_list(d->field(obd_name)), ibd = int_list(d->field(ibd_name));
    auto collapsed = int_list(d->field(collapsed_name)), map = int_list(d->field(map_name));
    const attr* ivd_attr = d->field("index_vector_dim");
    if (obd.empty() || obd.size() != ibd.size() || !ivd_attr || ivd_attr->k != attr::kind::integer) return false;
    type t = o.operand_types[k];
    const type& operand = o.operand_types[0];
    if (t.k != type::kind::tensor || !t.is_static() || !is_integer_elem(t.elem) || operand.k != type::kind::tensor)
        return false;
    std::int64_t ivd = ivd_attr->i, rank = static_cast<std::int64_t>(t.dims.size());
    if (ivd < 0 || ivd > rank) return false;
    for (auto x : ibd)
        if (x < 0 || x >= rank || x == ivd) return false;
    for (auto x : obd)
        if (x < 0 || x >= static_cast<std::int64_t>(operand.dims.size())) return false;
    std::vector<std::int64_t> new_collapsed;
    std::merge(obd.begin(), obd.end(), collapsed.begin(), collapsed.end(), std::back_inserter(new_collapsed));
    std::vector<std::int64_t> new_map = obd;
    new_map.insert(new_map.end(), map.begin(), map.end());
    value_ref idx = batching_indices(b, o.operands[k], t, ivd, ibd);
    std::vector<value_ref> args = o.operands;
    std::vector<type> types = o.operand_types;
    args[k] = idx;
    types[k] = t;
    auto n = make_op(o.name, args, types, o.results, o.result_types, o.at);
    for (auto& [key, v] : o.attrs)
        n->set(key, v);
    const char* first_name = gather ? "offset_dims" : "update_window_dims";
    n->set(gather ? "dimension_numbers" : "scatter_dimension_numbers",
           dims_attr(
               *d, {{first_name, int_list(d->field(first_name))}, {collapsed_name, new_collapsed}, {map_name, new_map}},
               ivd));
    // sorted indices stay sorted when the iotas come in the order of the operand's dims
    const attr* s = o.get("indices_are_sorted");
    bool sorted = s && s->k == attr::kind::boolean && s->b && std::is_sorted(ibd.begin(), ibd.end()) &&
                  std::is_sorted(new_map.begin(), new_map.end());
    n->set("indices_are_sorted", bool_attr(sorted));
    n->regions = std::move(o.regions);
    b.seq.push_back(std::move(n));
    return true;
}

// Ops newer than the target version as older ones (upstream's StablehloCompatibilityExpander):
// before 1.1.0 gather / scatter with batching dims, before 1.4.0 tan, before 1.16.0
// #stablehlo.replica_group_mesh_axes as dense replica_groups. Upstream's other rewrite has nothing
// to act on here: FileLineColRange locations (before 1.9.0; xlet-translate prints no locations).
bool compatibility_expander(module& m, const options& opt, std::vector<diagnostic>& errs) {
    std::optional<vhlo::version> target =
        target_version(opt, "stablehlo-compatibility-expander", "expected target=#.#.#", "invalid target version '",
                       "'; expected target=#.#.#", errs);
    if (!target) return false;
    const bool batching = *target < vhlo::version{1, 1, 0}, tan = *target < vhlo::version{1, 4, 0};
    if (*target < vhlo::version{1, 16, 0}) {
        module c = clone(m); // the module is changed only when every mesh resolves
        if (!expand_mesh_axes(c, errs)) return false;
        m = std::move(c);
    }
    if (!batching && !tan) return true;
    expand_ops(m, [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
        builder b{fresh, seq, o.at};
        if (batching && (o.name == "stablehlo.gather" || o.name == "stablehlo.scatter")) return expand_batching(o, b);
        if (!tan || o.name != "stablehlo.tan" || o.operands.size() != 1 || o.results.size() != 1 ||
            o.operand_types.size() != 1 || !default_accuracy(o))
            return false;
        const type& t = o.operand_types[0];
        if (!is_complex_elem(t.elem)) {
            // tan x = sin x / cos x
            auto s = b.emit("stablehlo.sine", {o.operands[0]}, {t}, t);
            auto c = b.emit("stablehlo.cosine", {o.operands[0]}, {t}, t);
            b.emit("stablehlo.divide", {s, c}, {t, t}, t, o.results[0]);
            return true;
        }
        // tan(a + bi) = (tan a + i tanh b) / (1 - i tan a tanh b), tan a as above
        type rt = t;
        rt.elem = t.elem == "complex<f32>" ? "f32" : "f64";
        auto one = b.constant("1.0", rt);
        auto re = b.emit("stablehlo.real", {o.operands[0]}, {t}, rt);
        auto s = b.emit("stablehlo.sine", {re}, {rt}, rt);
        auto c = b.emit("stablehlo.cosine", {re}, {rt}, rt);
        auto ta = b.emit("stablehlo.divide", {s, c}, {rt, rt}, rt);
        auto im = b.emit("stablehlo.imag", {o.operands[0]}, {t}, rt);
        auto th = b.emit("stablehlo.tanh", {im}, {rt}, rt);
        auto num = b.emit("stablehlo.complex", {ta, th}, {rt, rt}, t);
        auto p = b.emit("stablehlo.multiply", {ta, th}, {rt, rt}, rt);
        auto np = b.emit("stablehlo.negate", {p}, {rt}, rt);
        auto den = b.emit("stablehlo.complex", {one, np}, {rt, rt}, t);
        b.emit("stablehlo.divide", {num, den}, {t, t}, t, o.results[0]);
        return true;
    });
    return true;
}

// ---- stablehlo-complex-math-expander -----------------------------------------------------------

// Real arithmetic on tensors of one float type, one op per call, for the complex expansions.
struct real_ops {
    builder& b;
    type rt, pt; // the real type, and i1 of its shape
    std::map<std::string, value_ref> consts;
    value_ref k(const std::string& text) { // a constant, made once per expansion
        auto it = consts.find(text);
        if (it != consts.end()) return it->second;
        return consts[text] = b.constant(text, rt);
    }
    value_ref un(const char* n, value_ref a) { return b.emit(std::string("stablehlo.") + n, {a}, {rt}, rt); }
    value_ref bin(const char* n, value_ref a, value_ref c) {
        return b.emit(std::string("stablehlo.") + n, {a, c}, {rt, rt}, rt);
    }
    value_ref add(value_ref a, value_ref c) { return bin("add", a, c); }
    value_ref sub(value_ref a, value_ref c) { return bin("subtract", a, c); }
    value_ref mul(value_ref a, value_ref c) { return bin("multiply", a, c); }
    value_ref div(value_ref a, value_ref c) { return bin("divide", a, c); }
    value_ref max(value_ref a, value_ref c) { return bin("maximum", a, c); }
    value_ref min(value_ref a, value_ref c) { return bin("minimum", a, c); }
    value_ref cmp(value_ref a, value_ref c, const char* dir) {
        auto v = b.emit("stablehlo.compare", {a, c}, {rt, rt}, pt);
        b.last().set("comparison_direction", enum_attr("comparison_direction", dir));
        return v;
    }
    value_ref sel(value_ref p, value_ref a, value_ref c) {
        return b.emit("stablehlo.select", {p, a, c}, {pt, rt, rt}, rt);
    }
    value_ref land(value_ref p, value_ref q) { return b.emit("stablehlo.and", {p, q}, {pt, pt}, pt); }
    value_ref lor(value_ref p, value_ref q) { return b.emit("stablehlo.or", {p, q}, {pt, pt}, pt); }
    bool f32() const { return rt.elem == "f32"; }
    value_ref largest() { return k(f32() ? "0x7F7FFFFF" : "0x7FEFFFFFFFFFFFFF"); }
    value_ref inf() { return k(f32() ? "0x7F800000" : "0x7FF0000000000000"); }
    // the sign bit of v (true for -0 too): its bits as a signed integer are negative
    value_ref signbit(value_ref v) {
        type it = rt;
        it.elem = f32() ? "i32" : "i64";
        auto bits = b.emit("stablehlo.bitcast_convert", {v}, {rt}, it);
        std::string zi = b.fresh("zero");
        auto zo = make_op("stablehlo.constant", {}, {}, {zi}, {it}, b.at);
        zo->set("value", dense_float("0", it));
        b.seq.push_back(std::move(zo));
        auto r = b.emit("stablehlo.compare", {bits, {zi, b.at}}, {it, it}, pt);
        b.last().set("comparison_direction", enum_attr("comparison_direction", "LT"));
        return r;
    }
    // Dekker's square: v * v == hi + lo exactly (Veltkamp's split of v at half its mantissa)
    value_ref square_low(value_ref v, value_ref hi) {
        auto p = mul(k(f32() ? "4097.0" : "134217729.0"), v);
        auto vh = add(p, sub(v, p));
        auto vl = sub(v, vh);
        auto t = mul(vh, vl);
        return add(add(add(add(un("negate", hi), mul(vh, vh)), t), t), mul(vl, vl));
    }
    // hypot(a, b) of a, b >= 0 as upstream: mx sqrt(1 + (mn/mx)^2), its first order term when the
    // square root rounds to 1, sqrt(2) mx when they are equal (both infinite included)
    value_ref hypot(value_ref a, value_ref c) {
        auto mx = max(a, c), mn = min(a, c);
        auto q = div(mn, mx);
        auto r = mul(q, q);
        auto sqa = un("sqrt", add(k("1.0"), r));
        auto small = land(cmp(sqa, k("1.0"), "EQ"), cmp(r, k("0.0"), "GT"));
        auto general = sel(small, add(mx, div(mul(mx, r), k("2.0"))), mul(mx, sqa));
        return sel(cmp(mx, mn, "EQ"), mul(k("1.4142135623730951"), mx), general);
    }
};

// Complex exp, log, log_plus_one and sqrt in real arithmetic, with the algorithms of upstream's
// StablehloComplexMathExpander (generated by the functional_algorithms tool): accurate on the
// whole plane, overflow and underflow avoided, Dekker's squares and 2Sum where cancellation would
// lose the result. One difference: the sign of a zero imaginary part is kept (exp(x - 0i) has
// imaginary part -0, sqrt(-4 - 0i) = -2i, as C99's Annex G), where upstream's compares give +0.
bool complex_math_expander(module& m, const options&, std::vector<diagnostic>&) {
    expand_ops(m, [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
        const std::string& n = o.name;
        if (o.operands.size() != 1 || o.results.size() != 1 || o.operand_types.size() != 1 ||
            !is_complex_elem(o.operand_types[0].elem) || !default_accuracy(o))
            return false;
        if (n != "stablehlo.exponential" && n != "stablehlo.log" && n != "stablehlo.log_plus_one" &&
            n != "stablehlo.sqrt")
            return false;
        builder b{fresh, seq, o.at};
        type ct = o.operand_types[0];
        type rt = ct;
        rt.elem = ct.elem == "complex<f32>" ? "f32" : "f64";
        type pt = rt;
        pt.elem = "i1";
        real_ops r{b, rt, pt, {}};
        value_ref z = o.operands[0];
        auto x = b.emit("stablehlo.real", {z}, {ct}, rt);
        auto y = b.emit("stablehlo.imag", {z}, {ct}, rt);
        value_ref re, im;
        if (n == "stablehlo.exponential") {
            auto half = r.k("0.5");
            // e^x (cos y + i sin y); where e^x overflows, e^(x/2) (cos y + i sin y) e^(x/2), so that
            // a small cos y or sin y can bring the part back into range; y = 0 gives imaginary y
            // (not inf * 0)
            auto e = r.un("exponential", x);
            auto overflow = r.cmp(e, r.inf(), "EQ");
            auto e2 = r.un("exponential", r.mul(x, half));
            auto cs = r.un("cosine", y);
            auto sn = r.un("sine", y);
            re = r.sel(overflow, r.mul(r.mul(e2, cs), e2), r.mul(e, cs));
            auto ims = r.sel(overflow, r.mul(r.mul(e2, sn), e2), r.mul(e, sn));
            im = r.sel(r.cmp(y, r.k("0.0"), "EQ"), y, ims);
        } else if (n == "stablehlo.log") {
            // real part: |z| near 1: 1/2 log1p(x^2 + y^2 - 1), the sum exact to twice the precision
            // (Dekker's squares summed by Fast2Sum, largest first); otherwise
            // log(mx) + 1/2 log1p((mn/mx)^2) (mn/mx = 1 when equal: both 0 or both infinite)
            auto half = r.k("0.5"), one = r.k("1.0");
            auto yyh = r.mul(y, y), xxh = r.mul(x, x);
            auto gt = r.cmp(yyh, xxh, "GT");
            auto mxh = r.sel(gt, yyh, xxh), mnh = r.sel(gt, xxh, yyh);
            auto m1 = r.k("-1.0");
            auto yyl = r.square_low(y, yyh), xxl = r.square_low(x, xxh);
            auto h0 = r.add(m1, mxh), h1 = r.add(h0, mnh), h2 = r.add(h1, yyl), h3 = r.add(h2, xxl);
            auto l0 = r.sub(mxh, r.sub(h0, m1)), l1 = r.sub(mnh, r.sub(h1, h0)), l2 = r.sub(yyl, r.sub(h2, h1)),
                 l3 = r.sub(xxl, r.sub(h3, h2));
            auto s = r.add(h3, r.add(r.add(r.add(l0, l1), l2), l3));
            auto near1 = r.cmp(r.un("abs", s), half, "LT");
            auto a = r.mul(half, r.un("log_plus_one", s));
            auto ax = r.un("abs", x), ay = r.un("abs", y);
            auto mx = r.max(ax, ay), mn = r.min(ax, ay);
            auto q = r.sel(r.cmp(mn, mx, "EQ"), one, r.div(mn, mx));
            auto far = r.add(r.un("log", mx), r.mul(half, r.un("log_plus_one", r.mul(q, q))));
            re = r.sel(near1, a, far);
            im = r.bin("atan2", y, x);
        } else if (n == "stablehlo.log_plus_one") {
            // real part 1/2 log((x + 1)^2 + y^2), by cases:
            //  max(|x|, |y|) > sqrt(largest) / 100: log(mx) + 1/2 log1p((mn/mx)^2) (x + 1 ~ x there);
            //  |x + 1| + |y| < 0.2: 1/2 log((x + 1)^2 + y^2) (no cancellation near -1);
            //  otherwise 1/2 log1p(2x + x^2 + y^2), the sum exact to twice the precision (Dekker's
            //  squares summed by 2Sum): accurate where x ~ -y^2/2
            auto half = r.k("0.5"), one = r.k("1.0");
            auto ax = r.un("abs", x), ay = r.un("abs", y);
            auto mx = r.max(ax, ay);
            auto big = r.cmp(mx, r.mul(r.un("sqrt", r.largest()), r.k("0.01")), "GT");
            auto mn = r.min(ax, ay);
            auto q = r.div(mn, mx);
            auto far =
                r.add(r.un("log", mx), r.mul(half, r.un("log_plus_one", r.sel(r.cmp(mn, mx, "EQ"), one, r.mul(q, q)))));
            auto xp1 = r.add(x, one);
            auto near = r.cmp(r.add(r.un("abs", xp1), ay), r.k("0.2"), "LT");
            auto yyh = r.mul(y, y);
            auto c = r.mul(half, r.un("log", r.add(r.mul(xp1, xp1), yyh)));
            auto x2 = r.add(x, x);
            auto h0 = r.add(x2, yyh);
            auto xxh = r.mul(x, x);
            auto h1 = r.add(h0, xxh);
            auto yyl = r.square_low(y, yyh);
            auto h2 = r.add(h1, yyl);
            auto xxl = r.square_low(x, xxh);
            auto h3 = r.add(h2, xxl);
            // 2Sum's error of a + b = h: (a - (h - (h - a))) + (b - (h - a))
            auto two_sum_low = [&](value_ref a, value_ref bb, value_ref h) {
                auto d = r.sub(h, a);
                return r.add(r.sub(a, r.sub(h, d)), r.sub(bb, d));
            };
            auto l0 = two_sum_low(x2, yyh, h0), l1 = two_sum_low(h0, xxh, h1), l2 = two_sum_low(h1, yyl, h2),
                 l3 = two_sum_low(h2, xxl, h3);
            auto s = r.add(h3, r.add(r.add(r.add(l0, l1), l2), l3));
            auto a = r.mul(half, r.un("log_plus_one", s));
            re = r.sel(big, far, r.sel(near, c, a));
            im = r.bin("atan2", y, xp1);
        } else {
            // u = sqrt((|z| + |x|) / 2), then sqrt z = u + i y / 2u (x >= 0) or |y| / 2u + i sgn(y) u
            // (x < 0). Where u underflows to 0 or overflows, the same with sqrt(|x|) or sqrt(|y|)
            // taken out first; |x| = |y| (infinities included) in closed form.
            auto one = r.k("1.0"), two = r.k("2.0"), sq2 = r.k("1.4142135623730951");
            auto ax = r.un("abs", x), ay = r.un("abs", y);
            auto eq = r.cmp(ax, ay, "EQ"), gt = r.cmp(ax, ay, "GT"), lt = r.cmp(ax, ay, "LT");
            auto sq_ax = r.un("sqrt", ax), sq_ay = r.un("sqrt", ay);
            // |x| = |y|: u = sqrt|x| sqrt((1 + sqrt 2) / 2)
            auto u_eq = r.div(r.mul(sq_ax, r.k("1.5537739740300374")), sq2);
            auto u_general = r.un("sqrt", r.add(r.div(r.hypot(ax, ay), two), r.div(ax, two)));
            auto rescale = r.lor(r.cmp(u_general, r.k("0.0"), "EQ"), r.cmp(u_general, r.inf(), "EQ"));
            // rho = min / max of |x|, |y|; h = hypot(1, rho)
            auto rho = r.sel(eq, one, r.sel(lt, r.div(ax, ay), r.div(ay, ax)));
            auto h = r.hypot(one, r.un("abs", rho));
            auto sq_1h = r.un("sqrt", r.add(one, h));
            auto sq_rh = r.un("sqrt", r.add(rho, h));
            auto u_gt = r.mul(sq_ax, r.div(sq_1h, sq2));
            auto u_lt = r.mul(sq_ay, r.div(sq_rh, sq2));
            auto u = r.sel(eq, u_eq, r.sel(rescale, r.sel(gt, u_gt, u_lt), u_general));
            // |y| / u, by the same cases
            auto sq_ratio = r.sel(eq, one, r.sel(lt, r.div(sq_ax, sq_ay), r.div(sq_ay, sq_ax)));
            auto v_eq = r.div(sq_ay, r.k("2.19736822693562"));
            auto v_gt = r.div(r.mul(sq_ay, sq_ratio), r.mul(sq_1h, sq2));
            auto v_lt = r.div(sq_ay, r.mul(sq_rh, sq2));
            auto v_general = r.div(ay, r.mul(u_general, two));
            auto v = r.sel(eq, v_eq, r.sel(rescale, r.sel(gt, v_gt, v_lt), v_general));
            auto neg_y = r.signbit(y);
            re = r.sel(r.cmp(x, r.k("0.0"), "GE"), u, v);
            im = r.sel(r.cmp(x, r.k("0.0"), "LT"), r.sel(neg_y, r.un("negate", u), u),
                       r.sel(neg_y, r.un("negate", v), v));
        }
        b.emit("stablehlo.complex", {re, im}, {rt, rt}, ct, o.results[0]);
        return true;
    });
    return true;
}

// CHLO -> StableHLO: implicit broadcasting made explicit, and the math ops with closed forms.
bool chlo_legalize(module& m, const options&, std::vector<diagnostic>& errs) {
    static const std::map<std::string, std::string> bin = {
        {"chlo.broadcast_add", "stablehlo.add"},
        {"chlo.broadcast_atan2", "stablehlo.atan2"},
        {"chlo.broadcast_complex", "stablehlo.complex"},
        {"chlo.broadcast_divide", "stablehlo.divide"},
        {"chlo.broadcast_maximum", "stablehlo.maximum"},
        {"chlo.broadcast_minimum", "stablehlo.minimum"},
        {"chlo.broadcast_multiply", "stablehlo.multiply"},
        {"chlo.broadcast_power", "stablehlo.power"},
        {"chlo.broadcast_remainder", "stablehlo.remainder"},
        {"chlo.broadcast_shift_left", "stablehlo.shift_left"},
        {"chlo.broadcast_shift_right_arithmetic", "stablehlo.shift_right_arithmetic"},
        {"chlo.broadcast_shift_right_logical", "stablehlo.shift_right_logical"},
        {"chlo.broadcast_subtract", "stablehlo.subtract"},
        {"chlo.broadcast_and", "stablehlo.and"},
        {"chlo.broadcast_or", "stablehlo.or"},
        {"chlo.broadcast_xor", "stablehlo.xor"},
        {"chlo.broadcast_compare", "stablehlo.compare"},
        {"chlo.broadcast_select", "stablehlo.select"},
        {"chlo.broadcast_next_after", "chlo.next_after"},
        {"chlo.broadcast_polygamma", "chlo.polygamma"},
        {"chlo.broadcast_zeta", "chlo.zeta"}};
    bool ok = true;
    expand_ops(m, [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
        const std::string& n = o.name;
        // the special functions, mulhi, constant_like, constant (pass_chlo.cpp)
        std::string why;
        std::function<std::string(const std::string&)> name = [&](const std::string& base) { return fresh(base); };
        auto math = [&](const op& x) {
            if (chlo_decompose_math(x, name, seq, why)) return true;
            if (!why.empty()) {
                errs.push_back({x.at, "chlo-legalize-to-stablehlo: " + why});
                ok = false;
            }
            return false;
        };
        if (n == "chlo.ragged_dot" || n == "chlo.scan") { // masked dot_generals, a while loop (pass_chlo.cpp)
            if (chlo_decompose_ragged_dot_scan(o, name, seq, why)) return true;
            if (!why.empty()) {
                errs.push_back({o.at, "chlo-legalize-to-stablehlo: " + why});
                ok = false;
            }
            return false;
        }
        if (!bin.count(n) && n.rfind("chlo.", 0) == 0 && (math(o) || !why.empty())) return why.empty();
        if (n.rfind("chlo.", 0) != 0 || o.results.empty() || o.operands.empty()) return false;
        if (bin.count(n) && o.operands.size() != (n == "chlo.broadcast_select" ? 3u : 2u)) return false;
        if (!bin.count(n) && (o.operands.size() != 1 || o.results.size() != (n == "chlo.top_k" ? 2u : 1u)))
            return false;
        if (n == "chlo.top_k" && o.operand_types[0].dims.empty()) return false;
        // On complex numbers, upstream's asin, asinh and acosh rest on a dedicated kernel (Hull et
        // al.'s, accurate near the branch cuts) that this pass does not have: a diagnostic, not a
        // formula that loses digits there.
        if ((n == "chlo.asin" || n == "chlo.asinh" || n == "chlo.acosh") && is_complex_elem(o.operand_types[0].elem)) {
            errs.push_back({o.at, "chlo-legalize-to-stablehlo: " + n + " on " + o.operand_types[0].elem +
                                      " is not legalized (upstream's complex asin/acos kernel is not implemented)"});
            ok = false;
            return false;
        }
        builder b{fresh, seq, o.at};
        if (auto it = bin.find(n); it != bin.end()) {
            const type& rt = o.result_types[0];
            std::vector<value_ref> args;
            std::vector<type> types;
            std::vector<std::int64_t> bd = int_list(o.get("broadcast_dimensions"));
            bool dynamic = !rt.is_static();
            for (auto& t : o.operand_types)
                dynamic = dynamic || !t.is_static();
            if (dynamic) { // the extents computed, dynamic_broadcast_in_dim (pass_chlo.cpp)
                std::vector<std::string> names;
                if (!chlo_broadcast_dynamic(o, name, seq, names, types, why)) {
                    if (!why.empty()) {
                        errs.push_back({o.at, "chlo-legalize-to-stablehlo: " + why});
                        ok = false;
                    }
                    return false;
                }
                for (auto& v : names)
                    args.push_back({v, o.at});
            }
            for (std::size_t k = 0; k < o.operands.size() && !dynamic; ++k) {
                type t = o.operand_types[k];
                type want = rt;
                want.elem = t.elem;
                if (t == want) {
                    args.push_back(o.operands[k]);
                    types.push_back(t);
                    continue;
                }
                // numpy-style: trailing alignment unless broadcast_dimensions says otherwise
                std::vector<std::int64_t> dims;
                if (!bd.empty() && t.dims.size() != rt.dims.size())
                    dims = bd;
                else
                    for (std::size_t d = 0; d < t.dims.size(); ++d)
                        dims.push_back(static_cast<std::int64_t>(rt.dims.size() - t.dims.size() + d));
                auto v = b.emit("stablehlo.broadcast_in_dim", {o.operands[k]}, {t}, want);
                b.last().set("broadcast_dimensions", i64_array(dims));
                args.push_back(v);
                types.push_back(want);
            }
            auto r = make_op(it->second, args, types, o.results, o.result_types, o.at);
            for (auto& [k, v] : o.attrs)
                if (k == "comparison_direction" || k == "compare_type") r->set(k, v);
            // broadcast_next_after, broadcast_polygamma, broadcast_zeta: their CHLO op, decomposed
            if (it->second.rfind("chlo.", 0) == 0 && math(*r)) return true;
            seq.push_back(std::move(r));
            return true;
        }
        type t = o.operand_types.empty() ? o.result_types[0] : o.operand_types[0];
        const type& rt = o.result_types[0];
        auto cmp = [&](value_ref a, value_ref c, const char* dir) {
            type pt = t;
            pt.elem = "i1";
            auto v = b.emit("stablehlo.compare", {a, c}, {t, t}, pt);
            attr d;
            d.k = attr::kind::dialect;
            d.s = "stablehlo";
            d.raw = std::string("comparison_direction ") + dir;
            b.last().set("comparison_direction", d);
            return v;
        };
        value_ref x = o.operands.empty() ? value_ref{} : o.operands[0];
        // a splat of t, which may be dynamic: then a rank-0 constant broadcast to x's shape
        std::string shape;
        auto splat = [&](std::string text, const type& ty) -> value_ref {
            if (is_complex_elem(ty.elem) && text.front() != '(') text = "(" + text + ", 0.0)"; // (re, im)
            if (ty.is_static()) return b.constant(text, ty);
            return {chlo_splat_dynamic(text, ty, x.name, t, shape, name, seq, o.at), o.at};
        };
        if (n == "chlo.tan") {
            seq.push_back(make_op("stablehlo.tan", o.operands, o.operand_types, o.results, o.result_types, o.at));
        } else if (n == "chlo.square") {
            b.emit("stablehlo.multiply", {x, x}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.conj") {
            type r = t;
            r.elem = t.elem == "complex<f32>" ? "f32" : "f64";
            auto re = b.emit("stablehlo.real", {x}, {t}, r);
            auto im = b.emit("stablehlo.imag", {x}, {t}, r);
            auto ni = b.emit("stablehlo.negate", {im}, {r}, r);
            b.emit("stablehlo.complex", {re, ni}, {r, r}, rt, o.results[0]);
        } else if (n == "chlo.is_inf" || n == "chlo.is_pos_inf" || n == "chlo.is_neg_inf") {
            auto inf = splat(n == "chlo.is_neg_inf" ? (elem_bits(t.elem) == 64   ? "0xFFF0000000000000"
                                                       : elem_bits(t.elem) == 32 ? "0xFF800000"
                                                       : t.elem == "bf16"        ? "0xFF80"
                                                                                 : "0xFC00")
                                                    : (elem_bits(t.elem) == 64   ? "0x7FF0000000000000"
                                                       : elem_bits(t.elem) == 32 ? "0x7F800000"
                                                       : t.elem == "bf16"        ? "0x7F80"
                                                                                 : "0x7C00"),
                             t);
            value_ref v = x;
            if (n == "chlo.is_inf") v = b.emit("stablehlo.abs", {x}, {t}, t);
            auto r = cmp(v, inf, "EQ");
            seq.back()->results[0] = o.results[0];
            (void)r;
        } else if (n == "chlo.sinh" || n == "chlo.cosh") {
            // As upstream: e^(x + log 1/2) -+ e^(log 1/2 - x), which overflows only where the result
            // does; a real sinh of |x| < 1 as (expm1(x) + expm1(x) / (expm1(x) + 1)) / 2 (no
            // cancellation near 0).
            const bool small = n == "chlo.sinh" && !is_complex_elem(t.elem);
            // f16 and bf16 computed in f32 (as upstream: log 1/2 in f16 is already 4 ULP off)
            const bool up = t.elem == "f16" || t.elem == "bf16";
            const type t16 = t;
            if (up) {
                type f = t;
                f.elem = "f32";
                x = b.emit("stablehlo.convert", {x}, {t16}, f);
                t = f;
            }
            const type rt2 = up ? t : rt;
            const std::string res = up ? fresh("up") : o.results[0];
            auto half = splat("0.5", t);
            auto lh = b.emit("stablehlo.log", {half}, {t}, t);
            auto ea = b.emit("stablehlo.exponential", {b.emit("stablehlo.add", {x, lh}, {t, t}, t)}, {t}, t);
            auto es = b.emit("stablehlo.exponential", {b.emit("stablehlo.subtract", {lh, x}, {t, t}, t)}, {t}, t);
            const char* f = n == "chlo.sinh" ? "stablehlo.subtract" : "stablehlo.add";
            if (!small) {
                b.emit(f, {ea, es}, {t, t}, rt2, res);
            } else {
                auto large = b.emit(f, {ea, es}, {t, t}, t);
                auto one = splat("1.0", t);
                auto e = b.emit("stablehlo.exponential_minus_one", {x}, {t}, t);
                auto q = b.emit("stablehlo.divide", {e, b.emit("stablehlo.add", {e, one}, {t, t}, t)}, {t, t}, t);
                auto sm = b.emit("stablehlo.multiply", {half, b.emit("stablehlo.add", {e, q}, {t, t}, t)}, {t, t}, t);
                auto lt = cmp(b.emit("stablehlo.abs", {x}, {t}, t), one, "LT");
                type pt = t;
                pt.elem = "i1";
                b.emit("stablehlo.select", {lt, sm, large}, {pt, t, t}, rt2, res);
            }
            if (up) b.emit("stablehlo.convert", {value_ref{res, o.at}}, {t}, rt, o.results[0]);
        } else if (n == "chlo.asin" || n == "chlo.acos") {
            // asin x = 2 atan2(x, 1 + sqrt(1 - x^2)); acos x = 2 atan2(sqrt(1 - x^2), 1 + x)
            auto one = splat("1.0", t);
            auto two = splat("2.0", t);
            auto xx = b.emit("stablehlo.multiply", {x, x}, {t, t}, t);
            auto d = b.emit("stablehlo.subtract", {one, xx}, {t, t}, t);
            auto s = b.emit("stablehlo.sqrt", {d}, {t}, t);
            value_ref a;
            if (n == "chlo.asin") {
                auto den = b.emit("stablehlo.add", {one, s}, {t, t}, t);
                a = b.emit("stablehlo.atan2", {x, den}, {t, t}, t);
            } else {
                auto den = b.emit("stablehlo.add", {one, x}, {t, t}, t);
                a = b.emit("stablehlo.atan2", {s, den}, {t, t}, t);
            }
            b.emit("stablehlo.multiply", {a, two}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.atan") {
            auto one = splat("1.0", t);
            b.emit("stablehlo.atan2", {x, one}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.atanh") {
            // atanh x = (log1p(x) - log1p(-x)) / 2
            auto half = splat("0.5", t);
            auto nx = b.emit("stablehlo.negate", {x}, {t}, t);
            auto a = b.emit("stablehlo.log_plus_one", {x}, {t}, t);
            auto c = b.emit("stablehlo.log_plus_one", {nx}, {t}, t);
            auto s = b.emit("stablehlo.subtract", {a, c}, {t, t}, t);
            b.emit("stablehlo.multiply", {s, half}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.asinh" || n == "chlo.acosh") {
            // asinh x = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); acosh x = log(x + sqrt(x^2 - 1))
            auto one = splat("1.0", t);
            if (n == "chlo.asinh") {
                auto ax = b.emit("stablehlo.abs", {x}, {t}, t);
                auto xx = b.emit("stablehlo.multiply", {x, x}, {t, t}, t);
                auto p = b.emit("stablehlo.add", {one, xx}, {t, t}, t);
                auto s = b.emit("stablehlo.sqrt", {p}, {t}, t);
                auto den = b.emit("stablehlo.add", {one, s}, {t, t}, t);
                auto q = b.emit("stablehlo.divide", {xx, den}, {t, t}, t);
                auto arg = b.emit("stablehlo.add", {ax, q}, {t, t}, t);
                auto l = b.emit("stablehlo.log_plus_one", {arg}, {t}, t);
                auto sg = b.emit("stablehlo.sign", {x}, {t}, t);
                b.emit("stablehlo.multiply", {sg, l}, {t, t}, rt, o.results[0]);
            } else {
                // As upstream: log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1))) (no cancellation near 1;
                // NaN below 1), and log 2 + log x from max / 2 on (no overflow).
                auto two = splat("2.0", t);
                auto sm = b.emit("stablehlo.sqrt", {b.emit("stablehlo.subtract", {x, one}, {t, t}, t)}, {t}, t);
                auto sp = b.emit("stablehlo.sqrt", {b.emit("stablehlo.add", {x, one}, {t, t}, t)}, {t}, t);
                auto p = b.emit("stablehlo.multiply", {sm, b.emit("stablehlo.add", {sp, sm}, {t, t}, t)}, {t, t}, t);
                auto near = b.emit("stablehlo.log_plus_one", {p}, {t}, t);
                auto far =
                    b.emit("stablehlo.add",
                           {b.emit("stablehlo.log", {two}, {t}, t), b.emit("stablehlo.log", {x}, {t}, t)}, {t, t}, t);
                const std::string max = elem_bits(t.elem) == 64   ? "0x7FEFFFFFFFFFFFFF"
                                        : elem_bits(t.elem) == 32 ? "0x7F7FFFFF"
                                        : t.elem == "bf16"        ? "0x7F7F"
                                                                  : "0x7BFF";
                auto big = cmp(x, b.emit("stablehlo.divide", {splat(max, t), two}, {t, t}, t), "GE");
                type pt = t;
                pt.elem = "i1";
                b.emit("stablehlo.select", {big, far, near}, {pt, t, t}, rt, o.results[0]);
            }
        } else if (n == "chlo.top_k") {
            // sort (values, iota) descending along the last dimension, then slice the first k
            std::int64_t k = o.get("k") ? o.get("k")->i : 1;
            std::size_t r = t.dims.size();
            type it = t;
            it.elem = "i32";
            // on a dynamic shape (as upstream): a dynamic_iota of x's shape, real_dynamic_slices
            const bool dyn = !t.is_static();
            const type shape_t = tensor_type({static_cast<std::int64_t>(r)}, "i32");
            value_ref extents;
            if (dyn) extents = {chlo_shape_of(x.name, t, name, seq, o.at), o.at};
            auto iota =
                dyn ? b.emit("stablehlo.dynamic_iota", {extents}, {shape_t}, it) : b.emit("stablehlo.iota", {}, {}, it);
            b.last().set("iota_dimension", int_attr(static_cast<std::int64_t>(r) - 1));
            std::string s = fresh("sorted");
            auto so = make_op("stablehlo.sort", {x, iota}, {t, it}, {s + "#0", s + "#1"}, {t, it}, o.at);
            so->set("dimension", int_attr(static_cast<std::int64_t>(r) - 1));
            so->set("is_stable", bool_attr(true));
            region cmpr;
            cmpr.blocks.emplace_back();
            block& cb = cmpr.blocks[0];
            type st = tensor_type({}, t.elem), si = tensor_type({}, "i32");
            // names unique in the function: MLIR forbids a block argument that shadows a value
            std::string na = fresh("lhs"), nb = fresh("rhs"), nc = fresh("lhs"), nd = fresh("rhs"), ng = fresh("gt");
            cb.arg_names = {na, nb, nc, nd};
            cb.arg_types = {st, st, si, si};
            cb.arg_locs.assign(4, o.at);
            auto c =
                make_op("stablehlo.compare", {{na, o.at}, {nb, o.at}}, {st, st}, {ng}, {tensor_type({}, "i1")}, o.at);
            attr d;
            d.k = attr::kind::dialect;
            d.s = "stablehlo";
            d.raw = "comparison_direction GT";
            c->set("comparison_direction", d);
            attr ct;
            ct.k = attr::kind::dialect;
            ct.s = "stablehlo";
            ct.raw = "comparison_type TOTALORDER";
            c->set("compare_type", ct);
            cb.ops.push_back(std::move(c));
            cb.ops.push_back(make_op("stablehlo.return", {{ng, o.at}}, {tensor_type({}, "i1")}, {}, {}, o.at));
            so->regions.push_back(std::move(cmpr));
            seq.push_back(std::move(so));
            std::vector<std::int64_t> start(r, 0), limit = t.dims, stride(r, 1);
            limit[r - 1] = k;
            if (dyn) {
                // limit: x's extents, the last one min(k, it) (k when it is dynamic)
                if (t.dims[r - 1] >= 0) limit[r - 1] = std::min(k, t.dims[r - 1]);
                value_ref zeros = b.constant("0", shape_t), ones = b.constant("1", shape_t);
                value_ref last = b.constant(std::to_string(limit[r - 1]), tensor_type({1}, "i32")), lim = last;
                if (r > 1) {
                    type lead_t = tensor_type({static_cast<std::int64_t>(r) - 1}, "i32");
                    auto lead = b.emit("stablehlo.slice", {extents}, {shape_t}, lead_t);
                    b.last().set("start_indices", i64_array({0}));
                    b.last().set("limit_indices", i64_array({static_cast<std::int64_t>(r) - 1}));
                    b.last().set("strides", i64_array({1}));
                    lim = b.emit("stablehlo.concatenate", {lead, last}, {lead_t, tensor_type({1}, "i32")}, shape_t);
                    b.last().set("dimension", int_attr(0));
                }
                for (std::size_t j = 0; j < 2; ++j)
                    b.emit("stablehlo.real_dynamic_slice", {{s + "#" + std::to_string(j), o.at}, zeros, lim, ones},
                           {j ? it : t, shape_t, shape_t, shape_t}, o.result_types[j], o.results[j]);
                return true;
            }
            for (int j = 0; j < 2; ++j) {
                auto sl = make_op("stablehlo.slice", {{s + "#" + std::to_string(j), o.at}}, {j ? it : t},
                                  {o.results[static_cast<std::size_t>(j)]},
                                  {o.result_types[static_cast<std::size_t>(j)]}, o.at);
                sl->set("start_indices", i64_array(start));
                sl->set("limit_indices", i64_array(limit));
                sl->set("strides", i64_array(stride));
                seq.push_back(std::move(sl));
            }
        } else {
            // the ops above on types their decompositions do not cover: kept (xlet-translate emits
            // those it implements)
            return false;
        }
        return true;
    });
    return ok;
}

// ---- VHLO: stablehlo-legalize-to-vhlo, vhlo-legalize-to-stablehlo, vhlo-to-version -------------
//
// VHLO is StableHLO's versioned twin for serialization: every op carries its version
// (stablehlo.add -> vhlo.add_v1), every type and attribute is a VHLO one (tensor<4xf32> ->
// !vhlo.tensor_v1<4x!vhlo.f32_v1>, 1 : i64 -> #vhlo.integer_v1<1 : i64>), and nothing is left to a
// default: an attribute StableHLO may omit is written with its default value. The spellings are
// those of StableHLO's VHLO dialect at vhlo::current_version (VhloOps.td, VhloTypes.td,
// VhloAttrs.td, VhloEnums.td).
//
// The IR keeps a VHLO type as its text (type::kind::other) and a VHLO attribute as a #vhlo...
// dialect attribute whose body is text; `vnode` below is the structured form the three passes
// read (vreader) and write (vparts). A VHLO type is read into its builtin counterpart, since the
// two correspond one to one for every type xlet-translate handles.

using vhlo::version;

type scalar_type(const std::string& elem) {
    type t;
    t.k = type::kind::scalar;
    t.elem = elem;
    return t;
}

// "1.9.0" (three numbers) or nothing.
std::optional<version> parse_version(const std::string& s) {
    int v[3] = {0, 0, 0};
    std::size_t i = 0;
    for (int k = 0; k < 3; ++k) {
        std::size_t b = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - b < 6)
            v[k] = v[k] * 10 + (s[i++] - '0');
        if (i == b || (k < 2 && (i >= s.size() || s[i++] != '.'))) return std::nullopt;
    }
    if (i != s.size()) return std::nullopt;
    return version{v[0], v[1], v[2]};
}

// Builtin element types and their VHLO types, with the StableHLO version each VHLO type appeared in.
struct elem_info {
    std::string_view builtin, vhlo;
    version since;
};
constexpr elem_info elem_types[] = {
    {"i1", "bool_v1", {0, 9, 0}},
    {"i2", "i2_v1", {1, 2, 0}},
    {"i4", "i4_v1", {0, 9, 0}},
    {"i8", "i8_v1", {0, 9, 0}},
    {"i16", "i16_v1", {0, 9, 0}},
    {"i32", "i32_v1", {0, 9, 0}},
    {"i64", "i64_v1", {0, 9, 0}},
    {"ui2", "ui2_v1", {1, 2, 0}},
    {"ui4", "ui4_v1", {0, 9, 0}},
    {"ui8", "ui8_v1", {0, 9, 0}},
    {"ui16", "ui16_v1", {0, 9, 0}},
    {"ui32", "ui32_v1", {0, 9, 0}},
    {"ui64", "ui64_v1", {0, 9, 0}},
    {"bf16", "bf16_v1", {0, 9, 0}},
    {"f16", "f16_v1", {0, 9, 0}},
    {"f32", "f32_v1", {0, 9, 0}},
    {"f64", "f64_v1", {0, 9, 0}},
    {"f4E2M1FN", "f4E2M1FN_v1", {1, 8, 0}},
    {"f6E2M3FN", "f6E2M3FN_v1", {1, 8, 0}},
    {"f6E3M2FN", "f6E3M2FN_v1", {1, 8, 0}},
    {"f8E3M4", "f8E3M4_v1", {1, 7, 0}},
    {"f8E4M3", "f8E4M3_v1", {1, 7, 0}},
    {"f8E4M3FN", "f8E4M3FN_v1", {0, 9, 0}},
    {"f8E5M2", "f8E5M2_v1", {0, 9, 0}},
    {"f8E4M3FNUZ", "f8E4M3FNUZ_v1", {0, 10, 0}},
    {"f8E4M3B11FNUZ", "f8E4M3B11FNUZ_v1", {0, 11, 0}},
    {"f8E5M2FNUZ", "f8E5M2FNUZ_v1", {0, 10, 0}},
    {"f8E8M0FNU", "f8E8M0FNU_v1", {1, 8, 0}},
    {"tf32", "tf31_v1", {1, 6, 0}}, // sic: VhloTypes.td spells tf32's VHLO type tf31_v1
    {"index", "index_v1", {0, 9, 0}},
    {"none", "none_v1", {1, 6, 0}},
};
const elem_info* elem_by_builtin(std::string_view e) {
    for (auto& x : elem_types)
        if (x.builtin == e) return &x;
    return nullptr;
}
const elem_info* elem_by_vhlo(std::string_view e) {
    for (auto& x : elem_types)
        if (x.vhlo == e) return &x;
    return nullptr;
}
bool is_float_name(std::string_view e) {
    return e == "bf16" || e == "tf32" ||
           (e.size() > 1 && e[0] == 'f' && std::isdigit(static_cast<unsigned char>(e[1])));
}
bool is_int_name(std::string_view e) {
    return e == "index" || (elem_by_builtin(e) && !is_float_name(e) && e != "none" && e != "i1");
}

// An element type (f32, complex<f32>) as VHLO text; false if VHLO has none (si32 ...).
bool vhlo_elem(const std::string& e, std::string& out, std::string& why) {
    if (auto q = quant_of(e)) {
        // !vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1> and, per axis,
        // !vhlo.quant_per_axis_v1<!vhlo.i8_v1:!vhlo.f32_v1, 0, [3.400000e+01, ...], [16, ...], -128:127, 1>:
        // the storage type signless (MLIR's u8 is a signless i8), flags 1 when signed
        std::string st, ex;
        if (!vhlo_elem("i" + std::to_string(q->bits), st, why) || !vhlo_elem(q->expressed, ex, why)) return false;
        out = "!vhlo." + std::string(q->per_axis() ? "quant_per_axis_v1<" : "quant_v1<") + st + ":" + ex + ", ";
        if (q->per_axis()) {
            out += std::to_string(q->axis) + ", [";
            for (std::size_t i = 0; i < q->scales.size(); ++i)
                out += (i ? ", " : "") + mlir_float_literal(q->scales[i], true);
            out += "], [";
            for (std::size_t i = 0; i < q->zero_points.size(); ++i)
                out += (i ? ", " : "") + std::to_string(q->zero_points[i]);
            out += "]";
        } else {
            out += mlir_float_literal(q->scales[0], true) + ":" + std::to_string(q->zero_points[0]);
        }
        out += ", " + std::to_string(q->storage_min) + ":" + std::to_string(q->storage_max) + ", " +
               (q->is_signed ? "1" : "0") + ">";
        return true;
    }
    if (is_complex_elem(e) && e.back() == '>') {
        std::string inner;
        if (!vhlo_elem(e.substr(8, e.size() - 9), inner, why)) return false;
        out = "!vhlo.complex_v1<" + inner + ">";
        return true;
    }
    if (const elem_info* x = elem_by_builtin(e)) {
        out = "!vhlo." + std::string(x->vhlo);
        return true;
    }
    why = e.rfind("si", 0) == 0 ? "signed integer type " + e + " has no VHLO form (use signless integers)"
                                : "element type " + elem_str(e) + " has no VHLO form";
    return false;
}

// !stablehlo.future<...> (StableHLO 1.15), which the IR keeps as its text.
bool is_future(const type& t) { return t.k == type::kind::other && t.text.rfind("!stablehlo.future<", 0) == 0; }
// The types of a future; false (why) if they do not read.
bool future_types(const type& t, std::vector<type>& out, std::string& why) {
    const std::size_t head = std::string_view("!stablehlo.future<").size();
    type list;
    if (!is_future(t) || t.text.back() != '>' ||
        !parse_type("tuple<" + t.text.substr(head, t.text.size() - head - 1) + ">", list, why) ||
        list.k != type::kind::tuple) {
        why = "unreadable type " + t.text + (why.empty() ? "" : ": " + why);
        return false;
    }
    out = std::move(list.elems);
    return true;
}
type future_of(const std::vector<type>& ts) {
    type t;
    t.k = type::kind::other;
    t.text = "!stablehlo.future<";
    for (std::size_t i = 0; i < ts.size(); ++i)
        t.text += (i ? ", " : "") + type_str(ts[i]);
    t.text += ">";
    return t;
}

bool vhlo_type_text(const type& t, std::string& out, std::string& why, bool* pass);
// Types as VHLO text, joined by ", " after `head`, closed by '>'.
bool vhlo_types_text(const std::string& head, const std::vector<type>& ts, std::string& out, std::string& why) {
    out = head;
    for (std::size_t i = 0; i < ts.size(); ++i) {
        std::string x;
        if (!vhlo_type_text(ts[i], x, why, nullptr)) return false;
        out += (i ? ", " : "") + x;
    }
    out += ">";
    return true;
}

// A builtin type as VHLO text (!vhlo.tensor_v1<2x!vhlo.f32_v1>). Types of other dialects
// (!foo.bar) have none: `pass` says so, for allow-other-dialects to keep them as they are.
bool vhlo_type_text(const type& t, std::string& out, std::string& why, bool* pass = nullptr) {
    if (pass) *pass = false;
    switch (t.k) {
    case type::kind::tensor: {
        std::string e;
        if (!vhlo_elem(t.elem, e, why)) return false;
        std::vector<std::int64_t> bounds = t.bounds;
        if (!t.encoding.empty()) {
            // #stablehlo.type_extensions<bounds = [16, ?]>: the long spelling of #stablehlo.bounds<16, ?>
            std::string enc;
            for (char c : t.encoding)
                if (!std::isspace(static_cast<unsigned char>(c))) enc += c;
            const std::string head = "#stablehlo.type_extensions<bounds=[";
            bool good = enc.rfind(head, 0) == 0 && enc.size() >= head.size() + 2 && enc.substr(enc.size() - 2) == "]>";
            std::string list = good ? enc.substr(head.size(), enc.size() - head.size() - 2) : "";
            std::istringstream in(list);
            for (std::string b; good && !list.empty() && std::getline(in, b, ',');) {
                std::int64_t v = -1;
                auto r = std::from_chars(b.data(), b.data() + b.size(), v);
                good = b == "?" || (r.ec == std::errc{} && r.ptr == b.data() + b.size() && v >= 0);
                bounds.push_back(b == "?" ? -1 : v);
            }
            if (!good) {
                why = "tensor encoding " + t.encoding + " has no VHLO form";
                return false;
            }
        }
        out = "!vhlo.tensor_v1<";
        for (auto d : t.dims)
            out += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
        out += e;
        if (!bounds.empty()) {
            out += ", #vhlo.type_extensions_v1<bounds = [";
            for (std::size_t i = 0; i < bounds.size(); ++i)
                out += (i ? ", " : "") + (bounds[i] < 0 ? std::string("?") : std::to_string(bounds[i]));
            out += "]>";
        }
        out += ">";
        return true;
    }
    case type::kind::tuple:
        return vhlo_types_text("!vhlo.tuple_v1<", t.elems, out, why);
    case type::kind::token:
        out = "!vhlo.token_v1";
        return true;
    case type::kind::scalar:
        return vhlo_elem(t.elem, out, why);
    case type::kind::other:
        if (t.text.rfind("!vhlo.", 0) == 0) { // already VHLO
            out = t.text;
            return true;
        }
        if (is_future(t)) {
            std::vector<type> ts;
            return future_types(t, ts, why) && vhlo_types_text("!vhlo.future_v1<", ts, out, why);
        }
        if (t.text.rfind("memref<", 0) == 0) { // memref<2xf32> -> !vhlo.buffer_v1<2x!vhlo.f32_v1> (1.13.0)
            type shaped;
            const std::string head = "!vhlo.tensor_v1";
            if (!parse_type("tensor" + t.text.substr(6), shaped, why) || !vhlo_type_text(shaped, out, why) ||
                out.rfind(head, 0) != 0)
                return false;
            out = "!vhlo.buffer_v1" + out.substr(head.size());
            return true;
        }
        if (pass && t.text.rfind("!stablehlo.", 0) != 0) *pass = true;
        why = "type " + t.text + " has no VHLO form";
        return false;
    case type::kind::none:
        break;
    }
    why = "a missing type has no VHLO form";
    return false;
}

// The first StableHLO version with every VHLO type a (builtin) type needs.
version type_since(const type& t) {
    version v = vhlo::minimum_version;
    std::vector<type> future;
    std::string why;
    if (is_future(t) && future_types(t, future, why)) v = version{1, 15, 0};
    if (t.k == type::kind::other && t.text.rfind("memref<", 0) == 0) v = version{1, 13, 0};
    for (auto& e : t.k == type::kind::tuple ? t.elems : future)
        v = std::max(v, type_since(e));
    if (t.k == type::kind::tensor || t.k == type::kind::scalar) {
        std::string e = t.elem;
        if (is_complex_elem(e) && e.size() > 9) e = e.substr(8, e.size() - 9);
        if (auto q = quant_of(e)) { // !vhlo.quant_v1 0.9.0, !vhlo.quant_per_axis_v1 0.18.0
            if (q->per_axis()) v = std::max(v, version{0, 18, 0});
            if (const elem_info* x = elem_by_builtin(q->expressed)) v = std::max(v, x->since);
            e = "i" + std::to_string(q->bits);
        }
        if (const elem_info* x = elem_by_builtin(e)) v = std::max(v, x->since);
    }
    return v;
}

// MLIR's string escaping (llvm::printEscapedString): printable ASCII but '"' and '\' as is,
// '\' doubled, everything else as \XX.
std::string escaped(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '\\')
            o += "\\\\";
        else if (c >= 0x20 && c < 0x7f && c != '"')
            o += static_cast<char>(c);
        else
            o += std::string("\\") + hex[c >> 4] + hex[c & 15];
    }
    return o + "\"";
}

// A dense constant as MLIR prints it inside #vhlo.tensor_v1 (`dense<>` when it has no element).
std::string dense_text(const attr& a) {
    if (!a.is_hex && a.t.k == type::kind::tensor && num_elements(a.t) == 0) return "dense<> : " + type_str(a.t);
    return attr_str(a);
}

// The VHLO enums (VhloEnums.td): each kind with its cases, in the order of their values.
struct enum_info {
    std::string_view kind;
    std::vector<std::string_view> cases;
    version since;
};
const std::vector<enum_info>& vhlo_enums() {
    static const std::vector<enum_info> e = {
        {"comparison_direction_v1", {"EQ", "NE", "GE", "GT", "LE", "LT"}, {0, 9, 0}},
        {"comparison_type_v1", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}, {0, 9, 0}},
        {"api_version_v1",
         {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"},
         {0, 9, 0}},
        {"fft_type_v1", {"FFT", "IFFT", "RFFT", "IRFFT"}, {0, 9, 0}},
        {"precision_v1", {"DEFAULT", "HIGH", "HIGHEST"}, {0, 9, 0}},
        {"rng_algorithm_v1", {"DEFAULT", "THREE_FRY", "PHILOX"}, {0, 9, 0}},
        {"rng_distribution_v1", {"UNIFORM", "NORMAL"}, {0, 9, 0}},
        {"transpose_v1", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}, {0, 9, 0}},
        {"result_accuracy_mode_v1", {"DEFAULT", "HIGHEST", "TOLERANCE"}, {1, 9, 0}},
    };
    return e;
}
const enum_info* vhlo_enum(std::string_view kind) {
    for (auto& e : vhlo_enums())
        if (e.kind == kind) return &e;
    return nullptr;
}
// The index of `word` among the cases of `kind`, or -1.
int enum_index(std::string_view kind, std::string_view word) {
    const enum_info* e = vhlo_enum(kind);
    if (!e) return -1;
    for (std::size_t i = 0; i < e->cases.size(); ++i)
        if (e->cases[i] == word) return static_cast<int>(i);
    return -1;
}

// The VHLO attributes of StableHLO 1.16's mesh-axes replica groups (VhloAttrs.td), each printed as
// struct(params): its parameters in this order, the optional ones ('?') left out when absent. What
// a parameter holds: an int64_t (int), a #vhlo.string_v1 (string), a #vhlo.tensor_v1 (tensor), a
// #vhlo.array_v1 of one of these attributes ([name]), or one of them ('|' between choices).
struct struct_param {
    std::string_view name, spec, words; // words: the spec for a diagnostic
};
struct struct_info {
    std::string_view name;
    std::vector<struct_param> params;
};
const std::vector<struct_info>& vhlo_structs() {
    static const std::vector<struct_info> s = {
        {"sub_axis_info_v1", {{"pre_size", "int", "an integer"}, {"size", "int", "an integer"}}},
        {"axis_ref_v1", {{"name", "string", "a string"}, {"sub_axis_info", "?sub_axis_info_v1", "a sub-axis info"}}},
        {"mesh_axis_v1", {{"name", "string", "a string"}, {"size", "int", "an integer"}}},
        {"mesh_v1", {{"axes", "[mesh_axis_v1]", "a list of mesh axes"}, {"device_ids", "?tensor", "a tensor of i64"}}},
        {"replica_group_mesh_axes_v1",
         {{"mesh", "string|mesh_v1", "a symbol or a mesh"}, {"axes", "[axis_ref_v1]", "a list of axis refs"}}},
    };
    return s;
}
const struct_info* vhlo_struct(std::string_view name) {
    for (auto& x : vhlo_structs())
        if (x.name == name) return &x;
    return nullptr;
}
const version structs_since{1, 16, 0};

// A VHLO attribute, structured.
struct vnode {
    enum class kind {
        array,       // #vhlo.array_v1<[a, b]>: list
        dict,        // #vhlo.dict_v1<{#vhlo.string_v1<"k"> = v}>: keys, list
        boolean,     // #vhlo.bool_v1<true>: b
        integer,     // #vhlo.integer_v1<5 : i64>: i, t (builtin integer type)
        floating,    // #vhlo.float_v1<1.5 : !vhlo.f32_v1>: s (the literal), t (builtin float type)
        string,      // #vhlo.string_v1<"x">: s
        tensor,      // #vhlo.tensor_v1<dense<[1, 2]> : tensor<2xi64>>: data (builtin dense attribute)
        type,        // #vhlo.type_v1<!vhlo.f32_v1>: t (builtin); a function type: fn_in, fn_out
        enumeration, // #vhlo<comparison_direction_v1 LT>: s (kind), word
        accuracy,    // #vhlo.result_accuracy_v1<atol = ., rtol = ., ulps = ., mode = enum>: atol, rtol, i, list[0]
        alias,       // #vhlo.output_operand_alias_v1<outputTupleIndices = [..], operandIndex = ., ...>
        structure    // #vhlo.mesh_v1<axes = ..., device_ids = ...> (see vhlo_structs): s (mnemonic), keys, list
    } k = kind::boolean;
    bool b = false;
    bool is_fn = false;
    std::int64_t i = 0; // integer value; ulps; operandIndex
    std::string s, word, atol, rtol;
    type t;
    attr data;
    std::vector<vnode> list;
    std::vector<std::string> keys;
    std::vector<type> fn_in, fn_out;
    std::vector<std::int64_t> out_idx, in_idx; // alias: outputTupleIndices, operandTupleIndices
};

vnode vbool(bool b) { return bool_node<vnode>(b); }
vnode vint(std::int64_t x, const std::string& ty = "i64") { return int_node<vnode>(x, ty); }
vnode vstr(const std::string& s) { return string_node<vnode>(s); }
vnode venum(const std::string& kind, const std::string& word) {
    vnode v;
    v.k = vnode::kind::enumeration;
    v.s = kind;
    v.word = word;
    return v;
}
vnode varray(std::vector<vnode> items = {}) {
    vnode v;
    v.k = vnode::kind::array;
    v.list = std::move(items);
    return v;
}
vnode vdict() {
    vnode v;
    v.k = vnode::kind::dict;
    return v;
}
vnode vtype_of(const std::string& elem) {
    vnode v;
    v.k = vnode::kind::type;
    v.t.k = type::kind::scalar;
    v.t.elem = elem;
    return v;
}
// An integer tensor attribute of these values and dims (i64 or i1), as MLIR spells one (splat: one value).
vnode vtensor(const std::vector<std::int64_t>& vals, std::vector<std::int64_t> dims, const std::string& elem = "i64") {
    vnode v;
    v.k = vnode::kind::tensor;
    v.data = dense_ints(vals, tensor_type(std::move(dims), elem));
    return v;
}
vnode vi64s(const std::vector<std::int64_t>& vals) { return vtensor(vals, {static_cast<std::int64_t>(vals.size())}); }
vnode vaccuracy_default() {
    vnode v;
    v.k = vnode::kind::accuracy;
    v.atol = v.rtol = "0.000000e+00";
    v.list.push_back(venum("result_accuracy_mode_v1", "DEFAULT"));
    return v;
}

// Whether a struct parameter's value is what its spec (struct_info) says.
bool fits(const vnode& v, std::string_view spec) {
    if (!spec.empty() && spec[0] == '?') spec.remove_prefix(1);
    for (;;) {
        std::string_view one = spec.substr(0, spec.find('|'));
        bool good = one == "int"      ? v.k == vnode::kind::integer
                    : one == "string" ? v.k == vnode::kind::string
                    : one == "tensor" ? v.k == vnode::kind::tensor && v.data.t.elem == "i64"
                    : one.size() > 2 && one.front() == '['
                        ? v.k == vnode::kind::array &&
                              std::all_of(v.list.begin(), v.list.end(),
                                          [&](const vnode& e) { return fits(e, one.substr(1, one.size() - 2)); })
                        : v.k == vnode::kind::structure && v.s == one;
        if (good) return true;
        if (one.size() == spec.size()) return false;
        spec.remove_prefix(one.size() + 1);
    }
}
vnode vstruct(std::string_view name) {
    vnode v;
    v.k = vnode::kind::structure;
    v.s = name;
    return v;
}
// The parameter `key` of a struct; nullptr when absent.
const vnode* param(const vnode& v, std::string_view key) {
    for (std::size_t i = 0; i < v.keys.size() && i < v.list.size(); ++i)
        if (v.keys[i] == key) return &v.list[i];
    return nullptr;
}
// The struct `name` of these parameters (a nullptr: absent), each checked; false (why) otherwise.
// `get` gives a parameter's value (an int one as an integer vnode).
template<class Get>
bool make_struct(std::string_view name, const std::string& what, Get&& get, vnode& out, std::string& why) {
    const struct_info* si = vhlo_struct(name);
    out = vstruct(name);
    why.clear();
    for (auto& p : si->params) {
        std::optional<vnode> x = get(p);
        if (!why.empty()) return false;
        if (!x) {
            if (p.spec[0] == '?') continue;
            why = what + " lacks its " + std::string(p.name);
            return false;
        }
        if (!fits(*x, p.spec)) {
            why = std::string(p.name) + " of " + what + ": expected " + std::string(p.words);
            return false;
        }
        out.keys.emplace_back(p.name);
        out.list.push_back(std::move(*x));
    }
    return true;
}

std::string ints_text(const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}
std::string fn_text(const std::vector<type>& in, const std::vector<type>& out) {
    // VhloTypes.td prints an empty list as "()", inside the parentheses for the inputs: (()) -> ...
    auto list = [](const std::vector<type>& ts) {
        std::string j, why;
        for (std::size_t k = 0; k < ts.size(); ++k) {
            std::string x;
            vhlo_type_text(ts[k], x, why);
            j += (k ? ", " : "") + x;
        }
        return ts.empty() ? std::string("()") : j;
    };
    return "!vhlo.func_v1<(" + list(in) + ") -> " + list(out) + ">";
}

std::string vtext(const vnode& v);
attr from_vnode(const vnode& v, loc at);
// The attribute's name (vhlo.array_v1, or vhlo for an enum) and the text between its <>.
std::pair<std::string, std::string> vparts(const vnode& v) {
    std::string why, x;
    switch (v.k) {
    case vnode::kind::array: {
        std::string s = "[";
        for (std::size_t i = 0; i < v.list.size(); ++i)
            s += (i ? ", " : "") + vtext(v.list[i]);
        return {"vhlo.array_v1", s + "]"};
    }
    case vnode::kind::dict: {
        std::string s = "{";
        for (std::size_t i = 0; i < v.list.size() && i < v.keys.size(); ++i)
            s += (i ? ", " : "") + vtext(vstr(v.keys[i])) + " = " + vtext(v.list[i]);
        return {"vhlo.dict_v1", s + "}"};
    }
    case vnode::kind::boolean:
        return {"vhlo.bool_v1", v.b ? "true" : "false"};
    case vnode::kind::integer:
        return {"vhlo.integer_v1", std::to_string(v.i) + " : " + type_str(v.t)}; // the builtin type, as MLIR does
    case vnode::kind::floating:
        vhlo_type_text(v.t, x, why);
        return {"vhlo.float_v1", v.s + " : " + x};
    case vnode::kind::string:
        return {"vhlo.string_v1", escaped(v.s)};
    case vnode::kind::tensor:
        return {"vhlo.tensor_v1", dense_text(v.data)};
    case vnode::kind::type:
        if (v.is_fn) return {"vhlo.type_v1", fn_text(v.fn_in, v.fn_out)};
        vhlo_type_text(v.t, x, why);
        return {"vhlo.type_v1", x};
    case vnode::kind::enumeration:
        return {"vhlo", v.s + " " + v.word};
    case vnode::kind::accuracy:
        return {"vhlo.result_accuracy_v1", "atol = " + v.atol + ", rtol = " + v.rtol +
                                               ", ulps = " + std::to_string(v.i) +
                                               ", mode = " + (v.list.empty() ? "" : vtext(v.list[0]))};
    case vnode::kind::alias:
        return {"vhlo.output_operand_alias_v1", "outputTupleIndices = " + ints_text(v.out_idx) +
                                                    ", operandIndex = " + std::to_string(v.i) +
                                                    ", operandTupleIndices = " + ints_text(v.in_idx)};
    case vnode::kind::structure: { // int parameters bare, the others as attributes
        std::string b;
        for (std::size_t i = 0; i < v.list.size() && i < v.keys.size(); ++i)
            b += (i ? ", " : "") + v.keys[i] + " = " +
                 (v.list[i].k == vnode::kind::integer ? std::to_string(v.list[i].i) : vtext(v.list[i]));
        return {"vhlo." + v.s, b};
    }
    }
    return {"vhlo", ""};
}
std::string vtext(const vnode& v) {
    auto [name, body] = vparts(v);
    return "#" + name + "<" + body + ">";
}
// As the IR keeps it: a dialect attribute with its body as text.
attr vattr(const vnode& v, loc at = {}) {
    attr a;
    a.k = attr::kind::dialect;
    std::tie(a.s, a.raw) = vparts(v);
    a.at = at;
    return a;
}
bool is_vhlo_attr(const attr& a) { return a.k == attr::kind::dialect && (a.s == "vhlo" || a.s.rfind("vhlo.", 0) == 0); }

// Reads VHLO attribute and type text into vnodes and builtin types. The text comes from modules
// anyone writes: every failure is a message (why), nesting is bounded, numbers are range-checked.
class vreader {
public:
    explicit vreader(std::string_view s) : s_(s) {}
    const std::string& why() const { return why_; }
    bool at_end() {
        ws();
        return p_ == s_.size();
    }

    bool attribute(vnode& out) {
        if (++depth_ > 200) return fail("nesting too deep");
        bool r = attribute_body(out);
        --depth_;
        return r;
    }

    // A VHLO type as its builtin counterpart.
    bool read_type(type& out) {
        if (++depth_ > 200) return fail("nesting too deep");
        bool r = type_body(out);
        --depth_;
        return r;
    }

    // The body of StableHLO's #stablehlo.axis_ref<name = "x", sub_axis_info = (1)2> (a sub-axis
    // info has a syntax of its own) as #vhlo.axis_ref_v1.
    bool stablehlo_axis_ref(vnode& out) {
        const std::string what = "#stablehlo.axis_ref";
        std::optional<vnode> name, sub;
        do {
            std::string key = word();
            if (!lit("=")) return fail("expected '=' in " + what);
            if (key == "name" && !name) {
                std::string x;
                if (!string_lit(x)) return false;
                name = vstr(x);
            } else if (key == "sub_axis_info" && !sub) {
                std::int64_t pre = 0, size = 0;
                if (!lit("(") || !integer(pre) || !lit(")") || !integer(size))
                    return fail("expected sub_axis_info = (pre-size)size in " + what);
                sub = vstruct("sub_axis_info_v1");
                sub->keys = {"pre_size", "size"};
                sub->list = {vint(pre), vint(size)};
            } else {
                return fail("unexpected parameter '" + key + "' in " + what);
            }
        } while (lit(","));
        if (!at_end()) return fail("unexpected text in " + what);
        std::string why;
        auto get = [&](const struct_param& p) { return p.name == "name" ? name : sub; };
        return make_struct("axis_ref_v1", what, get, out, why) || fail(why);
    }

    // !vhlo.func_v1<(A, B) -> C, D>: the inputs ((()) when none) and outputs (() when none).
    bool fn_type(std::vector<type>& in, std::vector<type>& out) {
        if (!lit("!vhlo.func_v1") || !lit("<") || !lit("(")) return fail("expected !vhlo.func_v1<(...) -> ...>");
        if (!type_list(in) || !lit(")") || !lit("->") || !type_list(out) || !lit(">"))
            return fail("expected !vhlo.func_v1<(...) -> ...>");
        return true;
    }

private:
    std::string_view s_;
    std::size_t p_ = 0;
    int depth_ = 0;
    std::string why_;

    bool fail(const std::string& m) {
        if (why_.empty()) why_ = m;
        return false;
    }
    void ws() {
        while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_])))
            ++p_;
    }
    bool lit(std::string_view x) {
        ws();
        if (s_.substr(p_, x.size()) != x) return false;
        p_ += x.size();
        return true;
    }
    bool peek_is(std::string_view x) {
        ws();
        return s_.substr(p_, x.size()) == x;
    }
    std::string word() { // an identifier, or a mnemonic with '.' and '-'
        ws();
        std::size_t b = p_;
        while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' || s_[p_] == '.' ||
                                  s_[p_] == '-' || s_[p_] == '$'))
            ++p_;
        return std::string(s_.substr(b, p_ - b));
    }
    bool integer(std::int64_t& v) {
        ws();
        std::size_t b = p_;
        if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+')) ++p_;
        while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_])))
            ++p_;
        const char* first = s_.data() + b + (b < s_.size() && s_[b] == '+' ? 1 : 0);
        auto r = std::from_chars(first, s_.data() + p_, v);
        if (r.ec != std::errc{} || r.ptr != s_.data() + p_) return fail("expected an integer");
        return true;
    }
    bool ints(std::vector<std::int64_t>& v) {
        if (!lit("[")) return fail("expected '['");
        if (lit("]")) return true;
        do {
            std::int64_t x = 0;
            if (!integer(x)) return false;
            if (v.size() > 4096) return fail("list too long");
            v.push_back(x);
        } while (lit(","));
        return lit("]") || fail("expected ']'");
    }
    // A float literal as written (1.5, -2.0e-05, 0x7FC00000, inf, nan).
    bool number(std::string& out) {
        ws();
        std::size_t b = p_;
        while (p_ < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.' || s_[p_] == '-' || s_[p_] == '+'))
            ++p_;
        out = std::string(s_.substr(b, p_ - b));
        bool hex = out.size() > 2 && out[0] == '0' && (out[1] == 'x' || out[1] == 'X') &&
                   std::all_of(out.begin() + 2, out.end(),
                               [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
        if (hex) return true;
        char* end = nullptr;
        std::strtod(out.c_str(), &end);
        if (out.empty() || end != out.c_str() + out.size()) return fail("expected a number, found '" + out + "'");
        return true;
    }
    bool string_lit(std::string& out) {
        ws();
        if (p_ >= s_.size() || s_[p_] != '"') return fail("expected a string");
        ++p_;
        for (;;) {
            if (p_ >= s_.size()) return fail("unterminated string");
            char c = s_[p_++];
            if (c == '"') return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (p_ >= s_.size()) return fail("unterminated string");
            char e = s_[p_++];
            if (e == 'n')
                out += '\n';
            else if (e == 't')
                out += '\t';
            else if (e == '"' || e == '\\')
                out += e;
            else if (std::isxdigit(static_cast<unsigned char>(e)) && p_ < s_.size() &&
                     std::isxdigit(static_cast<unsigned char>(s_[p_]))) {
                char h[3] = {e, s_[p_++], 0};
                out += static_cast<char>(std::strtol(h, nullptr, 16));
            } else {
                return fail("invalid escape in a string");
            }
        }
    }
    // The text up to the '>' closing the '<' just read (strings, nested brackets and '->' skipped).
    bool body_to_close(std::string_view& body) {
        std::size_t b = p_;
        int d = 0;
        for (std::size_t i = p_; i < s_.size(); ++i) {
            char c = s_[i];
            if (c == '"') {
                for (++i; i < s_.size() && s_[i] != '"'; ++i)
                    if (s_[i] == '\\') ++i;
                continue;
            }
            if (c == '-' && i + 1 < s_.size() && s_[i + 1] == '>') {
                ++i;
                continue;
            }
            if (c == '<' || c == '(' || c == '[' || c == '{') ++d;
            if (c == '>' || c == ')' || c == ']' || c == '}') {
                if (d == 0) {
                    if (c != '>') break;
                    body = s_.substr(b, i - b);
                    p_ = i + 1;
                    return true;
                }
                --d;
            }
        }
        return fail("unbalanced '<'");
    }
    // A builtin attribute between <> (the body of integer_v1 and tensor_v1), read by the module parser.
    bool builtin_body(attr& a) {
        std::string_view body;
        if (!body_to_close(body)) return false;
        std::string why;
        if (!parse_attribute(body, a, why)) return fail(why);
        return true;
    }
    bool type_list(std::vector<type>& out) {
        // VhloTypes.cpp's TypeArray: "()" for none, else types separated by commas
        if (lit("(")) return lit(")") || fail("expected ')'");
        do {
            type t;
            if (!read_type(t)) return false;
            if (out.size() > 4096) return fail("type list too long");
            out.push_back(std::move(t));
        } while (lit(","));
        return true;
    }

    // struct(params): each parameter once, in any order, the optional ones may be left out.
    bool struct_body(const std::string& m, vnode& out) {
        const struct_info* si = vhlo_struct(m);
        const std::string what = "#vhlo." + m;
        std::vector<std::optional<vnode>> got(si->params.size());
        if (!peek_is(">")) do {
                std::string key = word();
                std::size_t k = 0;
                while (k < got.size() && si->params[k].name != key)
                    ++k;
                if (k == got.size() || got[k]) return fail("unexpected parameter '" + key + "' in " + what);
                if (!lit("=")) return fail("expected '=' in " + what);
                vnode x;
                if (si->params[k].spec == "int") {
                    if (!integer(x.i)) return false;
                    x = vint(x.i);
                } else if (!attribute(x)) {
                    return false;
                }
                got[k] = std::move(x);
            } while (lit(","));
        std::string why;
        auto get = [&](const struct_param& p) { return got[static_cast<std::size_t>(&p - si->params.data())]; };
        return make_struct(m, what, get, out, why) || fail(why);
    }

    bool attribute_body(vnode& out) {
        if (!lit("#")) return fail("expected a VHLO attribute");
        std::string name = word();
        if (!lit("<")) return fail("expected '<' after #" + name);
        if (name == "vhlo") { // an enum: #vhlo<comparison_direction_v1 LT>
            out.k = vnode::kind::enumeration;
            out.s = word();
            out.word = word();
            if (!lit(">")) return fail("expected '>' after #vhlo<" + out.s + " " + out.word);
            if (!vhlo_enum(out.s)) return fail("unknown VHLO enum " + out.s);
            if (enum_index(out.s, out.word) < 0) return fail("'" + out.word + "' is not a case of " + out.s);
            return true;
        }
        std::string m = name.rfind("vhlo.", 0) == 0 ? name.substr(5) : "";
        if (m == "array_v1") {
            out.k = vnode::kind::array;
            if (!lit("[")) return fail("expected '[' in #vhlo.array_v1");
            if (!lit("]")) {
                do {
                    vnode e;
                    if (!attribute(e)) return false;
                    out.list.push_back(std::move(e));
                } while (lit(","));
                if (!lit("]")) return fail("expected ']' in #vhlo.array_v1");
            }
        } else if (m == "dict_v1") {
            out.k = vnode::kind::dict;
            if (!lit("{")) return fail("expected '{' in #vhlo.dict_v1");
            if (!lit("}")) {
                do {
                    vnode key, value;
                    if (!attribute(key)) return false;
                    if (key.k != vnode::kind::string) return fail("a #vhlo.dict_v1 key must be a #vhlo.string_v1");
                    if (!lit("=")) return fail("expected '=' in #vhlo.dict_v1");
                    if (!attribute(value)) return false;
                    out.keys.push_back(key.s);
                    out.list.push_back(std::move(value));
                } while (lit(","));
                if (!lit("}")) return fail("expected '}' in #vhlo.dict_v1");
            }
        } else if (m == "bool_v1") {
            out.k = vnode::kind::boolean;
            std::string w = word();
            if (w != "true" && w != "false") return fail("expected true or false in #vhlo.bool_v1");
            out.b = w == "true";
        } else if (m == "string_v1") {
            out.k = vnode::kind::string;
            if (!string_lit(out.s)) return false;
        } else if (m == "integer_v1") {
            attr a;
            if (!builtin_body(a)) return false;
            if (a.k != attr::kind::integer) return fail("expected an integer in #vhlo.integer_v1");
            out.k = vnode::kind::integer;
            out.i = a.i;
            out.t = a.t.k == type::kind::scalar ? a.t : scalar_type("i64");
            if (!is_int_name(out.t.elem)) return fail("#vhlo.integer_v1 of type " + type_str(out.t));
            return true;
        } else if (m == "tensor_v1") {
            attr a;
            if (!builtin_body(a)) return false;
            std::string x, why;
            if (a.k != attr::kind::dense || a.t.k != type::kind::tensor || !vhlo_type_text(a.t, x, why))
                return fail("expected dense<...> : tensor<...> in #vhlo.tensor_v1" + (why.empty() ? "" : ": " + why));
            out.k = vnode::kind::tensor;
            out.data = std::move(a);
            return true;
        } else if (m == "float_v1") {
            out.k = vnode::kind::floating;
            if (!number(out.s) || !lit(":") || !read_type(out.t))
                return fail("expected <number : type> in #vhlo.float_v1");
            if (out.t.k != type::kind::scalar || !is_float_name(out.t.elem))
                return fail("#vhlo.float_v1 of a type that is not a float");
        } else if (m == "type_v1") {
            out.k = vnode::kind::type;
            if (peek_is("!vhlo.func_v1")) {
                out.is_fn = true;
                if (!fn_type(out.fn_in, out.fn_out)) return false;
            } else if (!read_type(out.t)) {
                return false;
            }
        } else if (m == "result_accuracy_v1") {
            out.k = vnode::kind::accuracy;
            // struct(params): each parameter once, in any order
            bool seen[4] = {false, false, false, false};
            do {
                std::string key = word();
                if (!lit("=")) return fail("expected '=' in #vhlo.result_accuracy_v1");
                int k = key == "atol" ? 0 : key == "rtol" ? 1 : key == "ulps" ? 2 : key == "mode" ? 3 : -1;
                if (k < 0 || seen[k]) return fail("unexpected parameter '" + key + "' in #vhlo.result_accuracy_v1");
                seen[k] = true;
                if (k == 0 && !number(out.atol)) return false;
                if (k == 1 && !number(out.rtol)) return false;
                if (k == 2 && !integer(out.i)) return false;
                if (k == 3) {
                    vnode mode;
                    if (!attribute(mode)) return false;
                    if (mode.k != vnode::kind::enumeration || mode.s != "result_accuracy_mode_v1")
                        return fail(
                            "the mode of #vhlo.result_accuracy_v1 must be a #vhlo<result_accuracy_mode_v1 ...>");
                    out.list = {mode};
                }
            } while (lit(","));
            if (!(seen[0] && seen[1] && seen[2] && seen[3])) return fail("#vhlo.result_accuracy_v1 lacks a parameter");
        } else if (m == "output_operand_alias_v1") {
            out.k = vnode::kind::alias;
            bool seen[3] = {false, false, false};
            do {
                std::string key = word();
                if (!lit("=")) return fail("expected '=' in #vhlo.output_operand_alias_v1");
                int k = key == "outputTupleIndices"    ? 0
                        : key == "operandIndex"        ? 1
                        : key == "operandTupleIndices" ? 2
                                                       : -1;
                if (k < 0 || seen[k])
                    return fail("unexpected parameter '" + key + "' in #vhlo.output_operand_alias_v1");
                seen[k] = true;
                if (k == 0 && !ints(out.out_idx)) return false;
                if (k == 1 && !integer(out.i)) return false;
                if (k == 2 && !ints(out.in_idx)) return false;
            } while (lit(","));
            if (!(seen[0] && seen[1] && seen[2])) return fail("#vhlo.output_operand_alias_v1 lacks a parameter");
        } else if (vhlo_struct(m)) {
            if (!struct_body(m, out)) return false;
        } else {
            return fail(m.empty() ? "#" + name + " is not a VHLO attribute"
                                  : "VHLO attribute #" + name + " is not supported by xlet-translate");
        }
        return lit(">") || fail("expected '>' to close #" + name);
    }

    // The body of !vhlo.quant_v1<...> / !vhlo.quant_per_axis_v1<...> (from '<') as the quantized
    // element type, checked as the parser checks it.
    bool quant_body(const std::string& m, type& out) {
        const std::string what = "!vhlo." + m;
        type st, ex;
        if (!lit("<") || !read_type(st) || !lit(":") || !read_type(ex) || !lit(","))
            return fail("expected " + what + "<storage:expressed, ...>");
        quant_type q;
        auto scale = [&](double& v) {
            std::string text;
            if (!number(text)) return false;
            if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X'))
                v = std::bit_cast<double>(static_cast<std::uint64_t>(std::strtoull(text.c_str() + 2, nullptr, 16)));
            else
                v = std::strtod(text.c_str(), nullptr);
            return true;
        };
        if (m == "quant_v1") {
            q.scales.resize(1);
            q.zero_points.resize(1);
            if (!scale(q.scales[0]) || !lit(":") || !integer(q.zero_points[0]) || !lit(","))
                return fail("expected scale:zero_point in " + what);
        } else {
            if (!integer(q.axis) || !lit(",") || !lit("["))
                return fail("expected the quantization dimension in " + what);
            do {
                if (q.scales.size() > 4096) return fail("too many scales in " + what);
                if (!scale(q.scales.emplace_back())) return false;
            } while (lit(","));
            if (!lit("]") || !lit(",") || !ints(q.zero_points) || !lit(","))
                return fail("expected [zero points] in " + what);
            if (q.axis < 0 || q.axis > 2147483647) return fail("quantization dimension out of range in " + what);
        }
        std::int64_t flags = 0;
        if (!integer(q.storage_min) || !lit(":") || !integer(q.storage_max) || !lit(",") || !integer(flags) ||
            !lit(">"))
            return fail("expected storage_min:storage_max, flags> in " + what);
        const elem_info* si = st.k == type::kind::scalar ? elem_by_builtin(st.elem) : nullptr;
        if (!si || !is_int_name(st.elem) || st.elem == "index" || (flags != 0 && flags != 1) ||
            (flags == 1 && st.elem[0] == 'u') || ex.k != type::kind::scalar)
            return fail("bad storage type or flags in " + what);
        q.is_signed = flags == 1;
        q.bits = std::atoi(st.elem.c_str() + (st.elem[0] == 'u' ? 2 : 1));
        q.expressed = ex.elem;
        if (std::string why = q.check(); !why.empty()) return fail(why + " in " + what);
        out.k = type::kind::scalar;
        out.elem = quant_elem(q);
        return true;
    }

    bool type_body(type& out) {
        if (!lit("!vhlo.")) return fail("expected a VHLO type");
        std::string m = word();
        if (m == "tensor_v1" || m == "buffer_v1") {
            if (!lit("<")) return fail("expected '<' after !vhlo." + m);
            out.k = type::kind::tensor;
            for (;;) { // dimensions, each followed by 'x'
                ws();
                if (p_ < s_.size() && s_[p_] == '?') {
                    ++p_;
                    out.dims.push_back(-1);
                } else if (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
                    std::int64_t d = 0;
                    if (!integer(d) || d > (std::int64_t{1} << 40)) return fail("dimension size too large");
                    out.dims.push_back(d);
                } else {
                    break;
                }
                if (p_ >= s_.size() || s_[p_] != 'x') return fail("expected 'x' after a dimension");
                ++p_;
                if (out.dims.size() > 64) return fail("tensor of too many dimensions");
            }
            type e;
            if (!read_type(e)) return false;
            if (e.k != type::kind::scalar) return fail("a tensor's element type must be a scalar type");
            out.elem = e.elem;
            if (auto q = quant_of(e.elem))
                if (std::string why = quant_check_tensor(*q, out.dims); !why.empty()) return fail(why);
            if (m == "buffer_v1") { // memref<dims x elem>
                if (!lit(">")) return fail("expected '>' to close !vhlo.buffer_v1");
                std::string text = "memref<";
                for (auto d : out.dims)
                    text += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
                out = type{};
                out.k = type::kind::other;
                out.text = text + e.elem + ">";
                return true;
            }
            if (lit(",")) {
                if (!lit("#vhlo.type_extensions_v1") || !lit("<") || !lit("bounds") || !lit("=") || !lit("["))
                    return fail("expected #vhlo.type_extensions_v1<bounds = [...]> as a tensor's encoding");
                if (!lit("]")) {
                    do {
                        std::int64_t b = -1;
                        if (!lit("?") && !integer(b)) return false;
                        if (out.bounds.size() > 64) return fail("too many bounds");
                        out.bounds.push_back(b);
                    } while (lit(","));
                    if (!lit("]")) return fail("expected ']'");
                }
                if (!lit(">")) return fail("expected '>'");
            }
            return lit(">") || fail("expected '>' to close !vhlo.tensor_v1");
        }
        if (m == "complex_v1") {
            type e;
            if (!lit("<") || !read_type(e) || !lit(">")) return fail("expected !vhlo.complex_v1<type>");
            if (e.k != type::kind::scalar || is_complex_elem(e.elem)) return fail("bad complex element type");
            out.k = type::kind::scalar;
            out.elem = "complex<" + e.elem + ">";
            return true;
        }
        if (m == "tuple_v1" || m == "future_v1") { // <A, B, ...>
            if (!lit("<")) return fail("expected '<' after !vhlo." + m);
            out.k = type::kind::tuple;
            if (!lit(">")) {
                do {
                    type e;
                    if (!read_type(e)) return false;
                    if (out.elems.size() > 4096) return fail("type list too long");
                    out.elems.push_back(std::move(e));
                } while (lit(","));
                if (!lit(">")) return fail("expected '>' to close !vhlo." + m);
            }
            if (m == "future_v1") out = future_of(out.elems);
            return true;
        }
        if (m == "token_v1") {
            out.k = type::kind::token;
            return true;
        }
        if (m == "quant_v1" || m == "quant_per_axis_v1") return quant_body(m, out);
        if (const elem_info* x = elem_by_vhlo(m)) {
            out.k = type::kind::scalar;
            out.elem = std::string(x->builtin);
            return true;
        }
        return fail(m == "func_v1" ? "a function type here"
                                   : "VHLO type !vhlo." + m + " is not supported by xlet-translate");
    }
};

// A VHLO attribute of the IR, structured; false (why set) if it is not one or does not read.
bool read_vnode(const attr& a, vnode& out, std::string& why) {
    if (!is_vhlo_attr(a)) {
        why = "not a VHLO attribute: " + attr_str(a);
        return false;
    }
    std::string text = "#" + a.s + "<" + a.raw + ">";
    vreader r(text);
    if (!r.attribute(out) || !r.at_end()) {
        why = (r.why().empty() ? "unexpected text" : r.why()) + " in " +
              (text.size() > 80 ? text.substr(0, 80) + "..." : text);
        return false;
    }
    return true;
}
// A VHLO type's text as its builtin counterpart.
bool read_vtype(const std::string& text, type& out, std::string& why) {
    vreader r(text);
    if (!r.read_type(out) || !r.at_end()) {
        why = (r.why().empty() ? "unexpected text" : r.why()) + " in " + text;
        return false;
    }
    return true;
}
bool is_vhlo_type(const type& t) { return t.k == type::kind::other && t.text.rfind("!vhlo.", 0) == 0; }

// The VHLO op of a StableHLO (or func) op: its current version; "" if VHLO has none.
std::string vhlo_name_of(const std::string& n) {
    static const std::map<std::string, std::string> m = [] {
        std::map<std::string, std::string> r;
        for (auto* o = vhlo::begin_ops(); o != vhlo::end_ops(); ++o) {
            if (o->until != vhlo::current_version) continue;
            std::string base(vhlo::split_version(o->name).first); // vhlo.add
            r["stablehlo." + base.substr(5)] = std::string(o->name);
        }
        r.erase("stablehlo.func"); // func.func, func.call, func.return are func's ops
        r.erase("stablehlo.call");
        r["func.call"] = "vhlo.call_v1";
        r["func.return"] = "vhlo.return_v1";
        return r;
    }();
    auto it = m.find(n);
    return it == m.end() ? "" : it->second;
}

// The ops whose VHLO form carries a result_accuracy since StableHLO 1.10 (1.9 for exponential).
bool has_result_accuracy(const std::string& base) { // base without dialect: "exponential"
    static const std::set<std::string> s = {"cbrt", "cosine",       "exponential", "exponential_minus_one",
                                            "log",  "log_plus_one", "logistic",    "rsqrt",
                                            "sine", "sqrt",         "tan",         "tanh"};
    return s.count(base) > 0;
}

// A StableHLO or builtin attribute as VHLO, where the two correspond one to one (StableHLO's
// convertGeneric). Attributes that need the op to be read (dimension numbers, channel handles ...)
// are the special cases of to_vhlo_special below.
bool to_vnode(const attr& a, vnode& out, std::string& why) {
    std::string x;
    switch (a.k) {
    case attr::kind::boolean:
        out = vbool(a.b);
        return true;
    case attr::kind::integer: {
        type t = a.t.k == type::kind::scalar ? a.t : scalar_type("i64"); // MLIR's untyped integer is an i64
        if (t.elem == "i1") {
            out = vbool(a.i != 0);
            return true;
        }
        if (!is_int_name(t.elem)) {
            why = "an integer of type " + type_str(t) + " has no VHLO form";
            return false;
        }
        out = vint(a.i, t.elem);
        return true;
    }
    case attr::kind::floating: {
        out.k = vnode::kind::floating;
        out.s = a.s;
        out.t = a.t.k == type::kind::scalar ? a.t : scalar_type("f64"); // MLIR's untyped float is an f64
        if (!is_float_name(out.t.elem) || !vhlo_type_text(out.t, x, why)) {
            why = "a float of type " + type_str(out.t) + " has no VHLO form";
            return false;
        }
        return true;
    }
    case attr::kind::string:
        out = vstr(a.s);
        return true;
    case attr::kind::symbol:
        if (a.s.find("::") != std::string::npos) {
            why = "the nested symbol reference @" + a.s + " has no VHLO form";
            return false;
        }
        out = vstr(a.s);
        return true;
    case attr::kind::array:
        out = varray();
        for (auto& e : a.list) {
            vnode v;
            if (!to_vnode(e, v, why)) return false;
            out.list.push_back(std::move(v));
        }
        return true;
    case attr::kind::dict:
        out = vdict();
        for (auto& f : a.fields) {
            vnode v;
            if (!to_vnode(f, v, why)) return false;
            out.keys.push_back(f.name);
            out.list.push_back(std::move(v));
        }
        return true;
    case attr::kind::dense:
        if (a.t.k != type::kind::tensor || !vhlo_type_text(a.t, x, why)) {
            if (why.empty()) why = "a dense constant without a tensor type";
            return false;
        }
        out.k = vnode::kind::tensor;
        out.data = a;
        return true;
    case attr::kind::dense_array: {
        // array<i64: ...> and array<i1: ...> are written as 1-d tensors; VHLO has no other arrays
        if (a.t.elem != "i64" && a.t.elem != "i1") {
            why = "array<" + a.t.elem + ": ...> has no VHLO form";
            return false;
        }
        std::vector<std::int64_t> v;
        for (auto& e : a.list)
            v.push_back(e.k == attr::kind::boolean ? e.b : e.i);
        out = vtensor(v, {static_cast<std::int64_t>(v.size())}, a.t.elem);
        return true;
    }
    case attr::kind::type_attr:
        if (!vhlo_type_text(a.t, x, why)) return false;
        out.k = vnode::kind::type;
        out.t = a.t;
        return true;
    case attr::kind::ident: // a bare element type the parser did not take for one: tf32, f8E4M3FN, none
        if (!elem_by_builtin(a.s)) {
            why = "'" + a.s + "' has no VHLO form";
            return false;
        }
        out = vtype_of(a.s);
        return true;
    case attr::kind::dialect: {
        if (is_vhlo_attr(a)) return read_vnode(a, out, why); // already VHLO
        if (a.s == "stablehlo") {                            // #stablehlo<comparison_direction LT>
            std::istringstream in(a.raw);
            std::string kind, word, rest;
            in >> kind >> word >> rest;
            std::string vk = kind + "_v1";
            if (!rest.empty() || !vhlo_enum(vk) || vk == "api_version_v1" || vk == "result_accuracy_mode_v1") {
                why = "#stablehlo<" + a.raw + "> has no VHLO form";
                return false;
            }
            if (enum_index(vk, word) < 0) {
                why = "'" + word + "' is not a " + kind;
                return false;
            }
            out = venum(vk, word);
            return true;
        }
        if (a.s == "stablehlo.result_accuracy_mode") { // #stablehlo.result_accuracy_mode<HIGHEST>
            std::string w = a.raw;
            w.erase(
                std::remove_if(w.begin(), w.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                w.end());
            if (enum_index("result_accuracy_mode_v1", w) < 0) {
                why = "'" + w + "' is not a result accuracy mode";
                return false;
            }
            out = venum("result_accuracy_mode_v1", w);
            return true;
        }
        if (a.s == "stablehlo.result_accuracy") {
            const attr *at = a.field("atol"), *rt = a.field("rtol"), *ul = a.field("ulps"), *mo = a.field("mode");
            vnode mode;
            auto num = [](const attr* f) {
                return f && (f->k == attr::kind::floating || f->k == attr::kind::integer) && !f->s.empty();
            };
            if (!num(at) || !num(rt) || !ul || ul->k != attr::kind::integer || !mo || !to_vnode(*mo, mode, why) ||
                mode.s != "result_accuracy_mode_v1") {
                if (why.empty()) why = "#stablehlo.result_accuracy needs atol, rtol, ulps and mode";
                return false;
            }
            out.k = vnode::kind::accuracy;
            out.atol = at->s;
            out.rtol = rt->s;
            out.i = ul->i;
            out.list = {mode};
            return true;
        }
        if (a.s == "stablehlo.output_operand_alias") {
            const attr *o = a.field("output_tuple_indices"), *n = a.field("operand_index"),
                       *i = a.field("operand_tuple_indices");
            if (!n || n->k != attr::kind::integer) {
                why = "#stablehlo.output_operand_alias needs an operand_index";
                return false;
            }
            out.k = vnode::kind::alias;
            out.out_idx = int_list(o);
            out.in_idx = int_list(i);
            out.i = n->i;
            return true;
        }
        if (a.s == "stablehlo.axis_ref") {
            vreader r(a.raw);
            if (r.stablehlo_axis_ref(out)) return true;
            why = r.why();
            return false;
        }
        // #stablehlo.mesh, mesh_axis, replica_group_mesh_axes: their VHLO structs, parameter for parameter
        if (a.s.rfind("stablehlo.", 0) == 0 && vhlo_struct(a.s.substr(10) + "_v1")) {
            const std::string what = "#" + a.s, name = a.s.substr(10) + "_v1";
            const struct_info* si = vhlo_struct(name);
            if (a.fields.empty() && !std::all_of(a.raw.begin(), a.raw.end(),
                                                 [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
                why = "unreadable " + what + "<" + a.raw + ">";
                return false;
            }
            for (std::size_t i = 0; i < a.fields.size(); ++i) {
                const std::string& k = a.fields[i].name;
                bool known = std::any_of(si->params.begin(), si->params.end(), [&](auto& p) { return p.name == k; });
                if (!known || a.field(k) != &a.fields[i]) {
                    why = "unexpected parameter '" + k + "' in " + what;
                    return false;
                }
            }
            auto get = [&](const struct_param& p) -> std::optional<vnode> {
                const attr* f = a.field(std::string(p.name));
                vnode x;
                if (!f) return std::nullopt;
                if (p.spec != "int") {
                    if (!to_vnode(*f, x, why)) return std::nullopt;
                } else if (f->k == attr::kind::integer) {
                    x = vint(f->i);
                }
                return x;
            };
            return make_struct(name, what, get, out, why);
        }
        why = "#" + a.s + "<...> has no VHLO form" +
              (a.s.rfind("stablehlo", 0) == 0 ? " (as an attribute of this op)" : "");
        return false;
    }
    case attr::kind::unit:
    case attr::kind::none:
        break;
    }
    why = "a unit attribute has no VHLO form";
    return false;
}

// Convolution dimension numbers: #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> (or
// written with their nine fields).
// The compact form MLIR prints; false if the numbers do not describe three layouts.
bool conv_dims_text(const conv_dims& d, std::string& out) {
    auto side = [](std::size_t n, std::int64_t px, char x, std::int64_t py, char y, const std::vector<std::int64_t>& sp,
                   std::string& s) {
        std::vector<std::string> g(n);
        auto put = [&](std::int64_t p, const std::string& v) {
            if (p < 0 || static_cast<std::size_t>(p) >= n || !g[static_cast<std::size_t>(p)].empty()) return false;
            g[static_cast<std::size_t>(p)] = v;
            return true;
        };
        if (!put(px, std::string(1, x)) || !put(py, std::string(1, y))) return false;
        for (std::size_t k = 0; k < sp.size(); ++k)
            if (!put(sp[k], std::to_string(k))) return false;
        s = "[";
        for (std::size_t i = 0; i < n; ++i)
            s += (i ? ", " : "") + g[i];
        s += "]";
        return true;
    };
    std::string a, b, c;
    if (!side(d.is.size() + 2, d.ib, 'b', d.if_, 'f', d.is, a) ||
        !side(d.ks.size() + 2, d.kif, 'i', d.kof, 'o', d.ks, b) ||
        !side(d.os.size() + 2, d.ob, 'b', d.of, 'f', d.os, c))
        return false;
    out = a + "x" + b + "->" + c;
    return true;
}

// Converts one function at a time; diagnostics collected, the module only replaced when all went well.
struct to_vhlo_pass {
    bool allow_other = false;
    std::vector<diagnostic>& errs;
    bool ok = true;

    void error(loc at, const std::string& text) {
        errs.push_back({at, "stablehlo-legalize-to-vhlo: " + text});
        ok = false;
    }

    // t in place as its VHLO type; a type of another dialect stays with allow-other-dialects.
    bool convert_type(type& t, loc at, const std::string& what) {
        std::string out, why;
        bool pass = false;
        if (vhlo_type_text(t, out, why, &pass)) {
            type v;
            v.k = type::kind::other;
            v.text = out;
            t = std::move(v);
            return true;
        }
        if (pass && allow_other) return true;
        error(at, what + ": " + why);
        return false;
    }
    // Whether a value of this (builtin) type changes type in VHLO, so a cast joins it to other dialects.
    static bool changes(const type& t) {
        std::string out, why;
        return (t.k != type::kind::other || is_future(t)) && vhlo_type_text(t, out, why);
    }

    using attrs_t = std::vector<std::pair<std::string, attr>>;

    // The attributes StableHLO spells differently from VHLO, by op. Returns true when `name` was one
    // (and has been converted into `out`, or reported).
    bool special(const op& o, const std::string& base, const std::string& name, const attr& a, attrs_t& out) {
        auto bad = [&](const std::string& why) {
            error(a.at.line ? a.at : o.at, "attribute '" + name + "' of " + o.name + ": " + why);
            return true;
        };
        auto put = [&](const std::string& k, const vnode& v) { out.emplace_back(k, vattr(v, a.at)); };
        static const std::set<std::string> collectives = {
            "all_gather",     "all_reduce",           "all_to_all",       "collective_permute",
            "reduce_scatter", "collective_broadcast", "collective_reduce"};
        if (name == "channel_handle" && (collectives.count(base) || base == "send" || base == "recv")) {
            // #stablehlo.channel_handle<handle = 1, type = 2>: the collectives keep the handle only
            const attr* h = a.field("handle");
            const attr* t = a.field("type");
            if (a.k != attr::kind::dialect || !h || h->k != attr::kind::integer)
                return bad("expected #stablehlo.channel_handle<handle = N, type = M>");
            put("channel_id", vint(h->i));
            if (base == "send" || base == "recv")
                put("channel_type", vint(t && t->k == attr::kind::integer ? t->i : 0));
            return true;
        }
        if ((name == "use_global_device_ids" && collectives.count(base) && base != "collective_broadcast") ||
            (name == "has_dynamic_root" && (base == "collective_broadcast" || base == "collective_reduce"))) {
            if (a.k != attr::kind::unit) return bad("expected a unit attribute");
            put(name, vbool(true));
            return true;
        }
        if (name == "dimension_numbers" && (base == "convolution" || base == "dynamic_conv")) {
            conv_dims d;
            std::string why;
            if (!read_conv_dims(a, d, why)) return bad(why);
            put("input_batch_dimension", vint(d.ib));
            put("input_feature_dimension", vint(d.if_));
            put("input_spatial_dimensions", vi64s(d.is));
            put("kernel_input_feature_dimension", vint(d.kif));
            put("kernel_output_feature_dimension", vint(d.kof));
            put("kernel_spatial_dimensions", vi64s(d.ks));
            put("output_batch_dimension", vint(d.ob));
            put("output_feature_dimension", vint(d.of));
            put("output_spatial_dimensions", vi64s(d.os));
            return true;
        }
        // the dimension numbers of dot_general, gather and scatter: one tensor per list, their index_vector_dim
        // (in the order the fields are written, the ones left out after them: the way back keeps it)
        auto explode = [&](const char* dialect, std::initializer_list<const char*> lists, bool with_ivd) {
            if (a.k != attr::kind::dialect || a.s != dialect) return bad(std::string("expected #") + dialect + "<...>");
            std::vector<std::string> order;
            for (auto& f : a.fields) {
                bool known = with_ivd && f.name == "index_vector_dim" && f.k == attr::kind::integer;
                for (const char* l : lists)
                    known = known || (f.name == l && f.k == attr::kind::array);
                if (!known || std::count(order.begin(), order.end(), f.name))
                    return bad("unexpected field '" + f.name + "'");
                order.push_back(f.name);
            }
            for (const char* l : lists)
                if (!std::count(order.begin(), order.end(), l)) order.push_back(l);
            if (with_ivd && !std::count(order.begin(), order.end(), "index_vector_dim"))
                order.push_back("index_vector_dim");
            for (auto& k : order) {
                const attr* f = a.field(k);
                if (k == "index_vector_dim")
                    put(k, vint(f ? f->i : 0));
                else
                    put(k, vi64s(int_list(f)));
            }
            return true;
        };
        if (name == "dot_dimension_numbers" && base == "dot_general")
            return explode("stablehlo.dot",
                           {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                            "rhs_contracting_dimensions"},
                           false);
        if (name == "dimension_numbers" && (base == "gather" || base == "dynamic_gather"))
            return explode("stablehlo.gather",
                           {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                            "start_indices_batching_dims", "start_index_map"},
                           true);
        if (name == "scatter_dimension_numbers" && base == "scatter")
            return explode("stablehlo.scatter",
                           {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                            "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
                           true);
        if (name == "algorithm" && base == "dot_general") {
            // #stablehlo.dot_algorithm<lhs_precision_type = tf32, ..., allow_imprecise_accumulation = false>;
            // the pretty form's `algorithm = <...>` is kept as text: read its fields
            attr al = a;
            std::string err;
            if (al.k == attr::kind::dialect && al.fields.empty() &&
                !parse_attribute("#stablehlo.dot_algorithm<" + al.raw + ">", al, err))
                return bad(err);
            if (al.k != attr::kind::dialect || al.fields.size() != 7)
                return bad("expected #stablehlo.dot_algorithm<...>");
            for (auto& f : al.fields) { // in the order written
                const std::string& k = f.name;
                vnode v;
                std::string why;
                if (k == "lhs_precision_type" || k == "rhs_precision_type" || k == "accumulation_type") {
                    if ((f.k != attr::kind::type_attr && f.k != attr::kind::ident) || !to_vnode(f, v, why))
                        return bad(k + ": expected an element type" + (why.empty() ? "" : " (" + why + ")"));
                } else if (k == "lhs_component_count" || k == "rhs_component_count" ||
                           k == "num_primitive_operations") {
                    if (f.k != attr::kind::integer) return bad(k + ": expected an integer");
                    v = vint(f.i);
                } else if (k == "allow_imprecise_accumulation") {
                    if (f.k != attr::kind::boolean) return bad(k + ": expected a boolean");
                    v = vbool(f.b);
                } else {
                    return bad("unexpected field '" + k + "'");
                }
                for (auto& kv : out)
                    if (kv.first == k) return bad("field '" + k + "' given twice");
                put(k, v);
            }
            return true;
        }
        if (name == "api_version" && base == "custom_call") { // 2 : i32 -> #vhlo<api_version_v1 ...>
            const enum_info* e = vhlo_enum("api_version_v1");
            if (a.k != attr::kind::integer || a.i < 0 || a.i >= static_cast<std::int64_t>(e->cases.size()))
                return bad("expected an api version 0 to 4");
            put(name, venum("api_version_v1", std::string(e->cases[static_cast<std::size_t>(a.i)])));
            return true;
        }
        if (name == "called_computations" && base == "custom_call") {
            vnode v = varray();
            if (a.k != attr::kind::array) return bad("expected an array of symbols");
            for (auto& e : a.list) {
                if (e.k != attr::kind::symbol || e.s.find("::") != std::string::npos)
                    return bad("expected an array of symbols");
                v.list.push_back(vstr(e.s));
            }
            put(name, v);
            return true;
        }
        return false;
    }

    // The attributes VHLO spells that StableHLO may leave out, with their defaults (StableHLO's
    // addDefaults). Added after the op's own; their names go to o.vhlo_defaults.
    void add_defaults(const op& o, const std::string& base, attrs_t& out, std::vector<std::string>& added) {
        auto has = [&](const std::string& k) {
            for (auto& kv : out)
                if (kv.first == k) return true;
            return false;
        };
        auto def = [&](const std::string& k, const vnode& v) {
            if (has(k)) return;
            out.emplace_back(k, vattr(v, o.at));
            added.push_back(k);
        };
        auto ones = [](std::size_t n, std::int64_t v) {
            return vtensor(std::vector<std::int64_t>(n, v), {static_cast<std::int64_t>(n)});
        };
        auto pads = [](std::size_t n) {
            return vtensor(std::vector<std::int64_t>(2 * n, 0), {static_cast<std::int64_t>(n), 2});
        };
        auto precision = [] { return varray({venum("precision_v1", "DEFAULT"), venum("precision_v1", "DEFAULT")}); };
        // the number of entries of a VHLO tensor attribute already converted (a number of dimensions:
        // at most 64, as the parser's tensor types)
        auto count = [&](const std::string& k) -> std::optional<std::size_t> {
            for (auto& kv : out)
                if (kv.first == k) {
                    vnode v;
                    std::string why;
                    std::int64_t n = -1;
                    if (read_vnode(kv.second, v, why) && v.k == vnode::kind::tensor) n = num_elements(v.data.t);
                    if (n >= 0 && n <= 64) return static_cast<std::size_t>(n);
                    error(o.at, o.name + ": " + k + " must be a list of at most 64 dimensions");
                    return std::nullopt;
                }
            return std::nullopt;
        };
        if (base == "all_gather" || base == "all_reduce" || base == "reduce_scatter" || base == "all_to_all" ||
            base == "collective_permute" || base == "collective_broadcast" || base == "collective_reduce")
            def("channel_id", vint(0));
        if (base == "all_gather" || base == "all_reduce" || base == "reduce_scatter" || base == "collective_reduce")
            def("use_global_device_ids", vbool(false));
        if (base == "collective_broadcast" || base == "collective_reduce") def("has_dynamic_root", vbool(false));
        if (base == "cholesky") def("lower", vbool(false));
        if (base == "compare") def("compare_type", venum("comparison_type_v1", "NOTYPE"));
        if (base == "composite") {
            def("version", vint(0));
            def("composite_attributes", vdict());
        }
        if (base == "convolution" || base == "dynamic_conv") {
            auto n = count("input_spatial_dimensions");
            if (!n) {
                if (!has("input_spatial_dimensions"))
                    error(o.at, o.name + " without dimension_numbers has no VHLO form");
                return;
            }
            def("window_strides", ones(*n, 1));
            if (base == "convolution") def("padding", pads(*n));
            def("lhs_dilation", ones(*n, 1));
            def("rhs_dilation", ones(*n, 1));
            def("window_reversal", vtensor(std::vector<std::int64_t>(*n, 0), {static_cast<std::int64_t>(*n)}, "i1"));
            def("precision_config", precision());
        }
        if (base == "custom_call") {
            def("has_side_effect", vbool(false));
            vnode api;
            std::string why;
            bool ffi = false;
            for (auto& kv : out)
                if (kv.first == "api_version" && read_vnode(kv.second, api, why))
                    ffi = api.word == "API_VERSION_TYPED_FFI";
            def("backend_config", ffi ? vdict() : vstr("")); // typed FFI backend configs are dictionaries
            def("api_version", venum("api_version_v1", "API_VERSION_ORIGINAL"));
            for (const char* k : {"called_computations", "operand_layouts", "result_layouts", "output_operand_aliases",
                                  "result_tilings"})
                def(k, varray());
        }
        if (base == "dot" || base == "dot_general") def("precision_config", precision());
        if (base == "dot_general" && !has("lhs_precision_type")) // no algorithm: its seven parameters are none
            for (const char* k :
                 {"lhs_precision_type", "rhs_precision_type", "accumulation_type", "lhs_component_count",
                  "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"})
                def(k, vtype_of("none"));
        if (has_result_accuracy(base)) def("result_accuracy", vaccuracy_default());
        if (base == "dynamic_broadcast_in_dim") {
            def("known_expanding_dimensions", vi64s({}));
            def("known_nonexpanding_dimensions", vi64s({}));
        }
        if (base == "gather" || base == "dynamic_gather" || base == "scatter") def("indices_are_sorted", vbool(false));
        if (base == "scatter") def("unique_indices", vbool(false));
        if (base == "infeed") {
            def("infeed_config", vstr(""));
            def("layout", varray());
        }
        if (base == "outfeed") def("outfeed_config", vstr(""));
        if (base == "send" || base == "recv") {
            def("is_host_transfer", vbool(false));
            def("source_target_pairs", vi64s({}));
        }
        if (base == "reduce_window" || base == "select_and_scatter") {
            auto n = count("window_dimensions");
            if (!n) {
                if (!has("window_dimensions")) error(o.at, o.name + " without window_dimensions has no VHLO form");
                return;
            }
            def("window_strides", ones(*n, 1));
            if (base == "reduce_window") {
                def("base_dilations", ones(*n, 1));
                def("window_dilations", ones(*n, 1));
            }
            def("padding", pads(*n));
        }
        if (base == "sort") {
            def("dimension", vint(-1));
            def("is_stable", vbool(false));
        }
    }

    // An attribute whose VHLO form reads back otherwise, kept as written for the way back.
    static void note_written(op& o, const std::string& name, const attr& a, const vnode& v) {
        if (attr_str(from_vnode(v, a.at)) != attr_str(a)) o.vhlo_written.emplace_back(name, a);
    }

    // A StableHLO op (or func.call / func.return) in place as its VHLO op.
    void convert_op(op& o, const std::string& vname) {
        std::string base = o.name.substr(o.name.find('.') + 1); // stablehlo.add -> add
        attrs_t out;
        for (auto& [name, a] : o.attrs) {
            if (special(o, base, name, a, out)) continue;
            vnode v;
            std::string why;
            if (to_vnode(a, v, why)) {
                out.emplace_back(name, vattr(v, a.at));
                note_written(o, name, a, v);
            } else if (allow_other && !(a.k == attr::kind::dialect && a.s.rfind("stablehlo", 0) == 0)) {
                out.emplace_back(name, a); // StableHLO's convertUnknownAttribute: kept as it is
            } else {
                error(a.at.line ? a.at : o.at, "attribute '" + name + "' of " + o.name + ": " + why);
            }
        }
        if (o.name == "func.call" && !o.get("callee")) out.emplace_back("callee", vattr(vstr(o.callee), o.at));
        std::vector<std::string> added;
        add_defaults(o, base, out, added);
        for (std::size_t k = 0; k < o.operand_types.size(); ++k)
            convert_type(o.operand_types[k], k < o.operands.size() ? o.operands[k].at : o.at, o.name + " operand");
        for (auto& t : o.result_types)
            convert_type(t, o.at, o.name + " result");
        o.attrs = std::move(out);
        o.vhlo_defaults = std::move(added);
        o.name = vname;
        o.callee.clear();
    }

    // Casts between VHLO values and the ops of other dialects (allow-other-dialects), as
    // builtin.unrealized_conversion_cast; one per value and direction in a block and the blocks
    // inside it, which it dominates.
    struct scope {
        std::map<std::string, std::string> to_vhlo, to_builtin;
    };

    std::string cast(const std::string& v, const type& from, const type& to, bool into_vhlo, scope& sc, namer& fresh,
                     std::vector<std::unique_ptr<op>>& seq, loc at) {
        auto& cache = into_vhlo ? sc.to_vhlo : sc.to_builtin;
        if (auto it = cache.find(v); it != cache.end()) return it->second;
        std::string r = fresh("cast");
        seq.push_back(make_op("builtin.unrealized_conversion_cast", {{v, at}}, {from}, {r}, {to}, at));
        cache[v] = r;
        return r;
    }

    // The ops of a block; `builtin` holds the values that are still builtin-typed (defined by ops
    // of other dialects, or block arguments of their regions).
    void convert_block(block& b, std::set<std::string>& builtin, scope sc, namer& fresh) {
        std::vector<std::unique_ptr<op>> seq;
        for (auto& op_ptr : b.ops) {
            op& o = *op_ptr;
            std::string vname = vhlo_name_of(o.name);
            bool mine = !vname.empty();
            if (!mine && (o.name.rfind("stablehlo.", 0) == 0 || o.name.rfind("func.", 0) == 0 ||
                          o.name.rfind("vhlo.", 0) == 0)) {
                error(o.at, o.name.rfind("vhlo.", 0) == 0 ? "op '" + o.name + "' is VHLO already"
                                                          : "op '" + o.name + "' has no VHLO counterpart");
                seq.push_back(std::move(op_ptr));
                continue;
            }
            for (std::size_t k = 0; k < o.operands.size() && k < o.operand_types.size(); ++k) {
                const std::string& v = o.operands[k].name;
                const type& t = o.operand_types[k];
                bool is_builtin = builtin.count(v) > 0;
                if (mine == !is_builtin || !changes(t)) continue; // same side, or a type VHLO keeps
                if (!allow_other) {
                    error(
                        o.at,
                        "op '" + o.name + "' " +
                            (mine ? "takes a value of type " + type_str(t) + " from an op of another dialect"
                                  : "is not StableHLO and exchanges values of type " + type_str(t) + " with VHLO ops") +
                            " (--stablehlo-legalize-to-vhlo='allow-other-dialects=true' joins them with casts)");
                    break;
                }
                type vt = t;
                convert_type(vt, o.at, "cast");
                o.operands[k].name =
                    mine ? cast(v, t, vt, true, sc, fresh, seq, o.at) : cast(v, vt, t, false, sc, fresh, seq, o.at);
            }
            if (mine) {
                convert_op(o, vname);
                for (auto& r : o.regions)
                    for (auto& rb : r.blocks) {
                        for (std::size_t k = 0; k < rb.arg_types.size(); ++k)
                            convert_type(rb.arg_types[k], k < rb.arg_locs.size() ? rb.arg_locs[k] : o.at,
                                         "block argument %" + rb.arg_names[k]);
                        convert_block(rb, builtin, sc, fresh);
                    }
            } else {
                for (std::size_t k = 0; k < o.results.size() && k < o.result_types.size(); ++k)
                    if (changes(o.result_types[k])) builtin.insert(o.results[k]);
                for (auto& r : o.regions)
                    for (auto& rb : r.blocks) {
                        for (std::size_t k = 0; k < rb.arg_names.size() && k < rb.arg_types.size(); ++k)
                            if (changes(rb.arg_types[k])) builtin.insert(rb.arg_names[k]);
                        convert_block(rb, builtin, sc, fresh);
                    }
            }
            seq.push_back(std::move(op_ptr));
        }
        b.ops = std::move(seq);
    }

    // A func.func as vhlo.func_v1: name, signature, visibility and argument / result attributes
    // become attributes of the op, its other attributes follow as they are (converted).
    std::unique_ptr<op> convert_func(func& f) {
        namer fresh(f);
        auto o = std::make_unique<op>();
        o->name = "vhlo.func_v1";
        o->at = f.at;
        std::vector<std::string> added;
        auto put = [&](const std::string& k, const vnode& v) { o->attrs.emplace_back(k, vattr(v, f.at)); };
        vnode fn;
        fn.k = vnode::kind::type;
        fn.is_fn = true;
        std::string why, x;
        for (auto& a : f.args) // (an argument VHLO has no type for is reported with its block argument)
            fn.fn_in.push_back(a.t);
        for (auto& t : f.results) {
            fn.fn_out.push_back(t);
            if (!vhlo_type_text(t, x, why)) error(f.at, "a result of @" + f.name + ": " + why);
        }
        put("sym_name", vstr(f.name));
        put("function_type", fn);
        put("sym_visibility", vstr(f.visibility));
        if (f.visibility.empty()) added.push_back("sym_visibility");
        // one dictionary per argument (result) when any has attributes, as MLIR's arg_attrs
        auto dicts = [&](const std::vector<std::vector<std::pair<std::string, attr>>>& per, std::size_t n,
                         const char* key) {
            bool any = false;
            for (auto& d : per)
                any = any || !d.empty();
            vnode arr = varray();
            for (std::size_t i = 0; any && i < n; ++i) {
                vnode d = vdict();
                if (i < per.size())
                    for (auto& [k, a] : per[i]) {
                        vnode v;
                        if (!to_vnode(a, v, why)) {
                            error(a.at.line ? a.at : f.at, "attribute '" + k + "' of @" + f.name + ": " + why);
                            continue;
                        }
                        note_written(*o, std::string(key) + "/" + std::to_string(i) + "/" + k, a, v);
                        d.keys.push_back(k);
                        d.list.push_back(std::move(v));
                    }
                arr.list.push_back(std::move(d));
            }
            put(key, arr);
            if (!any) added.push_back(key);
        };
        std::vector<std::vector<std::pair<std::string, attr>>> arg_attrs;
        for (auto& a : f.args)
            arg_attrs.push_back(a.attrs);
        dicts(arg_attrs, f.args.size(), "arg_attrs");
        dicts(f.result_attrs, f.results.size(), "res_attrs");
        for (auto& [k, a] : f.attrs) { // the function's own attributes: discardable, converted as they are
            vnode v;
            if (to_vnode(a, v, why)) {
                put(k, v);
                note_written(*o, k, a, v);
            } else if (allow_other && !(a.k == attr::kind::dialect && a.s.rfind("stablehlo", 0) == 0))
                o->attrs.emplace_back(k, a);
            else
                error(a.at.line ? a.at : f.at, "attribute '" + k + "' of @" + f.name + ": " + why);
        }
        o->vhlo_defaults = std::move(added);
        if (f.body.blocks.empty()) f.body.blocks.emplace_back();
        block& b = f.body.blocks[0];
        for (std::size_t k = 0; k < b.arg_types.size(); ++k)
            convert_type(b.arg_types[k], k < b.arg_locs.size() ? b.arg_locs[k] : f.at, "argument %" + b.arg_names[k]);
        std::set<std::string> builtin;
        convert_block(b, builtin, {}, fresh);
        o->regions.push_back(std::move(f.body));
        return o;
    }
};

bool legalize_to_vhlo(module& m, const options& opt, std::vector<diagnostic>& errs) {
    to_vhlo_pass p{false, errs};
    if (auto it = opt.find("allow-other-dialects"); it != opt.end()) {
        if (it->second != "true" && it->second != "false" && it->second != "1" && it->second != "0") {
            errs.push_back({{}, "stablehlo-legalize-to-vhlo: allow-other-dialects takes true or false"});
            return false;
        }
        p.allow_other = it->second == "true" || it->second == "1";
    }
    module c = clone(m); // the module is replaced only when every op converted
    std::vector<std::unique_ptr<op>> ops;
    for (auto& f : c.funcs)
        ops.push_back(p.convert_func(f));
    if (!p.ok) return false;
    c.funcs.clear();
    for (auto& o : c.ops) // ops already at module level (VHLO functions, ops of other dialects) stay
        ops.push_back(std::move(o));
    c.ops = std::move(ops);
    m = std::move(c);
    return true;
}

// A VHLO struct (and what it holds) as StableHLO prints it: #stablehlo.mesh<axes=[...]>, the mesh
// of mesh axes as a symbol, a sub-axis info as (pre-size)size.
std::string stablehlo_text(const vnode& v, const std::string& key = "") {
    switch (v.k) {
    case vnode::kind::integer:
        return std::to_string(v.i);
    case vnode::kind::string: {
        bool bare = !v.s.empty() && (std::isalpha(static_cast<unsigned char>(v.s[0])) || v.s[0] == '_') &&
                    std::all_of(v.s.begin(), v.s.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
                    });
        return key != "mesh" ? escaped(v.s) : bare ? "@" + v.s : "@" + escaped(v.s);
    }
    case vnode::kind::tensor:
        return attr_str(v.data);
    case vnode::kind::array: {
        std::string b;
        for (auto& e : v.list)
            b += (b.empty() ? "" : ", ") + stablehlo_text(e);
        return "[" + b + "]";
    }
    case vnode::kind::structure: {
        std::string n = v.s.substr(0, v.s.size() - 3), b; // mesh_v1 -> mesh
        const vnode *pre = param(v, "pre_size"), *size = param(v, "size");
        if (n == "sub_axis_info" && pre && size) return "(" + std::to_string(pre->i) + ")" + std::to_string(size->i);
        for (std::size_t i = 0; i < v.list.size() && i < v.keys.size(); ++i)
            b += (i ? ", " : "") + v.keys[i] + (n == "mesh" ? "=" : " = ") + stablehlo_text(v.list[i], v.keys[i]);
        return "#stablehlo." + n + "<" + b + ">";
    }
    default:
        return vtext(v);
    }
}

// A VHLO attribute as its StableHLO / builtin counterpart, where they correspond one to one
// (the inverse of to_vnode; the op-dependent cases are in from_vhlo_pass::convert_op).
attr from_vnode(const vnode& v, loc at) {
    attr a;
    a.at = at;
    switch (v.k) {
    case vnode::kind::array:
        a.k = attr::kind::array;
        for (auto& e : v.list)
            a.list.push_back(from_vnode(e, at));
        break;
    case vnode::kind::dict:
        a.k = attr::kind::dict;
        for (std::size_t i = 0; i < v.list.size() && i < v.keys.size(); ++i) {
            a.fields.push_back(from_vnode(v.list[i], at));
            a.fields.back().name = v.keys[i];
        }
        break;
    case vnode::kind::boolean:
        a.k = attr::kind::boolean;
        a.b = v.b;
        break;
    case vnode::kind::integer:
        a.k = attr::kind::integer;
        a.i = v.i;
        a.s = std::to_string(v.i);
        a.t = v.t;
        break;
    case vnode::kind::floating:
        a.k = attr::kind::floating;
        a.s = v.s;
        a.t = v.t;
        break;
    case vnode::kind::string:
        a.k = attr::kind::string;
        a.s = v.s;
        break;
    case vnode::kind::tensor:
        a = v.data;
        a.at = at;
        break;
    case vnode::kind::type:
        a.k = attr::kind::type_attr;
        if (v.is_fn) {
            std::string s = "(";
            for (std::size_t i = 0; i < v.fn_in.size(); ++i)
                s += (i ? ", " : "") + type_str(v.fn_in[i]);
            s += ") -> ";
            if (v.fn_out.size() == 1) {
                s += type_str(v.fn_out[0]);
            } else {
                s += "(";
                for (std::size_t i = 0; i < v.fn_out.size(); ++i)
                    s += (i ? ", " : "") + type_str(v.fn_out[i]);
                s += ")";
            }
            a.t.k = type::kind::other;
            a.t.text = s;
        } else {
            a.t = v.t;
        }
        break;
    case vnode::kind::enumeration:
        if (v.s == "api_version_v1") { // StableHLO's custom call API version is an i32
            a.k = attr::kind::integer;
            a.i = enum_index(v.s, v.word);
            a.s = std::to_string(a.i);
            a.t = scalar_type("i32");
        } else if (v.s == "result_accuracy_mode_v1") {
            a.k = attr::kind::dialect;
            a.s = "stablehlo.result_accuracy_mode";
            a.raw = v.word;
        } else {
            a.k = attr::kind::dialect;
            a.s = "stablehlo";
            a.raw = v.s.substr(0, v.s.size() - 3) + " " + v.word; // comparison_direction_v1 -> comparison_direction
        }
        break;
    case vnode::kind::accuracy: {
        a.k = attr::kind::dialect;
        a.s = "stablehlo.result_accuracy";
        attr atol, rtol;
        atol.k = rtol.k = attr::kind::floating;
        atol.s = v.atol;
        rtol.s = v.rtol;
        attr mode = from_vnode(v.list.empty() ? venum("result_accuracy_mode_v1", "DEFAULT") : v.list[0], at);
        a.fields = {named(atol, "atol"), named(rtol, "rtol"), named(int_attr(v.i, ""), "ulps"), named(mode, "mode")};
        with_raw(a);
        break;
    }
    case vnode::kind::alias: {
        a.k = attr::kind::dialect;
        a.s = "stablehlo.output_operand_alias";
        a.fields = {named(int_list_attr(v.out_idx), "output_tuple_indices"), named(int_attr(v.i, ""), "operand_index"),
                    named(int_list_attr(v.in_idx), "operand_tuple_indices")};
        with_raw(a);
        break;
    }
    case vnode::kind::structure: {
        std::string text = stablehlo_text(v), why;
        if (!parse_attribute(text, a, why)) { // (not expected) kept as text
            std::size_t lt = text.find('<');
            a = attr{};
            a.k = attr::kind::dialect;
            a.s = text.substr(1, lt - 1);
            a.raw = text.substr(lt + 1, text.size() - lt - 2);
        }
        a.at = at;
        break;
    }
    }
    return a;
}

// The integers of a 1-d (or any) integer tensor attribute; false if it is not one.
bool tensor_ints(const vnode& v, std::vector<std::int64_t>& out, const char* elem = "i64") {
    if (v.k != vnode::kind::tensor || v.data.t.elem != elem) return false;
    std::int64_t n = num_elements(v.data.t);
    if (n < 0 || n > 65536) return false;
    out = int_list(&v.data);
    return static_cast<std::int64_t>(out.size()) == n;
}
bool is_empty_tensor(const vnode& v) { return v.k == vnode::kind::tensor && num_elements(v.data.t) == 0; }
bool is_splat_tensor(const vnode& v, std::int64_t x) {
    std::vector<std::int64_t> xs;
    if (!tensor_ints(v, xs, v.data.t.elem == "i1" ? "i1" : "i64") || xs.empty()) return false;
    return std::all_of(xs.begin(), xs.end(), [&](std::int64_t e) { return e == x; });
}
bool is_zero_number(const std::string& s) {
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && d == 0.0;
}
bool is_default_accuracy(const vnode& v) {
    return v.k == vnode::kind::accuracy && is_zero_number(v.atol) && is_zero_number(v.rtol) && v.i == 0 &&
           !v.list.empty() && v.list[0].word == "DEFAULT";
}
bool is_none_type(const vnode& v) {
    return v.k == vnode::kind::type && !v.is_fn && v.t.k == type::kind::scalar && v.t.elem == "none";
}

struct from_vhlo_pass {
    std::vector<diagnostic>& errs;
    bool ok = true;

    void error(loc at, const std::string& text) {
        errs.push_back({at, "vhlo-legalize-to-stablehlo: " + text});
        ok = false;
    }

    void convert_type(type& t, loc at) {
        if (!is_vhlo_type(t)) return; // builtin already, or another dialect's
        type b;
        std::string why;
        if (read_vtype(t.text, b, why))
            t = std::move(b);
        else
            error(at, why);
    }

    // An op's attributes, read: VHLO ones structured, others (another dialect's) kept as they are.
    struct entry {
        std::string name;
        bool is_v = false;
        vnode v;
        attr a;
    };

    // StableHLO's removeDefaults: the attributes equal to the default StableHLO leaves out.
    static bool is_default(const std::string& base, const std::string& name, const vnode& v,
                           const std::vector<entry>& all) {
        auto is_bool = [&](bool b) { return v.k == vnode::kind::boolean && v.b == b; };
        auto is_int = [&](std::int64_t x) { return v.k == vnode::kind::integer && v.i == x; };
        auto is_str = [&](const char* s) { return v.k == vnode::kind::string && v.s == s; };
        auto empty_array = [](const vnode& x) { return x.k == vnode::kind::array && x.list.empty(); };
        auto all_default_precision = [&] {
            return v.k == vnode::kind::array && std::all_of(v.list.begin(), v.list.end(), [](const vnode& p) {
                       return p.k == vnode::kind::enumeration && p.word == "DEFAULT";
                   });
        };
        if (name == "channel_id" &&
            (base == "all_gather" || base == "all_reduce" || base == "reduce_scatter" || base == "all_to_all" ||
             base == "collective_permute" || base == "collective_broadcast" || base == "collective_reduce"))
            return is_int(0);
        if (name == "use_global_device_ids" &&
            (base == "all_gather" || base == "all_reduce" || base == "reduce_scatter" || base == "collective_reduce"))
            return is_bool(false);
        if (name == "has_dynamic_root" && (base == "collective_broadcast" || base == "collective_reduce"))
            return is_bool(false);
        if (base == "cholesky" && name == "lower") return is_bool(false);
        if (base == "compare" && name == "compare_type") return v.k == vnode::kind::enumeration && v.word == "NOTYPE";
        if (base == "composite")
            return (name == "version" && is_int(0)) ||
                   (name == "composite_attributes" && v.k == vnode::kind::dict && v.list.empty());
        if (base == "convolution" || base == "dynamic_conv") {
            if (name == "window_strides" || name == "lhs_dilation" || name == "rhs_dilation")
                return is_splat_tensor(v, 1);
            if (name == "padding" && base == "convolution") return is_splat_tensor(v, 0);
            if (name == "window_reversal") return is_splat_tensor(v, 0);
            if (name == "precision_config") return all_default_precision();
        }
        if (base == "custom_call") {
            if (name == "has_side_effect") return is_bool(false);
            if (name == "backend_config") return is_str("") || (v.k == vnode::kind::dict && v.list.empty());
            if (name == "api_version") return v.k == vnode::kind::enumeration && v.word == "API_VERSION_ORIGINAL";
            if (name == "called_computations" || name == "output_operand_aliases" || name == "result_tilings")
                return empty_array(v);
            if (name == "operand_layouts" || name == "result_layouts") { // both or neither
                for (auto& e : all)
                    if ((e.name == "operand_layouts" || e.name == "result_layouts") && !(e.is_v && empty_array(e.v)))
                        return false;
                return empty_array(v);
            }
        }
        if ((base == "dot" || base == "dot_general") && name == "precision_config") return all_default_precision();
        if (base == "dynamic_broadcast_in_dim" &&
            (name == "known_expanding_dimensions" || name == "known_nonexpanding_dimensions"))
            return is_empty_tensor(v);
        if ((base == "gather" || base == "dynamic_gather" || base == "scatter") && name == "indices_are_sorted")
            return is_bool(false);
        if (base == "scatter" && name == "unique_indices") return is_bool(false);
        if (base == "infeed") return (name == "infeed_config" && is_str("")) || (name == "layout" && empty_array(v));
        if (base == "outfeed") return name == "outfeed_config" && is_str("");
        if (base == "send" || base == "recv")
            return (name == "is_host_transfer" && is_bool(false)) ||
                   (name == "source_target_pairs" && is_empty_tensor(v));
        if (base == "reduce_window" || base == "select_and_scatter") {
            if (name == "window_strides" ||
                (base == "reduce_window" && (name == "base_dilations" || name == "window_dilations")))
                return is_splat_tensor(v, 1);
            if (name == "padding") return is_splat_tensor(v, 0);
        }
        if (base == "sort") return (name == "dimension" && is_int(-1)) || (name == "is_stable" && is_bool(false));
        if (has_result_accuracy(base) && name == "result_accuracy") return is_default_accuracy(v);
        return false;
    }

    // The attributes StableHLO keeps as one that VHLO spells one by one: each group becomes one
    // attribute at the place of its first member.
    struct group {
        const char* into;
        std::vector<const char*> members;
    };
    static std::vector<group> groups_of(const std::string& base) {
        if (base == "convolution" || base == "dynamic_conv")
            return {{"dimension_numbers",
                     {"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
                      "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
                      "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions"}}};
        if (base == "dot_general")
            return {{"dot_dimension_numbers",
                     {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                      "rhs_contracting_dimensions"}},
                    {"algorithm",
                     {"lhs_precision_type", "rhs_precision_type", "accumulation_type", "lhs_component_count",
                      "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"}}};
        if (base == "gather" || base == "dynamic_gather")
            return {{"dimension_numbers",
                     {"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
                      "start_index_map", "index_vector_dim"}}};
        if (base == "scatter")
            return {{"scatter_dimension_numbers",
                     {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                      "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim"}}};
        if (base == "send" || base == "recv") return {{"channel_handle", {"channel_id", "channel_type"}}};
        return {};
    }

    // The attribute as it was written before stablehlo-legalize-to-vhlo in this run, while its VHLO
    // form is the one that gave (op::vhlo_written); nullptr if none.
    static const attr* written_form(const op& o, const std::string& name, const attr& current) {
        for (auto& [k, a] : o.vhlo_written) {
            vnode v;
            std::string why;
            if (k == name && to_vnode(a, v, why) && vtext(v) == attr_str(current)) return &a;
        }
        return nullptr;
    }

    // One group's members as the StableHLO attribute; false (why) if they do not make one. An
    // algorithm of seven none types is no algorithm: `out` stays none.
    // `order`: the members in the order of the op's attributes, to keep the fields in the order
    // they were written when the op comes from stablehlo-legalize-to-vhlo in this run (else
    // StableHLO's own order).
    static bool implode(const std::string& base, const group& g, const std::map<std::string, const vnode*>& mem,
                        attr& out, std::string& why, loc at, const std::vector<std::string>* order = nullptr) {
        auto get = [&](const char* k) -> const vnode* {
            auto it = mem.find(k);
            return it == mem.end() ? nullptr : it->second;
        };
        for (const char* k : g.members)
            if (!get(k)) {
                // a removed default (the algorithm's none types) or a missing attribute
                if (std::string(g.into) == "algorithm") continue;
                why = "lacks its " + std::string(k) + " attribute";
                return false;
            }
        auto ints_field = [&](const char* name, const vnode* v, attr& into) {
            std::vector<std::int64_t> xs;
            if (!v || !tensor_ints(*v, xs)) {
                why = std::string(name) + ": expected a tensor of i64";
                return false;
            }
            into.fields.push_back(named(int_list_attr(xs), name));
            return true;
        };
        auto int_of = [&](const char* name, std::int64_t& x) {
            const vnode* v = get(name);
            if (!v || v->k != vnode::kind::integer) {
                why = std::string(name) + ": expected an integer";
                return false;
            }
            x = v->i;
            return true;
        };
        attr a;
        a.k = attr::kind::dialect;
        a.at = at;
        std::string into = g.into;
        if (into == "channel_handle") {
            std::int64_t h = 0, t = 0;
            if (!int_of("channel_id", h) || !int_of("channel_type", t)) return false;
            a = channel_handle(h, t, at);
        } else if (into == "dimension_numbers" && (base == "convolution" || base == "dynamic_conv")) {
            conv_dims d;
            if (!int_of("input_batch_dimension", d.ib) || !int_of("input_feature_dimension", d.if_) ||
                !int_of("kernel_input_feature_dimension", d.kif) || !int_of("kernel_output_feature_dimension", d.kof) ||
                !int_of("output_batch_dimension", d.ob) || !int_of("output_feature_dimension", d.of))
                return false;
            if (!tensor_ints(*get("input_spatial_dimensions"), d.is) ||
                !tensor_ints(*get("kernel_spatial_dimensions"), d.ks) ||
                !tensor_ints(*get("output_spatial_dimensions"), d.os) || !conv_dims_text(d, a.raw)) {
                why = "inconsistent convolution dimension numbers";
                return false;
            }
            a.s = "stablehlo.conv";
        } else if (into == "dot_dimension_numbers") {
            // batching dimensions written when there are some, contracting ones always (as the parser reads them)
            a.s = "stablehlo.dot";
            for (const char* k : g.members) {
                std::vector<std::int64_t> xs;
                if (!tensor_ints(*get(k), xs)) {
                    why = std::string(k) + ": expected a tensor of i64";
                    return false;
                }
                if (xs.empty() && std::string(k).find("batching") != std::string::npos) continue;
                if (!ints_field(k, get(k), a)) return false;
            }
        } else if (into == "algorithm") {
            int none = 0, present = 0;
            for (const char* k : g.members)
                if (const vnode* v = get(k)) {
                    ++present;
                    none += is_none_type(*v);
                }
            if (none == present) return true; // no algorithm
            if (present != 7 || none) {
                why = "a dot algorithm needs all seven of its parameters, none of them none";
                return false;
            }
            a.s = "stablehlo.dot_algorithm";
            for (const char* k : {"lhs_precision_type", "rhs_precision_type", "accumulation_type"}) {
                const vnode* v = get(k);
                if (v->k != vnode::kind::type || v->is_fn) {
                    why = std::string(k) + ": expected a type";
                    return false;
                }
                attr t;
                t.k = attr::kind::type_attr;
                t.t = v->t;
                t.name = k;
                a.fields.push_back(t);
            }
            for (const char* k : {"lhs_component_count", "rhs_component_count", "num_primitive_operations"}) {
                std::int64_t x = 0;
                if (!int_of(k, x)) return false;
                a.fields.push_back(named(int_attr(x, ""), k));
            }
            const vnode* b = get("allow_imprecise_accumulation");
            if (b->k != vnode::kind::boolean) {
                why = "allow_imprecise_accumulation: expected a boolean";
                return false;
            }
            a.fields.push_back(named(bool_attr(b->b), "allow_imprecise_accumulation"));
        } else { // gather / scatter dimension numbers: the empty lists left out, index_vector_dim always
            a.s = base == "scatter" ? "stablehlo.scatter" : "stablehlo.gather";
            for (const char* k : g.members) {
                if (std::string(k) == "index_vector_dim") {
                    std::int64_t x = 0;
                    if (!int_of(k, x)) return false;
                    a.fields.push_back(named(int_attr(x, ""), k));
                    continue;
                }
                std::vector<std::int64_t> xs;
                if (!tensor_ints(*get(k), xs)) {
                    why = std::string(k) + ": expected a tensor of i64";
                    return false;
                }
                if (!xs.empty() && !ints_field(k, get(k), a)) return false;
            }
        }
        if (order && !a.fields.empty()) {
            auto rank = [&](const std::string& n) {
                auto it = std::find(order->begin(), order->end(), n);
                return it - order->begin();
            };
            std::stable_sort(a.fields.begin(), a.fields.end(),
                             [&](const attr& x, const attr& y) { return rank(x.name) < rank(y.name); });
        }
        if (!a.fields.empty()) with_raw(a);
        out = std::move(a);
        return true;
    }

    // The integer-list attributes StableHLO keeps as array<i64: ...> (VHLO: 1-d tensors), by op.
    static bool is_i64_array(const std::string& base, const std::string& name) {
        static const std::map<std::string, std::set<std::string>> m = {
            {"fft", {"fft_length"}},
            {"broadcast", {"broadcast_sizes"}},
            {"dynamic_slice", {"slice_sizes"}},
            {"reverse", {"dimensions"}},
            {"transpose", {"permutation"}},
            {"pad", {"edge_padding_low", "edge_padding_high", "interior_padding"}},
            {"slice", {"start_indices", "limit_indices", "strides"}},
            {"broadcast_in_dim", {"broadcast_dimensions"}},
            {"dynamic_broadcast_in_dim",
             {"broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"}},
            {"select_and_scatter", {"window_dimensions", "window_strides"}},
            {"reduce_window", {"window_dimensions", "window_strides", "base_dilations", "window_dilations"}},
            {"map", {"dimensions"}},
            {"reduce", {"dimensions"}},
            {"gather", {"slice_sizes"}},
            {"convolution", {"lhs_dilation", "rhs_dilation", "window_strides"}},
            {"dynamic_conv", {"lhs_dilation", "rhs_dilation", "window_strides"}},
        };
        auto it = m.find(base);
        return it != m.end() && it->second.count(name) > 0;
    }

    // A VHLO op (its current version) in place as its StableHLO op; `in_func`: directly in a
    // function's body (vhlo.return_v1 is then func.return).
    void convert_op(op& o, bool in_func) {
        const vhlo::op_info* vi = vhlo::find_op(o.name);
        if (!vi) {
            error(o.at, "unknown VHLO op '" + o.name + "'");
            return;
        }
        std::string vbase(vhlo::split_version(o.name).first); // vhlo.exponential
        if (vi->until != vhlo::current_version) {
            std::string cur;
            for (auto* x = vhlo::begin_ops(); x != vhlo::end_ops(); ++x)
                if (vhlo::split_version(x->name).first == vbase && x->until == vhlo::current_version) cur = x->name;
            error(o.at, "'" + o.name + "' is not the current version of its op (" + cur +
                            "): run --vhlo-to-version='target=" + vhlo::current_version.str() + "' first");
            return;
        }
        std::string base = vbase.substr(5);
        std::string sname = base == "call"     ? "func.call"
                            : base == "return" ? (in_func ? "func.return" : "stablehlo.return")
                                               : "stablehlo." + base;
        if (base == "func") {
            error(o.at, "vhlo.func_v1 inside a function");
            return;
        }
        std::vector<entry> es;
        for (auto& [k, a] : o.attrs) {
            entry e;
            e.name = k;
            e.a = a;
            if (is_vhlo_attr(a)) {
                std::string why;
                if (!read_vnode(a, e.v, why)) {
                    error(a.at.line ? a.at : o.at, "attribute '" + k + "' of " + o.name + ": " + why);
                    continue;
                }
                e.is_v = true;
            }
            es.push_back(std::move(e));
        }
        // defaults: exactly those stablehlo-legalize-to-vhlo added, else all equal to their default
        std::vector<entry> kept;
        for (auto& e : es) {
            bool drop = o.vhlo_defaults ? std::find(o.vhlo_defaults->begin(), o.vhlo_defaults->end(), e.name) !=
                                              o.vhlo_defaults->end()
                                        : e.is_v && is_default(base, e.name, e.v, es);
            if (!drop) kept.push_back(e);
        }
        // groups, each at the place of its first member
        auto groups = groups_of(base);
        std::vector<std::pair<std::string, attr>> out;
        std::vector<bool> done(groups.size(), false);
        for (auto& e : kept) {
            int gi = -1;
            for (std::size_t g = 0; g < groups.size(); ++g)
                for (const char* m : groups[g].members)
                    if (e.name == m) gi = static_cast<int>(g);
            if (gi >= 0) {
                auto g = static_cast<std::size_t>(gi);
                if (done[g]) continue;
                done[g] = true;
                std::map<std::string, const vnode*> mem;
                std::vector<std::string> order;
                for (auto& x : kept)
                    for (const char* m : groups[g].members)
                        if (x.name == m && x.is_v) {
                            mem[m] = &x.v;
                            order.push_back(m);
                        }
                for (auto& n : order) // the channel handle's fields are named handle and type
                    n = n == "channel_id" ? "handle" : n == "channel_type" ? "type" : n;
                attr a;
                std::string why;
                if (!implode(base, groups[g], mem, a, why, e.a.at, o.vhlo_defaults ? &order : nullptr))
                    error(o.at, o.name + ": " + why);
                else if (a.k != attr::kind::none)
                    out.emplace_back(groups[g].into, std::move(a));
                continue;
            }
            if (!e.is_v) { // another dialect's attribute: kept as it is
                out.emplace_back(e.name, e.a);
                continue;
            }
            if (const attr* w = written_form(o, e.name, e.a)) {
                out.emplace_back(e.name, *w);
                continue;
            }
            loc at = e.a.at;
            const vnode& v = e.v;
            static const std::set<std::string> collectives = {
                "all_gather",     "all_reduce",           "all_to_all",       "collective_permute",
                "reduce_scatter", "collective_broadcast", "collective_reduce"};
            if (e.name == "channel_id" && collectives.count(base)) {
                if (v.k != vnode::kind::integer) {
                    error(o.at, o.name + ": channel_id must be an integer");
                    continue;
                }
                out.emplace_back("channel_handle", channel_handle(v.i, 0, at));
                continue;
            }
            if (e.name == "use_global_device_ids" || (e.name == "has_dynamic_root" && collectives.count(base))) {
                if (v.k != vnode::kind::boolean) {
                    error(o.at, o.name + ": " + e.name + " must be a boolean");
                    continue;
                }
                if (v.b) { // a unit attribute when true, absent when false
                    attr u;
                    u.k = attr::kind::unit;
                    u.at = at;
                    out.emplace_back(e.name, u);
                }
                continue;
            }
            if ((e.name == "called_computations" && base == "custom_call") ||
                (e.name == "decomposition" && base == "composite") || (e.name == "callee" && base == "call")) {
                attr a = from_vnode(v, at);
                bool good = true;
                auto to_symbol = [&](attr& s) {
                    if (s.k != attr::kind::string) good = false;
                    s.k = attr::kind::symbol;
                };
                if (a.k == attr::kind::array)
                    for (auto& x : a.list)
                        to_symbol(x);
                else
                    to_symbol(a);
                if (!good) error(o.at, o.name + ": " + e.name + " must name functions with #vhlo.string_v1");
                out.emplace_back(e.name, a);
                continue;
            }
            if (is_i64_array(base, e.name) ||
                (e.name == "window_reversal" && (base == "convolution" || base == "dynamic_conv"))) {
                bool bools = e.name == "window_reversal";
                std::vector<std::int64_t> xs;
                if (!tensor_ints(v, xs, bools ? "i1" : "i64") || v.data.t.dims.size() != 1) {
                    error(o.at, o.name + ": " + e.name + " must be a 1-d tensor of " + (bools ? "i1" : "i64"));
                    continue;
                }
                attr a = i64_array(xs, at);
                if (bools) {
                    a.t.elem = "i1";
                    for (auto& x : a.list) {
                        x.k = attr::kind::boolean;
                        x.b = x.i != 0;
                    }
                }
                out.emplace_back(e.name, a);
                continue;
            }
            out.emplace_back(e.name, from_vnode(v, at));
        }
        o.attrs = std::move(out);
        o.vhlo_defaults.reset();
        o.vhlo_written.clear();
        o.name = sname;
        if (sname == "func.call") { // the callee as the printer writes it for a call: last
            if (auto* c = o.get("callee"); c && c->k == attr::kind::symbol) o.callee = c->s;
            if (!o.attrs.empty() && o.attrs.back().first == "callee") o.attrs.pop_back();
        }
        if (sname == "stablehlo.custom_call")
            if (auto* c = o.get("call_target_name"); c && c->k == attr::kind::string) o.callee = c->s;
    }

    // Every VHLO op of a region, every VHLO type; casts made identities by that removed after.
    void convert_region(region& r, bool in_func) {
        for (auto& b : r.blocks) {
            for (std::size_t k = 0; k < b.arg_types.size(); ++k)
                convert_type(b.arg_types[k], k < b.arg_locs.size() ? b.arg_locs[k] : loc{});
            for (auto& op_ptr : b.ops) {
                op& o = *op_ptr;
                if (o.name.rfind("vhlo.", 0) == 0) convert_op(o, in_func);
                for (std::size_t k = 0; k < o.operand_types.size(); ++k)
                    convert_type(o.operand_types[k], k < o.operands.size() ? o.operands[k].at : o.at);
                for (auto& t : o.result_types)
                    convert_type(t, o.at);
                for (auto& g : o.regions)
                    convert_region(g, false);
            }
        }
    }

    // The casts allow-other-dialects put between VHLO and other ops are identities now: their
    // uses read the value itself again.
    static void drop_identity_casts(region& body, region& r) {
        for (auto& b : r.blocks) {
            for (std::size_t i = 0; i < b.ops.size();) {
                op& o = *b.ops[i];
                if (o.name == "builtin.unrealized_conversion_cast" && o.operands.size() == 1 && o.results.size() == 1 &&
                    o.operand_types.size() == 1 && o.result_types.size() == 1 &&
                    o.operand_types[0] == o.result_types[0]) {
                    std::string from = o.results[0], to = o.operands[0].name;
                    type t = o.result_types[0];
                    b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
                    replace_uses(body, from, to, t);
                    continue;
                }
                for (auto& g : o.regions)
                    drop_identity_casts(body, g);
                ++i;
            }
        }
    }

    // vhlo.func_v1 as func.func.
    bool convert_func(op& o, func& f) {
        f.at = o.at;
        std::vector<entry> es;
        for (auto& [k, a] : o.attrs) {
            entry e;
            e.name = k;
            e.a = a;
            if (is_vhlo_attr(a)) {
                std::string why;
                if (!read_vnode(a, e.v, why)) {
                    error(a.at.line ? a.at : o.at, "attribute '" + k + "' of vhlo.func_v1: " + why);
                    return false;
                }
                e.is_v = true;
            }
            es.push_back(std::move(e));
        }
        const vnode *name = nullptr, *fty = nullptr, *vis = nullptr, *args = nullptr, *res = nullptr;
        for (auto& e : es) {
            if (!e.is_v) continue;
            if (e.name == "sym_name") name = &e.v;
            if (e.name == "function_type") fty = &e.v;
            if (e.name == "sym_visibility") vis = &e.v;
            if (e.name == "arg_attrs") args = &e.v;
            if (e.name == "res_attrs") res = &e.v;
        }
        if (!name || name->k != vnode::kind::string || !fty || fty->k != vnode::kind::type || !fty->is_fn) {
            error(o.at, "vhlo.func_v1 needs sym_name = #vhlo.string_v1<...> and function_type = "
                        "#vhlo.type_v1<!vhlo.func_v1<...>>");
            return false;
        }
        if (o.regions.size() != 1 || o.regions[0].blocks.size() != 1) {
            error(o.at, "vhlo.func_v1 @" + name->s + " needs a body of one block");
            return false;
        }
        f.name = name->s;
        f.visibility = vis && vis->k == vnode::kind::string ? vis->s : "";
        block& b = o.regions[0].blocks[0];
        if (b.arg_types.size() != fty->fn_in.size()) {
            error(o.at, "vhlo.func_v1 @" + f.name + ": " + std::to_string(b.arg_types.size()) +
                            " block arguments for a function type of " + std::to_string(fty->fn_in.size()) + " inputs");
            return false;
        }
        auto dict_attrs = [&](const vnode* arr, std::size_t n, const char* what,
                              std::vector<std::vector<std::pair<std::string, attr>>>& out) {
            out.assign(n, {});
            if (!arr) return true;
            if (arr->k != vnode::kind::array || (!arr->list.empty() && arr->list.size() != n)) {
                error(o.at, "vhlo.func_v1 @" + f.name + ": " + what + " must hold one dictionary per " +
                                (std::string(what) == "arg_attrs" ? "argument" : "result"));
                return false;
            }
            for (std::size_t i = 0; i < arr->list.size(); ++i) {
                const vnode& d = arr->list[i];
                if (d.k != vnode::kind::dict) {
                    error(o.at, "vhlo.func_v1 @" + f.name + ": " + what + " must hold dictionaries");
                    return false;
                }
                for (std::size_t j = 0; j < d.list.size() && j < d.keys.size(); ++j) {
                    const attr* w = written_form(o, std::string(what) + "/" + std::to_string(i) + "/" + d.keys[j],
                                                 vattr(d.list[j]));
                    out[i].emplace_back(d.keys[j], w ? *w : from_vnode(d.list[j], o.at));
                }
            }
            return true;
        };
        std::vector<std::vector<std::pair<std::string, attr>>> arg_attrs;
        if (!dict_attrs(args, fty->fn_in.size(), "arg_attrs", arg_attrs) ||
            !dict_attrs(res, fty->fn_out.size(), "res_attrs", f.result_attrs))
            return false;
        f.results = fty->fn_out;
        for (auto& e : es) { // the function's own attributes
            static const std::set<std::string> inherent = {"sym_name", "function_type", "sym_visibility", "arg_attrs",
                                                           "res_attrs"};
            if (inherent.count(e.name)) continue;
            const attr* w = e.is_v ? written_form(o, e.name, e.a) : nullptr;
            f.attrs.emplace_back(e.name, w ? *w : e.is_v ? from_vnode(e.v, e.a.at) : e.a);
        }
        f.body = std::move(o.regions[0]);
        convert_region(f.body, true);
        block& fb = f.body.blocks[0];
        for (std::size_t k = 0; k < fb.arg_names.size(); ++k) {
            func_arg a;
            a.name = fb.arg_names[k];
            a.t = k < fb.arg_types.size() ? fb.arg_types[k] : type{};
            a.attrs = arg_attrs[k];
            a.at = k < fb.arg_locs.size() ? fb.arg_locs[k] : o.at;
            f.args.push_back(std::move(a));
        }
        drop_identity_casts(f.body, f.body);
        return ok;
    }
};

bool legalize_to_stablehlo(module& m, const options&, std::vector<diagnostic>& errs) {
    from_vhlo_pass p{errs};
    module c = clone(m);
    std::vector<func> funcs = std::move(c.funcs);
    std::vector<std::unique_ptr<op>> rest;
    for (auto& f : funcs) { // StableHLO functions may hold VHLO ops too
        p.convert_region(f.body, true);
        p.drop_identity_casts(f.body, f.body);
    }
    for (auto& o : c.ops) {
        if (o->name != "vhlo.func_v1") {
            rest.push_back(std::move(o));
            continue;
        }
        func f;
        if (p.convert_func(*o, f)) funcs.push_back(std::move(f));
    }
    if (!p.ok) return false;
    c.funcs = std::move(funcs);
    c.ops = std::move(rest);
    m = std::move(c);
    return true;
}

// The first StableHLO version with every VHLO attribute and type inside a VHLO attribute.
version vnode_since(const vnode& v) {
    version s = vhlo::minimum_version;
    switch (v.k) {
    case vnode::kind::structure:
        s = structs_since;
        [[fallthrough]];
    case vnode::kind::array:
    case vnode::kind::dict:
        for (auto& e : v.list)
            s = std::max(s, vnode_since(e));
        break;
    case vnode::kind::integer:
    case vnode::kind::floating:
        s = type_since(v.t);
        break;
    case vnode::kind::tensor:
        s = type_since(v.data.t);
        break;
    case vnode::kind::type:
        if (v.is_fn) {
            for (auto& t : v.fn_in)
                s = std::max(s, type_since(t));
            for (auto& t : v.fn_out)
                s = std::max(s, type_since(t));
        } else {
            s = type_since(v.t);
        }
        break;
    case vnode::kind::enumeration:
        if (const enum_info* e = vhlo_enum(v.s)) s = e->since;
        break;
    case vnode::kind::accuracy:
        s = version{1, 9, 0}; // #vhlo.result_accuracy_v1 and its mode appeared in 1.9.0
        break;
    case vnode::kind::boolean:
    case vnode::kind::string:
    case vnode::kind::alias:
        break;
    }
    return s;
}

struct to_version_pass {
    version target;
    std::vector<diagnostic>& errs;
    bool ok = true;

    void error(loc at, const std::string& text) {
        errs.push_back({at, "vhlo-to-version: " + text});
        ok = false;
    }

    // The versions of one op, oldest first.
    static std::vector<const vhlo::op_info*> family(std::string_view base) {
        std::vector<const vhlo::op_info*> f;
        for (auto* o = vhlo::begin_ops(); o != vhlo::end_ops(); ++o)
            if (vhlo::split_version(o->name).first == base) f.push_back(o);
        std::sort(f.begin(), f.end(), [](auto* a, auto* b) {
            return vhlo::split_version(a->name).second < vhlo::split_version(b->name).second;
        });
        return f;
    }
    static std::string range(const vhlo::op_info& o) {
        return o.since.str() + " to " + o.until.str() + (o.until == vhlo::current_version ? " (current)" : "");
    }

    static const attr* get(const op& o, const char* k) { return o.get(k); }
    static bool read(const op& o, const char* k, vnode& v) {
        std::string why;
        const attr* a = o.get(k);
        return a && read_vnode(*a, v, why);
    }
    static void drop(op& o, const std::string& k) {
        o.attrs.erase(std::remove_if(o.attrs.begin(), o.attrs.end(), [&](auto& kv) { return kv.first == k; }),
                      o.attrs.end());
        if (o.vhlo_defaults) {
            auto& d = *o.vhlo_defaults;
            d.erase(std::remove(d.begin(), d.end(), k), d.end());
        }
    }
    // An attribute an upgrade adds with its default value (a default of the round trip too).
    static void add(op& o, const std::string& k, const vnode& v) {
        if (o.get(k)) return;
        o.attrs.emplace_back(k, vattr(v, o.at));
        if (o.vhlo_defaults) o.vhlo_defaults->push_back(k);
    }

    // One step between neighbouring versions of an op (VhloToVersion.cpp and its patterns). Down:
    // false (why set) when the op uses what the older version cannot say.
    bool step(op& o, std::string_view vbase, bool up, std::string& why) {
        std::string base(vbase.substr(5));
        auto needs_absent_or = [&](const char* k, auto pred, const std::string& what) {
            vnode v;
            if (!get(o, k)) return true;
            if (read(o, k, v) && pred(v)) {
                drop(o, k);
                return true;
            }
            why = what;
            return false;
        };
        auto single_operand = [&] {
            if (o.operands.size() == 1 && o.results.size() == 1) return true;
            why = "it has " + std::to_string(o.operands.size()) + " operands (the older version takes one)";
            return false;
        };
        if (has_result_accuracy(base)) {
            if (up) {
                add(o, "result_accuracy", vaccuracy_default());
                return true;
            }
            return needs_absent_or("result_accuracy", is_default_accuracy, "its result_accuracy is not the default");
        }
        if (base == "all_gather" || base == "all_reduce" || base == "all_to_all") return up || single_operand();
        if (base == "collective_broadcast") {
            if (up) {
                add(o, "has_dynamic_root", vbool(false));
                return true;
            }
            return single_operand() &&
                   needs_absent_or(
                       "has_dynamic_root", [](const vnode& v) { return v.k == vnode::kind::boolean && !v.b; },
                       "it has a dynamic root");
        }
        if (base == "composite") {
            if (up || o.regions.empty()) return true;
            why = "it has regions";
            return false;
        }
        if (base == "custom_call") {
            if (up) {
                add(o, "result_tilings", varray());
                return true;
            }
            return needs_absent_or(
                "result_tilings", [](const vnode& v) { return v.k == vnode::kind::array && v.list.empty(); },
                "it has result_tilings");
        }
        if (base == "dot_general") {
            static const char* algo[] = {
                "lhs_precision_type",  "rhs_precision_type",       "accumulation_type",           "lhs_component_count",
                "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"};
            if (up) {
                for (const char* k : algo)
                    add(o, k, vtype_of("none"));
                return true;
            }
            for (const char* k : algo) {
                vnode v;
                if (get(o, k) && !(read(o, k, v) && is_none_type(v))) {
                    why = "it has a dot algorithm";
                    return false;
                }
            }
            for (const char* k : algo)
                drop(o, k);
            return true;
        }
        if (base == "dynamic_conv") { // v1 has a padding attribute besides the padding operand
            if (up) {
                drop(o, "padding");
                return true;
            }
            type lhs;
            std::string w;
            if (o.operand_types.empty() || !read_vtype(o.operand_types[0].text, lhs, w) ||
                lhs.k != type::kind::tensor || lhs.dims.size() < 2) {
                why = "its lhs is not a ranked tensor";
                return false;
            }
            auto n = static_cast<std::int64_t>(lhs.dims.size() - 2);
            add(o, "padding", vtensor(std::vector<std::int64_t>(static_cast<std::size_t>(2 * n), 0), {n, 2}));
            return true;
        }
        auto empty_pair = [&](const char* a, const char* b, const std::string& what) {
            if (up) {
                add(o, a, vi64s({}));
                add(o, b, vi64s({}));
                return true;
            }
            return needs_absent_or(a, is_empty_tensor, what) && needs_absent_or(b, is_empty_tensor, what);
        };
        if (base == "gather" || base == "dynamic_gather")
            return empty_pair("operand_batching_dims", "start_indices_batching_dims", "it has batching dimensions");
        if (base == "scatter")
            return empty_pair("input_batching_dims", "scatter_indices_batching_dims", "it has batching dimensions");
        if (base == "send" || base == "recv") {
            if (up) {
                add(o, "source_target_pairs", vi64s({}));
                return true;
            }
            return needs_absent_or("source_target_pairs", is_empty_tensor, "it has source_target_pairs");
        }
        why = "xlet-translate knows no conversion between its versions";
        return false;
    }

    // The element type of a VHLO tensor type's text ("" if none).
    static std::string elem_of(const type& t) {
        type b;
        std::string why;
        if (!is_vhlo_type(t) || !read_vtype(t.text, b, why)) return "";
        return b.k == type::kind::tensor || b.k == type::kind::scalar ? b.elem : "";
    }

    void convert_op(op& o) {
        const vhlo::op_info* vi = vhlo::find_op(o.name);
        if (!vi) {
            error(o.at, "unknown VHLO op '" + o.name + "'");
            return;
        }
        auto vbase = vhlo::split_version(o.name).first;
        auto fam = family(vbase);
        auto pos = static_cast<std::size_t>(std::find(fam.begin(), fam.end(), vi) - fam.begin());
        std::string original = o.name;
        if (target < fam.front()->since) {
            std::string ranges;
            for (auto* f : fam)
                ranges += (ranges.empty() ? "" : ", ") + std::string(f->name) + " in " + range(*f);
            error(o.at, "'" + original + "' cannot be converted to version " + target.str() + ": the op exists from " +
                            fam.front()->since.str() + " on: " + ranges);
            return;
        }
        while (!(fam[pos]->since <= target && target <= fam[pos]->until)) {
            bool up = fam[pos]->until < target;
            std::size_t next = up ? pos + 1 : pos - 1;
            if ((up && next >= fam.size()) || (!up && pos == 0)) {
                error(o.at, "'" + o.name + "' has no version for " + target.str());
                return;
            }
            std::string why;
            if (!step(o, vbase, up, why)) {
                error(o.at, "'" + original + "' cannot be " + (up ? "converted" : "downgraded") + " to " +
                                std::string(fam[next]->name) + " (" + range(*fam[next]) + ") for version " +
                                target.str() + ": " + why);
                return;
            }
            pos = next;
            o.name = std::string(fam[pos]->name);
        }
        // constraints a version of an op puts beyond its attributes (VhloOps.cpp)
        if (o.name == "vhlo.custom_call_v1" && target < version{1, 3, 0}) {
            vnode bc, api;
            bool dict = read(o, "backend_config", bc) && bc.k == vnode::kind::dict;
            bool ffi = read(o, "api_version", api) && api.word == "API_VERSION_TYPED_FFI";
            if (dict || ffi)
                error(o.at, "'" + o.name + "' with " + (ffi ? "API_VERSION_TYPED_FFI" : "a dictionary backend_config") +
                                " needs version 1.3.0, target is " + target.str());
        }
        if (vhlo::split_version(o.name).first == "vhlo.custom_call" && target < version{1, 17, 0})
            for (auto& t : o.operand_types) {
                type b;
                std::string why;
                if (is_vhlo_type(t) && read_vtype(t.text, b, why) && is_future(b)) {
                    error(o.at, "'" + o.name + "' with an operand of type " + t.text +
                                    " needs version 1.17.0, target is " + target.str());
                    break;
                }
            }
        static const std::set<std::string> reductions = {"vhlo.all_reduce_v1",     "vhlo.reduce_v1",
                                                         "vhlo.reduce_scatter_v1", "vhlo.reduce_window_v1",
                                                         "vhlo.scatter_v1",        "vhlo.select_and_scatter_v1"};
        if (reductions.count(o.name) && target < version{0, 17, 0})
            for (std::size_t k = 0; k < o.operand_types.size() && k < o.result_types.size(); ++k)
                if (elem_of(o.operand_types[k]) != elem_of(o.result_types[k])) {
                    error(o.at, "'" + o.name +
                                    "' with results of other element types than its operands needs "
                                    "version 0.17.0, target is " +
                                    target.str());
                    break;
                }
        // attributes and types, each with the version it appeared in
        for (auto& [k, a] : o.attrs) {
            if (!is_vhlo_attr(a)) continue; // another dialect's: not VHLO's to check
            vnode v;
            std::string why;
            if (!read_vnode(a, v, why)) {
                error(a.at.line ? a.at : o.at, "attribute '" + k + "' of " + o.name + ": " + why);
                continue;
            }
            version s = vnode_since(v);
            if (target < s)
                error(a.at.line ? a.at : o.at, "attribute '" + k + "' of " + o.name + " (" + attr_str(a) +
                                                   ") needs version " + s.str() + ", target is " + target.str());
        }
        auto check_type = [&](const type& t, loc at) {
            if (!is_vhlo_type(t)) return;
            type b;
            std::string why;
            if (!read_vtype(t.text, b, why)) {
                error(at, o.name + ": " + why);
                return;
            }
            version s = type_since(b);
            if (target < s)
                error(at,
                      "type " + t.text + " of " + o.name + " needs version " + s.str() + ", target is " + target.str());
        };
        for (auto& t : o.operand_types)
            check_type(t, o.at);
        for (auto& t : o.result_types)
            check_type(t, o.at);
        for (auto& r : o.regions)
            for (auto& b : r.blocks)
                for (std::size_t k = 0; k < b.arg_types.size(); ++k)
                    check_type(b.arg_types[k], k < b.arg_locs.size() ? b.arg_locs[k] : o.at);
    }

    void walk(region& r) {
        for (auto& b : r.blocks)
            for (auto& op_ptr : b.ops) {
                if (op_ptr->name.rfind("vhlo.", 0) == 0) convert_op(*op_ptr);
                for (auto& g : op_ptr->regions)
                    walk(g);
            }
    }
};

bool vhlo_to_version(module& m, const options& opt, std::vector<diagnostic>& errs) {
    std::optional<version> target =
        target_version(opt, "vhlo-to-version", "no target version specified; target version must be of the form #.#.#",
                       "invalid target version argument '", "'; target version must be of the form #.#.#", errs);
    if (!target) return false;
    target->patch = 0; // opset changes bump the minor version: X.Y.Z converts as X.Y.0
    to_version_pass p{*target, errs};
    module c = clone(m);
    for (auto& o : c.ops) {
        if (o->name.rfind("vhlo.", 0) == 0) p.convert_op(*o);
        for (auto& g : o->regions)
            p.walk(g);
    }
    for (auto& f : c.funcs)
        p.walk(f.body);
    if (!p.ok) return false;
    m = std::move(c);
    return true;
}

// ---- stablehlo-compatibility-expander: #stablehlo.replica_group_mesh_axes -----------------------

// A dictionary of a struct's parameters as that struct ({axes = [{name = "x", size = 2 : i64}]}
// as a mesh_v1: how an sdy.mesh op may hold its mesh).
bool dict_as_struct(const vnode& d, std::string_view name, vnode& out, std::string& why) {
    const std::string what = "the mesh dictionary";
    if (d.k != vnode::kind::dict) {
        why = what + ": expected a dictionary";
        return false;
    }
    for (auto& k : d.keys) {
        const auto& ps = vhlo_struct(name)->params;
        if (std::none_of(ps.begin(), ps.end(), [&](auto& p) { return p.name == k; })) {
            why = "unexpected entry '" + k + "' in " + what;
            return false;
        }
    }
    std::string inner;
    auto get = [&](const struct_param& p) -> std::optional<vnode> {
        const vnode* x = param(d, p.name);
        if (!x) return std::nullopt;
        vnode v = *x;
        std::string_view elem = p.spec.size() > 2 && p.spec[0] == '[' ? p.spec.substr(1, p.spec.size() - 2) : "";
        if (v.k == vnode::kind::array && vhlo_struct(elem))
            for (auto& e : v.list)
                if (!dict_as_struct(vnode(e), elem, e, inner)) {
                    why = inner;
                    return std::nullopt;
                }
        return v;
    };
    return make_struct(name, what, get, out, why);
}

// The mesh of a symbol: the `mesh` or `stablehlo.mesh` attribute of the module-level op of that
// sym_name (a #stablehlo.mesh or a dictionary of its parameters), as upstream looks it up.
bool find_mesh(const module& m, const std::string& name, vnode& out, std::string& why) {
    for (auto& o : m.ops) {
        const attr* sym = o->get("sym_name");
        if (!sym || sym->k != attr::kind::string || sym->s != name) continue;
        for (const char* k : {"mesh", "stablehlo.mesh"}) {
            const attr* a = o->get(k);
            vnode v;
            if (!a || !(a->k == attr::kind::dict || (a->k == attr::kind::dialect && a->s == "stablehlo.mesh")))
                continue;
            if (!to_vnode(*a, v, why)) return false;
            if (v.k == vnode::kind::dict) return dict_as_struct(v, "mesh_v1", out, why);
            out = std::move(v);
            return true;
        }
        why = "failed to find mesh attribute on symbol @" + name;
        return false;
    }
    why = "failed to find mesh symbol @" + name;
    return false;
}

// upstream's flattenReplicaGroupMeshAxes: the devices of the mesh (its device_ids, else 0, 1, ...)
// in row-major order over the axes, transposed to the axes not communicated over followed by the
// communication axes (in their order), cut into groups of the communication axes' product.
bool flatten_mesh_axes(const vnode& mesh, const vnode& axes, std::vector<std::vector<std::int64_t>>& groups,
                       std::string& why) {
    std::vector<std::string> names;
    std::vector<std::int64_t> sizes, ids;
    std::int64_t total = 1;
    for (auto& a : param(mesh, "axes")->list) {
        const std::string& n = param(a, "name")->s;
        std::int64_t size = param(a, "size")->i;
        if (size < 1 || std::count(names.begin(), names.end(), n) || total > (std::int64_t{1} << 20) / size) {
            why = size < 1                                    ? "mesh axis '" + n + "' of size " + std::to_string(size)
                  : std::count(names.begin(), names.end(), n) ? "mesh axis '" + n + "' given twice"
                                                              : "a mesh of more than 2^20 devices";
            return false;
        }
        names.push_back(n);
        sizes.push_back(size);
        total *= size;
    }
    if (const vnode* d = param(mesh, "device_ids"); d && num_elements(d->data.t) != 0) {
        if (!tensor_ints(*d, ids) || static_cast<std::int64_t>(ids.size()) != total) {
            why = "the mesh's device_ids are not one id per device (" + std::to_string(total) + ")";
            return false;
        }
    } else {
        for (std::int64_t i = 0; i < total; ++i)
            ids.push_back(i);
    }
    std::vector<std::size_t> perm, comm; // the mesh's axes in the transposed order; the communication axes
    for (auto& a : axes.list) {
        const std::string& n = param(a, "name")->s;
        auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
        if (param(a, "sub_axis_info") || at == names.size() || std::count(comm.begin(), comm.end(), at)) {
            why = param(a, "sub_axis_info") ? "sub-axes are not supported (axis '" + n + "')"
                  : at == names.size()      ? "axis '" + n + "' is not an axis of the mesh"
                                            : "axis '" + n + "' given twice";
            return false;
        }
        comm.push_back(at);
    }
    std::int64_t per_group = 1;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (!std::count(comm.begin(), comm.end(), i)) perm.push_back(i);
    for (auto c : comm) {
        perm.push_back(c);
        per_group *= sizes[c];
    }
    std::vector<std::int64_t> stride(names.size(), 1); // of the mesh, row-major
    for (std::size_t i = names.size(); i-- > 1;)
        stride[i - 1] = stride[i] * sizes[i];
    groups.assign(static_cast<std::size_t>(total / per_group), {});
    for (std::int64_t lin = 0; lin < total; ++lin) {
        std::int64_t rest = lin, index = 0;
        for (std::size_t k = perm.size(); k-- > 0;) { // the transposed coordinates, last first
            index += rest % sizes[perm[k]] * stride[perm[k]];
            rest /= sizes[perm[k]];
        }
        groups[static_cast<std::size_t>(lin / per_group)].push_back(ids[static_cast<std::size_t>(index)]);
    }
    return true;
}

// Every replica_groups = #stablehlo.replica_group_mesh_axes<...> as dense replica groups (upstream's
// ReplicaGroupMeshAxesExpander, for targets before 1.16.0); the attribute read as VHLO reads it.
bool expand_mesh_axes(module& m, std::vector<diagnostic>& errs) {
    bool ok = true;
    auto visit = [&](op& o) {
        attr* rg = o.get("replica_groups");
        if (!rg || rg->k != attr::kind::dialect || rg->s != "stablehlo.replica_group_mesh_axes") return;
        vnode v, resolved;
        std::string why;
        std::vector<std::vector<std::int64_t>> groups;
        bool good = to_vnode(*rg, v, why);
        const vnode* mesh = good ? param(v, "mesh") : nullptr;
        if (good && mesh->k == vnode::kind::string) {
            good = find_mesh(m, mesh->s, resolved, why);
            mesh = &resolved;
        }
        if (!good || !flatten_mesh_axes(*mesh, *param(v, "axes"), groups, why)) {
            errs.push_back({rg->at.line ? rg->at : o.at,
                            "stablehlo-compatibility-expander: replica_groups of " + o.name + ": " + why});
            ok = false;
            return;
        }
        std::vector<std::int64_t> flat;
        for (auto& g : groups)
            flat.insert(flat.end(), g.begin(), g.end());
        auto n = static_cast<std::int64_t>(groups.size());
        loc at = rg->at;
        *rg = dense_ints(flat, tensor_type({n, n ? static_cast<std::int64_t>(groups[0].size()) : 0}, "i64"));
        rg->at = at;
    };
    for (auto& f : m.funcs)
        walk_ops(f.body, visit);
    return ok;
}

// ---- the quantization passes (pass_quant.cpp) -----------------------------------------------------

// stablehlo-legalize-qdq-to-quantized-op, stablehlo-legalize-quantized-op-to-qdq and
// stablehlo-legalize-quant-to-math over the module: each op rewritten by pass_quant.cpp, the uses of
// the results it moved renamed, and after quant-to-math every quantized type (function signatures,
// block arguments, the ops kept) its storage type. On an error the module is left as it was.
bool quant_pass(module& m, const std::string& pass, std::vector<diagnostic>& errs) {
    module w = clone(m);
    bool ok = true;
    if (pass == "stablehlo-legalize-qdq-to-quantized-op") {
        for (auto& f : w.funcs) {
            namer fresh(f);
            quant_fuse_qdq(f, [&](const std::string& base) { return fresh(base); });
        }
        m = std::move(w);
        return true;
    }
    const bool math = pass == "stablehlo-legalize-quant-to-math";
    std::vector<std::pair<std::string, std::string>> renames;
    auto retype_all = [](func& f) {
        for (auto& a : f.args)
            quant_storage_types(a.t);
        for (auto& t : f.results)
            quant_storage_types(t);
        walk_ops(f.body, [](op& o) {
            for (auto& t : o.operand_types)
                quant_storage_types(t);
            for (auto& t : o.result_types)
                quant_storage_types(t);
            for (auto& [k, a] : o.attrs)
                if (a.k == attr::kind::dense || a.k == attr::kind::type_attr) quant_storage_types(a.t);
            for (auto& g : o.regions)
                for (auto& b : g.blocks)
                    for (auto& t : b.arg_types)
                        quant_storage_types(t);
        });
    };
    expand_ops(
        w,
        [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
            quant_rewrite r;
            std::string why;
            fresh_name name = [&](const std::string& base) { return fresh(base); };
            bool done = math ? quant_op_to_math(o, name, r, why) : quant_op_to_qdq(o, name, r);
            if (!why.empty()) {
                errs.push_back({o.at, pass + ": " + why});
                ok = false;
            }
            if (!done) return false;
            seq = std::move(r.seq);
            renames.insert(renames.end(), r.renames.begin(), r.renames.end());
            return true;
        },
        [&](func& f, namer&) {
            for (auto& rename : renames) // (a lambda of Clang 14 cannot capture a structured binding)
                walk_ops(f.body, [&](op& o) {
                    for (auto& v : o.operands)
                        if (v.name == rename.first) v.name = rename.second;
                });
            renames.clear();
            if (math) retype_all(f);
        });
    if (!ok) return false;
    m = std::move(w);
    return true;
}

bool not_applicable(const std::string& name, const std::string& why, std::vector<diagnostic>& errs) {
    errs.push_back({{}, name + ": " + why});
    return false;
}

} // namespace

const std::vector<pass_info>& known_passes() {
    static const std::vector<pass_info> p = {
        {"chlo-legalize-to-stablehlo", "CHLO broadcasting ops and closed-form math ops to StableHLO", ""},
        {"shape-legalize-to-stablehlo",
         "shape, tensor and index arith computations to StableHLO on i32, behind unrealized casts",
         "reconcile-casts=true|false"},
        {"stablehlo-canonicalize-dynamism", "dynamic ops with constant shape operands to their static forms", ""},
        {"stablehlo-compatibility-expander",
         "ops newer than the target version decomposed (tan, batching dims, mesh-axes replica groups)", "target=#.#.#"},
        {"stablehlo-complex-math-expander", "complex exp, log, log_plus_one, sqrt in real arithmetic", ""},
        {"stablehlo-convert-to-signless", "si/ui integer types to signless i", ""},
        {"stablehlo-legalize-composite-to-call", "composites replaced by calls of their decomposition", "except=names"},
        {"stablehlo-legalize-deprecated-ops", "deprecated ops (RFC #2283) to their supported equivalents",
         "fail-on-unused=true|false"},
        {"stablehlo-legalize-qdq-to-quantized-op",
         "dequantize -> float op -> quantize fused into the op on quantized values (nothing deleted)", ""},
        {"stablehlo-legalize-quant-to-math",
         "quantized ops to integer and float arithmetic on the storage types (no quantized type left)", ""},
        {"stablehlo-legalize-quantized-op-to-qdq", "quantized ops to dequantize -> float op -> quantize", ""},
        {"stablehlo-legalize-to-vhlo",
         "StableHLO to VHLO 1.20.0: vhlo.*_vN ops, VHLO types and attributes, every default spelled out; "
         "ops of other dialects kept behind unrealized casts with allow-other-dialects",
         "allow-other-dialects=true|false"},
        {"stablehlo-refine-arguments", "main's argument types refined; uses wrapped until refine-shapes",
         "types=<type list>"},
        {"stablehlo-refine-shapes", "static shapes propagated through the program, shape computations folded", ""},
        {"stablehlo-wrap-in-composite", "selected ops wrapped in composites with a private <op>.impl",
         "op-names=... version=N"},
        {"vhlo-legalize-to-stablehlo",
         "VHLO (its current version) back to StableHLO and func; defaults dropped, casts reconciled", ""},
        {"vhlo-to-version",
         "VHLO ops up- or downgraded to their version at the target StableHLO version (0.9.0 to 1.20.0)",
         "target=#.#.#"}};
    return p;
}

bool run_pass(module& m, const std::string& name, const std::string& text, std::vector<diagnostic>& errors) {
    options opt;
    std::string why;
    if (!parse_options(text, opt, why)) {
        errors.push_back({{}, name + ": " + why});
        return false;
    }
    if (name == "stablehlo-refine-arguments") return refine_arguments(m, opt, errors);
    if (name == "stablehlo-refine-shapes") return refine_shapes(m, opt, errors);
    if (name == "stablehlo-canonicalize-dynamism") return canonicalize_dynamism(m, opt, errors);
    if (name == "stablehlo-legalize-composite-to-call") return composite_to_call(m, opt, errors);
    if (name == "stablehlo-wrap-in-composite") return wrap_in_composite(m, opt, errors);
    if (name == "stablehlo-legalize-deprecated-ops") return legalize_deprecated(m, opt, errors);
    if (name == "stablehlo-convert-to-signless") return convert_to_signless(m, opt, errors);
    if (name == "stablehlo-compatibility-expander") return compatibility_expander(m, opt, errors);
    if (name == "stablehlo-complex-math-expander") return complex_math_expander(m, opt, errors);
    if (name == "chlo-legalize-to-stablehlo") return chlo_legalize(m, opt, errors);
    if (name == "stablehlo-legalize-to-vhlo") return legalize_to_vhlo(m, opt, errors);
    if (name == "vhlo-legalize-to-stablehlo") return legalize_to_stablehlo(m, opt, errors);
    if (name == "vhlo-to-version") return vhlo_to_version(m, opt, errors);
    if (name == "shape-legalize-to-stablehlo") return shape_legalize_to_stablehlo(m, opt, errors);
    if (name == "stablehlo-legalize-qdq-to-quantized-op" || name == "stablehlo-legalize-quant-to-math" ||
        name == "stablehlo-legalize-quantized-op-to-qdq")
        return quant_pass(m, name, errors);
    for (auto& p : known_passes())
        if (p.name == name) return not_applicable(name, "not implemented yet (docs/passes.md)", errors);
    errors.push_back({{}, "unknown pass --" + name});
    return false;
}

} // namespace xlt
