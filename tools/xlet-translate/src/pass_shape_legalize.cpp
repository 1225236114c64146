// shape-legalize-to-stablehlo: the rewrites of StableHLO's ShapeLegalizeToStablehlo pass
// (stablehlo/transforms/ShapeLegalizeToStablehlo.cpp), on xlet-translate's IR.
//
// MLIR's shape computations use `index` and extent tensors tensor<Nxindex>; StableHLO's use
// tensor<i32> and tensor<Nxi32>. Each rewrite reads its index operands through
// builtin.unrealized_conversion_cast to i32 (index -> tensor<i32>, tensor<Nxindex> ->
// tensor<Nxi32>), computes in StableHLO and casts its result back, as upstream does; the casts of
// two rewrites meet as round trips that a later canonicalization (or reconcile-casts=true here)
// folds away. What upstream marks illegal and cannot rewrite -- every other shape and tensor op
// but tensor.cast, an arith.muli or arith.index_cast off the index/i32 forms, a StableHLO op other
// than dynamic_broadcast_in_dim and dynamic_reshape with an index operand -- is a diagnostic at the
// op, and the module is left as it was. Other arith ops (arith.constant, arith.addi ...) are legal
// there and stay.
#include "pass_shape_legalize.hpp"

#include <charconv>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>

#include "attr_values.hpp"

namespace xlt {

namespace {

struct value {
    std::string name;
    type t;
};

type scalar_type_of(const std::string& elem) {
    type t;
    t.k = type::kind::scalar;
    t.elem = elem;
    return t;
}
bool is_index(const type& t) { return t.k == type::kind::scalar && t.elem == "index"; }
bool is_tensor_of(const type& t, const char* elem) { return t.k == type::kind::tensor && t.elem == elem; }
bool index_like(const type& t) { return is_index(t) || is_tensor_of(t, "index"); }

attr i64_attr(std::int64_t v) {
    attr a;
    a.k = attr::kind::integer;
    a.i = v;
    a.s = std::to_string(v);
    a.t = scalar_type_of("i64");
    return a;
}
// dense<...> : tensor<dims x i32> of these values (each wrapped to 32 bits, as upstream's
// static_cast<int32_t>)
attr dense_i32(const std::vector<std::int64_t>& vals, std::vector<std::int64_t> dims) {
    attr a;
    a.k = attr::kind::dense;
    a.t = tensor_type(std::move(dims), "i32");
    for (auto v : vals)
        a.elems.push_back(std::to_string(static_cast<std::int32_t>(static_cast<std::uint32_t>(v))));
    return a;
}

// The most extents num_elements unrolls into multiplications (three ops each); a larger extent
// tensor is an error, not millions of ops.
constexpr std::int64_t max_unrolled = 4096;

// Why an op could not be legalized.
struct failure {
    std::string why;
};

class legalizer {
public:
    legalizer(std::vector<diagnostic>& errs) : errs_(errs) {}

    bool run(func& f) {
        taken_.clear();
        consts_.clear();
        renames_.clear();
        next_ = 0;
        for (auto& a : f.args)
            taken_.insert(a.name);
        scan(f.body);
        legalize(f.body);
        return ok_;
    }

private:
    std::vector<diagnostic>& errs_;
    bool ok_ = true;
    std::set<std::string> taken_;                // every value name of the function
    int next_ = 0;                               // for fresh names
    std::map<std::string, std::int64_t> consts_; // %c = arith.constant N : index
    std::map<std::string, std::string> renames_; // results replaced by existing values
    std::vector<std::unique_ptr<op>> seq_;       // the ops of the rewrite under way
    loc at_;                                     // the op being rewritten

    void scan(region& r) {
        for (auto& b : r.blocks) {
            for (auto& n : b.arg_names)
                taken_.insert(n);
            for (auto& o : b.ops) {
                for (auto& n : o->results)
                    taken_.insert(n.substr(0, n.find('#')));
                if (o->name == "arith.constant" && o->results.size() == 1 && is_index(o->result_types[0]))
                    if (const attr* v = o->get("value"); v && v->k == attr::kind::integer)
                        consts_[o->results[0]] = v->i;
                for (auto& g : o->regions)
                    scan(g);
            }
        }
    }

