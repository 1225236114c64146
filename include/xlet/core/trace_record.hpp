// The definitions behind core/trace.hpp's declarations: the recorder's members and the literal
// printers. Included by core/trace.hpp in units compiled with XLET_TRACE only, so that the units
// that do not export (nearly all) do not parse them.
#pragma once
#include <bit>
#include <charconv>
#include <unordered_map>

#include "trace.hpp"

namespace xlet::trace {

template<class D>
struct basic_recorder<D>::state {
    struct binding {
        std::string type;
        std::uint64_t hash;
        int id;
        int region;
        bool padding = false;
    };
    std::unordered_map<const void*, std::vector<binding>> bound;
    std::unordered_map<int, int> tokens; // region -> its last side effect's token
};

template<class D>
basic_recorder<D>::basic_recorder()
    : regions(1), on_copy([](basic_recorder& r, const void* from, const void* to) { r.copied(from, to); }),
      st_(detail::make_owner<state>()), stack_{0} {}
template<class D>
basic_recorder<D>::~basic_recorder() = default;

template<class D>
int basic_recorder<D>::emit(std::string name, std::vector<int> operands, const std::vector<std::string>& result_types,
                            std::string attrs, std::vector<int> regs) {

    op o{std::move(name), std::move(operands), {}, std::move(attrs), std::move(regs)};
    for (const auto& t : result_types)
        o.results.push_back(new_value(t));
    const int first = o.results.empty() ? -1 : o.results.front();
    regions[static_cast<std::size_t>(stack_.back())].ops.push_back(std::move(o));
    return first;
}

template<class D>
int basic_recorder<D>::argument(std::string type) {
    const int id = new_value(std::move(type));
    regions[0].args.push_back(id);
    return id;
}

template<class D>
int basic_recorder<D>::new_value(std::string type) {
    types.push_back(std::move(type));
    return static_cast<int>(types.size()) - 1;
}

template<class D>
int basic_recorder<D>::open_region(const std::vector<std::string>& arg_types) {
    region g;
    for (const auto& t : arg_types)
        g.args.push_back(new_value(t));
    regions.push_back(std::move(g));
    stack_.push_back(static_cast<int>(regions.size()) - 1);
    return stack_.back();
}

template<class D>
void basic_recorder<D>::close_region(std::vector<int> results) {
    regions[static_cast<std::size_t>(stack_.back())].results = std::move(results);
    stack_.pop_back();
}

template<class D>
std::vector<int> basic_recorder<D>::isolate(int g) {
    std::vector<char> inside(types.size(), 0);
    auto mark = [&](auto& self, int at) -> void {
        const region& rg = regions[static_cast<std::size_t>(at)];
        for (int a : rg.args)
            inside[static_cast<std::size_t>(a)] = 1;
        for (const op& o : rg.ops) {
            for (int v : o.results)
                inside[static_cast<std::size_t>(v)] = 1;
            for (int n : o.regions)
                self(self, n);
        }
    };
    mark(mark, g);
    std::vector<int> outer;
    std::unordered_map<int, int> arg_of;
    auto lift = [&](int& v) {
        if (v < 0 || inside[static_cast<std::size_t>(v)]) return;
        auto [it, fresh] = arg_of.try_emplace(v, -1);
        if (fresh) {
            it->second = new_value(types[static_cast<std::size_t>(v)]);
            regions[static_cast<std::size_t>(g)].args.push_back(it->second);
            outer.push_back(v);
        }
        v = it->second;
    };
    auto rename = [&](auto& self, int at) -> void {
        for (std::size_t k = 0; k < regions[static_cast<std::size_t>(at)].ops.size(); ++k) {
            op& o = regions[static_cast<std::size_t>(at)].ops[k];
            for (int& v : o.operands)
                lift(v);
            const std::vector<int> nested = o.regions;
            for (int n : nested)
                self(self, n);
        }
        for (std::size_t k = 0; k < regions[static_cast<std::size_t>(at)].results.size(); ++k)
            lift(regions[static_cast<std::size_t>(at)].results[k]);
    };
    rename(rename, g);
    return outer;
}

template<class D>
int basic_recorder<D>::token_in() {
    auto it = st_->tokens.find(stack_.back());
    if (it != st_->tokens.end()) return it->second;
    const int t = emit("stablehlo.after_all", {}, {"!stablehlo.token"});
    st_->tokens[stack_.back()] = t;
    return t;
}

template<class D>
void basic_recorder<D>::token_out(int id) {
    st_->tokens[stack_.back()] = id;
}

template<class D>
void basic_recorder<D>::bind(const void* p, std::size_t bytes, std::string_view type, int id) {
    auto& v = st_->bound[p];
    const std::uint64_t h = hash(p, bytes);
    for (auto& b : v)
        if (b.type == type) {
            b = typename state::binding{std::string(type), h, id, stack_.back(), false};
            return;
        }
    v.push_back(typename state::binding{std::string(type), h, id, stack_.back(), false});
}

template<class D>
int basic_recorder<D>::find(const void* p, std::size_t bytes, std::string_view type) const {
    return lookup(p, bytes, type, false);
}

template<class D>
void basic_recorder<D>::bind_padding(const void* p, std::size_t bytes, std::string_view type, int id) {
    bind(p, bytes, type, id);
    for (auto& b : st_->bound[p])
        if (b.type == type) b.padding = true;
}

template<class D>
int basic_recorder<D>::padding_of(const void* p, std::size_t bytes, std::string_view type) const {
    return lookup(p, bytes, type, true);
}

template<class D>
void basic_recorder<D>::forget(const void* p) {
    st_->bound.erase(p);
}

template<class D>
void basic_recorder<D>::retype_bounded(std::size_t first) {
    auto& ops = regions[static_cast<std::size_t>(stack_.back())].ops;
    for (std::size_t k = first; k < ops.size(); ++k) {
        op& o = ops[k];
        if (o.name == "stablehlo.set_dimension_size" || o.name == "stablehlo.get_dimension_size") continue;
        for (int res : o.results) {
            std::string& t = types[static_cast<std::size_t>(res)];
            unsigned rm = 0;
            const auto rd = type_dims(t, rm);
            unsigned mask = 0;
            for (int a : o.operands) {
                unsigned am = 0;
                const auto ad = type_dims(types[static_cast<std::size_t>(a)], am);
                if (ad.size() == rd.size())
                    for (std::size_t d = 0; d < rd.size(); ++d)
                        if (((am >> d) & 1u) && ad[d] == rd[d]) mask |= 1u << d;
            }
            if (mask) t = bounded_type(t, mask);
        }
    }
}

template<class D>
std::string basic_recorder<D>::bounded_type(std::string_view t, unsigned mask) {
    unsigned old = 0;
    const auto dims = type_dims(t, old);
    mask |= old;
    if (mask == 0) return std::string(t);
    std::size_t at = t.find('<') + 1; // past the dimensions: the element type
    for (std::size_t d = 0; d < dims.size(); ++d)
        at = t.find('x', at) + 1;
    const std::size_t end = t.find(", #stablehlo.bounds");
    std::string s = "tensor<", b;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        const bool dyn = (mask >> d) & 1u;
        s += (dyn ? std::string("?") : std::to_string(dims[d])) + "x";
        b += (d ? ", " : "") + (dyn ? std::to_string(dims[d]) : std::string("?"));
    }
    s.append(t.substr(at, (end == std::string_view::npos ? t.size() - 1 : end) - at));
    return s + ", #stablehlo.bounds<" + b + ">>";
}

