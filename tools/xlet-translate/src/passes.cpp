// The seed's passes on xlet-translate's IR. Each is a function over the module; they share a few
// helpers to make ops, rename uses and drop dead ops. Shape refinement is an abstract
// interpretation: every value gets a type (static where it can be) and, for small integer
// tensors (the shape computations of exported programs), its value.
#include "passes.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "attr_values.hpp"
#include "parser.hpp"

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

attr int_scalar(std::int64_t v, const char* ty = "i64") {
    attr a;
    a.k = attr::kind::integer;
    a.i = v;
    a.s = std::to_string(v);
    a.t.k = type::kind::scalar;
    a.t.elem = ty;
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
type tensor_of(std::vector<std::int64_t> dims, const std::string& elem) {
    type t;
    t.k = type::kind::tensor;
    t.dims = std::move(dims);
    t.elem = elem;
    return t;
}
attr string_attr(const std::string& s) {
    attr a;
    a.k = attr::kind::string;
    a.s = s;
    return a;
}
attr enum_attr(const std::string& kind, const std::string& value) {
    attr a;
    a.k = attr::kind::dialect;
    a.s = "stablehlo";
    a.raw = kind + " " + value;
    return a;
}
attr bool_attr(bool v) {
    attr a;
    a.k = attr::kind::boolean;
    a.b = v;
    return a;
}
attr symbol_attr(const std::string& s) {
    attr a;
    a.k = attr::kind::symbol;
    a.s = s;
    return a;
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
        type ct = tensor_of({static_cast<std::int64_t>(now.dims.size())}, "i64");
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
            for (std::size_t k = 0; k < o.results.size() && k < facts.size(); ++k) {
                o.result_types[k] = facts[k].t;
                env_.back()[o.results[k]] = facts[k];
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
        if (dyn_only_) return canonicalize_only(o, keep);
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
        canonicalize(o);
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

    std::vector<value_fact> canonicalize_only(op& o, std::vector<value_fact> keep) {
        // shape operands must be constants defined in the function for the static form
        canonicalize(o);
        for (std::size_t k = 0; k < keep.size(); ++k)
            keep[k].t = o.result_types[k];
        return keep;
    }

    // Dynamic ops whose shape operands are known become their static forms.
    void canonicalize(op& o) {
        const std::string& n = o.name;
        auto known = [&](std::size_t k) { return k < o.operands.size() && ints_of(o, k).has_value(); };
        auto set_result = [&](const std::vector<std::int64_t>& dims) {
            if (o.result_types[0].dims.size() == dims.size()) o.result_types[0].dims = dims;
        };
        if (n == "stablehlo.dynamic_broadcast_in_dim" && known(1)) {
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
            pa.t = tensor_of({static_cast<std::int64_t>(p.size() / 2), 2}, "i64");
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
                    args.push_back(tensor_of({}, t.elem));
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
                    args.push_back(tensor_of({}, t.elem));
                    args.push_back(tensor_of({}, t.elem));
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
                args.push_back(tensor_of({}, o.operand_types[k + i % k].elem));
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
                    if (version) o.set("version", int_scalar(version, "i32"));
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
                attr lc, rc;
                lc.k = rc.k = attr::kind::array;
                lc.list.push_back(int_scalar(static_cast<std::int64_t>(o.operand_types[0].dims.size()) - 1));
                rc.list.push_back(int_scalar(0));
                lc.list[0].t = rc.list[0].t = type{};
                lc.name = "lhs_contracting_dimensions";
                rc.name = "rhs_contracting_dimensions";
                dd.fields = {lc, rc};
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

void expand_ops(module& m, const expander& expand) {
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

// version "a.b.c" < "x.y.z"
bool version_less(const std::string& a, const std::string& b) {
    auto parts = [](const std::string& s) {
        std::vector<int> v;
        std::stringstream in(s);
        std::string p;
        while (std::getline(in, p, '.'))
            v.push_back(std::atoi(p.c_str()));
        v.resize(3);
        return v;
    };
    return parts(a) < parts(b);
}

bool compatibility_expander(module& m, const options& opt, std::vector<diagnostic>& errs) {
    auto it = opt.find("target");
    if (it == opt.end()) {
        errs.push_back({{}, "stablehlo-compatibility-expander: expected target=#.#.#"});
        return false;
    }
    std::string target = it->second;
    // stablehlo.tan entered the opset in StableHLO 1.4.0; older consumers get sine / cosine.
    if (!version_less(target, "1.4.0")) return true;
    expand_ops(m, [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
        if (o.name != "stablehlo.tan" || o.operands.size() != 1 || o.results.size() != 1) return false;
        builder b{fresh, seq, o.at};
        const type& t = o.operand_types[0];
        auto s = b.emit("stablehlo.sine", {o.operands[0]}, {t}, t);
        auto c = b.emit("stablehlo.cosine", {o.operands[0]}, {t}, t);
        b.emit("stablehlo.divide", {s, c}, {t, t}, t, o.results[0]);
        return true;
    });
    return true;
}

// Complex math in real arithmetic: exp, log, sqrt (the textbook formulas, with the branch cuts of
// the spec: log's imaginary part is atan2(im, re); sqrt's from the half-angle identities).
bool complex_math_expander(module& m, const options&, std::vector<diagnostic>&) {
    expand_ops(m, [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
        const std::string& n = o.name;
        if (o.operands.size() != 1 || o.results.size() != 1 || !is_complex_elem(o.operand_types[0].elem)) return false;
        if (n != "stablehlo.exponential" && n != "stablehlo.log" && n != "stablehlo.sqrt") return false;
        builder b{fresh, seq, o.at};
        type ct = o.operand_types[0];
        type rt = ct;
        rt.elem = ct.elem == "complex<f32>" ? "f32" : "f64";
        value_ref z = o.operands[0];
        auto re = b.emit("stablehlo.real", {z}, {ct}, rt);
        auto im = b.emit("stablehlo.imag", {z}, {ct}, rt);
        if (n == "stablehlo.exponential") {
            // exp(a + bi) = e^a (cos b + i sin b)
            auto ea = b.emit("stablehlo.exponential", {re}, {rt}, rt);
            auto cb = b.emit("stablehlo.cosine", {im}, {rt}, rt);
            auto sb = b.emit("stablehlo.sine", {im}, {rt}, rt);
            auto x = b.emit("stablehlo.multiply", {ea, cb}, {rt, rt}, rt);
            auto y = b.emit("stablehlo.multiply", {ea, sb}, {rt, rt}, rt);
            b.emit("stablehlo.complex", {x, y}, {rt, rt}, ct, o.results[0]);
        } else if (n == "stablehlo.log") {
            // log z = log|z| + i atan2(b, a)
            auto ab = b.emit("stablehlo.abs", {z}, {ct}, rt);
            auto l = b.emit("stablehlo.log", {ab}, {rt}, rt);
            auto ang = b.emit("stablehlo.atan2", {im, re}, {rt, rt}, rt);
            b.emit("stablehlo.complex", {l, ang}, {rt, rt}, ct, o.results[0]);
        } else {
            // t = sqrt((|a| + |z|) / 2); a >= 0: (t, b / 2t); a < 0: (|b| / 2t, copysign(t, b)); z = 0: 0
            auto half = b.constant("0.5", rt);
            auto two = b.constant("2.0", rt);
            auto zero = b.constant("0.0", rt);
            auto az = b.emit("stablehlo.abs", {z}, {ct}, rt);
            auto aa = b.emit("stablehlo.abs", {re}, {rt}, rt);
            auto sum = b.emit("stablehlo.add", {aa, az}, {rt, rt}, rt);
            auto hs = b.emit("stablehlo.multiply", {sum, half}, {rt, rt}, rt);
            auto t = b.emit("stablehlo.sqrt", {hs}, {rt}, rt);
            auto t2 = b.emit("stablehlo.multiply", {t, two}, {rt, rt}, rt);
            auto q = b.emit("stablehlo.divide", {im, t2}, {rt, rt}, rt);
            auto ab = b.emit("stablehlo.abs", {im}, {rt}, rt);
            auto qa = b.emit("stablehlo.divide", {ab, t2}, {rt, rt}, rt);
            type pt = rt;
            pt.elem = "i1";
            // the sign bit of b (so -0 counts as negative): bitcast to the integer of its width
            type it = rt;
            it.elem = rt.elem == "f32" ? "i32" : "i64";
            auto bits = b.emit("stablehlo.bitcast_convert", {im}, {rt}, it);
            std::string zi = fresh("zero");
            auto zo = make_op("stablehlo.constant", {}, {}, {zi}, {it}, o.at);
            zo->set("value", dense_float("0", it));
            seq.push_back(std::move(zo));
            auto neg_b = b.emit("stablehlo.compare", {bits, {zi, o.at}}, {it, it}, pt);
            b.last().set("comparison_direction", enum_attr("comparison_direction", "LT"));
            auto nt = b.emit("stablehlo.negate", {t}, {rt}, rt);
            auto st = b.emit("stablehlo.select", {neg_b, nt, t}, {pt, rt, rt}, rt);
            auto pos = b.emit("stablehlo.compare", {re, zero}, {rt, rt}, pt);
            b.last().set("comparison_direction", enum_attr("comparison_direction", "GE"));
            auto x = b.emit("stablehlo.select", {pos, t, qa}, {pt, rt, rt}, rt);
            auto y = b.emit("stablehlo.select", {pos, q, st}, {pt, rt, rt}, rt);
            auto isz = b.emit("stablehlo.compare", {az, zero}, {rt, rt}, pt);
            b.last().set("comparison_direction", enum_attr("comparison_direction", "EQ"));
            auto x0 = b.emit("stablehlo.select", {isz, zero, x}, {pt, rt, rt}, rt);
            auto y0 = b.emit("stablehlo.select", {isz, im, y}, {pt, rt, rt}, rt);
            b.emit("stablehlo.complex", {x0, y0}, {rt, rt}, ct, o.results[0]);
        }
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
        {"chlo.broadcast_select", "stablehlo.select"}};
    bool ok = true;
    expand_ops(m, [&](op& o, namer& fresh, std::vector<std::unique_ptr<op>>& seq) {
        const std::string& n = o.name;
        if (n.rfind("chlo.", 0) != 0 || o.results.empty() || o.operands.empty()) return false;
        if (bin.count(n) && o.operands.size() != (n == "chlo.broadcast_select" ? 3u : 2u)) return false;
        if (!bin.count(n) && (o.operands.size() != 1 || o.results.size() != (n == "chlo.top_k" ? 2u : 1u)))
            return false;
        if (n == "chlo.top_k" && o.operand_types[0].dims.empty()) return false;
        builder b{fresh, seq, o.at};
        if (auto it = bin.find(n); it != bin.end()) {
            const type& rt = o.result_types[0];
            if (!rt.is_static()) {
                errs.push_back(
                    {o.at, "chlo-legalize-to-stablehlo: " + n + " on dynamic shapes (refine the shapes first)"});
                ok = false;
                return false;
            }
            std::vector<value_ref> args;
            std::vector<type> types;
            std::vector<std::int64_t> bd = int_list(o.get("broadcast_dimensions"));
            for (std::size_t k = 0; k < o.operands.size(); ++k) {
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
            seq.push_back(std::move(r));
            return true;
        }
        const type& t = o.operand_types.empty() ? o.result_types[0] : o.operand_types[0];
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
            auto inf = b.constant(n == "chlo.is_neg_inf" ? (elem_bits(t.elem) == 64   ? "0xFFF0000000000000"
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
            // sinh x = (expm1(x) - expm1(-x)) / 2 (accurate near 0); cosh x = (e^x + e^-x) / 2
            auto half = b.constant("0.5", t);
            auto nx = b.emit("stablehlo.negate", {x}, {t}, t);
            const char* f = n == "chlo.sinh" ? "stablehlo.exponential_minus_one" : "stablehlo.exponential";
            auto a = b.emit(f, {x}, {t}, t);
            auto c = b.emit(f, {nx}, {t}, t);
            auto s = b.emit(n == "chlo.sinh" ? "stablehlo.subtract" : "stablehlo.add", {a, c}, {t, t}, t);
            b.emit("stablehlo.multiply", {s, half}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.asin" || n == "chlo.acos") {
            // asin x = 2 atan2(x, 1 + sqrt(1 - x^2)); acos x = 2 atan2(sqrt(1 - x^2), 1 + x)
            auto one = b.constant("1.0", t);
            auto two = b.constant("2.0", t);
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
            auto one = b.constant("1.0", t);
            b.emit("stablehlo.atan2", {x, one}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.atanh") {
            // atanh x = (log1p(x) - log1p(-x)) / 2
            auto half = b.constant("0.5", t);
            auto nx = b.emit("stablehlo.negate", {x}, {t}, t);
            auto a = b.emit("stablehlo.log_plus_one", {x}, {t}, t);
            auto c = b.emit("stablehlo.log_plus_one", {nx}, {t}, t);
            auto s = b.emit("stablehlo.subtract", {a, c}, {t, t}, t);
            b.emit("stablehlo.multiply", {s, half}, {t, t}, rt, o.results[0]);
        } else if (n == "chlo.asinh" || n == "chlo.acosh") {
            // asinh x = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); acosh x = log(x + sqrt(x^2 - 1))
            auto one = b.constant("1.0", t);
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
                auto xx = b.emit("stablehlo.multiply", {x, x}, {t, t}, t);
                auto d = b.emit("stablehlo.subtract", {xx, one}, {t, t}, t);
                auto s = b.emit("stablehlo.sqrt", {d}, {t}, t);
                auto a = b.emit("stablehlo.add", {x, s}, {t, t}, t);
                b.emit("stablehlo.log", {a}, {t}, rt, o.results[0]);
            }
        } else if (n == "chlo.top_k") {
            // sort (values, iota) descending along the last dimension, then slice the first k
            std::int64_t k = o.get("k") ? o.get("k")->i : 1;
            std::size_t r = t.dims.size();
            type it = t;
            it.elem = "i32";
            auto iota = b.emit("stablehlo.iota", {}, {}, it);
            b.last().set("iota_dimension", int_scalar(static_cast<std::int64_t>(r) - 1));
            std::string s = fresh("sorted");
            auto so = make_op("stablehlo.sort", {x, iota}, {t, it}, {s + "#0", s + "#1"}, {t, it}, o.at);
            so->set("dimension", int_scalar(static_cast<std::int64_t>(r) - 1));
            so->set("is_stable", bool_attr(true));
            region cmpr;
            cmpr.blocks.emplace_back();
            block& cb = cmpr.blocks[0];
            type st = tensor_of({}, t.elem), si = tensor_of({}, "i32");
            // names unique in the function: MLIR forbids a block argument that shadows a value
            std::string na = fresh("lhs"), nb = fresh("rhs"), nc = fresh("lhs"), nd = fresh("rhs"), ng = fresh("gt");
            cb.arg_names = {na, nb, nc, nd};
            cb.arg_types = {st, st, si, si};
            cb.arg_locs.assign(4, o.at);
            auto c =
                make_op("stablehlo.compare", {{na, o.at}, {nb, o.at}}, {st, st}, {ng}, {tensor_of({}, "i1")}, o.at);
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
            cb.ops.push_back(make_op("stablehlo.return", {{ng, o.at}}, {tensor_of({}, "i1")}, {}, {}, o.at));
            so->regions.push_back(std::move(cmpr));
            seq.push_back(std::move(so));
            std::vector<std::int64_t> start(r, 0), limit = t.dims, stride(r, 1);
            limit[r - 1] = k;
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
            // erf, erf_inv, lgamma, digamma, bessel_i1e, polygamma, zeta, next_after, ragged_dot,
            // erfc, mulhi, scan, constant_like: kept (xlet-translate emits those it implements)
            return false;
        }
        return true;
    });
    return ok;
}

bool not_applicable(const std::string& name, const std::string& why, std::vector<diagnostic>& errs) {
    errs.push_back({{}, name + ": " + why});
    return false;
}

} // namespace

const std::vector<pass_info>& known_passes() {
    static const std::vector<pass_info> p = {
        {"chlo-legalize-to-stablehlo", "CHLO broadcasting ops and closed-form math ops to StableHLO", ""},
        {"shape-legalize-to-stablehlo", "shape-dialect computations to StableHLO (not implemented)", ""},
        {"stablehlo-canonicalize-dynamism", "dynamic ops with constant shape operands to their static forms", ""},
        {"stablehlo-compatibility-expander", "ops newer than the target version decomposed (tan)", "target=#.#.#"},
        {"stablehlo-complex-math-expander", "complex exp, log, sqrt in real arithmetic", ""},
        {"stablehlo-convert-to-signless", "si/ui integer types to signless i", ""},
        {"stablehlo-legalize-composite-to-call", "composites replaced by calls of their decomposition", "except=names"},
        {"stablehlo-legalize-deprecated-ops", "deprecated ops (RFC #2283) to their supported equivalents",
         "fail-on-unused=true|false"},
        {"stablehlo-legalize-qdq-to-quantized-op", "quantization: issue #26", ""},
        {"stablehlo-legalize-quant-to-math", "quantization: issue #26", ""},
        {"stablehlo-legalize-quantized-op-to-qdq", "quantization: issue #26", ""},
        {"stablehlo-legalize-to-vhlo", "the versioned VHLO form (not implemented)", ""},
        {"stablehlo-refine-arguments", "main's argument types refined; uses wrapped until refine-shapes",
         "types=<type list>"},
        {"stablehlo-refine-shapes", "static shapes propagated through the program, shape computations folded", ""},
        {"stablehlo-wrap-in-composite", "selected ops wrapped in composites with a private <op>.impl",
         "op-names=... version=N"},
        {"vhlo-legalize-to-stablehlo", "VHLO back to StableHLO (not implemented)", ""},
        {"vhlo-to-version", "between VHLO versions (not implemented)", "target=#.#.#"}};
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
    if (name == "stablehlo-legalize-qdq-to-quantized-op" || name == "stablehlo-legalize-quant-to-math" ||
        name == "stablehlo-legalize-quantized-op-to-qdq")
        return not_applicable(name, "quantized types are issue #26 (not implemented yet)", errors);
    for (auto& p : known_passes())
        if (p.name == name) return not_applicable(name, "not implemented yet (docs/passes.md)", errors);
    errors.push_back({{}, "unknown pass --" + name});
    return false;
}

} // namespace xlt