    std::string fresh(const std::string& base) {
        for (;;) {
            std::string n = base + std::to_string(next_++);
            if (taken_.insert(n).second) return n;
        }
    }

    // Appends `name(operands) {attrs} : (...) -> result` to the rewrite; its result.
    value emit(const std::string& name, const std::vector<value>& operands, const type& result,
               std::vector<std::pair<std::string, attr>> attrs = {}) {
        auto o = std::make_unique<op>();
        o->name = name;
        for (auto& v : operands) {
            o->operands.push_back({v.name, at_});
            o->operand_types.push_back(v.t);
        }
        std::string base = name == "stablehlo.constant"                   ? "c"
                           : name == "builtin.unrealized_conversion_cast" ? "cast"
                                                                          : "v";
        o->results.push_back(fresh(base));
        o->result_types.push_back(result);
        o->attrs = std::move(attrs);
        o->at = at_;
        value r{o->results[0], result};
        seq_.push_back(std::move(o));
        return r;
    }
    value cast(const value& v, const type& to) { return emit("builtin.unrealized_conversion_cast", {v}, to); }
    value constant(const std::vector<std::int64_t>& vals, std::vector<std::int64_t> dims) {
        attr a = dense_i32(vals, dims);
        type t = a.t;
        return emit("stablehlo.constant", {}, t, {{"value", a}});
    }
    value reshape(const value& v, std::vector<std::int64_t> dims) {
        return emit("stablehlo.reshape", {v}, tensor_type(std::move(dims), "i32"));
    }
    value concatenate(const std::vector<value>& parts) {
        std::int64_t n = 0;
        for (auto& p : parts)
            n += p.t.dims.empty() ? 0 : p.t.dims[0];
        return emit("stablehlo.concatenate", parts, tensor_type({n}, "i32"), {{"dimension", i64_attr(0)}});
    }
    value slice(const value& v, const std::vector<std::int64_t>& start) {
        std::vector<std::int64_t> limit, ones(start.size(), 1);
        for (auto s : start)
            limit.push_back(s + 1);
        return emit(
            "stablehlo.slice", {v}, tensor_type(ones, "i32"),
            {{"start_indices", i64_array(start)}, {"limit_indices", i64_array(limit)}, {"strides", i64_array(ones)}});
    }
    value dimension_size(const value& v, std::int64_t d) {
        return emit("stablehlo.get_dimension_size", {v}, tensor_type({}, "i32"), {{"dimension", i64_attr(d)}});
    }

    // index -> tensor<i32>, tensor<Nxindex> -> tensor<Nxi32>, tensor<...xi32> as it is; nothing
    // for anything else (a dynamic tensor among them).
    std::optional<value> to_i32(const value& v) {
        if (is_index(v.t)) return cast(v, tensor_type({}, "i32"));
        if (v.t.k != type::kind::tensor || !v.t.is_static()) return std::nullopt;
        if (v.t.elem == "i32") return v;
        if (v.t.elem == "index") return cast(v, tensor_type(v.t.dims, "i32"));
        return std::nullopt;
    }
    // The way back: tensor<i32> -> index, tensor<Nxi32> -> tensor<Nxindex>, index as it is.
    std::optional<value> to_index(const value& v) {
        if (is_index(v.t)) return v;
        if (v.t.k != type::kind::tensor || !v.t.is_static()) return std::nullopt;
        if (v.t.elem == "index") return v;
        if (v.t.elem != "i32") return std::nullopt;
        return cast(v, v.t.dims.empty() ? scalar_type_of("index") : tensor_type(v.t.dims, "index"));
    }
    // A constant index as a stablehlo.constant, anything else through to_i32.
    std::optional<value> const_or_i32(const value& v) {
        if (auto c = consts_.find(v.name); c != consts_.end()) return constant({c->second}, {});
        return to_i32(v);
    }
    std::optional<std::int64_t> const_index(const value& v) const {
        auto c = consts_.find(v.name);
        if (c == consts_.end()) return std::nullopt;
        return c->second;
    }

