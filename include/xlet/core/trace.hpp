// Tracing: how xlet::to_stablehlo (stablehlo/export.hpp) records the program a C++ callable runs.
//
// Compiled in only where XLET_TRACE is defined before the first xlet header (export.hpp defines
// it when it comes first): every other translation unit keeps the ops' code and compile time as
// without tracing, and an op that runs there while a recorder is active throws, naming the cause
// (a program that exports must compile that code with XLET_TRACE too: the same rule as NDEBUG
// for assert, one setting per program is the safe use).
//
// While a recorder is active on the calling thread, every materialisation (an expression written
// into storage) and every heavy op appends StableHLO ops to it; values are identified by the
// storage they live in (address, type and a hash of the contents when they were written), so a
// tensor the program fills by hand, or one no traced op wrote, becomes a constant of its current
// contents. Copies and moves of tensors carry their identity along (core/tensor.hpp). The op runs
// as usual with the recorder paused, so nested evaluations inside a kernel are not recorded. When
// no recorder is active (every program that does not export), each hook is one thread-local load.
#pragma once
#include <array>
#include <bit>
#include <charconv>
#include <initializer_list>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "error.hpp"
#include "shape.hpp"
#include "types.hpp"

// The trace path's functions: out of line and optimised for size.
#define XLET_TRACE_COLD [[gnu::cold, gnu::noinline]]

#ifdef XLET_TRACE
#define XLET_TRACE_COMPILED 1
#else
#define XLET_TRACE_COMPILED 0
#endif

namespace xlet::trace {

// One op of the traced program, in StableHLO's generic form.
struct op {
    std::string name;          // "stablehlo.add"
    std::vector<int> operands; // value ids
    std::vector<int> results;  // value ids
    std::string attrs;         // "comparison_direction = ..., ..." (inside the braces)
    std::vector<int> regions;  // indices into recorder::regions
};

// A region (function body, reduce body, while cond/body, ...): block arguments, ops, the returned values.
struct region {
    std::vector<int> args;
    std::vector<op> ops;
    std::vector<int> results;
    std::string terminator = "stablehlo.return";
};

// A value an object carries itself instead of its storage (xlet::bounded: its run-time sizes live
// beside a static expression, so no storage holds the bounded value): which recorder, the id, and
// the region that defines it (usable while that region is open).
struct carried {
    const void* rec = nullptr;
    int id = -1;
    int region = -1;
};

// (A template of nothing: a translation unit compiles its member functions only where it uses them.)
template<class = void>
class basic_recorder {
public:
    std::vector<std::string> types; // by value id
    std::vector<region> regions;    // regions[0]: the function body

    // to_stablehlo(expr): memory no traced op wrote (the expression's arrays) becomes arguments
    // of the function rather than constants.
    bool leaves_are_arguments = false;

    basic_recorder() : regions(1), stack_{0} {}

    // A new argument of the function (region 0).
    XLET_TRACE_COLD int argument(std::string type) {
        const int id = new_value(std::move(type));
        regions[0].args.push_back(id);
        return id;
    }

    int new_value(std::string type) {
        types.push_back(std::move(type));
        return static_cast<int>(types.size()) - 1;
    }
    // Appends an op to the innermost open region; returns the id of its first result (results
    // are consecutive ids).
    XLET_TRACE_COLD int emit(std::string name, std::vector<int> operands, const std::vector<std::string>& result_types,
                             std::string attrs = {}, std::vector<int> regs = {}) {
        op o{std::move(name), std::move(operands), {}, std::move(attrs), std::move(regs)};
        for (const auto& t : result_types)
            o.results.push_back(new_value(t));
        const int first = o.results.empty() ? -1 : o.results.front();
        regions[static_cast<std::size_t>(stack_.back())].ops.push_back(std::move(o));
        return first;
    }
    // Opens a region with block arguments of the given types; returns its index.
    XLET_TRACE_COLD int open_region(const std::vector<std::string>& arg_types) {
        region g;
        for (const auto& t : arg_types)
            g.args.push_back(new_value(t));
        regions.push_back(std::move(g));
        stack_.push_back(static_cast<int>(regions.size()) - 1);
        return stack_.back();
    }
    XLET_TRACE_COLD void close_region(std::vector<int> results) {
        regions[static_cast<std::size_t>(stack_.back())].results = std::move(results);
        stack_.pop_back();
    }
    int current_region() const { return stack_.back(); }