template<class D>
std::vector<std::size_t> basic_recorder<D>::type_dims(std::string_view t, unsigned& mask) {
    std::vector<std::size_t> dims;
    std::vector<std::size_t> bounds;
    mask = 0;
    std::size_t i = t.find('<');
    if (i == std::string_view::npos) return dims;
    const std::size_t bat = t.find("#stablehlo.bounds<");
    if (bat != std::string_view::npos)
        for (std::size_t j = bat + 18; j < t.size() && t[j] != '>';) {
            std::size_t v = 0;
            while (j < t.size() && t[j] >= '0' && t[j] <= '9')
                v = v * 10 + static_cast<std::size_t>(t[j++] - '0');
            bounds.push_back(v);
            while (j < t.size() && t[j] != ',' && t[j] != '>')
                ++j;
            if (j < t.size() && t[j] == ',') j += 2;
        }
    for (++i; i < t.size();) {
        std::size_t j = i, v = 0;
        const bool dyn = t[j] == '?';
        if (dyn) ++j;
        while (j < t.size() && t[j] >= '0' && t[j] <= '9')
            v = v * 10 + static_cast<std::size_t>(t[j++] - '0');
        if (j == i || j >= t.size() || t[j] != 'x') break; // the element type
        if (dyn) {
            mask |= 1u << dims.size();
            v = dims.size() < bounds.size() ? bounds[dims.size()] : 0;
        }
        dims.push_back(v);
        i = j + 1;
    }
    return dims;
}