    static value operand(const op& o, std::size_t k) { return {o.operands[k].name, o.operand_types[k]}; }
    static std::string ts(const type& t) { return type_str(t); }

    // ---- the rewrites: each returns the value that replaces the op's result --------------------

    value num_elements(const op& o) {
        value shape = operand(o, 0);
        auto s = to_i32(shape);
        if (!s || s->t.dims.size() != 1)
            throw failure{"the shape is " + ts(shape.t) + ", not a static extent tensor tensor<Nxindex>"};
        if (s->t.dims[0] > max_unrolled)
            throw failure{"the shape has " + std::to_string(s->t.dims[0]) + " extents, more than the " +
                          std::to_string(max_unrolled) + " this rewrite unrolls"};
        value acc = constant({1}, {});
        for (std::int64_t i = 0; i < s->t.dims[0]; ++i)
            acc = emit("stablehlo.multiply", {acc, reshape(slice(*s, {i}), {})}, acc.t);
        return *to_index(acc);
    }

    value shape_of(const op& o) {
        value x = operand(o, 0);
        if (x.t.k != type::kind::tensor) throw failure{"the operand " + ts(x.t) + " is not a ranked tensor"};
        value shape;
        if (x.t.dims.empty()) {
            shape = constant({}, {0});
        } else {
            std::vector<value> sizes;
            for (std::size_t d = 0; d < x.t.dims.size(); ++d)
                sizes.push_back(reshape(dimension_size(x, static_cast<std::int64_t>(d)), {1}));
            shape = concatenate(sizes);
        }
        return *to_index(shape);
    }

    value const_shape(const op& o) {
        const type& t = o.result_types[0];
        const attr* s = o.get("shape");
        if (t.k != type::kind::tensor || t.dims.size() != 1 || t.dims[0] < 0)
            throw failure{"the result is " + ts(t) + ", not a static extent tensor tensor<Nxindex>"};
        std::vector<std::int64_t> vals;
        if (s && s->k == attr::kind::dense && !s->is_hex)
            for (auto& e : s->elems) {
                std::int64_t x = 0;
                auto r = std::from_chars(e.data(), e.data() + e.size(), x);
                if (r.ec != std::errc{} || r.ptr != e.data() + e.size())
                    throw failure{"cannot read the extent '" + e + "' of its shape"};
                vals.push_back(x);
            }
        if (static_cast<std::int64_t>(vals.size()) != t.dims[0] && (vals.size() != 1 || t.dims[0] == 0)) // or a splat
            throw failure{"its shape attribute does not have the " + std::to_string(t.dims[0]) + " extents of " +
                          ts(t)};
        return *to_index(constant(vals, {t.dims[0]}));
    }

    value broadcast(const op& o) {
        if (o.operands.size() != 2)
            throw failure{"only the broadcast of two shapes is supported, not of " + std::to_string(o.operands.size())};
        value a0 = operand(o, 0), b0 = operand(o, 1);
        auto a = to_i32(a0);
        auto b = to_i32(b0);
        for (auto [v, orig] : {std::pair{&a, &a0}, std::pair{&b, &b0}})
            if (!*v || (*v)->t.dims.size() != 1)
                throw failure{"the shape " + ts(orig->t) + " is not a static extent tensor tensor<Nxindex>"};
        // the shorter shape padded with 1s on the left; then the larger extent of each pair (the
        // shapes are assumed broadcastable, as upstream does: else the result is undefined)
        std::int64_t na = a->t.dims[0], nb = b->t.dims[0];
        if (na < nb) a = concatenate({constant({1}, {nb - na}), *a});
        if (nb < na) b = concatenate({constant({1}, {na - nb}), *b});
        return *to_index(emit("stablehlo.maximum", {*a, *b}, a->t));
    }