    // Makes closed region g isolated from above (async_start's body): every value its ops (or
    // their nested regions) read from outside becomes a new block argument of g; returns those
    // outer values, in order, for the op to take as extra operands.
    XLET_TRACE_COLD std::vector<int> isolate(int g) {
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

    // Side effects (infeed, outfeed) keep their program order in the module: each takes the
    // region's last token and leaves the one it produces (the first is an after_all of nothing).
    XLET_TRACE_COLD int token_in() {
        auto it = tokens_.find(stack_.back());
        if (it != tokens_.end()) return it->second;
        const int t = emit("stablehlo.after_all", {}, {"!stablehlo.token"});
        tokens_[stack_.back()] = t;
        return t;
    }
    XLET_TRACE_COLD void token_out(int id) { tokens_[stack_.back()] = id; }

    // Storage [p, p + bytes) now holds value id (of the given type).
    XLET_TRACE_COLD void bind(const void* p, std::size_t bytes, std::string_view type, int id) {
        auto& v = bound_[p];
        const std::uint64_t h = hash(p, bytes);
        for (auto& b : v)
            if (b.type == type) {
                b = {std::string(type), h, id, stack_.back(), false};
                return;
            }
        v.push_back({std::string(type), h, id, stack_.back(), false});
    }
    // The value stored at p, if a traced op wrote it there, the contents are still what it wrote,
    // and it was defined in a region that is open (an enclosing one); -1 otherwise.
    XLET_TRACE_COLD int find(const void* p, std::size_t bytes, std::string_view type) const {
        return lookup(p, bytes, type, false);
    }
    // The padded contents of bounded value id (a static type) live at p: reading them as a static
    // array needs the sizes taken off first (padding_of, eval/bounded.hpp).
    XLET_TRACE_COLD void bind_padding(const void* p, std::size_t bytes, std::string_view type, int id) {
        bind(p, bytes, type, id);
        for (auto& b : bound_[p])
            if (b.type == type) b.padding = true;
    }
    XLET_TRACE_COLD int padding_of(const void* p, std::size_t bytes, std::string_view type) const {
        return lookup(p, bytes, type, true);
    }
    // Storage that stops holding a value it was bound to (a placeholder that goes away).
    XLET_TRACE_COLD void forget(const void* p) { bound_.erase(p); }
    carried carry(int id) const { return {this, id, stack_.back()}; }
    int carried_id(const carried& c) const { return c.rec == this && c.id >= 0 && is_open(c.region) ? c.id : -1; }

    // The ops appended to the current region from index `first` on applied an element-wise
    // function to bounded values (eval/bounded.hpp): a result dimension that a bounded operand
    // supplies (same rank and extent, dynamic there) is dynamic, as in XLA's shape inference.
    XLET_TRACE_COLD void retype_bounded(std::size_t first) {
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

    // StableHLO's type of a bounded value: the dimensions of static type t in mask become "?"
    // bounded by their extent (tensor<10x4xf32> -> tensor<?x4xf32, #stablehlo.bounds<10, ?>>).
    static std::string bounded_type(std::string_view t, unsigned mask) {
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
    // The dimensions of a tensor type printed here (a "?" reads as its bound); mask gets the
    // dynamic ones.
    static std::vector<std::size_t> type_dims(std::string_view t, unsigned& mask) {
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

    // A copy or move of storage: the destination holds what the source held.
    XLET_TRACE_COLD void copied(const void* from, const void* to) {
        if (from == to) return;
        auto it = bound_.find(from);
        if (it == bound_.end()) {
            bound_.erase(to);
            return;
        }
        auto entries = it->second; // copy first: the insertion below may rehash
        bound_[to] = std::move(entries);
    }

private:
    struct binding {
        std::string type;
        std::uint64_t hash;
        int id;
        int region;
        bool padding = false;
    };
    int lookup(const void* p, std::size_t bytes, std::string_view type, bool padding) const {
        auto it = bound_.find(p);
        if (it == bound_.end()) return -1;
        for (const auto& b : it->second)
            if (b.type == type && b.padding == padding && b.hash == hash(p, bytes) && is_open(b.region)) return b.id;
        return -1;
    }
    std::unordered_map<const void*, std::vector<binding>> bound_;
    std::vector<int> stack_;
    std::unordered_map<int, int> tokens_; // region -> its last side effect's token

    bool is_open(int g) const {
        for (int s : stack_)
            if (s == g) return true;
        return false;
    }
    static std::uint64_t hash(const void* p, std::size_t n) {
        std::uint64_t h = 1469598103934665603ull; // FNV-1a
        const auto* b = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i)
            h = (h ^ b[i]) * 1099511628211ull;
        return h;
    }
};

using recorder = basic_recorder<>;

// The recorder of this thread; null when nothing is being traced (the common case).
constinit inline thread_local recorder* active = nullptr;

// Runs the rest of a scope untraced: an op's own kernels and nested evaluations.
struct pause {
    recorder* saved = active;
    pause() { active = nullptr; }
    ~pause() { active = saved; }
    pause(const pause&) = delete;
    pause& operator=(const pause&) = delete;
};

// Whether this translation unit's ops record (XLET_TRACE): internal linkage, one value per unit.
constexpr bool compiled_in = XLET_TRACE_COMPILED;

[[noreturn]] XLET_TRACE_COLD inline void not_compiled_in() {
    throw error("to_stablehlo", "an op ran in code compiled without XLET_TRACE: include "
                                "<xlet/stablehlo/export.hpp> first (or define XLET_TRACE) in every translation "
                                "unit whose code is exported");
}

// The active recorder where tracing is compiled in; null elsewhere (and an error if one is active).
inline recorder* current() {
    if constexpr (compiled_in) {
        return active;
    } else {
        if (active) [[unlikely]]
            not_compiled_in();
        return nullptr;
    }
}

// (A template of nothing: the recorder's copy bookkeeping is compiled only where tensors are copied.)
template<class = void>
inline void copied(const void* from, const void* to) {
    if (recorder* r = active) [[unlikely]]
        r->copied(from, to);
}

// MLIR's spelling of an element type.
template<class T>
inline constexpr std::string_view mlir_element = "?";
template<>
inline constexpr std::string_view mlir_element<bool> = "i1";
template<>
inline constexpr std::string_view mlir_element<std::int8_t> = "i8";
template<>
inline constexpr std::string_view mlir_element<std::int16_t> = "i16";
template<>
inline constexpr std::string_view mlir_element<std::int32_t> = "i32";
template<>
inline constexpr std::string_view mlir_element<std::int64_t> = "i64";
template<>
inline constexpr std::string_view mlir_element<std::uint8_t> = "ui8";
template<>
inline constexpr std::string_view mlir_element<std::uint16_t> = "ui16";
template<>
inline constexpr std::string_view mlir_element<std::uint32_t> = "ui32";
template<>
inline constexpr std::string_view mlir_element<std::uint64_t> = "ui64";
template<>
inline constexpr std::string_view mlir_element<half> = "f16";
template<>
inline constexpr std::string_view mlir_element<bfloat16> = "bf16";
template<>
inline constexpr std::string_view mlir_element<float> = "f32";
template<>
inline constexpr std::string_view mlir_element<double> = "f64";
template<>
inline constexpr std::string_view mlir_element<std::complex<float>> = "complex<f32>";
template<>
inline constexpr std::string_view mlir_element<std::complex<double>> = "complex<f64>";

// Quantized element types (quant/types.hpp) as MLIR prints them: !quant.uniform<i8:f32, 5.000000e-01:-3>.
template<class T>
requires is_quantized<T>
inline constexpr std::string_view mlir_element<T> = element_traits<T>::name;

// A per-axis quantized element's spelling with its quantization dimension changed to `axis` (a
// view moves it: transpose, reshape; the scales stay).
inline std::string quant_axis_renamed(std::string_view name, std::int64_t axis) {
    const std::size_t list = name.find(", {");
    const std::size_t colon = name.rfind(':', list);
    if (list == std::string_view::npos || colon == std::string_view::npos) return std::string(name);
    return std::string(name.substr(0, colon + 1)) + std::to_string(axis) + std::string(name.substr(list));
}

// "tensor<2x3xf32>"
template<class T, std::size_t R>
std::string tensor_type(const extents_t<R>& e) {
    std::string s = "tensor<";
    for (std::size_t d : e)
        s += std::to_string(d) + "x";
    s += mlir_element<T>;
    return s + ">";
}
template<class X>
std::string type_of() {
    return tensor_type<typename X::value_type, X::rank>(X::extents);
}

// An integer list attribute: "array<i64: 1, 0>".
inline std::string i64_array(const std::vector<std::int64_t>& v) {
    std::string s = "array<i64";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : ": ") + std::to_string(v[i]);
    return s + ">";
}

// Any integer list (std::array, dim_list, ...) as "[1, 0]" (inside dialect attributes).
template<class L>
std::string int_list(const L& l) {
    std::string s = "[";
    for (std::size_t i = 0; i < l.size(); ++i)
        s += (i ? ", " : "") + std::to_string(l[i]);
    return s + "]";
}
// ... and as an array<i64: ...> attribute.
template<class L>
std::string i64_list(const L& l) {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < l.size(); ++i)
        v.push_back(static_cast<std::int64_t>(l[i]));
    return i64_array(v);
}
inline const char* precision_name(precision p) {
    return p == precision::highest ? "HIGHEST" : p == precision::high ? "HIGH" : "DEFAULT";
}
inline std::string precision_attr(precision_config c) {
    if (c.lhs == precision::default_ && c.rhs == precision::default_) return {};
    return std::string("precision_config = [#stablehlo<precision ") + precision_name(c.lhs) +
           ">, #stablehlo<precision " + precision_name(c.rhs) + ">]";
}
// "a, b" without empty parts.
inline std::string join_attrs(std::initializer_list<std::string> parts) {
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

// The attribute of a constant: a splat when every element is equal (bitwise); pred and quantized
// elements as nested lists (a quantized constant's value is of the storage type, as StableHLO's
// `constant` of a quantized result: dense<[1, -2]> : tensor<2xi8>); anything else as its raw bytes
// in hex (exact for every type; MLIR's layout: row-major, little-endian, complex as (re, im)).
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