template<class D>
void basic_recorder<D>::copied(const void* from, const void* to) {
    if (from == to) return;
    auto it = st_->bound.find(from);
    if (it == st_->bound.end()) {
        st_->bound.erase(to);
        return;
    }
    auto entries = it->second; // copy first: the insertion below may rehash
    st_->bound[to] = std::move(entries);
}

template<class D>
int basic_recorder<D>::lookup(const void* p, std::size_t bytes, std::string_view type, bool padding) const {
    auto it = st_->bound.find(p);
    if (it == st_->bound.end()) return -1;
    for (const auto& b : it->second)
        if (b.type == type && b.padding == padding && b.hash == hash(p, bytes) && is_open(b.region)) return b.id;
    return -1;
}

template<class D>
std::uint64_t basic_recorder<D>::hash(const void* p, std::size_t n) {
    std::uint64_t h = 1469598103934665603ull; // FNV-1a
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

template<class>
std::string quant_axis_renamed(std::string_view name, std::int64_t axis) {
    const std::size_t list = name.find(", {");
    const std::size_t colon = name.rfind(':', list);
    if (list == std::string_view::npos || colon == std::string_view::npos) return std::string(name);
    return std::string(name.substr(0, colon + 1)) + std::to_string(axis) + std::string(name.substr(list));
}

// The integers of a list (std::vector, std::array, dim_list, ...) as "1, 0".
template<class L>
std::string ints_joined(const L& l) {
    std::string s;
    for (std::size_t i = 0; i < l.size(); ++i)
        s += (i ? ", " : "") + std::to_string(static_cast<std::int64_t>(l[i]));
    return s;
}

template<class L>
std::string i64_list(const L& l) {
    return l.size() == 0 ? "array<i64>" : "array<i64: " + ints_joined(l) + ">";
}

template<class>
std::string i64_array(const std::vector<std::int64_t>& v) {
    return i64_list(v);
}

template<class L>
std::string int_list(const L& l) {
    return "[" + ints_joined(l) + "]";
}

template<class>
const char* precision_name(precision p) {
    return p == precision::highest ? "HIGHEST" : p == precision::high ? "HIGH" : "DEFAULT";
}

template<class>
std::string precision_attr(precision_config c) {
    if (c.lhs == precision::default_ && c.rhs == precision::default_) return {};
    return std::string("precision_config = [#stablehlo<precision ") + precision_name(c.lhs) +
           ">, #stablehlo<precision " + precision_name(c.rhs) + ">]";
}

template<class>
std::string join_attrs(std::initializer_list<std::string> parts) {
    std::string s;
    for (const auto& p : parts)
        if (!p.empty()) s += (s.empty() ? "" : ", ") + p;
    return s;
}

namespace impl {
// Hex digits as MLIR prints them (0x7FC00000).
inline std::string upper(std::string h) {
    for (std::size_t i = 2; i < h.size(); ++i)
        if (h[i] >= 'a' && h[i] <= 'f') h[i] = static_cast<char>(h[i] - 'a' + 'A');
    return h;
}
// A float printed so that MLIR reads back the same bits: shortest round-trip decimal, or the
// bit pattern for NaN and infinities (MLIR's hexadecimal float literal).
template<class F, class Bits>
std::string float_literal(F x) {
    if (x != x || x - x != x - x) {
        char buf[24];
        auto bits = std::bit_cast<Bits>(x);
        auto r = std::to_chars(buf, buf + sizeof buf, bits, 16);
        std::string h = "0x";
        h.append(2 * sizeof(Bits) - static_cast<std::size_t>(r.ptr - buf), '0').append(buf, r.ptr);
        return upper(h);
    }
    char buf[40];
    auto r = std::to_chars(buf, buf + sizeof buf, x);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) { // MLIR's float literals need the point: 1.0e+30
        const auto e = s.find('e');
        s.insert(e == std::string::npos ? s.size() : e, ".0");
    }
    return s;
}
template<class T>
std::string scalar_literal(const T& v) {
    if constexpr (std::is_same_v<T, bool>)
        return v ? "true" : "false";
    else if constexpr (std::is_integral_v<T>)
        return std::to_string(v);
    else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        const float f = static_cast<float>(v);
        if (f != f || f - f != f - f) {
            char buf[8];
            auto r = std::to_chars(buf, buf + sizeof buf, std::bit_cast<std::uint16_t>(v), 16);
            std::string h = "0x";
            h.append(4 - static_cast<std::size_t>(r.ptr - buf), '0').append(buf, r.ptr);
            return upper(h);
        }
        return float_literal<float, std::uint32_t>(f);
    } else if constexpr (std::is_same_v<T, float>)
        return float_literal<float, std::uint32_t>(v);
    else if constexpr (std::is_same_v<T, double>)
        return float_literal<double, std::uint64_t>(v);
    else if constexpr (is_quantized<T>)
        return std::to_string(static_cast<std::int64_t>(v.stored));
    else {
        std::string s = "(";
        s.append(scalar_literal(v.real())).append(", ").append(scalar_literal(v.imag()));
        return s.append(")");
    }
}
} // namespace impl