    value tensor_dim(const op& o) {
        value x = operand(o, 0);
        auto d = const_index(operand(o, 1));
        if (!d) throw failure{"the dimension %" + o.operands[1].name + " is not an arith.constant index"};
        if (x.t.k != type::kind::tensor || *d < 0 || *d >= static_cast<std::int64_t>(x.t.dims.size()))
            throw failure{"dimension " + std::to_string(*d) + " is out of range for " + ts(x.t)};
        return *to_index(dimension_size(x, *d));
    }

    value tensor_extract(const op& o) {
        value x = operand(o, 0);
        if (x.t.k != type::kind::tensor || x.t.dims.size() + 1 != o.operands.size())
            throw failure{"expected one index per dimension of " + ts(x.t)};
        std::vector<std::int64_t> at;
        for (std::size_t k = 1; k < o.operands.size(); ++k) {
            auto i = const_index(operand(o, k));
            if (!i) throw failure{"the index %" + o.operands[k].name + " is not an arith.constant index"};
            std::int64_t size = x.t.dims[k - 1];
            if (size < 0) throw failure{"dimension " + std::to_string(k - 1) + " of " + ts(x.t) + " is dynamic"};
            if (*i < 0 || *i >= size)
                throw failure{"index " + std::to_string(*i) + " is out of range for dimension " +
                              std::to_string(k - 1) + " of " + ts(x.t)};
            at.push_back(*i);
        }
        auto in = to_i32(x);
        if (!in) throw failure{"only tensors of index and i32 are supported, not " + ts(x.t)};
        value scalar = reshape(slice(*in, at), {});
        const type& rt = o.result_types[0];
        if (rt.elem == "index") return *to_index(scalar);
        return cast(scalar, rt);
    }

    value from_elements(const op& o) {
        const type& rt = o.result_types[0];
        if (rt.k != type::kind::tensor) throw failure{"the result " + ts(rt) + " is not a ranked tensor"};
        if (rt.dims.empty()) {
            if (o.operands.size() != 1) throw failure{"a rank-0 tensor needs one element"};
            return cast(operand(o, 0), rt);
        }
        if (rt.dims.size() != 1) throw failure{"only rank-0 and rank-1 results are supported, not " + ts(rt)};
        if (rt.elem != "index") throw failure{"only elements of type index are supported, not " + rt.elem};
        if (o.operands.empty()) throw failure{"no elements"};
        std::vector<value> parts;
        for (std::size_t k = 0; k < o.operands.size(); ++k) {
            value e = operand(o, k);
            if (auto c = const_index(e)) {
                parts.push_back(constant({*c}, {1}));
                continue;
            }
            auto i = to_i32(e);
            if (!i || !i->t.dims.empty()) throw failure{"the element %" + e.name + " is " + ts(e.t) + ", not index"};
            parts.push_back(reshape(*i, {1}));
        }
        return *to_index(concatenate(parts));
    }

    value index_cast(const op& o) {
        value in = operand(o, 0);
        const type& out = o.result_types[0];
        if (is_index(in.t)) {
            // index -> tensor<i32> [-> convert to tensor<iN>] -> iN
            if (out.k != type::kind::scalar || !is_integer_elem(out.elem))
                throw failure{"index to " + ts(out) + " is not supported"};
            value r = *to_i32(in);
            if (out.elem != "i32") r = emit("stablehlo.convert", {r}, tensor_type({}, out.elem));
            return cast(r, out);
        }
        if (in.t.k != type::kind::tensor && index_like(out)) // iN -> tensor<iN> -> index
            return cast(cast(in, tensor_type({}, in.t.elem)), out);
        std::optional<value> r;
        if (index_like(in.t))
            r = to_i32(in);
        else if (is_tensor_of(in.t, "i32"))
            r = in;
        if (!r) throw failure{"expected an input of index or i32 style, not " + ts(in.t)};
        if (index_like(out))
            r = to_index(*r);
        else if (!is_tensor_of(out, "i32"))
            throw failure{"expected an output of index or i32 style, not " + ts(out)};
        return *r;
    }