template<class T>
std::string dense_literal(const T* p, const std::vector<std::size_t>& dims, std::string_view type) {
    std::string storage_type;
    if constexpr (is_quantized<T>) {
        storage_type =
            std::string(type.substr(0, type.find("!quant"))) + std::string(element_traits<T>::storage_name) + ">";
        type = storage_type;
    }
    std::size_t n = 1;
    for (auto d : dims)
        n *= d;
    bool splat = true;
    for (std::size_t i = 1; i < n && splat; ++i)
        splat = std::memcmp(p + i, p, sizeof(T)) == 0;
    std::string s = "dense<";
    if (n == 0) {
        s += "[]";
    } else if (splat) {
        s += impl::scalar_literal(p[0]);
    } else if constexpr (std::is_same_v<T, bool> || is_quantized<T>) {
        std::size_t i = 0;
        auto list = [&](auto& self, std::size_t k) -> void {
            if (k == dims.size()) {
                s += impl::scalar_literal(p[i++]);
                return;
            }
            s += '[';
            for (std::size_t j = 0; j < dims[k]; ++j) {
                if (j) s += ", ";
                self(self, k + 1);
            }
            s += ']';
        };
        list(list, 0);
    } else {
        static constexpr char hex[] = "0123456789ABCDEF";
        s += "\"0x";
        const auto* b = reinterpret_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n * sizeof(T); ++i) {
            s += hex[b[i] >> 4];
            s += hex[b[i] & 15];
        }
        s += '"';
    }
    return s + "> : " + std::string(type);
}

} // namespace xlet::trace