    value muli(const op& o) {
        value l0 = operand(o, 0), r0 = operand(o, 1);
        if (!index_like(l0.t) || !index_like(r0.t) || !index_like(o.result_types[0]))
            throw failure{"only index operands are supported, not " + ts(l0.t) + " and " + ts(r0.t)};
        auto l = const_or_i32(l0);
        auto r = const_or_i32(r0);
        if (!l || !r || !(l->t == r->t)) throw failure{"the operands are not static tensors of index of one shape"};
        return *to_index(emit("stablehlo.multiply", {*l, *r}, l->t));
    }

    // The shape operands of dynamic_broadcast_in_dim and dynamic_reshape read as i32 (the op kept).
    void cast_operands(op& o) {
        if (o.name != "stablehlo.dynamic_broadcast_in_dim" && o.name != "stablehlo.dynamic_reshape")
            throw failure{"an operand is of index type (only the shape operands of dynamic_broadcast_in_dim and "
                          "dynamic_reshape are cast to i32)"};
        for (std::size_t k = 0; k < o.operands.size(); ++k) {
            if (!index_like(o.operand_types[k])) continue;
            auto v = to_i32(operand(o, k));
            if (!v)
                throw failure{"the operand %" + o.operands[k].name + " is " + ts(o.operand_types[k]) + ", not static"};
            o.operands[k].name = v->name;
            o.operand_types[k] = v->t;
        }
    }

    // ---- the walk --------------------------------------------------------------------------------

    enum class verdict { legal, rewrite, cast_operands };
    static verdict classify(const op& o) {
        const std::string& n = o.name;
        if (n.rfind("shape.", 0) == 0 || (n.rfind("tensor.", 0) == 0 && n != "tensor.cast") ||
            n == "arith.index_cast" || n == "arith.muli")
            return verdict::rewrite;
        if (n.rfind("stablehlo.", 0) == 0)
            for (auto& t : o.operand_types)
                if (index_like(t)) return verdict::cast_operands;
        return verdict::legal;
    }

    value rewrite(const op& o) {
        const std::string& n = o.name;
        // operands: how many the op takes (-1: any number, for broadcast, extract, from_elements)
        static const std::map<std::string, int> arity = {
            {"shape.num_elements", 1},    {"shape.shape_of", 1},   {"shape.const_shape", 0},
            {"shape.broadcast", -1},      {"tensor.dim", 2},       {"tensor.extract", -1},
            {"tensor.from_elements", -1}, {"arith.index_cast", 1}, {"arith.muli", 2}};
        auto it = arity.find(n);
        if (it == arity.end()) throw failure{"no rewrite to StableHLO exists for it"};
        if (o.results.size() != 1) throw failure{"expected one result"};
        if (it->second >= 0 && o.operands.size() != static_cast<std::size_t>(it->second))
            throw failure{"expected " + std::to_string(it->second) + " operand(s)"};
        if (n == "shape.num_elements") return num_elements(o);
        if (n == "shape.shape_of") return shape_of(o);
        if (n == "shape.const_shape") return const_shape(o);
        if (n == "shape.broadcast") return broadcast(o);
        if (n == "tensor.dim") return tensor_dim(o);
        if (n == "tensor.extract") {
            if (o.operands.empty()) throw failure{"expected a tensor and its indices"};
            return tensor_extract(o);
        }
        if (n == "tensor.from_elements") return from_elements(o);
        if (n == "arith.index_cast") return index_cast(o);
        return muli(o);
    }

    void legalize(region& r) {
        for (auto& b : r.blocks) {
            std::vector<std::unique_ptr<op>> out;
            for (auto& p : b.ops) {
                op& o = *p;
                for (auto& v : o.operands)
                    for (auto it = renames_.find(v.name); it != renames_.end(); it = renames_.find(v.name))
                        v.name = it->second;
                for (auto& g : o.regions)
                    legalize(g);
                verdict k = classify(o);
                if (k == verdict::legal) {
                    out.push_back(std::move(p));
                    continue;
                }
                seq_.clear();
                at_ = o.at;
                try {
                    if (k == verdict::cast_operands) {
                        cast_operands(o);
                        for (auto& s : seq_)
                            out.push_back(std::move(s));
                        out.push_back(std::move(p));
                        continue;
                    }
                    value v = rewrite(o);
                    if (!(v.t == o.result_types[0]))
                        throw failure{"its result is " + ts(o.result_types[0]) + ", where the rewrite gives " +
                                      ts(v.t)};
                    // the op that computes the replacement takes the op's result name
                    bool renamed = false;
                    for (auto& s : seq_) {
                        for (auto& u : s->operands)
                            if (u.name == v.name) u.name = o.results[0];
                        if (s->results[0] == v.name) {
                            s->results[0] = o.results[0];
                            renamed = true;
                        }
                    }
                    if (!renamed) renames_[o.results[0]] = v.name;
                    for (auto& s : seq_)
                        out.push_back(std::move(s));
                } catch (const failure& f) {
                    errs_.push_back(
                        {o.at, "shape-legalize-to-stablehlo: failed to legalize operation '" + o.name + "': " + f.why});
                    ok_ = false;
                    out.push_back(std::move(p));
                }
            }
            b.ops = std::move(out);
        }
    }
};

// reconcile-casts: a cast of a cast back to the first one's source is that source; then the casts
// and arith constants left unused are dropped.
void reconcile_casts(func& f) {
    std::map<std::string, const op*> casts; // result -> the cast defining it
    std::map<std::string, std::string> renames;
    std::function<void(region&)> fold = [&](region& r) {
        for (auto& b : r.blocks)
            for (auto& p : b.ops) {
                for (auto& v : p->operands)
                    if (auto it = renames.find(v.name); it != renames.end()) v.name = it->second;
                for (auto& g : p->regions)
                    fold(g);
                if (p->name != "builtin.unrealized_conversion_cast" || p->operands.size() != 1 ||
                    p->results.size() != 1)
                    continue;
                auto d = casts.find(p->operands[0].name);
                if (d != casts.end() && d->second->operand_types[0] == p->result_types[0])
                    renames[p->results[0]] = d->second->operands[0].name;
                else
                    casts[p->results[0]] = p.get();
            }
    };
    fold(f.body);
    for (bool changed = true; changed;) {
        changed = false;
        std::map<std::string, int> uses;
        std::function<void(region&)> count = [&](region& r) {
            for (auto& b : r.blocks)
                for (auto& p : b.ops) {
                    for (auto& v : p->operands)
                        ++uses[v.name];
                    for (auto& g : p->regions)
                        count(g);
                }
        };
        count(f.body);
        std::function<void(region&)> drop = [&](region& r) {
            for (auto& b : r.blocks) {
                std::size_t before = b.ops.size();
                std::erase_if(b.ops, [&](const std::unique_ptr<op>& p) {
                    return (p->name == "builtin.unrealized_conversion_cast" || p->name == "arith.constant") &&
                           p->regions.empty() && p->results.size() == 1 && uses[p->results[0]] == 0;
                });
                changed = changed || b.ops.size() != before;
                for (auto& p : b.ops)
                    for (auto& g : p->regions)
                        drop(g);
            }
        };
        drop(f.body);
    }
}

} // namespace

bool shape_legalize_to_stablehlo(module& m, const std::map<std::string, std::string>& options,
                                 std::vector<diagnostic>& errs) {
    bool reconcile = false;
    for (auto& [k, v] : options) {
        if (k != "reconcile-casts" || (v != "true" && v != "false")) {
            errs.push_back({{},
                            "shape-legalize-to-stablehlo: unknown option " + k + "=" + v +
                                " (the pass takes reconcile-casts=true|false)"});
            return false;
        }
        reconcile = v == "true";
    }
    module c = clone(m);
    legalizer l(errs);
    bool ok = true;
    for (auto& f : c.funcs)
        ok = l.run(f) && ok;
    if (!ok) return false;
    if (reconcile)
        for (auto& f : c.funcs)
            reconcile_casts(f);
    m = std::move(c);
    return true;
}

} // namespace xlt
