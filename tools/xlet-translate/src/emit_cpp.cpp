// StableHLO -> C++ over xlet's public headers.
//
// Every SSA value becomes a C++ variable. A value used once, by an element-wise or layout op of
// the same block, stays a lazy xlet expression (`auto v = ...`, with a static_assert of the
// module's type) so chains fuse into one pass as in hand-written xlet; every other value is a
// tensor of the module's declared type, so the compiler checks each op's result shape against
// the module. Constants keep their exact bits (hex floats, or the bytes of the data).
#include "emit_cpp.hpp"

#include "attr_values.hpp"
#include "parser.hpp"     // parse_type: the types of a !stablehlo.future
#include "pass_quant.hpp" // has_quant_type

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace xlt {

namespace {

// ---- element types ----------------------------------------------------------------------------

// A quantized element type !quant.uniform<...> is xlet's quant::uniform / quant::uniform_per_axis
// (include/xlet/quant/): storage i4 u4 i8 u8 i16 u16 i32 (i2, u2, u32 have no xlet type: ""),
// expressed f16 bf16 f32 f64, each scale the shortest decimal that reads back to the parser's
// double (GCC and Clang round decimal literals correctly: the bits are the module's), the storage
// range only when narrower than the storage type's.
std::string quant_storage_cpp(const quant_type& q) {
    if (q.bits == 4) return q.is_signed ? "xlet::quant::i4" : "xlet::quant::u4";
    if (q.bits == 8) return q.is_signed ? "std::int8_t" : "std::uint8_t";
    if (q.bits == 16) return q.is_signed ? "std::int16_t" : "std::uint16_t";
    if (q.bits == 32 && q.is_signed) return "std::int32_t";
    return "";
}
// The element type whose bytes hold a stored integer (i4 and u4: one in a byte).
std::string quant_bytes_elem(const quant_type& q) { return q.bits == 4 ? (q.is_signed ? "i8" : "ui8") : q.storage(); }
std::string double_literal(double v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}
std::string quant_cpp(const quant_type& q) {
    std::string s = quant_storage_cpp(q);
    const std::string e = q.expressed == "f32"    ? "float"
                          : q.expressed == "f64"  ? "double"
                          : q.expressed == "f16"  ? "xlet::half"
                          : q.expressed == "bf16" ? "xlet::bfloat16"
                                                  : "";
    if (s.empty() || e.empty() || !q.check().empty()) return "";
    s += ", " + e + ", ";
    auto list = [&](auto f) {
        std::string l;
        for (std::size_t i = 0; i < q.scales.size(); ++i)
            l += (i ? ", " : "") + f(i);
        return l;
    };
    if (q.per_axis())
        s = "xlet::quant::uniform_per_axis<" + s + std::to_string(q.axis) + ", xlet::quant::scales(" +
            list([&](std::size_t i) { return double_literal(q.scales[i]); }) + "), xlet::quant::zero_points(" +
            list([&](std::size_t i) { return std::to_string(q.zero_points[i]); }) + ")";
    else
        s = "xlet::quant::uniform<" + s + "xlet::quant::scale(" + double_literal(q.scales[0]) + "), " +
            std::to_string(q.zero_points[0]);
    const bool narrow = q.is_signed ? q.storage_min != -(std::int64_t{1} << (q.bits - 1)) ||
                                          q.storage_max != (std::int64_t{1} << (q.bits - 1)) - 1
                                    : q.storage_min != 0 || q.storage_max != (std::int64_t{1} << q.bits) - 1;
    if (narrow) s += ", " + std::to_string(q.storage_min) + ", " + std::to_string(q.storage_max);
    return s + ">";
}
std::string quant_cpp(const std::string& e) {
    auto q = quant_of(e);
    return q ? quant_cpp(*q) : "";
}

std::string cpp_elem(const std::string& e) {
    static const std::map<std::string, std::string> m = {{"i1", "bool"},
                                                         {"i8", "std::int8_t"},
                                                         {"i16", "std::int16_t"},
                                                         {"i32", "std::int32_t"},
                                                         {"i64", "std::int64_t"},
                                                         {"si8", "std::int8_t"},
                                                         {"si16", "std::int16_t"},
                                                         {"si32", "std::int32_t"},
                                                         {"si64", "std::int64_t"},
                                                         {"ui8", "std::uint8_t"},
                                                         {"ui16", "std::uint16_t"},
                                                         {"ui32", "std::uint32_t"},
                                                         {"ui64", "std::uint64_t"},
                                                         {"f16", "xlet::half"},
                                                         {"bf16", "xlet::bfloat16"},
                                                         {"f32", "float"},
                                                         {"f64", "double"},
                                                         {"complex<f32>", "std::complex<float>"},
                                                         {"complex<f64>", "std::complex<double>"}};
    auto it = m.find(e);
    return it == m.end() ? quant_cpp(e) : it->second;
}
std::string alias_elem(const std::string& e) {
    static const std::map<std::string, std::string> m = {
        {"i1", "pred"},  {"i8", "s8"},    {"i16", "s16"},          {"i32", "s32"},          {"i64", "s64"},
        {"si8", "s8"},   {"si16", "s16"}, {"si32", "s32"},         {"si64", "s64"},         {"ui8", "u8"},
        {"ui16", "u16"}, {"ui32", "u32"}, {"ui64", "u64"},         {"f16", "f16"},          {"bf16", "bf16"},
        {"f32", "f32"},  {"f64", "f64"},  {"complex<f32>", "c64"}, {"complex<f64>", "c128"}};
    auto it = m.find(e);
    return it == m.end() ? std::string() : it->second;
}
std::string real_elem(const std::string& e) {
    if (e == "complex<f32>") return "f32";
    if (e == "complex<f64>") return "f64";
    return e;
}

std::string join_dims(const std::vector<std::int64_t>& d) {
    std::string s;
    for (std::size_t i = 0; i < d.size(); ++i)
        s += (i ? ", " : "") + std::to_string(d[i]);
    return s;
}

// ---- bounded dynamic types ---------------------------------------------------------------------
// tensor<?x4xf32, #stablehlo.bounds<10, ?>>: every `?` has a bound (the parser refuses a bound on a
// static dimension). In C++ xlet::bounded<xlet::f32<10, 4>, 1u>: the tensor of the bounds and a
// run-time size for each dynamic dimension (bit d of the mask). A `?` without a bound is dynamic.
bool is_bounded(const type& t) {
    if (t.k != type::kind::tensor || t.bounds.size() != t.dims.size() || t.dims.size() > 32) return false;
    bool dynamic = false;
    for (std::size_t d = 0; d < t.dims.size(); ++d)
        if (t.dims[d] < 0) {
            if (t.bounds[d] < 0) return false;
            dynamic = true;
        }
    return dynamic;
}
bool any_bounded(const std::vector<type>& ts) { return std::any_of(ts.begin(), ts.end(), is_bounded); }
// The dimensions with each `?` replaced by its bound, and the mask of the dynamic ones.
std::vector<std::int64_t> padded_dims(const type& t) {
    std::vector<std::int64_t> p = t.dims;
    for (std::size_t d = 0; d < p.size() && d < t.bounds.size(); ++d)
        if (p[d] < 0) p[d] = t.bounds[d];
    return p;
}
unsigned dynamic_mask(const type& t) {
    unsigned m = 0;
    for (std::size_t d = 0; is_bounded(t) && d < t.dims.size(); ++d)
        if (t.dims[d] < 0) m |= 1u << d;
    return m;
}
// The tensor type over `padded` whose dimensions in `mask` are dynamic, bounded by their extent.
type bounded_type(const std::string& elem, const std::vector<std::int64_t>& padded, unsigned mask) {
    type t;
    t.k = type::kind::tensor;
    t.elem = elem;
    t.dims = padded;
    for (std::size_t d = 0; mask && d < padded.size(); ++d) {
        bool dyn = ((mask >> d) & 1u) != 0;
        t.bounds.push_back(dyn ? padded[d] : -1);
        if (dyn) t.dims[d] = -1;
    }
    return t;
}

std::string cpp_type(const type& t) {
    switch (t.k) {
    case type::kind::tensor:
        if (is_bounded(t))
            return "xlet::bounded<xlet::" + alias_elem(t.elem) + "<" + join_dims(padded_dims(t)) + ">, " +
                   std::to_string(dynamic_mask(t)) + "u>";
        if (is_quant_elem(t.elem))
            return "xlet::tensor<" + quant_cpp(t.elem) + (t.dims.empty() ? "" : ", ") + join_dims(t.dims) + ">";
        return "xlet::" + alias_elem(t.elem) + "<" + join_dims(t.dims) + ">";
    case type::kind::token:
        return "xlet::token";
    case type::kind::tuple: {
        std::string s = "std::tuple<";
        for (std::size_t i = 0; i < t.elems.size(); ++i)
            s += (i ? ", " : "") + cpp_type(t.elems[i]);
        return s + ">";
    }
    default:
        return "void";
    }
}

// One element as a C++ expression of its element type, bit-exact.
std::string cpp_scalar(const std::string& elem, const std::uint8_t* p) {
    char buf[96];
    if (elem == "i1") return p[0] ? "true" : "false";
    if (auto q = quant_of(elem)) return quant_cpp(*q) + "{" + cpp_scalar(quant_bytes_elem(*q), p) + "}"; // stored
    if (elem == "f32") {
        float f = std::bit_cast<float>(static_cast<std::uint32_t>(load_le(p, 4)));
        if (std::isfinite(f)) {
            std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
            return buf;
        }
        std::snprintf(buf, sizeof buf, "std::bit_cast<float>(0x%08Xu)", static_cast<unsigned>(load_le(p, 4)));
        return buf;
    }
    if (elem == "f64") {
        double d = std::bit_cast<double>(load_le(p, 8));
        if (std::isfinite(d)) {
            std::snprintf(buf, sizeof buf, "%a", d);
            return buf;
        }
        std::snprintf(buf, sizeof buf, "std::bit_cast<double>(0x%016llXull)",
                      static_cast<unsigned long long>(load_le(p, 8)));
        return buf;
    }
    if (elem == "f16" || elem == "bf16") {
        std::snprintf(buf, sizeof buf, "xlet::%s::from_bits(0x%04X)", elem == "f16" ? "half" : "bfloat16",
                      static_cast<unsigned>(load_le(p, 2)));
        return buf;
    }
    if (is_complex_elem(elem)) {
        std::string r = real_elem(elem);
        int w = elem_bits(r) / 8;
        return cpp_elem(elem) + "(" + cpp_scalar(r, p) + ", " + cpp_scalar(r, p + w) + ")";
    }
    int bits = elem_bits(elem);
    std::uint64_t u = load_le(p, bits / 8);
    if (is_unsigned_elem(elem)) {
        std::snprintf(buf, sizeof buf, "%s{%lluu}", cpp_elem(elem).c_str(), static_cast<unsigned long long>(u));
        return buf;
    }
    std::int64_t v =
        bits == 64 ? static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u << (64 - bits)) >> (64 - bits);
    if (v == INT64_MIN) return "std::int64_t{INT64_MIN}";
    std::snprintf(buf, sizeof buf, "%s{%lld}", cpp_elem(elem).c_str(), static_cast<long long>(v));
    return buf;
}

std::string dims_lit(const std::vector<std::int64_t>& v) { return "xlet::dims<" + join_dims(v) + ">"; }
std::string braces(const std::vector<std::int64_t>& v) { return "{" + join_dims(v) + "}"; }

const std::set<std::string> cpp_keywords = {
    "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
    "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
    "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
    "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
    "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
    "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
    "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
    "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
    "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
    "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
    "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
    "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
    "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
    "xor_eq",      "xlet",      "std"};

std::string sanitize(const std::string& n) {
    // letters, digits and single underscores; a leading digit or underscore gets a 'v' first
    std::string s;
    s.reserve(n.size() + 2);
    for (char c : n) {
        char d = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        if (s.empty() && (d == '_' || std::isdigit(static_cast<unsigned char>(d)))) s.push_back('v');
        if (d == '_' && !s.empty() && s.back() == '_') continue;
        s.push_back(d);
    }
    if (s.empty()) s.push_back('v');
    if (cpp_keywords.count(s)) s.push_back('_');
    return s;
}

// ---- op tables -----------------------------------------------------------------------------

const std::map<std::string, std::string> unary_ops = {{"stablehlo.abs", "abs"},
                                                      {"stablehlo.cbrt", "cbrt"},
                                                      {"stablehlo.ceil", "ceil"},
                                                      {"stablehlo.count_leading_zeros", "clz"},
                                                      {"stablehlo.cosine", "cos"},
                                                      {"stablehlo.exponential", "exp"},
                                                      {"stablehlo.exponential_minus_one", "expm1"},
                                                      {"stablehlo.floor", "floor"},
                                                      {"stablehlo.imag", "imag"},
                                                      {"stablehlo.is_finite", "is_finite"},
                                                      {"stablehlo.log", "log"},
                                                      {"stablehlo.log_plus_one", "log1p"},
                                                      {"stablehlo.logistic", "logistic"},
                                                      {"stablehlo.not", "not_"},
                                                      {"stablehlo.negate", "neg"},
                                                      {"stablehlo.popcnt", "popcnt"},
                                                      {"stablehlo.real", "real"},
                                                      {"stablehlo.round_nearest_afz", "round_nearest_afz"},
                                                      {"stablehlo.round_nearest_even", "round_nearest_even"},
                                                      {"stablehlo.rsqrt", "rsqrt"},
                                                      {"stablehlo.sign", "sign"},
                                                      {"stablehlo.sine", "sin"},
                                                      {"stablehlo.sqrt", "sqrt"},
                                                      {"stablehlo.tan", "tan"},
                                                      {"stablehlo.tanh", "tanh"},
                                                      {"chlo.erf", "erf"},
                                                      {"chlo.tan", "tan"},
                                                      {"chlo.cosh", "cosh"}};
const std::map<std::string, std::string> binary_ops = {{"stablehlo.add", "add"},
                                                       {"stablehlo.atan2", "atan2"},
                                                       {"stablehlo.complex", "complex"},
                                                       {"stablehlo.divide", "div"},
                                                       {"stablehlo.maximum", "max"},
                                                       {"stablehlo.minimum", "min"},
                                                       {"stablehlo.multiply", "mul"},
                                                       {"stablehlo.power", "pow"},
                                                       {"stablehlo.remainder", "rem"},
                                                       {"stablehlo.shift_left", "shift_left"},
                                                       {"stablehlo.shift_right_arithmetic", "shift_right_arithmetic"},
                                                       {"stablehlo.shift_right_logical", "shift_right_logical"},
                                                       {"stablehlo.subtract", "sub"},
                                                       {"stablehlo.and", "and_"},
                                                       {"stablehlo.or", "or_"},
                                                       {"stablehlo.xor", "xor_"}};
const std::map<std::string, std::string> chlo_binary_ops = {
    {"chlo.broadcast_add", "add"},
    {"chlo.broadcast_atan2", "atan2"},
    {"chlo.broadcast_complex", "complex"},
    {"chlo.broadcast_divide", "div"},
    {"chlo.broadcast_maximum", "max"},
    {"chlo.broadcast_minimum", "min"},
    {"chlo.broadcast_multiply", "mul"},
    {"chlo.broadcast_power", "pow"},
    {"chlo.broadcast_remainder", "rem"},
    {"chlo.broadcast_shift_left", "shift_left"},
    {"chlo.broadcast_shift_right_arithmetic", "shift_right_arithmetic"},
    {"chlo.broadcast_shift_right_logical", "shift_right_logical"},
    {"chlo.broadcast_subtract", "sub"},
    {"chlo.broadcast_and", "and_"},
    {"chlo.broadcast_or", "or_"},
    {"chlo.broadcast_xor", "xor_"},
    {"chlo.broadcast_compare", "compare"}};
const std::set<std::string> other_ops = {"stablehlo.constant",
                                         "stablehlo.iota",
                                         "stablehlo.compare",
                                         "stablehlo.select",
                                         "stablehlo.clamp",
                                         "stablehlo.convert",
                                         "stablehlo.uniform_quantize",
                                         "stablehlo.uniform_dequantize",
                                         "stablehlo.bitcast_convert",
                                         "stablehlo.reduce_precision",
                                         "stablehlo.broadcast_in_dim",
                                         "stablehlo.broadcast",
                                         "stablehlo.reshape",
                                         "stablehlo.transpose",
                                         "stablehlo.reverse",
                                         "stablehlo.slice",
                                         "stablehlo.concatenate",
                                         "stablehlo.pad",
                                         "stablehlo.dynamic_slice",
                                         "stablehlo.dynamic_update_slice",
                                         "stablehlo.dot",
                                         "stablehlo.dot_general",
                                         "stablehlo.reduce",
                                         "stablehlo.sort",
                                         "stablehlo.while",
                                         "stablehlo.if",
                                         "stablehlo.case",
                                         "stablehlo.tuple",
                                         "stablehlo.get_tuple_element",
                                         "stablehlo.optimization_barrier",
                                         "stablehlo.get_dimension_size",
                                         "stablehlo.set_dimension_size",
                                         "stablehlo.dynamic_reshape",
                                         "stablehlo.return",
                                         "func.return",
                                         "func.call",
                                         "stablehlo.custom_call",
                                         "stablehlo.after_all",
                                         "stablehlo.create_token",
                                         "chlo.top_k",
                                         "stablehlo.gather",
                                         "stablehlo.scatter",
                                         "stablehlo.reduce_window",
                                         "stablehlo.select_and_scatter",
                                         "stablehlo.convolution",
                                         "stablehlo.fft",
                                         "stablehlo.rng_bit_generator",
                                         "stablehlo.cholesky",
                                         "stablehlo.triangular_solve",
                                         "stablehlo.batch_norm_training",
                                         "stablehlo.batch_norm_inference",
                                         "stablehlo.batch_norm_grad",
                                         "stablehlo.map",
                                         "stablehlo.composite",
                                         "chlo.is_inf",
                                         "chlo.is_pos_inf",
                                         "chlo.is_neg_inf",
                                         "chlo.square",
                                         "chlo.conj",
                                         "chlo.lgamma",
                                         "chlo.erfc",
                                         "chlo.bessel_i1e",
                                         "chlo.next_after",
                                         "chlo.ragged_dot",
                                         "chlo.scan",
                                         "stablehlo.all_reduce",
                                         "stablehlo.all_gather",
                                         "stablehlo.reduce_scatter",
                                         "stablehlo.all_to_all",
                                         "stablehlo.collective_permute",
                                         "stablehlo.collective_broadcast",
                                         "stablehlo.async_start",
                                         "stablehlo.async_done",
                                         "stablehlo.replica_id",
                                         "stablehlo.partition_id",
                                         "stablehlo.send",
                                         "stablehlo.recv",
                                         "interpreter.run_parallel",
                                         "stablehlo.rng",
                                         "stablehlo.infeed",
                                         "stablehlo.outfeed",
                                         "check.expect_eq",
                                         "check.expect_eq_const",
                                         "check.expect_almost_eq",
                                         "check.expect_almost_eq_const",
                                         "check.expect_close"};

// Ops that run on a device of a replica pool: a function containing one (or calling such a
// function) takes the device's xlet::replica_context& as its first parameter.
bool is_spmd_op(const std::string& n) {
    static const std::set<std::string> ops = {
        "stablehlo.all_reduce", "stablehlo.all_gather",         "stablehlo.reduce_scatter",
        "stablehlo.all_to_all", "stablehlo.collective_permute", "stablehlo.collective_broadcast",
        "stablehlo.replica_id", "stablehlo.partition_id",       "stablehlo.send",
        "stablehlo.recv"};
    return ops.count(n) > 0;
}
// ... or the custom_call JAX writes for ragged_all_to_all (StableHLO has no op of its own).
bool is_ragged_all_to_all(const op& o) { return o.name == "stablehlo.custom_call" && o.callee == "ragged_all_to_all"; }
// ... or the checks of StableHLO's JAX-generated test data (stablehlo/testdata), which its
// interpreter evaluates as custom calls: @check.expect_eq / expect_almost_eq / expect_close, and
// @check.eq, which also returns whether they were equal.
bool is_check_call(const op& o) {
    return o.name == "stablehlo.custom_call" &&
           (o.callee == "check.expect_eq" || o.callee == "check.expect_almost_eq" || o.callee == "check.expect_close" ||
            o.callee == "check.eq");
}
bool is_spmd(const op& o) { return is_spmd_op(o.name) || is_ragged_all_to_all(o); }

// Whether an op of these names is anywhere in the module.
bool uses_op(const module& m, const std::set<std::string>& names) {
    std::function<bool(const region&)> rec = [&](const region& r) {
        for (auto& b : r.blocks)
            for (auto& o : b.ops) {
                if (names.count(o->name)) return true;
                for (auto& g : o->regions)
                    if (rec(g)) return true;
            }
        return false;
    };
    for (auto& f : m.funcs)
        if (rec(f.body)) return true;
    return false;
}

// Whether a region runs collectives (directly, in a nested region such as an async_start's
// body, or through calls and composites of the functions `spmd`): it needs the device's context.
bool needs_context(const region& r, const std::set<std::string>& spmd) {
    for (auto& b : r.blocks)
        for (auto& o : b.ops) {
            const attr* dec = o->name == "stablehlo.composite" ? o->get("decomposition") : nullptr;
            if (is_spmd(*o) || (o->name == "func.call" && spmd.count(o->callee)) ||
                (dec && dec->k == attr::kind::symbol && spmd.count(dec->s)))
                return true;
            for (auto& g : o->regions)
                if (needs_context(g, spmd)) return true;
        }
    return false;
}

// The functions that run collectives (directly, in a region, or through calls and composites).
std::set<std::string> spmd_functions(const module& m) {
    std::set<std::string> out;
    bool changed = true;
    while (changed) {
        changed = false;
        for (auto& f : m.funcs)
            if (!out.count(f.name) && needs_context(f.body, out)) changed = out.insert(f.name).second || changed;
    }
    return out;
}

// !stablehlo.future<...> (StableHLO 1.15), which the IR keeps as its text; its types, false if
// they do not read.
bool is_future_type(const type& t) { return t.k == type::kind::other && t.text.rfind("!stablehlo.future<", 0) == 0; }
bool future_elems(const type& t, std::vector<type>& out) {
    const std::size_t head = std::string("!stablehlo.future<").size();
    type list;
    std::string why;
    if (!is_future_type(t) || t.text.back() != '>' ||
        !parse_type("tuple<" + t.text.substr(head, t.text.size() - head - 1) + ">", list, why) ||
        list.k != type::kind::tuple)
        return false;
    out = std::move(list.elems);
    return true;
}
std::string types_str(const std::vector<type>& ts) {
    std::string s;
    for (std::size_t i = 0; i < ts.size(); ++i)
        s += (i ? ", " : "") + type_str(ts[i]);
    return s;
}
// Ops an async_start body that runs as a task must not hold: they act on the host's state in
// program order (the feeds' queues, the default generator, a custom call's target).
bool has_ordered_effects(const region& r) {
    static const std::set<std::string> ops = {"stablehlo.infeed", "stablehlo.outfeed", "stablehlo.rng",
                                              "stablehlo.custom_call"};
    for (auto& b : r.blocks)
        for (auto& o : b.ops) {
            if (ops.count(o->name) || o->name.rfind("check.", 0) == 0) return true;
            for (auto& g : o->regions)
                if (has_ordered_effects(g)) return true;
        }
    return false;
}

bool supported_type(const type& t) {
    if (t.k == type::kind::token) return true;
    if (t.k == type::kind::tuple) {
        for (auto& e : t.elems)
            if (!supported_type(e)) return false;
        return true;
    }
    // (bounds on a static type are all `?`: the parser refuses others)
    return t.k == type::kind::tensor && !cpp_elem(t.elem).empty() && t.is_static() && t.encoding.empty() &&
           (!alias_elem(t.elem).empty() || is_quant_elem(t.elem));
}

std::string where(const module& m, loc at) {
    return m.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.col);
}

// ---- the emitter -------------------------------------------------------------------------------

struct value_info {
    std::string cpp;
    type t;
    bool lazy = false;
    int depth = 0; // lazy ops in its expression tree (0 for a tensor)
};

// A lazy chain longer than this is materialised: one fused pass of a few ops is the gain; a
// 200-op expression type costs the compiler far more (and exceeds its template depth limits).
constexpr int max_fused_ops = 6;

class emitter {
public:
    emitter(const module& m, const emit_options& o) : m_(m), opt_(o) {}

    emit_result run() {
        emit_result r;
        validate();
        if (!errors_.empty()) {
            r.errors = errors_;
            return r;
        }
        std::string ns = opt_.ns.empty() ? (m_.name.empty() ? "module" : sanitize(m_.name)) : opt_.ns;
        out_ << "\nnamespace " << ns << " {\n\n";
        // Names of the functions (sanitised, unique) and forward declarations.
        std::set<std::string> used = {"infeed_queue", "outfeed_queue"}; // (the feeds' queues)
        for (auto& f : m_.funcs) {
            std::string n = sanitize(f.name);
            while (used.count(n))
                n += "_";
            used.insert(n);
            fname_[f.name] = n;
        }
        find_spmd_functions();
        if (uses_op(m_, {"stablehlo.infeed", "stablehlo.outfeed"}))
            out_ << "// stablehlo.infeed / stablehlo.outfeed: the module's host queues. Push what the infeeds read\n"
                    "// (an item is a tensor, or a std::tuple of the tensors of one infeed), pop what the\n"
                    "// outfeeds wrote (xlet::feed_queue, <xlet/ops/control/feed.hpp>).\n"
                    "inline xlet::feed_queue& infeed_queue() {\n    static xlet::feed_queue q;\n    return q;\n}\n"
                    "inline xlet::feed_queue& outfeed_queue() {\n    static xlet::feed_queue q;\n    return q;\n}\n\n";
        for (auto& f : m_.funcs)
            out_ << signature(f) << ";\n";
        out_ << "\n";
        for (auto& f : m_.funcs)
            emit_func(f);
        out_ << "} // namespace " << ns << "\n";
        if (opt_.runner) emit_runner(ns);
        std::ostringstream head;
        head << "// Generated by xlet-translate from " << m_.file << ". Edit the module, not this file.\n"
             << (opt_.runner ? "" : "#pragma once\n")
             << "#include <bit>\n#include <cmath>\n#include <complex>\n#include <cstdint>\n#include <cstring>\n"
             << "#include <limits>\n#include <string_view>\n#include <tuple>\n\n#include <xlet/xlet.hpp>\n"
             << (uses_composite_ ? "#include <xlet/ops/control/composite.hpp> // stablehlo.composite: Boost.Hana\n"
                                 : "")
             << "\n"
             << helpers() << (opt_.runner || uses_check_ ? check_helpers() : "");
        r.code = head.str() + out_.str();
        if (!errors_.empty()) {
            r.errors = errors_;
            r.code.clear();
        }
        return r;
    }

private:
    const module& m_;
    emit_options opt_;
    std::ostringstream out_;
    std::vector<diagnostic> errors_;
    std::map<std::string, std::string> fname_;
    std::vector<std::map<std::string, value_info>> scopes_;
    std::map<std::string, int> uses_;   // per function: uses of each value name
    std::set<std::string> need_tensor_; // values read as scalars or by a nested region
    std::set<std::string> idents_;      // C++ names taken in the current function
    bool uses_composite_ = false;
    std::set<std::string> spmd_funcs_; // functions that take the device's replica_context
    bool uses_check_ = false;          // check.* ops: their helpers are emitted, main() only for --emit runner

    void error(loc at, const std::string& text) { errors_.push_back({at, text}); }

    static std::string helpers() {
        return "#ifndef XLET_TRANSLATE_HELPERS\n#define XLET_TRANSLATE_HELPERS\n"
               "namespace xlet_translate {\n"
               "// A tensor of type T holding the bytes at p (constants keep their exact bits). The empty asm\n"
               "// hides the literal from the optimiser: GCC 12.2 at -O2 -march=native (AVX-512) folds a\n"
               "// memcpy of a long string literal into a 64-byte-aligned tensor to wrong values.\n"
               "template<class T>\nT from_bytes(const char* p) {\n    __asm__(\"\" : \"+r\"(p));\n    T t;\n"
               "    std::memcpy(static_cast<void*>(t.data()), p, sizeof(typename T::value_type) * T::size());\n"
               "    return t;\n}\n"
               "// A bounded value as the static type of the bounds that the module gives it: each size must\n"
               "// be its bound (a static dimension's size is its extent), so the static tensor is the value.\n"
               "template<class B>\nconst auto& whole(const B& b) {\n"
               "    for (std::size_t d = 0; d < B::rank; ++d)\n"
               "        if (b.size(d) != B::bounds[d])\n"
               "            throw xlet::error(\"set_dimension_size\", \"size \" + std::to_string(b.size(d)) +\n"
               "                              \" of dimension \" + std::to_string(d) + \" is not the extent \" +\n"
               "                              std::to_string(B::bounds[d]) + \" of the static result type\");\n"
               "    return b.padded();\n}\n"
               "// The element of a rank-0 tensor or expression.\n"
               "template<class E>\nauto scalar(const E& e) {\n"
               "    if constexpr (requires { e.data(); }) return e.data()[0];\n"
               "    else return xlet::eval(e).data()[0];\n}\n"
               "} // namespace xlet_translate\n#endif\n";
    }

    // -- validation: every unsupported op / type, all at once ------------------------------
    void validate() {
        // ops at module level other than func.func: the functions of a VHLO module, say
        for (auto& o : m_.ops)
            error(o->at, "op '" + o->name + "' at module level is not supported by xlet-translate" +
                             (o->name.rfind("vhlo.", 0) == 0 ? " (run --vhlo-legalize-to-stablehlo first)" : ""));
        for (auto& f : m_.funcs) {
            for (auto& a : f.args)
                check_type(a.t, a.at, "argument %" + a.name);
            for (auto& t : f.results)
                if (!is_future_type(t)) check_type(t, f.at, "a result of @" + f.name); // (its func.return says)
            validate_region(f.body, f, "func.return", static_cast<long>(f.results.size()), f.at);
        }
    }
    void check_type(const type& t, loc at, const std::string& what) {
        if (supported_type(t) || (is_bounded(t) && !alias_elem(t.elem).empty())) return;
        if (is_future_type(t))
            error(at, what + " is a !stablehlo.future, which xlet-translate reads only from stablehlo.async_start "
                             "into stablehlo.async_done of the same function");
        else if ((t.k == type::kind::tensor || t.k == type::kind::scalar) && is_quant_elem(t.elem) &&
                 quant_cpp(t.elem).empty())
            error(at, what + " has the quantized type " + type_str(t) +
                          ", whose storage type xlet does not have (quant::uniform stores i4, u4, i8, u8, i16, u16 "
                          "or i32: run --stablehlo-legalize-quant-to-math first)");
        else if (t.k == type::kind::tensor && !t.is_static())
            error(at, what + " has a dynamic shape " + type_str(t) +
                          " (run --stablehlo-refine-arguments and --stablehlo-refine-shapes first)");
        else if (t.k == type::kind::tensor && !t.encoding.empty())
            error(at, what + " has a tensor encoding xlet does not support: " + type_str(t));
        else
            error(at, what + " has type " + type_str(t) + ", which xlet does not support");
    }
    // ret: the terminator the region must end with ("func.return" / "stablehlo.return") and the
    // number of values it returns (-1: any).
    void validate_region(const region& r, const func& f, const std::string& ret, long count, loc owner) {
        for (auto& b : r.blocks) {
            if (ret != "func.return") // a function's block arguments are its arguments, checked already
                for (std::size_t i = 0; i < b.arg_types.size(); ++i)
                    check_type(b.arg_types[i], b.arg_locs.size() > i ? b.arg_locs[i] : loc{},
                               "block argument %" + b.arg_names[i]);
            for (auto& o : b.ops) {
                if (o->name.rfind("check.", 0) == 0 || is_check_call(*o)) uses_check_ = true;
                bool known = unary_ops.count(o->name) || binary_ops.count(o->name) || chlo_binary_ops.count(o->name) ||
                             other_ops.count(o->name);
                bool ok = false;
                if (!known) {
                    error(o->at, "op '" + o->name + "' is not supported by xlet-translate" +
                                     (o->name.rfind("chlo.", 0) == 0 ? " (try --chlo-legalize-to-stablehlo)" : ""));
                } else {
                    ok = validate_op(*o);
                }
                for (std::size_t i = 0; i < o->result_types.size(); ++i)
                    if (o->name != "stablehlo.async_start" || !is_future_type(o->result_types[i])) // (check_arity)
                        check_type(o->result_types[i], o->at, "result %" + o->results[i] + " of " + o->name);
                // A future goes from its async_start to async_done: a C++ handle (or the body's results)
                // in the function's scope, which nothing else reads.
                if (o->name != "stablehlo.async_done")
                    for (auto& t : o->operand_types)
                        if (is_future_type(t)) {
                            error(o->at, "a !stablehlo.future used by " + o->name +
                                             " is not supported by xlet-translate (stablehlo.async_done is the only "
                                             "op that reads one)");
                            break;
                        }
                if (!ok) continue;
                const std::string& n = o->name;
                std::size_t nr = o->results.size();
                std::vector<type> future;
                if (n == "stablehlo.async_start") future_elems(o->result_types[0], future);
                for (std::size_t k = 0; k < o->regions.size(); ++k) {
                    long c = n == "stablehlo.sort" || n == "stablehlo.select_and_scatter" ||
                                     n == "stablehlo.all_reduce" || n == "stablehlo.reduce_scatter" ||
                                     (n == "stablehlo.while" && k == 0)
                                 ? 1
                             : n == "stablehlo.async_start" ? static_cast<long>(future.size())
                                                            : static_cast<long>(nr);
                    validate_region(o->regions[k], f, "stablehlo.return", c, o->at);
                }
                if (n == "stablehlo.async_start") {
                    const block& b = o->regions[0].blocks[0];
                    const op* last = b.ops.empty() ? nullptr : b.ops.back().get();
                    if (last && last->name == "stablehlo.return" && last->operand_types != future)
                        error(last->at, "stablehlo.async_start: the body returns (" + types_str(last->operand_types) +
                                            "), its future holds (" + types_str(future) + ")");
                }
            }
            const op* last = b.ops.empty() ? nullptr : b.ops.back().get();
            if (!last || last->name != ret || (count >= 0 && static_cast<long>(last->operands.size()) != count))
                error(last ? last->at : owner, "this region must end with " + ret + " of " +
                                                   (count >= 0 ? std::to_string(count) : std::string("its")) +
                                                   " values");
        }
    }
    // Operand, result and region counts the emitter relies on; false (with a diagnostic) if wrong.
    // chlo.scan as xlet::scan: inputs and inits from operandSegmentSizes, outputs of the inputs'
    // shape, carries of the slice shape (the inputs' without the scan dimension), and a body that
    // computes each element of a slice from the same elements alone (element-wise ops, splat
    // constants, broadcasts of scalars), since xlet::scan's function runs on elements. Other
    // scans are decomposed by --chlo-legalize-to-stablehlo.
    struct scan_parts {
        std::size_t m = 0, k = 0, n = 0;
        std::int64_t dim = 0;
        std::vector<std::int64_t> slice;
    };
    static std::optional<scan_parts> scan_layout(const op& o) {
        const attr* seg = o.get("operandSegmentSizes");
        const attr* d = o.get("dimension");
        if (!seg || seg->list.size() != 2 || !d || d->k != attr::kind::integer) return std::nullopt;
        scan_parts p;
        if (seg->list[0].i < 0 || seg->list[1].i < 0) return std::nullopt;
        p.m = static_cast<std::size_t>(seg->list[0].i);
        p.k = static_cast<std::size_t>(seg->list[1].i);
        p.dim = d->i;
        if (p.m + p.k != o.operands.size() || o.results.size() < p.k) return std::nullopt;
        p.n = o.results.size() - p.k;
        return p;
    }
    // collective_broadcast's has_dynamic_root (a unit attribute; `= true` as VHLO spells it)
    static bool dynamic_root(const op& o) {
        const attr* a = o.get("has_dynamic_root");
        return a && (a->k == attr::kind::unit || (a->k == attr::kind::boolean && a->b));
    }
    static bool scan_elementwise(const std::string& n) {
        static const std::set<std::string> ops = {"stablehlo.compare", "stablehlo.select", "stablehlo.clamp",
                                                  "stablehlo.convert", "stablehlo.return", "stablehlo.reduce_precision",
                                                  "chlo.square",       "chlo.conj",        "chlo.is_inf",
                                                  "chlo.is_pos_inf",   "chlo.is_neg_inf",  "chlo.lgamma",
                                                  "chlo.erfc",         "chlo.bessel_i1e",  "chlo.next_after"};
        return unary_ops.count(n) || binary_ops.count(n) || ops.count(n);
    }
    bool scan_ok(const op& o) {
        auto p = scan_layout(o);
        auto fail = [&](const std::string& why) {
            error(o.at, "chlo.scan: " + why);
            return false;
        };
        if (!p)
            return fail("expected operandSegmentSizes = array<i32: inputs, inits>, a dimension and a result per init");
        if (o.regions.size() != 1 || o.regions[0].blocks.size() != 1 ||
            o.regions[0].blocks[0].arg_names.size() != p->m + p->k)
            return fail("expected one body of " + std::to_string(p->m + p->k) + " arguments");
        if (p->m == 0)
            return fail("a scan without inputs is not supported by xlet::scan (try --chlo-legalize-to-stablehlo)");
        const type& x = o.operand_types[0];
        if (x.k != type::kind::tensor || p->dim < 0 || static_cast<std::size_t>(p->dim) >= x.dims.size())
            return fail("dimension out of range");
        p->slice = x.dims;
        p->slice.erase(p->slice.begin() + p->dim);
        for (std::size_t j = 0; j < p->m; ++j)
            if (o.operand_types[j].dims != x.dims) return fail("inputs of different shapes");
        for (std::size_t j = 0; j < p->n; ++j)
            if (o.result_types[j].dims != x.dims)
                return fail("output " + std::to_string(j) +
                            " is not of the inputs' shape, which xlet::scan needs (try "
                            "--chlo-legalize-to-stablehlo)");
        for (std::size_t j = 0; j < p->k; ++j)
            if (o.result_types[p->n + j].dims != p->slice || o.operand_types[p->m + j].dims != p->slice)
                return fail("carry " + std::to_string(j) + " is not of the slice shape");
        if (p->slice.empty()) return true; // a body over scalars: any body
        for (auto& b : o.regions[0].blocks)
            for (auto& q : b.ops) {
                bool ok = q->regions.empty();
                if (q->name == "stablehlo.constant") {
                    const attr* v = q->get("value");
                    ok = ok && v && v->k == attr::kind::dense && !v->is_hex &&
                         std::all_of(v->elems.begin(), v->elems.end(), [&](auto& e) { return e == v->elems[0]; });
                } else if (q->name == "stablehlo.broadcast_in_dim") {
                    ok = ok && q->operand_types.size() == 1 && q->operand_types[0].dims.empty();
                } else {
                    ok = ok && scan_elementwise(q->name);
                    for (auto* ts : {&q->operand_types, &q->result_types})
                        for (auto& t : *ts)
                            ok = ok && t.dims == p->slice;
                }
                if (!ok)
                    return fail("its body's " + q->name +
                                " is not element-wise on the slices, which xlet::scan needs "
                                "(try --chlo-legalize-to-stablehlo)");
            }
        return true;
    }
    // The body with every slice-shaped value made a scalar (splat constants one element,
    // broadcasts of scalars reshapes of rank 0).
    static region scan_scalar_body(const op& o, const std::vector<std::int64_t>& slice) {
        region r = clone(o.regions[0]);
        if (slice.empty()) return r;
        auto fix = [&](type& t) {
            if (t.k == type::kind::tensor && t.dims == slice) t.dims.clear();
        };
        for (auto& b : r.blocks) {
            for (auto& t : b.arg_types)
                fix(t);
            for (auto& q : b.ops) {
                for (auto* ts : {&q->operand_types, &q->result_types})
                    for (auto& t : *ts)
                        fix(t);
                if (q->name == "stablehlo.constant") {
                    if (attr* v = q->get("value")) {
                        fix(v->t);
                        v->elems.resize(1);
                    }
                } else if (q->name == "stablehlo.broadcast_in_dim") {
                    q->name = "stablehlo.reshape";
                    q->attrs.clear();
                }
            }
        }
        return r;
    }

    bool check_arity(const op& o) {
        const std::string& n = o.name;
        std::size_t no = o.operands.size(), nr = o.results.size(), ng = o.regions.size();
        auto want = [&](bool ok, const std::string& what) {
            if (!ok) error(o.at, n + ": expected " + what);
            return ok;
        };
        if (is_ragged_all_to_all(o))
            return want(no == 6 && nr == 1 && ng == 0,
                        "input, output, input_offsets, send_sizes, output_offsets, recv_sizes and one result");
        if (unary_ops.count(n)) return want(no == 1 && nr == 1 && ng == 0, "one operand and one result");
        if (binary_ops.count(n) || chlo_binary_ops.count(n))
            return want(no == 2 && nr == 1 && ng == 0, "two operands and one result");
        static const std::set<std::string> one_one = {
            "stablehlo.convert",           "stablehlo.bitcast_convert",   "stablehlo.reduce_precision",
            "stablehlo.broadcast_in_dim",  "stablehlo.broadcast",         "stablehlo.reshape",
            "stablehlo.transpose",         "stablehlo.reverse",           "stablehlo.slice",
            "stablehlo.get_tuple_element", "stablehlo.get_dimension_size"};
        if (one_one.count(n) || n == "stablehlo.uniform_quantize" || n == "stablehlo.uniform_dequantize")
            return want(no == 1 && nr == 1 && ng == 0, "one operand and one result");
        if (n == "stablehlo.constant" || n == "stablehlo.iota")
            return want(no == 0 && nr == 1 && ng == 0, "no operand and one result");
        if (n == "stablehlo.compare") return want(no == 2 && nr == 1, "two operands and one result");
        if (n == "stablehlo.select" || n == "stablehlo.clamp")
            return want(no == 3 && nr == 1, "three operands and one result");
        if (n == "stablehlo.pad") return want(no == 2 && nr == 1, "two operands and one result");
        if (n == "stablehlo.set_dimension_size")
            return want(no == 2 && nr == 1 && ng == 0, "an operand, a size and one result");
        if (n == "stablehlo.dynamic_reshape")
            return want(no == 2 && nr == 1 && ng == 0, "an operand, a shape and one result");
        if (n == "stablehlo.dot" || n == "stablehlo.dot_general")
            return want(no == 2 && nr == 1, "two operands and one result");
        if (is_check_call(o)) {
            if (o.callee != "check.eq") return want(no == 2 && nr == 0, "two operands and no result");
            return want(no == 2 && nr <= 1 && ng == 0, "two operands and at most one result") &&
                   (nr == 0 || want(type_str(o.result_types[0]) == "tensor<i1>", "a tensor<i1> result"));
        }
        if (n == "stablehlo.concatenate" || n == "stablehlo.dynamic_slice" || n == "stablehlo.tuple" ||
            n == "stablehlo.custom_call")
            return want(no >= 1 && nr == 1 && ng == 0, "operands and one result");
        if (n == "stablehlo.dynamic_update_slice")
            return want(no >= 2 && nr == 1, "at least two operands and one result");
        if (n == "stablehlo.after_all" || n == "stablehlo.create_token") return want(nr == 1, "one result");
        if (n == "stablehlo.reduce") {
            if (!want(no >= 2 && no % 2 == 0 && nr == no / 2 && ng == 1,
                      "inputs and as many init values, a result per input and one body"))
                return false;
            return want(o.regions[0].blocks[0].arg_names.size() == no, std::to_string(no) + " body arguments");
        }
        if (n == "stablehlo.sort") {
            if (!want(no >= 1 && nr == no && ng == 1, "a result per operand and one comparator")) return false;
            return want(o.regions[0].blocks[0].arg_names.size() == 2 * no,
                        std::to_string(2 * no) + " comparator arguments");
        }
        if (n == "stablehlo.while") {
            if (!want(nr == no && ng == 2, "a result per operand, a cond and a body")) return false;
            return want(o.regions[0].blocks[0].arg_names.size() == no && o.regions[1].blocks[0].arg_names.size() == no,
                        std::to_string(no) + " arguments in cond and body");
        }
        if (n == "stablehlo.if") return want(no == 1 && ng == 2, "a predicate and two branches");
        if (n == "stablehlo.case") return want(no == 1 && ng >= 1, "an index and at least one branch");
        if (n == "stablehlo.optimization_barrier") return want(no == nr && no >= 1, "a result per operand");
        if (n == "chlo.top_k") return want(no == 1 && nr == 2, "one operand and two results");
        if (n == "chlo.is_inf" || n == "chlo.is_pos_inf" || n == "chlo.is_neg_inf" || n == "chlo.square" ||
            n == "chlo.conj" || n == "stablehlo.fft" || n == "stablehlo.cholesky" || n == "chlo.lgamma" ||
            n == "chlo.erfc" || n == "chlo.bessel_i1e")
            return want(no == 1 && nr == 1, "one operand and one result");
        if (n == "stablehlo.gather" || n == "stablehlo.triangular_solve" || n == "chlo.next_after")
            return want(no == 2 && nr == 1, "two operands and one result");
        if (n == "stablehlo.rng_bit_generator") return want(no == 1 && nr == 2, "a state and two results");
        if (n == "chlo.ragged_dot") return want(no == 3 && nr == 1, "lhs, rhs, group sizes and one result");
        if (n == "chlo.scan") return scan_ok(o);
        if (n == "stablehlo.convolution") return want(no == 2 && nr == 1, "two operands and one result");
        if (n == "stablehlo.batch_norm_training") return want(no == 3 && nr == 3, "three operands and three results");
        if (n == "stablehlo.batch_norm_inference") return want(no == 5 && nr == 1, "five operands and one result");
        if (n == "stablehlo.batch_norm_grad") return want(no == 5 && nr == 3, "five operands and three results");
        if (n == "stablehlo.scatter") {
            if (!want(no >= 3 && no % 2 == 1 && nr == (no - 1) / 2 && ng == 1,
                      "inputs, indices, as many updates, a result per input and one update computation"))
                return false;
            return want(o.regions[0].blocks[0].arg_names.size() == 2 * nr, std::to_string(2 * nr) + " body arguments");
        }
        if (n == "stablehlo.reduce_window") {
            if (!want(no >= 2 && no % 2 == 0 && nr == no / 2 && ng == 1, "inputs, as many init values and one body"))
                return false;
            return want(o.regions[0].blocks[0].arg_names.size() == no, std::to_string(no) + " body arguments");
        }
        if (n == "stablehlo.select_and_scatter") {
            if (!want(no == 3 && nr == 1 && ng == 2, "operand, source, init value, a select and a scatter region"))
                return false;
            return want(o.regions[0].blocks[0].arg_names.size() == 2 && o.regions[1].blocks[0].arg_names.size() == 2,
                        "two arguments in each region");
        }
        if (n == "stablehlo.map") {
            if (!want(no >= 1 && nr == 1 && ng == 1, "operands, one result and one computation")) return false;
            return want(o.regions[0].blocks[0].arg_names.size() == no, std::to_string(no) + " computation arguments");
        }
        if (n == "stablehlo.composite") {
            const attr* d = o.get("decomposition");
            if (!want(d && d->k == attr::kind::symbol, "a decomposition = @function")) return false;
            const func* f = m_.find(d->s);
            if (!f) {
                error(o.at, "stablehlo.composite: unknown decomposition @" + d->s);
                return false;
            }
            return want(no == f->args.size() && nr == f->results.size(), "the operands and results of @" + d->s);
        }
        if (n == "check.expect_eq" || n == "check.expect_almost_eq" || n == "check.expect_close")
            return want(no == 2 && nr == 0, "two operands");
        if (n == "check.expect_eq_const" || n == "check.expect_almost_eq_const") {
            if (!want(no == 1 && nr == 0, "one operand")) return false;
            const attr* v = o.get("value");
            return want(v && v->k == attr::kind::dense, "a dense<...> value");
        }
        if (n == "stablehlo.all_reduce" || n == "stablehlo.all_to_all") {
            if (!want(no >= 1 && nr == no && ng == (n == "stablehlo.all_reduce" ? 1u : 0u),
                      n == "stablehlo.all_reduce" ? "a result per operand and one computation"
                                                  : "a result per operand"))
                return false;
            return n != "stablehlo.all_reduce" ||
                   want(o.regions[0].blocks[0].arg_names.size() == 2, "two computation arguments");
        }
        if (n == "stablehlo.all_gather") {
            if (!want(no >= 1 && nr == no && ng == 0, "a result per operand")) return false;
            for (std::size_t k = 0; k < no; ++k) // the shard count is the ratio of the extents
                ratio(o, o.result_types[k], o.operand_types[k], dim_attr(o, "all_gather_dim"));
            return true;
        }
        if (n == "stablehlo.reduce_scatter") {
            if (!want(no == 1 && nr == 1 && ng == 1, "one operand, one result and one computation")) return false;
            ratio(o, o.operand_types[0], o.result_types[0], dim_attr(o, "scatter_dimension"));
            return want(o.regions[0].blocks[0].arg_names.size() == 2, "two computation arguments");
        }
        if (n == "stablehlo.collective_permute")
            return want(no == 1 && nr == 1 && ng == 0, "one operand and one result");
        if (n == "stablehlo.collective_broadcast") {
            if (dynamic_root(o)) { // the roots, tensor<N x i32>, after the N operands
                const type* r = no >= 2 ? &o.operand_types[no - 1] : nullptr;
                return want(no >= 2 && nr == no - 1 && ng == 0 && r->k == type::kind::tensor && r->elem == "i32" &&
                                r->dims == std::vector<std::int64_t>{static_cast<std::int64_t>(nr)},
                            "with has_dynamic_root, a result per operand and a last operand tensor<" +
                                std::to_string(no > 0 ? no - 1 : 0) + "xi32> of roots");
            }
            return want(no >= 1 && nr == no && ng == 0, "a result per operand");
        }
        if (n == "stablehlo.replica_id" || n == "stablehlo.partition_id")
            return want(no == 0 && nr == 1 && ng == 0, "no operand and one result");
        if (n == "stablehlo.infeed" || n == "stablehlo.outfeed") {
            bool in = n == "stablehlo.infeed";
            bool ok = in ? no == 1 && nr >= 1 : no >= 1 && nr == 1;
            const type* tok = !ok ? nullptr : in ? &o.result_types.back() : &o.operand_types.back();
            ok = ok && tok->k == type::kind::token &&
                 (in ? o.operand_types[0] : o.result_types[0]).k == type::kind::token;
            const auto& data = in ? o.result_types : o.operand_types;
            for (std::size_t k = 0; ok && k + 1 < data.size(); ++k)
                ok = data[k].k == type::kind::tensor;
            return want(ok, in ? "a token operand, and tensor results then a token"
                               : "tensor operands then a token, and a token result");
        }
        if (n == "stablehlo.rng") {
            std::string d = enum_word(o.get("rng_distribution"));
            if (d != "UNIFORM" && d != "NORMAL") {
                error(o.at, "stablehlo.rng: expected rng_distribution UNIFORM or NORMAL");
                return false;
            }
            return want(no == 3 && nr == 1 && ng == 0, "a, b, a shape and one result");
        }
        if (n == "stablehlo.send") return want(no == 2 && nr == 1 && ng == 0, "one operand, a token and one result");
        if (n == "stablehlo.recv") return want(no == 1 && nr == 2 && ng == 0, "a token, and a result and a token");
        if (n == "interpreter.run_parallel") {
            const attr* p = o.get("programs");
            bool ok = p && p->k == attr::kind::array && !p->list.empty();
            std::size_t parts = ok ? p->list[0].list.size() : 0;
            for (std::size_t r = 0; ok && r < p->list.size(); ++r) {
                ok = p->list[r].k == attr::kind::array && p->list[r].list.size() == parts && parts > 0;
                for (std::size_t q = 0; ok && q < parts; ++q)
                    ok = p->list[r].list[q].k == attr::kind::symbol && m_.find(p->list[r].list[q].s) != nullptr;
            }
            if (!want(ok, "programs = [[@f, ...], ...]: a list per replica of one known function per partition"))
                return false;
            std::size_t args = 0, results = 0;
            for (auto& row : p->list)
                for (auto& fn : row.list) {
                    args += m_.find(fn.s)->args.size();
                    results += m_.find(fn.s)->results.size();
                }
            return want(no == args && nr == results, std::to_string(args) + " operands and " + std::to_string(results) +
                                                         " results: the programs' arguments and results in order");
        }
        if (n == "stablehlo.async_start") {
            std::vector<type> future;
            if (!want(nr == 1 && ng == 1 && o.regions[0].blocks.size() == 1 && future_elems(o.result_types[0], future),
                      "one body and a !stablehlo.future result"))
                return false;
            const block& b = o.regions[0].blocks[0];
            bool ok = b.arg_types.size() == no;
            for (std::size_t k = 0; ok && k < no; ++k)
                ok = b.arg_types[k] == o.operand_types[k];
            return want(ok, "a body argument per operand, of its type (the body is isolated from above)");
        }
        if (n == "stablehlo.async_done") {
            std::vector<type> future;
            return want(no == 1 && ng == 0 && future_elems(o.operand_types[0], future) && o.result_types == future,
                        "a !stablehlo.future operand and its types as results");
        }
        if (n == "func.call") {
            const func* f = m_.find(o.callee);
            if (!f) {
                error(o.at, "call of an unknown function @" + o.callee);
                return false;
            }
            return want(no == f->args.size() && nr == f->results.size(),
                        std::to_string(f->args.size()) + " operands and " + std::to_string(f->results.size()) +
                            " results, as @" + o.callee + " has");
        }
        return true;
    }

    // -- quantized operands (issue #26) -----------------------------------------------------
    // An op on quantized tensors goes to xlet's quantized API (quant/, and the layout ops, which
    // move stored integers): element-wise ops as dequantize -> op -> quantize in one fused pass,
    // uniform_quantize / uniform_dequantize, data movement, select, clamp, compare. The rules
    // xlet's static_asserts hold (quant/elementwise.hpp C5-C7, uniform_quantize C2, the layout
    // ops' I1) are checked here, so that a module breaking them is an error at its op, not in the
    // C++ compiler. Any other op on quantized operands is an error naming it, with the pass that
    // rewrites quantized ops into integer and float arithmetic.

    // The element-wise ops xlet takes on quantized operands: StableHLO's, but those on bits and on
    // complex numbers' parts.
    static bool quant_unary(const std::string& n) {
        static const std::set<std::string> no = {"stablehlo.count_leading_zeros", "stablehlo.imag", "stablehlo.not",
                                                 "stablehlo.popcnt", "stablehlo.real"};
        return n.rfind("stablehlo.", 0) == 0 && unary_ops.count(n) && !no.count(n);
    }
    static bool quant_binary(const std::string& n) {
        static const std::set<std::string> no = {"stablehlo.complex",
                                                 "stablehlo.shift_left",
                                                 "stablehlo.shift_right_arithmetic",
                                                 "stablehlo.shift_right_logical",
                                                 "stablehlo.and",
                                                 "stablehlo.or",
                                                 "stablehlo.xor"};
        return binary_ops.count(n) && !no.count(n);
    }
    // Data movement that keeps the quantization dimension of a per-axis operand where it goes
    // (the others take per-tensor quantized operands only, as the spec's types say).
    static bool moves_axis(const std::string& n) {
        return n == "stablehlo.broadcast_in_dim" || n == "stablehlo.broadcast" || n == "stablehlo.transpose" ||
               n == "stablehlo.reshape";
    }
    static bool per_tensor_move(const std::string& n) {
        static const std::set<std::string> s = {"stablehlo.reverse",       "stablehlo.slice",
                                                "stablehlo.concatenate",   "stablehlo.pad",
                                                "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice",
                                                "stablehlo.gather"};
        return s.count(n) > 0;
    }
    static bool quant_passthrough(const op& o) {
        static const std::set<std::string> s = {"stablehlo.constant",
                                                "stablehlo.tuple",
                                                "stablehlo.get_tuple_element",
                                                "stablehlo.optimization_barrier",
                                                "stablehlo.while",
                                                "stablehlo.if",
                                                "stablehlo.case",
                                                "stablehlo.return",
                                                "func.return",
                                                "func.call"};
        return s.count(o.name) > 0;
    }
    // Where transpose, broadcast and broadcast_in_dim move a per-axis operand's quantization
    // dimension (a size-1 one broadcast to more repeats its scale), as the library computes it;
    // nullopt for reshape, whose rule the library checks.
    static std::optional<quant_type> moved_axis(const op& o, quant_type q) {
        const std::string& n = o.name;
        if (n == "stablehlo.transpose") {
            const auto p = int_list(o.get("permutation"));
            q.axis = std::find(p.begin(), p.end(), q.axis) - p.begin();
        } else if (n == "stablehlo.broadcast") {
            q.axis += static_cast<std::int64_t>(int_list(o.get("broadcast_sizes")).size());
        } else if (n == "stablehlo.broadcast_in_dim") {
            const auto d = int_list(o.get("broadcast_dimensions"));
            if (q.axis >= static_cast<std::int64_t>(d.size())) return std::nullopt;
            q.axis = d[static_cast<std::size_t>(q.axis)];
        } else {
            return std::nullopt;
        }
        const auto& dims = o.result_types[0].dims;
        if (q.axis < 0 || q.axis >= static_cast<std::int64_t>(dims.size())) return std::nullopt;
        const std::int64_t size = dims[static_cast<std::size_t>(q.axis)];
        if (q.scales.size() == 1 && size > 1) {
            q.scales.assign(static_cast<std::size_t>(size), q.scales[0]);
            q.zero_points.assign(static_cast<std::size_t>(size), q.zero_points[0]);
        }
        return q;
    }
    static std::optional<quant_type> quant_of_value(const type& t) {
        return t.k == type::kind::tensor ? quant_of(t.elem) : std::nullopt;
    }
    static bool same_storage_expressed(const quant_type& a, const quant_type& b) {
        return a.is_signed == b.is_signed && a.bits == b.bits && a.expressed == b.expressed;
    }
    static bool same_baseline(const quant_type& a, const quant_type& b) {
        return same_storage_expressed(a, b) && a.storage_min == b.storage_min && a.storage_max == b.storage_max &&
               a.axis == b.axis;
    }
    // dot's or dot_general's batch and contracting dimensions: lhs_batch, rhs_batch,
    // lhs_contracting, rhs_contracting (empty where dot_general's attribute is missing).
    static std::array<std::vector<std::int64_t>, 4> dot_dim_lists(const op& o) {
        if (o.name == "stablehlo.dot")
            return {{{}, {}, {static_cast<std::int64_t>(o.operand_types[0].dims.size()) - 1}, {0}}};
        const attr* d = o.get("dot_dimension_numbers");
        if (!d) return {};
        return {int_list(d->field("lhs_batching_dimensions")), int_list(d->field("rhs_batching_dimensions")),
                int_list(d->field("lhs_contracting_dimensions")), int_list(d->field("rhs_contracting_dimensions"))};
    }
    // The result type argument of dot_general / conv_general_dilated: named when it is not lhs's
    // element type, and for a quantized result of operands of two types (xlet's rule C14 / C28).
    static std::string dot_out_t(const op& o) {
        const std::string &l = o.operand_types[0].elem, &r = o.operand_types[1].elem, &res = o.result_types[0].elem;
        return res != l || (is_quant_elem(res) && r != l) ? ", " + cpp_elem(res) : "";
    }
    // The rules xlet's quantized dot_general, dot and convolution state as static_asserts
    // (quant/dot.hpp, quant/conv.hpp: the spec's numbering, dot's C4 for dot_general's C14,
    // convolution's C28-C34), checked here so that a module breaking one is an error at its op;
    // "" when they hold. The shape rules are the float ops' (left to the C++ compiler, as theirs).
    static std::string quant_dot_rule(const op& o, const std::optional<quant_type>& l,
                                      const std::optional<quant_type>& r, const std::optional<quant_type>& res) {
        const bool conv = o.name == "stablehlo.convolution";
        auto rule = [&](const char* dot_general, const char* conv_label, const std::string& what) {
            const char* label = conv ? conv_label : dot_general;
            if (o.name == "stablehlo.dot" && std::string(label) == "C14") label = "C4";
            return what + " (xlet [" + label + "])";
        };
        const std::string& le = o.operand_types[0].elem;
        const std::string& re = o.result_types[0].elem;
        if (l && l->per_axis())
            return rule("I1", "I1", "lhs must be a tensor or a per-tensor quantized tensor, not per-axis quantized");
        if (!r || res.has_value() != l.has_value() || (!res && is_quant_elem(re)))
            return rule("C14", "C28",
                        "with a quantized operand, rhs must be a quantized tensor and the result a quantized tensor "
                        "exactly when lhs is");
        if (l) {
            if (l->is_signed != r->is_signed || l->bits != r->bits)
                return rule("C17", "C31",
                            "quantized lhs and rhs must have the same storage type, not " + l->storage() + " and " +
                                r->storage());
            if (l->expressed != r->expressed || l->expressed != res->expressed)
                return rule("C18", "C32", "quantized lhs, rhs and result must have the same expressed type");
            if (!r->per_axis() && res->per_axis())
                return rule("C19", "C33", "a per-tensor quantized rhs needs a per-tensor quantized result");
        } else if (le != r->expressed || re != le) {
            return rule("C20", "C34",
                        "with a float lhs (hybrid), lhs's type, rhs's expressed type and the result type must be the "
                        "same, not " +
                            le + ", " + r->expressed + " and " + re);
        }
        if (conv) { // the kernel's and the result's quantization dimensions
            conv_dims c;
            std::string why;
            const attr* a = o.get("dimension_numbers");
            if (!a || !read_conv_dims(*a, c, why)) return ""; // (an error of the emitter's, at the op)
            if (r->per_axis() && r->axis != c.kof)
                return rule("", "C29",
                            "a per-axis quantized rhs must be quantized along kernel_output_feature_dimension, " +
                                std::to_string(c.kof));
            if (res && res->per_axis() && res->axis != c.of)
                return rule("", "C30",
                            "a per-axis quantized result must be quantized along output_feature_dimension, " +
                                std::to_string(c.of));
            return "";
        }
        if (std::any_of(r->zero_points.begin(), r->zero_points.end(), [](std::int64_t z) { return z != 0; }))
            return rule("C15", "", "the zero points of rhs must be 0");
        if (!r->per_axis()) return "";
        // where rhs's quantization dimension lands in the result: a batch dimension's position, or
        // after the batch and lhs's free dimensions among rhs's free ones (-1: contracted)
        const auto lrank = static_cast<std::int64_t>(o.operand_types[0].dims.size());
        const auto rrank = static_cast<std::int64_t>(o.operand_types[1].dims.size());
        const auto [lb, rb, lc, rc] = dot_dim_lists(o);
        auto has = [](const std::vector<std::int64_t>& v, std::int64_t x) {
            return std::find(v.begin(), v.end(), x) != v.end();
        };
        if (has(rc, r->axis))
            return rule("C16", "",
                        "a per-axis quantized rhs's quantization dimension must not be a contracting dimension");
        std::int64_t at = -1;
        if (auto b = std::find(rb.begin(), rb.end(), r->axis); b != rb.end()) {
            at = b - rb.begin();
        } else {
            std::int64_t p = lrank - static_cast<std::int64_t>(lc.size()); // batch ++ lhs free ++ rhs free
            for (std::int64_t d = 0; d < rrank && at < 0; ++d)
                if (!has(rb, d) && !has(rc, d)) {
                    if (d == r->axis) at = p;
                    ++p;
                }
        }
        if (res && res->per_axis() && at >= 0 && res->axis != at)
            return rule("C25", "",
                        "a per-axis quantized result must be quantized along the result dimension that holds rhs's "
                        "quantization dimension, " +
                            std::to_string(at));
        return "";
    }
    bool validate_quant(const op& o) {
        const std::string& n = o.name;
        bool any = false;
        for (auto* ts : {&o.operand_types, &o.result_types})
            for (auto& t : *ts)
                any = any || has_quant_type(t);
        if (!any) return true;
        const std::string hint = " (run --stablehlo-legalize-quant-to-math first)";
        auto fail = [&](const std::string& why) {
            error(o.at, n + ": " + why);
            return false;
        };
        const bool check_eq =
            n == "check.expect_eq" || (is_check_call(o) && (o.callee == "check.expect_eq" || o.callee == "check.eq"));
        if (n == "check.expect_almost_eq" || n == "check.expect_almost_eq_const" || n == "check.expect_close" ||
            (is_check_call(o) && !check_eq))
            return fail("a quantized value is compared by its stored integers, with check.expect_eq or "
                        "check.expect_eq_const (or uniform_dequantize it first)");
        if (check_eq && o.operand_types[0].elem != o.operand_types[1].elem)
            return fail("compares values of two element types, " + elem_str(o.operand_types[0].elem) + " and " +
                        elem_str(o.operand_types[1].elem));
        if (check_eq || n == "check.expect_eq_const" || quant_passthrough(o)) return true;
        std::vector<std::optional<quant_type>> in, out;
        for (auto& t : o.operand_types)
            in.push_back(quant_of_value(t));
        for (auto& t : o.result_types)
            out.push_back(quant_of_value(t));
        auto all_quantized = [&] {
            return std::all_of(in.begin(), in.end(), [](auto& q) { return q.has_value(); }) &&
                   std::all_of(out.begin(), out.end(), [](auto& q) { return q.has_value(); });
        };
        auto per_axis = [&](std::size_t from) {
            for (std::size_t k = from; k < in.size(); ++k)
                if (in[k] && in[k]->per_axis()) return true;
            return out[0] && out[0]->per_axis();
        };
        if (n == "stablehlo.dot" || n == "stablehlo.dot_general" || n == "stablehlo.convolution") {
            const std::string why = quant_dot_rule(o, in[0], in[1], out[0]);
            return why.empty() || fail(why);
        }
        const std::string c7 = "per-axis quantized operands are for add only (xlet [C7])";
        if (n == "stablehlo.uniform_quantize") {
            if (!out[0]) return fail("the result must be quantized");
            const std::string x = in[0] ? in[0]->expressed : o.operand_types[0].elem;
            if (x != out[0]->expressed)
                return fail("the result's expressed type " + out[0]->expressed + " must be the operand's " +
                            (in[0] ? "expressed type " : "element type ") + x + " (xlet [C2])");
            return true;
        }
        if (n == "stablehlo.uniform_dequantize") {
            if (!in[0] || o.result_types[0].elem != in[0]->expressed)
                return fail("expected a quantized operand and a result of its expressed type (xlet [C2])");
            return true;
        }
        if (quant_unary(n)) {
            if (!in[0]) return fail("expected a quantized operand");
            if (in[0]->per_axis()) return fail(c7);
            if (n == "stablehlo.is_finite") return true;
            if (!out[0] || !same_baseline(*in[0], *out[0]))
                return fail("the result must be quantized, differing from the operand in scale and zero point "
                            "only (xlet [C6])");
            return true;
        }
        if (quant_binary(n) || n == "stablehlo.select" || n == "stablehlo.clamp" || n == "stablehlo.compare") {
            // select's predicate is no quantized operand; compare's result is a pred
            if (n == "stablehlo.select") in.erase(in.begin());
            if (n == "stablehlo.compare") out[0] = in[0];
            if (!all_quantized())
                return fail("with a quantized operand, every operand and the result must be quantized tensors "
                            "(xlet [C5])");
            const bool add = n == "stablehlo.add";
            for (auto& q : in)
                if (add ? !same_storage_expressed(*q, *out[0]) : !same_baseline(*q, *out[0]))
                    return fail(add ? "quantized operands and result must have one storage type and one expressed "
                                      "type (xlet [C6])"
                                    : "quantized operands and result must differ in scales and zero points only "
                                      "(xlet [C6])");
            if (add) {
                bool any_axis = false;
                for (auto& q : in)
                    if (q->per_axis()) {
                        any_axis = true;
                        if (q->axis != out[0]->axis) return fail(c7);
                    }
                if (any_axis != out[0]->per_axis()) return fail(c7);
            } else if (per_axis(0)) {
                return fail(c7);
            }
            if (n == "stablehlo.compare") {
                const std::string ty = enum_word(o.get("compare_type"));
                if (!ty.empty() && ty != "NOTYPE" && ty != "FLOAT")
                    return fail("quantized operands compare as their dequantized values: compare_type FLOAT, not " +
                                ty);
            }
            return true;
        }
        if (moves_axis(n) || per_tensor_move(n)) {
            // the moved operands (not the indices, starts or padding value's position) and the result:
            // one per-tensor type, or a per-axis type that the layout op moves
            const std::size_t moved = n == "stablehlo.concatenate"                                    ? in.size()
                                      : n == "stablehlo.dynamic_update_slice" || n == "stablehlo.pad" ? 2
                                                                                                      : 1;
            for (std::size_t k = 0; k < moved; ++k)
                if (!in[k] || !out[0]) return fail("the operand and the result must both be quantized");
            if (per_tensor_move(n) && per_axis(0))
                return fail("per-axis quantized operands are not supported (the spec's " + n.substr(10) +
                            " takes per-tensor quantized tensors)");
            for (std::size_t k = 0; k < moved; ++k) {
                if (in[k]->per_axis() ? !out[0]->per_axis() || !same_storage_expressed(*in[k], *out[0])
                                      : o.operand_types[k].elem != o.result_types[0].elem)
                    return fail("moves stored integers: the result's element type must be the operand's, " +
                                elem_str(o.operand_types[k].elem));
                if (auto m = in[k]->per_axis() ? moved_axis(o, *in[k]) : std::nullopt; m && !(*m == *out[0]))
                    return fail("the result's element type must be " + elem_str(quant_elem(*m)) +
                                " (the operand's quantization dimension moved by the op)");
            }
            return true;
        }
        if (n == "stablehlo.cholesky" || n == "stablehlo.triangular_solve" ||
            n.rfind("stablehlo.batch_norm_", 0) == 0) {
            // dequantize -> float op -> quantize (quant/float_ops.hpp): per-tensor operands and
            // results of one baseline type (the spec's I1 and C1 / C2)
            if (!all_quantized())
                return fail("with a quantized operand, every operand and result must be a quantized tensor (one "
                            "baseline element type)");
            for (auto* v : {&in, &out})
                for (auto& q : *v) {
                    if (q->per_axis())
                        return fail("per-axis quantized operands are not supported (the spec's " + n.substr(10) +
                                    " takes per-tensor quantized tensors)");
                    if (!same_baseline(*q, *in[0]))
                        return fail("quantized operands and results must differ in scales and zero points only "
                                    "(one baseline element type)");
                }
            return true;
        }
        if (n == "stablehlo.bitcast_convert") {
            // the stored integers' bits to or from a type of their width (another quantized type too)
            const int a = in[0] ? in[0]->bits : elem_bits(o.operand_types[0].elem);
            const int b = out[0] ? out[0]->bits : elem_bits(o.result_types[0].elem);
            if (a != b || o.operand_types[0].dims != o.result_types[0].dims)
                return fail("a quantized value is bitcast to or from a type of its storage width, of the same "
                            "shape");
            return true;
        }
        error(o.at, "op '" + n + "' on quantized operands is not supported by xlet" + hint);
        return false;
    }

    bool validate_op(const op& o) {
        const std::string& n = o.name;
        if (!check_arity(o)) return false;
        if (!validate_quant(o)) return false;
        auto elem0 = [&]() -> std::string { return o.operand_types.empty() ? std::string() : o.operand_types[0].elem; };
        if (n == "stablehlo.bitcast_convert" && !o.result_types.empty() &&
            (elem0() == "i1") != (o.result_types[0].elem == "i1")) {
            // i1 <-> a type of N bits: the i1 side has one more dimension, of N (8 to 64 bits)
            const type& bits = elem0() == "i1" ? o.operand_types[0] : o.result_types[0];
            const type& word = elem0() == "i1" ? o.result_types[0] : o.operand_types[0];
            const int w = elem_bits(word.elem);
            if (is_complex_elem(word.elem) || (w != 8 && w != 16 && w != 32 && w != 64) || bits.dims.empty() ||
                bits.dims.back() != w || bits.dims.size() != word.dims.size() + 1)
                error(o.at, "stablehlo.bitcast_convert between i1 and " + word.elem +
                                ": expected a last i1 dimension of the other type's bit width (8, 16, 32 or 64)");
        }
        if (n == "stablehlo.constant") {
            const attr* v = o.get("value");
            if (!v || v->k != attr::kind::dense) error(o.at, "stablehlo.constant without a dense value");
        }
        if (n == "stablehlo.send" || n == "stablehlo.recv") {
            const attr* h = o.get("is_host_transfer");
            if (h && (h->k == attr::kind::unit || h->b))
                error(o.at, n + " with is_host_transfer = true is not supported (xlet's send and recv run between the "
                                "devices of a replica pool; name them with source_target_pairs)");
        }
        if (n == "stablehlo.dot_general") {
            const attr* d = o.get("dot_dimension_numbers");
            if (!d || d->k != attr::kind::dialect || (d->fields.empty() && !d->raw.empty()))
                error(o.at, "stablehlo.dot_general: unreadable dot_dimension_numbers");
        }
        if (n == "stablehlo.set_dimension_size") {
            // xlet::set_dimension_size makes dimension d dynamic, bounded by the operand's extent there
            const type& x = o.operand_types[0];
            const attr* d = o.get("dimension");
            if (!d || d->k != attr::kind::integer || d->i < 0 ||
                static_cast<std::size_t>(d->i) >= std::min<std::size_t>(x.dims.size(), 32)) // (a mask of 32 bits)
                error(o.at, n + ": expected a dimension of the operand " + type_str(x));
            else if ((x.is_static() || is_bounded(x)) && // (a static result of the bounds: see emit_op)
                     !(o.result_types[0].is_static() && o.result_types[0].dims == padded_dims(x)))
                expect_result(o, 0, bounded_type(o.result_types[0].elem, padded_dims(x), dynamic_mask(x) | 1u << d->i),
                              "dimension " + std::to_string(d->i) + " is dynamic, bounded by the operand's extent");
        }
        validate_bounded(o);
        return true;
    }

    // Bounded dynamic types (#stablehlo.bounds) go to the xlet ops that carry run-time sizes: the
    // element-wise ops, convert, select, clamp, reduce, get/set_dimension_size and dynamic_reshape
    // (and calls, returns and checks). Any other op would read the padding (b.padded()): an error.
    void validate_bounded(const op& o) {
        const std::string& n = o.name;
        const type* b = nullptr;
        for (auto* ts : {&o.operand_types, &o.result_types})
            for (auto& t : *ts)
                if (!b && is_bounded(t)) b = &t;
        if (!b || n == "func.call" || n == "func.return" || n.rfind("check.", 0) == 0 ||
            n == "stablehlo.get_dimension_size" || n == "stablehlo.set_dimension_size" ||
            n == "stablehlo.dynamic_reshape")
            return;
        const bool complex_cbrt = n == "stablehlo.cbrt" && is_complex_elem(o.operand_types[0].elem); // (xlet::map)
        if ((unary_ops.count(n) && !complex_cbrt) || binary_ops.count(n) || n == "stablehlo.compare" ||
            n == "stablehlo.select" || n == "stablehlo.clamp" || n == "stablehlo.convert") {
            // detail::lift: a dimension an operand of the result's rank has dynamic is dynamic; the
            // static operands are of the bounds' shape (xlet reads them within the sizes)
            const type& r = o.result_types[0];
            const std::vector<std::int64_t> p = padded_dims(r);
            unsigned m = 0;
            for (auto& t : o.operand_types)
                if (t.dims.size() == r.dims.size()) {
                    if (padded_dims(t) != p) {
                        error(o.at,
                              n + ": operand type " + type_str(t) + " is not of the shape of the result " +
                                  type_str(r) +
                                  " (with bounded dynamic operands, xlet needs the static ones of the bounds' shape)");
                        return;
                    }
                    m |= dynamic_mask(t);
                }
            expect_result(o, 0, bounded_type(r.elem, p, m), "the operands' bounded dynamic dimensions stay dynamic");
            return;
        }
        if (n == "stablehlo.reduce") {
            // a reduced dynamic dimension stops at its size; a kept one stays dynamic
            const std::size_t k = o.operands.size() / 2;
            const std::vector<std::int64_t> rd = int_list(o.get("dimensions")), p = padded_dims(o.operand_types[0]);
            unsigned m = 0;
            for (std::size_t i = 0; i < k; ++i)
                m |= dynamic_mask(o.operand_types[i]);
            std::vector<std::int64_t> kept;
            unsigned km = 0;
            for (std::size_t d = 0; d < p.size(); ++d)
                if (std::find(rd.begin(), rd.end(), static_cast<std::int64_t>(d)) == rd.end()) {
                    if ((m >> d) & 1u) km |= 1u << kept.size();
                    kept.push_back(p[d]);
                }
            for (std::size_t i = 0; i < o.results.size(); ++i)
                expect_result(
                    o, i, bounded_type(o.result_types[i].elem, kept, km),
                    "a kept bounded dynamic dimension stays dynamic, a reduced one is reduced within its size");
            return;
        }
        error(o.at,
              n + ": bounded dynamic type " + type_str(*b) +
                  " is not supported here (xlet-translate imports bounded dynamic shapes into the element-wise "
                  "ops of one and two operands but complex cbrt, compare, select, clamp, convert, reduce, "
                  "get_dimension_size, set_dimension_size, dynamic_reshape, func.call, func.return and the check ops)");
    }
    // Result k must have type e (but its element type): what the xlet op returns.
    void expect_result(const op& o, std::size_t k, const type& e, const std::string& why) {
        const type& r = o.result_types[k];
        if (r.dims != e.dims || padded_dims(r) != padded_dims(e))
            error(o.at, o.name + ": result %" + o.results[k] + " has type " + type_str(r) + ", expected " +
                            type_str(e) + " (" + why + ")");
    }

    // -- helpers ---------------------------------------------------------------------------
    std::string fresh(const std::string& mlir_name) {
        std::string base = sanitize(mlir_name);
        std::string n = base;
        int k = 1;
        while (idents_.count(n) || fname_.count(n))
            n = base + "_" + std::to_string(k++);
        idents_.insert(n);
        return n;
    }
    const value_info* lookup(const std::string& name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            auto f = it->find(name);
            if (f != it->end()) return &f->second;
        }
        return nullptr;
    }
    std::string val(const op& o, std::size_t k) {
        const value_ref& r = o.operands[k];
        const value_info* v = lookup(r.name);
        if (!v) {
            error(r.at, "use of undefined value %" + r.name);
            return "/*undefined*/";
        }
        return v->cpp;
    }
    // A value read as a C++ scalar.
    std::string scal(const op& o, std::size_t k) { return "xlet_translate::scalar(" + val(o, k) + ")"; }
    void bind(const std::string& name, const std::string& cpp, const type& t, bool lazy) {
        scopes_.back()[name] = {cpp, t, lazy};
    }

    void count_uses(const region& r) {
        for (auto& b : r.blocks)
            for (auto& o : b.ops) {
                for (auto& v : o->operands)
                    ++uses_[v.name];
                for (auto& rg : o->regions)
                    count_uses_nested(rg);
                // operands read as scalars must be tensors
                const std::string& n = o->name;
                if (n == "stablehlo.reduce") {
                    for (std::size_t k = o->operands.size() / 2; k < o->operands.size(); ++k)
                        need_tensor_.insert(o->operands[k].name);
                } else if (n == "stablehlo.pad") {
                    need_tensor_.insert(o->operands[1].name);
                } else if (n == "chlo.scan" || n == "stablehlo.async_start") { // (async_start copies them)
                    for (auto& v : o->operands)
                        need_tensor_.insert(v.name);
                } else if (n == "stablehlo.rng" && o->operands.size() == 3) {
                    need_tensor_.insert(o->operands[0].name);
                    need_tensor_.insert(o->operands[1].name);
                } else if (n == "stablehlo.dynamic_slice" || n == "stablehlo.dynamic_update_slice") {
                    for (std::size_t k = n == "stablehlo.dynamic_slice" ? 1 : 2; k < o->operands.size(); ++k)
                        need_tensor_.insert(o->operands[k].name);
                } else if (n == "stablehlo.dynamic_reshape") {
                    need_tensor_.insert(o->operands[1].name); // its sizes are read through data()
                } else if (n == "func.call" || n == "func.return") {
                    // a bounded value passed or returned has its declared type (bounded<E, M> of an
                    // expression E does not convert to bounded<tensor, M> as an expression does to a tensor)
                    for (std::size_t k = 0; k < o->operands.size() && k < o->operand_types.size(); ++k)
                        if (is_bounded(o->operand_types[k])) need_tensor_.insert(o->operands[k].name);
                }
            }
    }
    void count_uses_nested(const region& r) {
        for (auto& b : r.blocks)
            for (auto& o : b.ops) {
                for (auto& v : o->operands) {
                    ++uses_[v.name];
                    need_tensor_.insert(v.name); // read from inside a lambda: never lazy
                }
                for (auto& rg : o->regions)
                    count_uses_nested(rg);
            }
        count_uses(r); // scalar positions inside the region too
        for (auto& b : r.blocks)
            for (auto& o : b.ops)
                for (auto& v : o->operands)
                    --uses_[v.name]; // count_uses added them a second time
    }

    void find_spmd_functions() { spmd_funcs_ = spmd_functions(m_); }

    // stablehlo.async_start / async_done. A body that needs no device context, has no ordered
    // effects, and whose future is read by one async_done of its own block (or by none) runs as
    // an xlet::async_start task, async_done waiting for it. Any other body runs where async_start
    // is (its collectives with the device's context; StableHLO lets a backend run it synchronously)
    // and the future holds its results, which every async_done reads.
    std::set<std::string> async_tasks_;  // per function: the futures (MLIR names) that are tasks
    std::set<std::string> task_handles_; // per function: the C++ names of their handles
    void find_async_tasks(const region& r) {
        for (auto& b : r.blocks)
            for (auto& o : b.ops) {
                for (auto& g : o->regions)
                    find_async_tasks(g);
                if (o->name != "stablehlo.async_start" || o->results.size() != 1 || o->regions.size() != 1) continue;
                const std::string& fut = o->results[0];
                int done = 0;
                for (auto& q : b.ops)
                    if (q->name == "stablehlo.async_done" && q->operands.size() == 1 && q->operands[0].name == fut)
                        ++done;
                if (done <= 1 && uses_[fut] == done && !needs_context(o->regions[0], spmd_funcs_) &&
                    !has_ordered_effects(o->regions[0]))
                    async_tasks_.insert(fut);
            }
    }
    void emit_async_start(const op& o, int depth) {
        std::vector<type> future;
        future_elems(o.result_types[0], future);
        const std::string& fut = o.results[0];
        bool task = async_tasks_.count(fut) > 0;
        std::string rtype = future.size() == 1 ? cpp_type(future[0]) : "std::tuple<" + [&] {
            std::string t;
            for (std::size_t k = 0; k < future.size(); ++k)
                t += (k ? ", " : "") + cpp_type(future[k]);
            return t;
        }() + ">";
        std::string body = tensor_lambda(o.regions[0], depth, future.size() == 1 ? "tensor" : "tuple", future);
        std::string args;
        for (std::size_t k = 0; k < o.operands.size(); ++k)
            args += (k ? ", " : "") + val(o, k);
        std::string h = fresh(fut);
        std::string mu = uses_[fut] ? "" : "[[maybe_unused]] ";
        if (task) {
            out_ << ind(depth) << mu << "auto " << h << " = xlet::async_start(" << body << (args.empty() ? "" : ", ")
                 << args << ");\n";
            task_handles_.insert(h);
        } else {
            out_ << ind(depth) << "// stablehlo.async_start (" << where(m_, o.at) << ") runs its body here"
                 << (needs_context(o.regions[0], spmd_funcs_) ? ", with the device's context" : "")
                 << "; the future holds the results\n";
            out_ << ind(depth) << mu << "const " << rtype << " " << h << " = " << body << "(" << args << ");\n";
        }
        bind(fut, h, o.result_types[0], false);
    }
    void emit_async_done(const op& o, int depth) {
        const value_info* v = lookup(o.operands[0].name);
        std::string h = val(o, 0);
        std::string e = v && task_handles_.count(v->cpp) ? "xlet::async_done(std::move(" + h + "))" : h;
        if (o.results.size() == 1)
            declare(o, 0, e, depth, false);
        else
            declare_tuple(o, e, depth);
    }

    std::string signature(const func& f) {
        std::string ret;
        if (f.results.empty())
            ret = "void";
        else if (f.results.size() == 1)
            ret = cpp_type(f.results[0]);
        else {
            ret = "std::tuple<";
            for (std::size_t i = 0; i < f.results.size(); ++i)
                ret += (i ? ", " : "") + cpp_type(f.results[i]);
            ret += ">";
        }
        std::string s = "inline " + ret + " " + fname_[f.name] + "(";
        std::set<std::string> used; // arguments the body reads (the others are marked, -Wunused-parameter)
        std::function<void(const region&)> rec = [&](const region& r) {
            for (auto& b : r.blocks)
                for (auto& o : b.ops) {
                    for (auto& v : o->operands)
                        used.insert(v.name);
                    for (auto& g : o->regions)
                        rec(g);
                }
        };
        rec(f.body);
        std::set<std::string> taken;
        if (spmd_funcs_.count(f.name)) s += "xlet::replica_context& xlet_ctx" + std::string(f.args.empty() ? "" : ", ");
        for (std::size_t i = 0; i < f.args.size(); ++i) {
            std::string n = sanitize(f.args[i].name);
            while (taken.count(n))
                n += "_";
            taken.insert(n);
            s += (i ? ", " : "") + std::string(used.count(f.args[i].name) ? "" : "[[maybe_unused]] ") + "const " +
                 cpp_type(f.args[i].t) + "& " + n;
        }
        return s + ")";
    }

    void emit_func(const func& f) {
        uses_.clear();
        async_tasks_.clear();
        task_handles_.clear();
        need_tensor_.clear();
        idents_.clear();
        scopes_.clear();
        scopes_.emplace_back();
        count_uses(f.body);
        find_async_tasks(f.body);
        out_ << "// @" << f.name << " (" << where(m_, f.at) << ")\n";
        for (auto& [k, v] : f.attrs)
            if (k == "mhlo.sharding" || k == "jax.result_info") out_ << "// " << k << " = " << attr_str(v) << "\n";
        for (auto& a : f.args)
            for (auto& [k, v] : a.attrs)
                out_ << "// %" << a.name << ": " << k << " = " << attr_str(v) << "\n";
        for (std::size_t i = 0; i < f.result_attrs.size(); ++i)
            for (auto& [k, v] : f.result_attrs[i])
                out_ << "// result " << i << ": " << k << " = " << attr_str(v) << "\n";
        out_ << signature(f) << " {\n";
        for (auto& a : f.args) {
            std::string n = fresh(a.name);
            bind(a.name, n, a.t, false);
        }
        emit_block(f.body.blocks[0], 1, "func");
        out_ << "}\n\n";
    }

    static std::string ind(int n) { return std::string(static_cast<std::size_t>(4 * n), ' '); }

    // kind: "func" (func.return returns), "lambda" (stablehlo.return returns scalars / tuples of
    // tensors as `ret_kind` says)
    std::string ret_kind_;
    std::vector<type> ret_types_;

    void emit_block(const block& b, int depth, const std::string& kind) {
        for (auto& o : b.ops)
            emit_op(*o, depth, kind);
    }

    void declare(const op& o, std::size_t k, const std::string& expr, int depth, bool may_be_lazy) {
        const std::string& name = o.results[k];
        const type& t = o.result_types[k];
        std::string id = fresh(name);
        int chain = 1;
        for (auto& v : o.operands)
            if (const value_info* in = lookup(v.name); in && in->lazy) chain = std::max(chain, in->depth + 1);
        bool lazy = may_be_lazy && uses_[name] == 1 && !need_tensor_.count(name) && t.k == type::kind::tensor &&
                    chain <= max_fused_ops;
        if (lazy) {
            // a bounded expression: the tensor type of its static expression and its mask
            const std::string d = "decltype(" + id + ")";
            const std::string got =
                is_bounded(t) ? "xlet::bounded<xlet::tensor_type_of<" + d + "::expr_type>, " + d + "::dynamic_mask>"
                              : "xlet::tensor_type_of<" + d + ">";
            out_ << ind(depth) << "auto " << id << " = " << expr << ";\n";
            out_ << ind(depth) << "static_assert(std::is_same_v<" << got << ", " << cpp_type(t) << ">, \"%" << name
                 << " at " << where(m_, o.at) << " is not " << type_str(t) << "\");\n";
        } else {
            // a bounded value is evaluated with its sizes (xlet::eval), unless the op returns the
            // bounded tensor itself (a call, reduce, dynamic_reshape)
            const bool eval = is_bounded(t) && o.name != "func.call" && o.name != "stablehlo.reduce" &&
                              o.name != "stablehlo.dynamic_reshape";
            out_ << ind(depth) << (uses_[name] ? "" : "[[maybe_unused]] ") << cpp_type(t) << " " << id << " = "
                 << (eval ? "xlet::eval(" + expr + ")" : expr) << ";\n";
        }
        bind(name, id, t, lazy);
        if (lazy) scopes_.back()[name].depth = chain;
    }
    // A multi-result op: one std::tuple, then a reference per result.
    void declare_tuple(const op& o, const std::string& expr, int depth) {
        std::string id = fresh(o.results.empty() ? "t" : o.results[0].substr(0, o.results[0].find('#')) + "_all");
        std::string tt = "std::tuple<";
        for (std::size_t i = 0; i < o.result_types.size(); ++i)
            tt += (i ? ", " : "") + cpp_type(o.result_types[i]);
        tt += ">";
        out_ << ind(depth) << tt << " " << id << " = " << expr << ";\n";
        for (std::size_t i = 0; i < o.results.size(); ++i) {
            std::string r = fresh(o.results[i]);
            out_ << ind(depth) << (uses_[o.results[i]] ? "" : "[[maybe_unused]] ") << "auto& " << r << " = std::get<"
                 << i << ">(" << id << ");\n";
            bind(o.results[i], r, o.result_types[i], false);
        }
    }

    std::string elem_cpp(const type& t) { return cpp_elem(t.elem); }

    // A region as a C++ lambda over scalars (reduce, sort): params are the element types.
    // ret: "scalars" returns one value bare and several as a std::tuple, "scalars_tuple" always a tuple.
    std::string scalar_lambda(const region& r, int depth, bool returns_bool, const char* ret = "scalars") {
        const block& b = r.blocks[0];
        std::string head = "[&](";
        std::vector<std::string> pnames;
        for (std::size_t i = 0; i < b.arg_names.size(); ++i) {
            std::string p = fresh(b.arg_names[i] + "_s");
            pnames.push_back(p);
            head += (i ? ", " : "") + elem_cpp(b.arg_types[i]) + " " + p;
        }
        head += ")";
        if (returns_bool) head += " -> bool";
        // Emit the body into a separate stream.
        std::ostringstream body;
        std::swap(body, out_);
        scopes_.emplace_back();
        for (std::size_t i = 0; i < b.arg_names.size(); ++i) {
            std::string id = fresh(b.arg_names[i]);
            out_ << ind(depth + 1) << "[[maybe_unused]] const " << cpp_type(b.arg_types[i]) << " " << id << "("
                 << pnames[i] << ");\n";
            bind(b.arg_names[i], id, b.arg_types[i], false);
        }
        std::string saved_kind = ret_kind_;
        ret_kind_ = returns_bool ? "bool" : ret;
        emit_block(b, depth + 1, "lambda");
        ret_kind_ = saved_kind;
        scopes_.pop_back();
        std::swap(body, out_);
        return head + " {\n" + body.str() + ind(depth) + "}";
    }

    // A region as a lambda over tensors (while cond / body): params are const tensor references.
    std::string tensor_lambda(const region& r, int depth, const std::string& rk, const std::vector<type>& rtypes) {
        const block& b = r.blocks[0];
        std::string head = "[&](";
        std::ostringstream body;
        std::swap(body, out_);
        scopes_.emplace_back();
        for (std::size_t i = 0; i < b.arg_names.size(); ++i) {
            std::string id = fresh(b.arg_names[i]);
            head += (i ? ", " : "") + std::string("[[maybe_unused]] const ") + cpp_type(b.arg_types[i]) + "& " + id;
            bind(b.arg_names[i], id, b.arg_types[i], false);
        }
        head += ")";
        std::string saved_kind = ret_kind_;
        auto saved_types = ret_types_;
        ret_kind_ = rk;
        ret_types_ = rtypes;
        emit_block(b, depth + 1, "lambda");
        ret_kind_ = saved_kind;
        ret_types_ = saved_types;
        scopes_.pop_back();
        std::swap(body, out_);
        if (rk == "bool") head += " -> bool";
        if (rk == "tensor") head += " -> " + cpp_type(rtypes[0]);
        return head + " {\n" + body.str() + ind(depth) + "}";
    }

    // The body of an if / case branch, inline in a C++ block, returning a std::tuple of results.
    void emit_branch(const region& r, int depth, const std::vector<type>& rtypes) {
        scopes_.emplace_back();
        std::string saved_kind = ret_kind_;
        auto saved_types = ret_types_;
        ret_kind_ = "tuple";
        ret_types_ = rtypes;
        emit_block(r.blocks[0], depth, "lambda");
        ret_kind_ = saved_kind;
        ret_types_ = saved_types;
        scopes_.pop_back();
    }

    // Recognises a region that applies one commutative monoid to its two arguments.
    std::string monoid(const region& r) {
        const block& b = r.blocks[0];
        if (b.arg_names.size() != 2 || b.ops.size() != 2) return "";
        const op& o = *b.ops[0];
        const op& ret = *b.ops[1];
        if (o.operands.size() != 2 || o.results.size() != 1 || ret.operands.size() != 1 ||
            ret.operands[0].name != o.results[0])
            return "";
        std::set<std::string> a = {o.operands[0].name, o.operands[1].name};
        if (a != std::set<std::string>{b.arg_names[0], b.arg_names[1]}) return "";
        const std::string& e = b.arg_types[0].elem;
        if (o.name == "stablehlo.add") return "xlet::add_fn{}";
        if (o.name == "stablehlo.multiply") return "xlet::mul_fn{}";
        if (o.name == "stablehlo.maximum" && !is_complex_elem(e)) return "xlet::max_fn{}";
        if (o.name == "stablehlo.minimum" && !is_complex_elem(e)) return "xlet::min_fn{}";
        if (o.name == "stablehlo.and") return "xlet::and_fn{}";
        if (o.name == "stablehlo.or") return "xlet::or_fn{}";
        return "";
    }

    std::string compare_expr(const op& o, const std::string& a, const std::string& b, const std::string& extra = "") {
        std::string dir = enum_word(o.get("comparison_direction"));
        std::string ty = enum_word(o.get("compare_type"));
        static const std::set<std::string> dirs = {"EQ", "NE", "GE", "GT", "LE", "LT"};
        if (!dirs.count(dir)) {
            error(o.at, o.name + ": unknown comparison_direction '" + dir + "'");
            dir = "EQ";
        }
        std::string targs = "xlet::comparison_direction::" + dir;
        if (!ty.empty() && ty != "NOTYPE") {
            static const std::set<std::string> tys = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
            if (!tys.count(ty))
                error(o.at, o.name + ": unknown compare_type '" + ty + "'");
            else
                targs += ", xlet::comparison_type::" + ty;
        }
        return "xlet::compare<" + targs + ">(" + a + ", " + b + extra + ")";
    }

    // StableHLO's maximum / minimum of complex numbers: lexicographic on (real, imag).
    std::string complex_minmax(bool is_max, const std::string& a, const std::string& b) {
        std::string gt = is_max ? "xlet::gt" : "xlet::lt";
        return "xlet::select(xlet::or_(" + gt + "(xlet::real(" + a + "), xlet::real(" + b +
               ")), xlet::and_(xlet::eq(xlet::real(" + a + "), xlet::real(" + b + ")), " + gt + "(xlet::imag(" + a +
               "), xlet::imag(" + b + ")))), " + a + ", " + b + ")";
    }

    void emit_return(const op& o, int depth, const std::string& kind) {
        if (kind == "func") {
            if (o.operands.empty()) {
                out_ << ind(depth) << "return;\n";
            } else if (o.operands.size() == 1) {
                out_ << ind(depth) << "return " << val(o, 0) << ";\n";
            } else {
                out_ << ind(depth) << "return {";
                for (std::size_t k = 0; k < o.operands.size(); ++k)
                    out_ << (k ? ", " : "") << val(o, k);
                out_ << "};\n";
            }
            return;
        }
        if (ret_kind_ == "tensor") { // one tensor (an async_start body of one result)
            out_ << ind(depth) << "return " << val(o, 0) << ";\n";
        } else if (ret_kind_ == "bool" || (ret_kind_ == "scalars" && o.operands.size() == 1)) {
            out_ << ind(depth) << "return " << scal(o, 0) << ";\n";
        } else if (ret_kind_ == "scalars" || ret_kind_ == "scalars_tuple") {
            out_ << ind(depth) << "return std::tuple{";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                out_ << (k ? ", " : "") << scal(o, k);
            out_ << "};\n";
        } else { // tuple of tensors (while body, if / case branch)
            out_ << ind(depth) << "return std::tuple<";
            for (std::size_t k = 0; k < o.operand_types.size(); ++k)
                out_ << (k ? ", " : "") << cpp_type(o.operand_types[k]);
            out_ << ">{";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                out_ << (k ? ", " : "") << val(o, k);
            out_ << "};\n";
        }
    }

    // The bytes of a dense attribute for a value of type t (of a quantized type: its stored
    // integers, written as integers of its storage type, each within its storage range), and
    // whether it is a splat (then one element's bytes; a list of equal elements is one too, as MLIR
    // prints it). False after an error at `at`.
    bool constant_bytes(const std::string& what, loc at, const attr& v, const type& t, std::vector<std::uint8_t>& bytes,
                        bool& splat) {
        type bt = t;
        const auto q = quant_of(t.elem);
        if (q) {
            bt.elem = quant_bytes_elem(*q);
            const std::string& e = v.t.elem;
            const bool ints = !e.empty() && (e[0] == 'i' || e[0] == 'u' || e[0] == 's') && e != "i1";
            if (e != t.elem && !(ints && std::atoi(e.c_str() + (e[0] == 'i' ? 1 : 2)) == q->bits)) { // i8, ui8, si8
                error(at,
                      what + ": a constant of the quantized type " + type_str(t) +
                          " holds its stored integers, a dense<...> : " + type_str(tensor_type(t.dims, q->storage())));
                return false;
            }
        }
        std::string why;
        splat = dense_splat(v, bt, bytes, why);
        if (!splat && why.empty() && dense_bytes(v, bt, bytes, why)) {
            const auto w = static_cast<std::size_t>(elem_bits(bt.elem) == 1 ? 1 : elem_bits(bt.elem) / 8);
            splat = !bytes.empty();
            for (std::size_t i = w; splat && i < bytes.size(); i += w)
                splat = std::memcmp(bytes.data(), bytes.data() + i, w) == 0;
            if (splat) bytes.resize(w);
        }
        if (!why.empty()) {
            error(at, what + ": " + why);
            return false;
        }
        const int w = q ? elem_bits(bt.elem) / 8 : 0;
        for (std::size_t i = 0; w > 0 && i + static_cast<std::size_t>(w) <= bytes.size();
             i += static_cast<std::size_t>(w)) {
            const std::uint64_t u = load_le(bytes.data() + i, w);
            const int sh = 64 - 8 * w;
            const std::int64_t x =
                q->is_signed ? static_cast<std::int64_t>(u << sh) >> sh : static_cast<std::int64_t>(u);
            if (x < q->storage_min || x > q->storage_max) {
                error(at, what + ": stored integer " + std::to_string(x) + " is outside the storage range [" +
                              std::to_string(q->storage_min) + ", " + std::to_string(q->storage_max) + "] of " +
                              elem_str(t.elem));
                return false;
            }
        }
        return true;
    }

    void emit_constant(const op& o, int depth) {
        const attr* v = o.get("value");
        const type& t = o.result_types[0];
        std::vector<std::uint8_t> bytes;
        bool splat = false;
        if (!constant_bytes("stablehlo.constant", v->at, *v, t, bytes, splat)) return;
        const std::vector<std::uint8_t>& one = bytes;
        // unused after a pass (ragged_dot of a batch dimension leaves its group sizes)
        std::string mu = uses_[o.results[0]] ? "" : "[[maybe_unused]] ";
        std::string id = fresh(o.results[0]);
        if (t.dims.empty()) {
            out_ << ind(depth) << mu << "const " << cpp_type(t) << " " << id << "(" << cpp_scalar(t.elem, one.data())
                 << ");\n";
            bind(o.results[0], id, t, false);
        } else if (num_elements(t) == 0) {
            out_ << ind(depth) << mu << "const " << cpp_type(t) << " " << id << "{};\n";
            bind(o.results[0], id, t, false);
        } else if (splat && !need_tensor_.count(o.results[0])) {
            // A splat stays a lazy broadcast of one value however often it is used.
            out_ << ind(depth) << mu << "const auto " << id << " = xlet::constant<" << cpp_type(t) << ">("
                 << cpp_scalar(t.elem, one.data()) << ");\n";
            bind(o.results[0], id, t, true);
        } else if (splat) {
            out_ << ind(depth) << mu << "const " << cpp_type(t) << " " << id << " = xlet::constant<" << cpp_type(t)
                 << ">(" << cpp_scalar(t.elem, one.data()) << ");\n";
            bind(o.results[0], id, t, false);
        } else {
            out_ << ind(depth) << mu << "static const " << cpp_type(t) << " " << id << " = xlet_translate::from_bytes<"
                 << cpp_type(t) << ">(\n";
            static const char* hexd = "0123456789abcdef";
            for (std::size_t i = 0; i < bytes.size(); i += 32) {
                out_ << ind(depth + 1) << '"';
                for (std::size_t j = i; j < std::min(bytes.size(), i + 32); ++j)
                    out_ << "\\x" << hexd[bytes[j] >> 4] << hexd[bytes[j] & 15];
                out_ << '"' << (i + 32 >= bytes.size() ? ");\n" : "\n");
            }
            bind(o.results[0], id, t, false);
        }
    }

    void emit_op(const op& o, int depth, const std::string& kind) {
        const std::string& n = o.name;
        auto rt = [&](std::size_t k = 0) -> const type& { return o.result_types[k]; };
        auto opnd_t = [&](std::size_t k) -> const type& { return o.operand_types[k]; };
        if (n == "func.return" || n == "stablehlo.return") {
            emit_return(o, depth, kind);
            return;
        }
        if (n == "stablehlo.cbrt" && is_complex_elem(opnd_t(0).elem)) {
            // StableHLO's complex cbrt (xlet's op has no complex form): |z|^(1/3) cis(arg(z) / 3),
            // computed in double as StableHLO's interpreter does
            const std::string t = cpp_elem(real_elem(opnd_t(0).elem));
            declare(o, 0,
                    "xlet::map([](std::complex<" + t +
                        "> z) { const double re = z.real(), im = z.imag(), th = std::atan2(im, re) / 3.0, m = "
                        "std::pow(std::pow(re, 2.0) + std::pow(im, 2.0), 1.0 / 6.0); return std::complex<" +
                        t + ">(static_cast<" + t + ">(m * std::cos(th)), static_cast<" + t +
                        ">(m * std::sin(th))); }, " + val(o, 0) + ")",
                    depth, false);
            return;
        }
        // A quantized result of another type than the operands' is named: add<R>(a, b) (a unary
        // op keeps its operand's type in xlet: dequantize, the op, quantize to R spelled out).
        const bool quantized = !o.result_types.empty() && is_quant_elem(rt().elem);
        auto retyped = [&](std::size_t first) {
            for (std::size_t k = first; quantized && k < o.operand_types.size(); ++k)
                if (opnd_t(k).elem != rt().elem) return "<" + elem_cpp(rt()) + ">";
            return std::string();
        };
        if (auto u = unary_ops.find(n); u != unary_ops.end()) {
            if (!retyped(0).empty())
                declare(o, 0,
                        "xlet::uniform_quantize" + retyped(0) + "(xlet::" + u->second + "(xlet::uniform_dequantize(" +
                            val(o, 0) + ")))",
                        depth, true);
            else
                declare(o, 0, "xlet::" + u->second + "(" + val(o, 0) + ")", depth, true);
            return;
        }
        if (auto b = binary_ops.find(n); b != binary_ops.end()) {
            std::string a0 = val(o, 0), a1 = val(o, 1);
            if ((n == "stablehlo.maximum" || n == "stablehlo.minimum") && is_complex_elem(opnd_t(0).elem))
                declare(o, 0, complex_minmax(n == "stablehlo.maximum", a0, a1), depth, true);
            else
                declare(o, 0, "xlet::" + b->second + retyped(0) + "(" + a0 + ", " + a1 + ")", depth, true);
            return;
        }
        if (auto b = chlo_binary_ops.find(n); b != chlo_binary_ops.end()) {
            emit_chlo_binary(o, b->second, depth);
            return;
        }
        if (n == "stablehlo.constant") {
            emit_constant(o, depth);
            return;
        }
        if (n == "stablehlo.iota") {
            declare(o, 0,
                    "xlet::iota<" + cpp_type(rt()) + ", " +
                        std::to_string(o.get("iota_dimension") ? o.get("iota_dimension")->i : 0) + ">()",
                    depth, true);
            return;
        }
        if (n == "stablehlo.compare") {
            declare(o, 0, compare_expr(o, val(o, 0), val(o, 1)), depth, true);
            return;
        }
        if (n == "stablehlo.select") {
            declare(o, 0, "xlet::select" + retyped(1) + "(" + val(o, 0) + ", " + val(o, 1) + ", " + val(o, 2) + ")",
                    depth, true);
            return;
        }
        if (n == "stablehlo.clamp") { // (the result has the operand's type unless named)
            const std::string r = quantized && opnd_t(1).elem != rt().elem ? "<" + elem_cpp(rt()) + ">" : "";
            declare(o, 0, "xlet::clamp" + r + "(" + val(o, 0) + ", " + val(o, 1) + ", " + val(o, 2) + ")", depth, true);
            return;
        }
        if (n == "stablehlo.uniform_quantize") { // from floats, or requantized from another quantized type
            declare(o, 0, "xlet::uniform_quantize<" + elem_cpp(rt()) + ">(" + val(o, 0) + ")", depth, true);
            return;
        }
        if (n == "stablehlo.uniform_dequantize") {
            declare(o, 0, "xlet::uniform_dequantize(" + val(o, 0) + ")", depth, true);
            return;
        }
        if (n == "stablehlo.convert") {
            if (opnd_t(0).elem == rt().elem) {
                declare(o, 0, val(o, 0), depth, true);
            } else if (rt().elem == "i1" && is_complex_elem(opnd_t(0).elem)) {
                // StableHLO: complex to any other type ignores the imaginary part (xlet's op, as
                // XLA: z != 0)
                declare(o, 0, "xlet::convert_element_type<bool>(xlet::real(" + val(o, 0) + "))", depth, true);
            } else {
                declare(o, 0, "xlet::convert_element_type<" + elem_cpp(rt()) + ">(" + val(o, 0) + ")", depth, true);
            }
            return;
        }
        if (n == "stablehlo.bitcast_convert") {
            if ((opnd_t(0).elem == "i1") != (rt().elem == "i1")) {
                // StableHLO's bits of an i1 tensor (xlet's op refuses pred): element k of the last
                // dimension is bit k of the word (least significant first), through an unsigned
                // word of the same width
                const bool from_bits = opnd_t(0).elem == "i1";
                const type& word = from_bits ? rt() : opnd_t(0);
                const type& bits = from_bits ? opnd_t(0) : rt();
                const int w = elem_bits(word.elem);
                const std::string u = "std::uint" + std::to_string(w) + "_t";
                type ut = bits;
                ut.elem = "ui" + std::to_string(w);
                const std::string last = std::to_string(bits.dims.size() - 1);
                const std::string shifts = "xlet::iota<" + cpp_type(ut) + ", " + last + ">()";
                std::string e;
                if (from_bits) {
                    e = "xlet::reduce(xlet::shift_left(xlet::convert_element_type<" + u + ">(" + val(o, 0) + "), " +
                        shifts + "), " + u + "(0), xlet::or_fn{}, xlet::dims<" + last + ">)";
                    if (cpp_elem(word.elem) != u) e = "xlet::bitcast_convert_type<" + elem_cpp(rt()) + ">(" + e + ")";
                } else {
                    std::string x = cpp_elem(word.elem) == u
                                        ? val(o, 0)
                                        : "xlet::bitcast_convert_type<" + u + ">(" + val(o, 0) + ")";
                    std::vector<std::int64_t> keep;
                    for (std::size_t d = 0; d + 1 < bits.dims.size(); ++d)
                        keep.push_back(static_cast<std::int64_t>(d));
                    e = "xlet::ne(xlet::and_(xlet::shift_right_logical(xlet::broadcast_in_dim(" + x + ", xlet::sizes<" +
                        join_dims(bits.dims) + ">, " + dims_lit(keep) + "), " + shifts + "), " + u + "(1)), " + u +
                        "(0))";
                }
                declare(o, 0, e, depth, false);
                return;
            }
            // StableHLO folds / unfolds the last dimension exactly as XLA does: same call. (A quantized
            // value's bits are its stored integers; from one quantized type to another through them.)
            std::string x = val(o, 0);
            if (auto q = quant_of(opnd_t(0).elem); q && is_quant_elem(rt().elem))
                x = "xlet::bitcast_convert_type<xlet::storage_t<" + quant_cpp(*q) + ">>(" + x + ")";
            declare(o, 0, "xlet::bitcast_convert_type<" + elem_cpp(rt()) + ">(" + x + ")", depth, true);
            return;
        }
        if (n == "stablehlo.reduce_precision") {
            auto e = o.get("exponent_bits"), m = o.get("mantissa_bits");
            std::string call = "xlet::reduce_precision<" + std::to_string(e ? e->i : 8) + ", " +
                               std::to_string(m ? m->i : 23) + ">(" + val(o, 0) + ")";
            if (m && m->i == 0 && is_float_elem(rt().elem)) {
                // StableHLO: with no mantissa bits left a NaN cannot stay a NaN, it becomes an
                // infinity of its sign (xlet's XLA-facing op keeps the NaN): spelled out here.
                std::string x = val(o, 0), t = elem_cpp(rt());
                int bits = elem_bits(rt().elem);
                std::string it = bits == 64 ? "std::int64_t" : bits == 32 ? "std::int32_t" : "std::int16_t";
                std::string inf = "std::numeric_limits<" + t + ">::infinity()";
                call = "xlet::select(xlet::ne(" + x + ", " + x +
                       "), xlet::select(xlet::lt(xlet::bitcast_convert_type<" + it + ">(" + x + "), " + it +
                       "{0}), xlet::constant<" + cpp_type(rt()) + ">(-" + inf + "), xlet::constant<" + cpp_type(rt()) +
                       ">(" + inf + ")), " + call + ")";
            }
            declare(o, 0, call, depth, true);
            return;
        }
        if (n == "stablehlo.broadcast_in_dim") {
            declare(o, 0,
                    "xlet::broadcast_in_dim(" + val(o, 0) + ", xlet::sizes<" + join_dims(rt().dims) + ">, " +
                        dims_lit(int_list(o.get("broadcast_dimensions"))) + ")",
                    depth, true);
            return;
        }
        if (n == "stablehlo.broadcast") {
            declare(o, 0,
                    "xlet::broadcast(" + val(o, 0) + ", xlet::sizes<" + join_dims(int_list(o.get("broadcast_sizes"))) +
                        ">)",
                    depth, true);
            return;
        }
        if (n == "stablehlo.reshape") {
            declare(o, 0, "xlet::reshape<" + cpp_type(rt()) + ">(" + val(o, 0) + ")", depth, true);
            return;
        }
        if (n == "stablehlo.transpose") {
            declare(o, 0, "xlet::transpose(" + val(o, 0) + ", " + dims_lit(int_list(o.get("permutation"))) + ")", depth,
                    true);
            return;
        }
        if (n == "stablehlo.reverse") {
            declare(o, 0, "xlet::rev(" + val(o, 0) + ", " + dims_lit(int_list(o.get("dimensions"))) + ")", depth, true);
            return;
        }
        if (n == "stablehlo.slice") {
            declare(o, 0,
                    "xlet::slice(" + val(o, 0) + ", " + dims_lit(int_list(o.get("start_indices"))) + ", " +
                        dims_lit(int_list(o.get("limit_indices"))) + ", " + dims_lit(int_list(o.get("strides"))) + ")",
                    depth, true);
            return;
        }
        if (n == "stablehlo.concatenate") {
            std::string e =
                "xlet::concatenate<" + std::to_string(o.get("dimension") ? o.get("dimension")->i : 0) + ">(";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                e += (k ? ", " : "") + val(o, k);
            declare(o, 0, e + ")", depth, false);
            return;
        }
        if (n == "stablehlo.pad") {
            std::size_t r = rt().dims.size();
            declare(o, 0,
                    "xlet::pad<xlet::padding_config<" + std::to_string(r) +
                        ">{.edge_padding_low = " + braces(int_list(o.get("edge_padding_low"))) +
                        ", .edge_padding_high = " + braces(int_list(o.get("edge_padding_high"))) +
                        ", .interior_padding = " + braces(int_list(o.get("interior_padding"))) + "}>(" + val(o, 0) +
                        ", " + scal(o, 1) + ")",
                    depth, true);
            return;
        }
        if (n == "stablehlo.dynamic_slice") {
            std::string e =
                "xlet::dynamic_slice(" + val(o, 0) + ", xlet::sizes<" + join_dims(int_list(o.get("slice_sizes"))) + ">";
            for (std::size_t k = 1; k < o.operands.size(); ++k)
                e += ", " + scal(o, k);
            declare(o, 0, e + ")", depth, false);
            return;
        }
        if (n == "stablehlo.dynamic_update_slice") {
            std::string e = "xlet::dynamic_update_slice(" + val(o, 0) + ", " + val(o, 1);
            for (std::size_t k = 2; k < o.operands.size(); ++k)
                e += ", " + scal(o, k);
            declare(o, 0, e + ")", depth, false);
            return;
        }
        if (n == "stablehlo.dot" || n == "stablehlo.dot_general") {
            const auto [lb, rb, lc, rc] = dot_dim_lists(o);
            std::string dd = "xlet::dot_dims{";
            std::vector<std::string> parts;
            if (!lb.empty()) parts.push_back(".lhs_batch = " + braces(lb));
            if (!rb.empty()) parts.push_back(".rhs_batch = " + braces(rb));
            if (!lc.empty()) parts.push_back(".lhs_contracting = " + braces(lc));
            if (!rc.empty()) parts.push_back(".rhs_contracting = " + braces(rc));
            for (std::size_t i = 0; i < parts.size(); ++i)
                dd += (i ? ", " : "") + parts[i];
            dd += "}";
            declare(o, 0, "xlet::dot_general<" + dd + dot_out_t(o) + ">(" + val(o, 0) + ", " + val(o, 1) + ")", depth,
                    false);
            return;
        }
        if (n == "stablehlo.reduce") {
            emit_reduce(o, depth);
            return;
        }
        if (n == "stablehlo.sort") {
            emit_sort(o, depth);
            return;
        }
        if (n == "stablehlo.while") {
            emit_while(o, depth);
            return;
        }
        if (n == "stablehlo.if" || n == "stablehlo.case") {
            emit_if_case(o, depth);
            return;
        }
        if (n == "stablehlo.tuple") {
            std::string e = cpp_type(rt()) + "{";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                e += (k ? ", " : "") + val(o, k);
            declare(o, 0, e + "}", depth, false);
            return;
        }
        if (n == "stablehlo.get_tuple_element") {
            std::string id = fresh(o.results[0]);
            out_ << ind(depth) << "const auto& " << id << " = std::get<" << (o.get("index") ? o.get("index")->i : 0)
                 << ">(" << val(o, 0) << ");\n";
            bind(o.results[0], id, rt(), false);
            return;
        }
        if (n == "stablehlo.optimization_barrier") {
            if (o.operands.size() == 1) {
                declare(o, 0, "xlet::optimization_barrier(" + val(o, 0) + ")", depth, false);
            } else {
                std::string e = "xlet::optimization_barrier(";
                for (std::size_t k = 0; k < o.operands.size(); ++k)
                    e += (k ? ", " : "") + val(o, k);
                declare_tuple(o, e + ")", depth);
            }
            return;
        }
        if (n == "stablehlo.get_dimension_size" || n == "stablehlo.set_dimension_size") {
            // the run-time size of a bounded operand's dynamic dimension, the extent of a static one
            // (s32<>); set: the operand with that dimension dynamic, of the size of a tensor<i32>
            const bool get = n == "stablehlo.get_dimension_size";
            std::string e = "xlet::" + n.substr(10) + "<" +
                            std::to_string(o.get("dimension") ? o.get("dimension")->i : 0) + ">(" + val(o, 0) +
                            (get ? "" : ", " + val(o, 1)) + ")";
            // set to a static result type (the bounds', as xlet::to_stablehlo writes padded()): the
            // type says every size is its bound, checked at run time, so the static tensor is the value
            const bool whole = !get && !is_bounded(rt());
            declare(o, 0, whole ? "xlet_translate::whole(" + e + ")" : e, depth, !get && !whole);
            return;
        }
        if (n == "stablehlo.dynamic_reshape") {
            // xlet::dynamic_reshape(x, sizes, bounds, dynamic dims): the result's bounds (its
            // extents when static) and its `?` dimensions
            const type& r = rt();
            std::vector<std::int64_t> dyn;
            for (std::size_t d = 0; d < r.dims.size(); ++d)
                if (r.dims[d] < 0) dyn.push_back(static_cast<std::int64_t>(d));
            std::string e = "xlet::dynamic_reshape(" + val(o, 0) + ", " + val(o, 1) + ", xlet::sizes<" +
                            join_dims(padded_dims(r)) + ">, " + dims_lit(dyn) + ")";
            // a static result: no dimension is dynamic, the library checked each size against its
            // extent, so the static tensor is the whole value (no size is dropped)
            declare(o, 0, is_bounded(r) ? e : e + ".padded()", depth, false);
            return;
        }
        if (n == "stablehlo.after_all") {
            std::string e = "xlet::after_all(";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                e += (k ? ", " : "") + val(o, k);
            declare(o, 0, e + ")", depth, false);
            return;
        }
        if (n == "stablehlo.create_token") {
            declare(o, 0, "xlet::after_all()", depth, false);
            return;
        }
        if (n == "stablehlo.async_start") {
            emit_async_start(o, depth);
            return;
        }
        if (n == "stablehlo.async_done") {
            emit_async_done(o, depth);
            return;
        }
        if (n == "func.call") {
            auto it = fname_.find(o.callee);
            // (f)(...): the module's function, not an xlet op of its name that argument-dependent
            // lookup would prefer for expression arguments (@add called with a lazy operand)
            std::string e = "(" + (it == fname_.end() ? sanitize(o.callee) : it->second) + ")(";
            if (spmd_funcs_.count(o.callee)) e += o.operands.empty() ? "xlet_ctx" : "xlet_ctx, ";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                e += (k ? ", " : "") + val(o, k);
            e += ")";
            if (o.results.size() == 1)
                declare(o, 0, e, depth, false);
            else if (o.results.empty())
                out_ << ind(depth) << e << ";\n";
            else
                declare_tuple(o, e, depth);
            return;
        }
        if (n == "stablehlo.custom_call") {
            if (is_ragged_all_to_all(o)) {
                emit_spmd(o, depth);
                return;
            }
            if (is_check_call(o)) {
                emit_check_call(o, depth);
                return;
            }
            if (o.results.size() != 1) {
                error(o.at, "stablehlo.custom_call with " + std::to_string(o.results.size()) +
                                " results is not supported (xlet's custom_call returns one tensor)");
                return;
            }
            std::string e = "xlet::custom_call<\"" + o.callee + "\", " + cpp_type(rt()) + ">(";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                e += (k ? ", " : "") + val(o, k);
            declare(o, 0, e + ")", depth, false);
            return;
        }
        if (n == "stablehlo.rng") {
            // The legacy rng draws from an implementation-defined generator: xlet's default one.
            std::string fn =
                enum_word(o.get("rng_distribution")) == "NORMAL" ? "xlet::rng_normal" : "xlet::rng_uniform";
            out_ << ind(depth) << "static_cast<void>(" << val(o, 2) << "); // the shape: the result type has it\n";
            declare(o, 0, fn + "<" + cpp_type(rt()) + ">(" + scal(o, 0) + ", " + scal(o, 1) + ")", depth, false);
            return;
        }
        if (n == "stablehlo.infeed") {
            // {tensors..., token}: infeed<T> of one tensor already returns that tuple
            std::size_t k = o.result_types.size() - 1;
            if (k == 0) {
                declare(o, 0, "std::get<1>(xlet::infeed<std::tuple<>>(infeed_queue(), " + val(o, 0) + "))", depth,
                        false);
            } else if (k == 1) {
                declare_tuple(o, "xlet::infeed<" + cpp_type(rt()) + ">(infeed_queue(), " + val(o, 0) + ")", depth);
            } else {
                std::string t = "std::tuple<";
                for (std::size_t i = 0; i < k; ++i)
                    t += (i ? ", " : "") + cpp_type(o.result_types[i]);
                declare_tuple(o,
                              "std::apply([](auto&& v, xlet::token t) { return std::tuple_cat(std::move(v), "
                              "std::tuple<xlet::token>{t}); }, xlet::infeed<" +
                                  t + ">>(infeed_queue(), " + val(o, 0) + "))",
                              depth);
            }
            return;
        }
        if (n == "stablehlo.outfeed") {
            std::size_t k = o.operands.size() - 1;
            std::string e;
            if (k == 0) {
                e = "xlet::after_all(" + val(o, 0) + ")";
            } else {
                std::string x = k == 1 ? val(o, 0) : "std::tuple{";
                for (std::size_t i = 0; k > 1 && i < k; ++i)
                    x += (i ? ", " : "") + std::string("xlet::eval(") + val(o, i) + ")";
                if (k > 1) x += "}";
                e = "xlet::outfeed(outfeed_queue(), " + x + ", " + val(o, k) + ")";
            }
            declare(o, 0, e, depth, false);
            return;
        }
        if (emit_spmd(o, depth)) return;
        if (emit_heavy(o, depth)) return;
        if (n == "chlo.top_k") {
            std::int64_t k = o.get("k") ? o.get("k")->i : 1;
            declare_tuple(o, "xlet::top_k<" + std::to_string(k) + ">(" + val(o, 0) + ")", depth);
            return;
        }
        if (n.rfind("check.", 0) == 0) {
            emit_check(o, depth);
            return;
        }
        error(o.at, "op '" + n + "' is not supported by xlet-translate");
    }

    static std::string list_or_empty(const attr* a) { return braces(int_list(a)); }

    // -- collectives and the other ops of a device (xlet/distributed.hpp) -------------------
    static std::int64_t channel_of(const op& o) {
        const attr* c = o.get("channel_handle");
        const attr* h = c ? c->field("handle") : nullptr;
        return h && h->k == attr::kind::integer ? h->i : 0;
    }
    // A 2-D integer list (replica_groups, source_target_pairs) as nested braces; -1 entries are
    // the padding of unequal groups and are dropped.
    std::string int_matrix(const op& o, const char* key, bool pairs) { return int_matrix(o, o.get(key), key, pairs); }
    std::string int_matrix(const op& o, const attr* a, const char* key, bool pairs) {
        if (!a) return "{}";
        std::vector<std::int64_t> v = int_list(a);
        std::int64_t cols = a->k == attr::kind::dense && a->t.dims.size() == 2 ? a->t.dims[1] : -1;
        if (cols <= 0 || v.size() % static_cast<std::size_t>(cols) != 0) {
            if (!v.empty() || cols < 0)
                error(a->at, o.name + ": " + key + " must be a 2-D integer dense<...> attribute");
            return "{}";
        }
        std::string out = "{";
        for (std::size_t r = 0; r < v.size() / static_cast<std::size_t>(cols); ++r) {
            std::string row;
            for (std::int64_t c = 0; c < cols; ++c) {
                std::int64_t x = v[r * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
                if (x < 0 && !pairs) continue;
                row += (row.empty() ? "" : ", ") + std::to_string(x);
            }
            out += (r ? ", {" : "{") + row + "}";
        }
        return out + "}";
    }
    std::string collective_opts(const op& o) {
        std::string groups = int_matrix(o, "replica_groups", false);
        std::int64_t ch = channel_of(o);
        const attr* g = o.get("use_global_device_ids");
        bool global = g && (g->k == attr::kind::unit || g->b);
        std::string e = "xlet::collective_opts{.replica_groups = " + groups;
        if (ch) e += ", .channel_id = " + std::to_string(ch);
        if (global) e += ", .use_global_device_ids = true";
        return e + "}";
    }
    std::int64_t dim_attr(const op& o, const char* key) {
        const attr* a = o.get(key);
        if (!a || a->k != attr::kind::integer) {
            error(o.at, o.name + ": expected an integer " + key);
            return 0;
        }
        return a->i;
    }
    // The ratio of two extents along `d` (shard counts of all_gather / reduce_scatter).
    std::int64_t ratio(const op& o, const type& big, const type& small, std::int64_t d) {
        if (d < 0 || static_cast<std::size_t>(d) >= big.dims.size() || big.dims.size() != small.dims.size() ||
            small.dims[static_cast<std::size_t>(d)] <= 0 ||
            big.dims[static_cast<std::size_t>(d)] % small.dims[static_cast<std::size_t>(d)] != 0) {
            error(o.at, o.name + ": the result and operand shapes do not fit dimension " + std::to_string(d));
            return 1;
        }
        return big.dims[static_cast<std::size_t>(d)] / small.dims[static_cast<std::size_t>(d)];
    }
    std::string reduction_fn(const op& o, int depth) {
        std::string fn = monoid(o.regions[0]);
        return fn.empty() ? scalar_lambda(o.regions[0], depth, false) : fn;
    }

    bool emit_spmd(const op& o, int depth) {
        const std::string& n = o.name;
        std::size_t no = o.operands.size();
        auto ins = [&]() {
            std::string e = "std::tuple{";
            for (std::size_t k = 0; k < no; ++k)
                e += (k ? ", " : "") + val(o, k);
            return e + "}";
        };
        if (n == "stablehlo.all_reduce") {
            std::string fn = reduction_fn(o, depth), opts = collective_opts(o);
            if (no == 1)
                declare(o, 0, "xlet::all_reduce(xlet_ctx, " + val(o, 0) + ", " + fn + ", " + opts + ")", depth, false);
            else
                declare_tuple(o, "xlet::all_reduce(xlet_ctx, " + ins() + ", " + fn + ", " + opts + ")", depth);
            return true;
        }
        if (n == "stablehlo.all_gather") {
            std::int64_t d = dim_attr(o, "all_gather_dim");
            std::string opts = collective_opts(o);
            // Several operands: one all_gather each (the same groups and order on every device).
            for (std::size_t k = 0; k < no; ++k) {
                std::string e = "xlet::all_gather<" + std::to_string(d) + ", " +
                                std::to_string(ratio(o, o.result_types[k], o.operand_types[k], d)) + ">(xlet_ctx, " +
                                val(o, k) + ", " + opts + ")";
                declare(o, k, e, depth, false);
            }
            return true;
        }
        if (n == "stablehlo.reduce_scatter") {
            std::int64_t d = dim_attr(o, "scatter_dimension");
            declare(o, 0,
                    "xlet::reduce_scatter<" + std::to_string(d) + ", " +
                        std::to_string(ratio(o, o.operand_types[0], o.result_types[0], d)) + ">(xlet_ctx, " +
                        val(o, 0) + ", " + reduction_fn(o, depth) + ", " + collective_opts(o) + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.all_to_all") {
            std::string t = "xlet::all_to_all<" + std::to_string(dim_attr(o, "split_dimension")) + ", " +
                            std::to_string(dim_attr(o, "concat_dimension")) + ", " +
                            std::to_string(dim_attr(o, "split_count")) + ">(xlet_ctx, ";
            if (no == 1)
                declare(o, 0, t + val(o, 0) + ", " + collective_opts(o) + ")", depth, false);
            else
                declare_tuple(o, t + ins() + ", " + collective_opts(o) + ")", depth);
            return true;
        }
        if (n == "stablehlo.collective_permute") {
            declare(o, 0,
                    "xlet::collective_permute(xlet_ctx, " + val(o, 0) + ", xlet::source_target_pairs_t" +
                        int_matrix(o, "source_target_pairs", true) + ", " + std::to_string(channel_of(o)) + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.collective_broadcast") {
            if (dynamic_root(o)) { // StableHLO 1.20: operand k from member roots[k] of the group
                const std::string roots = fresh("roots");
                out_ << ind(depth) << "const auto " << roots << " = xlet::eval(" << val(o, no - 1) << ");\n";
                for (std::size_t k = 0; k + 1 < no; ++k)
                    declare(o, k,
                            "xlet::collective_broadcast_from(xlet_ctx, " + roots + "(" + std::to_string(k) + "), " +
                                val(o, k) + ", " + collective_opts(o) + ")",
                            depth, false);
                return true;
            }
            for (std::size_t k = 0; k < no; ++k) // several operands: one broadcast each, in order
                declare(o, k, "xlet::collective_broadcast(xlet_ctx, " + val(o, k) + ", " + collective_opts(o) + ")",
                        depth, false);
            return true;
        }
        if (is_ragged_all_to_all(o)) {
            // JAX's custom_call: backend_config = {replica_groups = ...}; xlet's operand order is
            // the input's arrays, then the output's.
            const attr* cfg = o.get("backend_config");
            const attr* groups = cfg && cfg->k == attr::kind::dict ? cfg->field("replica_groups") : nullptr;
            const attr* ch = cfg && cfg->k == attr::kind::dict ? cfg->field("channel_id") : nullptr;
            std::string channel = ch && ch->k == attr::kind::integer ? ", .channel_id = " + std::to_string(ch->i) : "";
            declare(o, 0,
                    "xlet::ragged_all_to_all(xlet_ctx, " + val(o, 0) + ", " + val(o, 2) + ", " + val(o, 3) + ", " +
                        val(o, 1) + ", " + val(o, 4) + ", " + val(o, 5) + ", xlet::collective_opts{.replica_groups = " +
                        int_matrix(o, groups, "replica_groups", false) + channel + "})",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.replica_id" || n == "stablehlo.partition_id") {
            declare(o, 0,
                    std::string(n == "stablehlo.replica_id" ? "xlet::replica_id" : "xlet::partition_id") + "(xlet_ctx)",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.send") {
            // The transfer completes when the handle goes out of scope (the end of the enclosing
            // function or region): a device may send, then receive, as in a ring.
            std::string h = fresh(o.results[0] + "_send");
            out_ << ind(depth) << "[[maybe_unused]] auto " << h << " = xlet::send(xlet_ctx, " << val(o, 0) << ", "
                 << channel_of(o) << ", xlet::source_target_pairs_t" << int_matrix(o, "source_target_pairs", true)
                 << ");\n";
            declare(o, 0, "xlet::after_all(" + val(o, 1) + ")", depth, false);
            return true;
        }
        if (n == "stablehlo.recv") {
            if (o.result_types[0].k != type::kind::tensor) {
                error(o.at, "stablehlo.recv: xlet receives one tensor and a token");
                return true;
            }
            declare(o, 0,
                    "xlet::recv_done(xlet::recv<" + cpp_type(o.result_types[0]) + ">(xlet_ctx, " +
                        std::to_string(channel_of(o)) + ", xlet::source_target_pairs_t" +
                        int_matrix(o, "source_target_pairs", true) + "))",
                    depth, false);
            declare(o, 1, "xlet::after_all(" + val(o, 0) + ")", depth, false);
            return true;
        }
        if (n == "interpreter.run_parallel") {
            emit_run_parallel(o, depth);
            return true;
        }
        return false;
    }

    // The StableHLO interpreter's test driver: programs[replica][partition] run as the devices of
    // an xlet::replica_pool; operands and results are the programs' arguments and results in
    // device order.
    void emit_run_parallel(const op& o, int depth) {
        const attr* p = o.get("programs");
        std::size_t R = p->list.size(), P = p->list[0].list.size();
        // infeed = [@f, ...]: each function's result is an item of the module's infeed queue.
        if (const attr* in = o.get("infeed"); in && in->k == attr::kind::array)
            for (auto& fn : in->list) {
                const func* f = fn.k == attr::kind::symbol ? m_.find(fn.s) : nullptr;
                if (!f || !f->args.empty() || f->results.empty() || spmd_funcs_.count(fn.s)) {
                    error(o.at, "interpreter.run_parallel: infeed = [...] names functions without arguments that "
                                "return the items");
                    continue;
                }
                out_ << ind(depth) << "infeed_queue().push(" << fname_[fn.s] << "());\n";
            }
        std::vector<std::string> res;
        for (std::size_t k = 0; k < o.results.size(); ++k) {
            std::string id = fresh(o.results[k]);
            out_ << ind(depth) << (uses_[o.results[k]] ? "" : "[[maybe_unused]] ") << cpp_type(o.result_types[k]) << " "
                 << id << "{};\n";
            res.push_back(id);
        }
        out_ << ind(depth) << "xlet::replica_pool(" << R << ", " << P
             << ").run([&](xlet::replica_context& xlet_ctx) {\n"
             << ind(depth + 1) << "switch (xlet_ctx.device_id()) {\n";
        std::size_t a = 0, r = 0;
        for (std::size_t d = 0; d < R * P; ++d) {
            const std::string& fn = p->list[d / P].list[d % P].s;
            const func* f = m_.find(fn);
            std::string call = fname_[fn] + "(";
            bool ctx = spmd_funcs_.count(fn) > 0;
            if (ctx) call += "xlet_ctx";
            for (std::size_t k = 0; k < f->args.size(); ++k)
                call += (k || ctx ? ", " : "") + val(o, a++);
            call += ")";
            out_ << ind(depth + 1) << "case " << d << ":\n" << ind(depth + 2);
            if (f->results.size() == 1) {
                out_ << res[r++] << " = " << call << ";\n";
            } else if (f->results.empty()) {
                out_ << call << ";\n";
            } else {
                out_ << "std::tie(";
                for (std::size_t k = 0; k < f->results.size(); ++k)
                    out_ << (k ? ", " : "") << res[r++];
                out_ << ") = " << call << ";\n";
            }
            out_ << ind(depth + 2) << "break;\n";
        }
        out_ << ind(depth + 1) << "default:\n"
             << ind(depth + 2) << "break;\n"
             << ind(depth + 1) << "}\n"
             << ind(depth) << "});\n";
        for (std::size_t k = 0; k < o.results.size(); ++k)
            bind(o.results[k], res[k], o.result_types[k], false);
    }
    static std::int64_t int_or(const attr* a, std::int64_t d) {
        return a && (a->k == attr::kind::integer || a->k == attr::kind::boolean)
                   ? (a->k == attr::kind::boolean ? a->b : a->i)
                   : d;
    }
    static bool bool_or(const attr* a, bool d) {
        if (!a) return d;
        if (a->k == attr::kind::boolean) return a->b;
        if (a->k == attr::kind::integer) return a->i != 0;
        return d;
    }

    // window_dimensions, window_strides, base_dilations, window_dilations, padding (N x 2).
    std::string window_cfg(const op& o) {
        std::vector<std::int64_t> pad = int_list(o.get("padding")), lo, hi;
        for (std::size_t i = 0; i + 1 < pad.size(); i += 2) {
            lo.push_back(pad[i]);
            hi.push_back(pad[i + 1]);
        }
        std::string c = "xlet::window_config{.window_dimensions = " + list_or_empty(o.get("window_dimensions"));
        if (o.get("window_strides")) c += ", .window_strides = " + list_or_empty(o.get("window_strides"));
        if (o.get("base_dilations")) c += ", .base_dilations = " + list_or_empty(o.get("base_dilations"));
        if (o.get("window_dilations")) c += ", .window_dilations = " + list_or_empty(o.get("window_dilations"));
        if (!lo.empty()) c += ", .padding_low = " + braces(lo) + ", .padding_high = " + braces(hi);
        return c + "}";
    }

    // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] as xlet::conv_dims; "" if unreadable.
    static std::string conv_dims_of(const attr* a) {
        if (!a || a->k != attr::kind::dialect) return "";
        if (!a->fields.empty()) {
            auto get = [&](const char* k) { return a->field(k); };
            return "xlet::conv_dims{.input_batch_dimension = " +
                   std::to_string(int_or(get("input_batch_dimension"), 0)) +
                   ", .input_feature_dimension = " + std::to_string(int_or(get("input_feature_dimension"), 1)) +
                   ", .input_spatial_dimensions = " + list_or_empty(get("input_spatial_dimensions")) +
                   ", .kernel_input_feature_dimension = " +
                   std::to_string(int_or(get("kernel_input_feature_dimension"), 1)) +
                   ", .kernel_output_feature_dimension = " +
                   std::to_string(int_or(get("kernel_output_feature_dimension"), 0)) +
                   ", .kernel_spatial_dimensions = " + list_or_empty(get("kernel_spatial_dimensions")) +
                   ", .output_batch_dimension = " + std::to_string(int_or(get("output_batch_dimension"), 0)) +
                   ", .output_feature_dimension = " + std::to_string(int_or(get("output_feature_dimension"), 1)) +
                   ", .output_spatial_dimensions = " + list_or_empty(get("output_spatial_dimensions")) + "}";
        }
        // three bracketed lists separated by 'x' and '->'
        std::vector<std::vector<std::string>> groups;
        std::string cur;
        bool in = false;
        for (char ch : a->raw) {
            if (ch == '[') {
                in = true;
                groups.emplace_back();
                cur.clear();
            } else if (ch == ']' || (ch == ',' && in)) {
                if (!cur.empty()) groups.back().push_back(cur);
                cur.clear();
                if (ch == ']') in = false;
            } else if (in && !std::isspace(static_cast<unsigned char>(ch))) {
                cur += ch;
            }
        }
        if (groups.size() != 3) return "";
        std::size_t r = groups[0].size();
        if (groups[1].size() != r || groups[2].size() != r || r < 2) return "";
        struct side {
            std::int64_t a = -1, b = -1;
            std::vector<std::int64_t> sp;
        };
        auto read = [&](const std::vector<std::string>& g, char x, char y, side& out) {
            out.sp.assign(r - 2, -1);
            for (std::size_t i = 0; i < g.size(); ++i) {
                const std::string& e = g[i];
                if (e.size() == 1 && e[0] == x)
                    out.a = static_cast<std::int64_t>(i);
                else if (e.size() == 1 && e[0] == y)
                    out.b = static_cast<std::int64_t>(i);
                else {
                    if (e.empty() || e.size() > 3 || !std::all_of(e.begin(), e.end(), [](char c) {
                            return std::isdigit(static_cast<unsigned char>(c));
                        }))
                        return false;
                    std::size_t k = static_cast<std::size_t>(std::stoi(e));
                    if (k >= r - 2 || out.sp[k] >= 0) return false;
                    out.sp[k] = static_cast<std::int64_t>(i);
                }
            }
            return out.a >= 0 && out.b >= 0 && std::find(out.sp.begin(), out.sp.end(), -1) == out.sp.end();
        };
        side in_, ker, out;
        if (!read(groups[0], 'b', 'f', in_) || !read(groups[1], 'i', 'o', ker) || !read(groups[2], 'b', 'f', out))
            return "";
        return "xlet::conv_dims{.input_batch_dimension = " + std::to_string(in_.a) +
               ", .input_feature_dimension = " + std::to_string(in_.b) +
               ", .input_spatial_dimensions = " + braces(in_.sp) +
               ", .kernel_input_feature_dimension = " + std::to_string(ker.a) +
               ", .kernel_output_feature_dimension = " + std::to_string(ker.b) +
               ", .kernel_spatial_dimensions = " + braces(ker.sp) +
               ", .output_batch_dimension = " + std::to_string(out.a) +
               ", .output_feature_dimension = " + std::to_string(out.b) +
               ", .output_spatial_dimensions = " + braces(out.sp) + "}";
    }

    // A literal of a floating attribute (epsilon), as the operand's element type.
    static std::string float_attr(const attr* a, const std::string& elem) {
        std::string v = a && (a->k == attr::kind::floating || a->k == attr::kind::integer)
                            ? (a->s.empty() ? std::to_string(a->i) : a->s)
                            : "0";
        return "static_cast<" + cpp_elem(elem) + ">(" + v + ")";
    }

    // Hana attribute map of a composite: integers and booleans as compile-time constants, strings
    // as compile-time strings, other values as run-time doubles or their MLIR text.
    static std::string hana_attrs(const attr* a) {
        std::string m = "boost::hana::make_map(";
        if (a && a->k == attr::kind::dict) {
            for (std::size_t i = 0; i < a->fields.size(); ++i) {
                const attr& f = a->fields[i];
                std::string v;
                if (f.k == attr::kind::integer)
                    v = "boost::hana::integral_c<std::int64_t, " + std::to_string(f.i) + ">";
                else if (f.k == attr::kind::boolean)
                    v = std::string("boost::hana::bool_c<") + (f.b ? "true" : "false") + ">";
                else if (f.k == attr::kind::floating)
                    v = "double{" + f.s + "}";
                else
                    v = "std::string_view{R\"xlt(" + (f.k == attr::kind::string ? f.s : attr_str(f)) + ")xlt\"}";
                if (f.k == attr::kind::string) v = "BOOST_HANA_STRING(R\"xlt(" + f.s + ")xlt\")";
                m += std::string(i ? ", " : "") + "boost::hana::make_pair(BOOST_HANA_STRING(\"" + f.name + "\"), " + v +
                     ")";
            }
        }
        return m + ")";
    }

    bool emit_heavy(const op& o, int depth) {
        const std::string& n = o.name;
        auto rt = [&](std::size_t k = 0) -> const type& { return o.result_types[k]; };
        if (n == "chlo.is_inf" || n == "chlo.is_pos_inf" || n == "chlo.is_neg_inf") {
            std::string x = val(o, 0), e = cpp_elem(o.operand_types[0].elem);
            std::string inf = "static_cast<" + e + ">(std::numeric_limits<float>::infinity())";
            std::string ex = n == "chlo.is_inf"       ? "xlet::eq(xlet::abs(" + x + "), " + inf + ")"
                             : n == "chlo.is_pos_inf" ? "xlet::eq(" + x + ", " + inf + ")"
                                                      : "xlet::eq(" + x + ", -" + inf + ")";
            declare(o, 0, ex, depth, true);
            return true;
        }
        if (n == "chlo.lgamma" || n == "chlo.erfc" || n == "chlo.bessel_i1e" || n == "chlo.next_after") {
            // the C library's functions, element by element (xlet::map; computed in the element type,
            // f16 / bf16 through float): log|Gamma|, erfc, exp(-|x|) I1(x), nextafter
            std::string t = cpp_elem(o.operand_types[0].elem);
            bool narrow = elem_bits(o.operand_types[0].elem) == 16;
            std::string w = narrow ? "float" : t;
            std::string body = n == "chlo.lgamma" ? "std::lgamma(static_cast<" + w + ">(x))"
                               : n == "chlo.erfc" ? "std::erfc(static_cast<" + w + ">(x))"
                               : n == "chlo.bessel_i1e"
                                   ? "(x < " + t + "(0) ? -1 : 1) * std::exp(-std::abs(static_cast<" + w +
                                         ">(x))) * std::cyl_bessel_i(" + w + "(1), std::abs(static_cast<" + w + ">(x)))"
                                   : "std::nextafter(x, y)";
            if (n == "chlo.next_after" && narrow) {
                error(o.at, "chlo.next_after on " + o.operand_types[0].elem + " is not supported");
                return true;
            }
            std::string lam = n == "chlo.next_after" ? "[](" + t + " x, " + t + " y) { return " + body + "; }"
                                                     : "[](" + t + " x) { return " + t + "(" + body + "); }";
            std::string args = val(o, 0) + (n == "chlo.next_after" ? ", " + val(o, 1) : "");
            declare(o, 0, "xlet::map(" + lam + ", " + args + ")", depth, false);
            return true;
        }
        if (n == "chlo.ragged_dot") {
            const attr* d = o.get("ragged_dot_dimension_numbers");
            if (!d) return error(o.at, "chlo.ragged_dot without ragged_dot_dimension_numbers"), true;
            std::string dd = "xlet::ragged_dot_dims{.dot = xlet::dot_dims{.lhs_batch = " +
                             list_or_empty(d->field("lhs_batching_dimensions")) +
                             ", .rhs_batch = " + list_or_empty(d->field("rhs_batching_dimensions")) +
                             ", .lhs_contracting = " + list_or_empty(d->field("lhs_contracting_dimensions")) +
                             ", .rhs_contracting = " + list_or_empty(d->field("rhs_contracting_dimensions")) +
                             "}, .lhs_ragged = " + list_or_empty(d->field("lhs_ragged_dimensions")) +
                             ", .rhs_group = " + list_or_empty(d->field("rhs_group_dimensions")) + "}";
            std::string out_t = rt().elem != o.operand_types[0].elem ? ", " + cpp_elem(rt().elem) : "";
            declare(o, 0,
                    "xlet::ragged_dot<" + dd + out_t + ">(" + val(o, 0) + ", " + val(o, 1) + ", " + val(o, 2) + ")",
                    depth, false);
            return true;
        }
        if (n == "chlo.scan") {
            auto p = scan_layout(o); // checked by scan_ok
            std::vector<std::int64_t> slice = o.operand_types[0].dims;
            slice.erase(slice.begin() + p->dim);
            const attr* rev = o.get("is_reverse");
            const attr* assoc = o.get("is_associative");
            // is_associative is a hint: xlet::scan takes it where an element can stand for a carry
            bool can_assoc = p->m == p->k;
            for (std::size_t j = 0; can_assoc && j < p->m; ++j)
                can_assoc = o.operand_types[j].elem == o.operand_types[p->m + j].elem;
            std::string cfg = "xlet::scan_config{.dimension = " + std::to_string(p->dim);
            if (rev && rev->b) cfg += ", .is_reverse = true";
            if (assoc && assoc->b && can_assoc) cfg += ", .is_associative = true";
            cfg += "}";
            std::string xs, inits;
            for (std::size_t j = 0; j < p->m + p->k; ++j)
                (j < p->m ? xs : inits) += (j == 0 || j == p->m ? "" : ", ") + val(o, j);
            region body = scan_scalar_body(o, slice);
            std::string f = scalar_lambda(body, depth, false, "scalars_tuple");
            declare_tuple(o,
                          "xlet::scan<" + cfg + ">(std::forward_as_tuple(" + xs + "), std::forward_as_tuple(" + inits +
                              "), " + f + ")",
                          depth);
            return true;
        }
        if (n == "chlo.square") {
            declare(o, 0, "xlet::mul(" + val(o, 0) + ", " + val(o, 0) + ")", depth, false);
            return true;
        }
        if (n == "chlo.conj") {
            std::string x = val(o, 0);
            declare(o, 0, "xlet::complex(xlet::real(" + x + "), xlet::neg(xlet::imag(" + x + ")))", depth, false);
            return true;
        }
        if (n == "stablehlo.gather") {
            const attr* d = o.get("dimension_numbers");
            if (!d) return error(o.at, "stablehlo.gather without dimension_numbers"), true;
            std::string g =
                "xlet::gather_dims{.offset_dims = " + list_or_empty(d->field("offset_dims")) +
                ", .collapsed_slice_dims = " + list_or_empty(d->field("collapsed_slice_dims")) +
                ", .start_index_map = " + list_or_empty(d->field("start_index_map")) +
                ", .index_vector_dim = " + std::to_string(int_or(d->field("index_vector_dim"), 0)) +
                ", .operand_batching_dims = " + list_or_empty(d->field("operand_batching_dims")) +
                ", .start_indices_batching_dims = " + list_or_empty(d->field("start_indices_batching_dims")) +
                ", .slice_sizes = " + list_or_empty(o.get("slice_sizes")) +
                ", .indices_are_sorted = " + (bool_or(o.get("indices_are_sorted"), false) ? "true" : "false") + "}";
            declare(o, 0, "xlet::gather<" + g + ">(" + val(o, 0) + ", " + val(o, 1) + ")", depth, false);
            return true;
        }
        if (n == "stablehlo.scatter") {
            const attr* d = o.get("scatter_dimension_numbers");
            if (!d) return error(o.at, "stablehlo.scatter without scatter_dimension_numbers"), true;
            std::size_t k = o.results.size();
            std::string g =
                "xlet::scatter_dims{.update_window_dims = " + list_or_empty(d->field("update_window_dims")) +
                ", .inserted_window_dims = " + list_or_empty(d->field("inserted_window_dims")) +
                ", .scatter_dims_to_operand_dims = " + list_or_empty(d->field("scatter_dims_to_operand_dims")) +
                ", .index_vector_dim = " + std::to_string(int_or(d->field("index_vector_dim"), 0)) +
                ", .input_batching_dims = " + list_or_empty(d->field("input_batching_dims")) +
                ", .scatter_indices_batching_dims = " + list_or_empty(d->field("scatter_indices_batching_dims")) +
                ", .indices_are_sorted = " + (bool_or(o.get("indices_are_sorted"), false) ? "true" : "false") +
                ", .unique_indices = " + (bool_or(o.get("unique_indices"), false) ? "true" : "false") + "}";
            std::string fn = k == 1 ? monoid(o.regions[0]) : "";
            if (fn.empty()) fn = scalar_lambda(o.regions[0], depth, false);
            if (k == 1) {
                declare(o, 0,
                        "xlet::scatter<" + g + ">(" + val(o, 0) + ", " + val(o, 1) + ", " + val(o, 2) + ", " + fn + ")",
                        depth, false);
            } else {
                std::string ins = "std::forward_as_tuple(", ups = "std::forward_as_tuple(";
                for (std::size_t i = 0; i < k; ++i) {
                    ins += (i ? ", " : "") + val(o, i);
                    ups += (i ? ", " : "") + val(o, k + 1 + i);
                }
                declare_tuple(o, "xlet::scatter<" + g + ">(" + ins + "), " + val(o, k) + ", " + ups + "), " + fn + ")",
                              depth);
            }
            return true;
        }
        if (n == "stablehlo.reduce_window") {
            std::size_t k = o.results.size();
            std::string w = window_cfg(o);
            if (k == 1) {
                std::string fn = monoid(o.regions[0]);
                if (fn.empty()) fn = scalar_lambda(o.regions[0], depth, false);
                declare(o, 0, "xlet::reduce_window<" + w + ">(" + val(o, 0) + ", " + scal(o, 1) + ", " + fn + ")",
                        depth, false);
            } else {
                std::string ins = "std::forward_as_tuple(", inits = "std::tuple{";
                for (std::size_t i = 0; i < k; ++i) {
                    ins += (i ? ", " : "") + val(o, i);
                    inits += (i ? ", " : "") + scal(o, k + i);
                }
                declare_tuple(o,
                              "xlet::reduce_window<" + w + ">(" + ins + "), " + inits + "}, " +
                                  scalar_lambda(o.regions[0], depth, false) + ")",
                              depth);
            }
            return true;
        }
        if (n == "stablehlo.select_and_scatter") {
            std::string sel = scalar_lambda(o.regions[0], depth, true);
            std::string sc = monoid(o.regions[1]);
            if (sc.empty()) sc = scalar_lambda(o.regions[1], depth, false);
            declare(o, 0,
                    "xlet::select_and_scatter<" + window_cfg(o) + ">(" + val(o, 0) + ", " + sel + ", " + val(o, 1) +
                        ", " + scal(o, 2) + ", " + sc + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.convolution") {
            std::string dn = conv_dims_of(o.get("dimension_numbers"));
            if (dn.empty()) return error(o.at, "stablehlo.convolution: unreadable dimension_numbers"), true;
            std::vector<std::int64_t> pad = int_list(o.get("padding")), lo, hi;
            for (std::size_t i = 0; i + 1 < pad.size(); i += 2) {
                lo.push_back(pad[i]);
                hi.push_back(pad[i + 1]);
            }
            std::string c = "xlet::conv_config{.window_strides = " + list_or_empty(o.get("window_strides")) +
                            ", .padding_low = " + braces(lo) + ", .padding_high = " + braces(hi) +
                            ", .lhs_dilation = " + list_or_empty(o.get("lhs_dilation")) +
                            ", .rhs_dilation = " + list_or_empty(o.get("rhs_dilation")) +
                            ", .dimension_numbers = " + dn +
                            ", .feature_group_count = " + std::to_string(int_or(o.get("feature_group_count"), 1)) +
                            ", .batch_group_count = " + std::to_string(int_or(o.get("batch_group_count"), 1));
            std::vector<std::int64_t> rev = int_list(o.get("window_reversal"));
            if (std::find(rev.begin(), rev.end(), 1) != rev.end()) c += ", .window_reversal = " + braces(rev);
            c += "}";
            declare(o, 0, "xlet::conv_general_dilated<" + c + dot_out_t(o) + ">(" + val(o, 0) + ", " + val(o, 1) + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.fft") {
            std::string t = enum_word(o.get("fft_type"));
            std::string lower = t == "FFT"     ? "fft"
                                : t == "IFFT"  ? "ifft"
                                : t == "RFFT"  ? "rfft"
                                : t == "IRFFT" ? "irfft"
                                               : "";
            if (lower.empty()) return error(o.at, "stablehlo.fft: unknown fft_type '" + t + "'"), true;
            declare(o, 0,
                    "xlet::fft<xlet::fft_type::" + lower + ", " + join_dims(int_list(o.get("fft_length"))) + ">(" +
                        val(o, 0) + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.rng_bit_generator") {
            std::string a = enum_word(o.get("rng_algorithm"));
            std::string lower = a == "DEFAULT" || a.empty() ? "default_"
                                : a == "THREE_FRY"          ? "three_fry"
                                : a == "PHILOX"             ? "philox"
                                                            : "";
            if (lower.empty())
                return error(o.at, "stablehlo.rng_bit_generator: unknown rng_algorithm '" + a + "'"), true;
            declare_tuple(o,
                          "xlet::rng_bit_generator<xlet::rng_algorithm::" + lower + ", " + cpp_type(rt(1)) + ">(" +
                              val(o, 0) + ")",
                          depth);
            return true;
        }
        // The result types of a quantized op that computes in float (quant/float_ops.hpp), named
        // after the attributes where one differs from its default (the operand `from`'s type).
        auto result_types = [&](std::size_t from) {
            const std::string& def = o.operand_types[from].elem;
            if (!is_quant_elem(def)) return std::string();
            bool differs = false;
            std::string ts;
            for (auto& r : o.result_types) {
                differs = differs || r.elem != def;
                ts += ", " + cpp_elem(r.elem);
            }
            return differs ? ts : std::string();
        };
        if (n == "stablehlo.cholesky") {
            declare(o, 0,
                    std::string("xlet::cholesky<") + (bool_or(o.get("lower"), false) ? "true" : "false") +
                        result_types(0) + ">(" + val(o, 0) + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.triangular_solve") {
            std::string t = enum_word(o.get("transpose_a"));
            std::string tt = t == "TRANSPOSE" ? "transpose" : t == "ADJOINT" ? "adjoint" : "no_transpose";
            auto b = [&](const char* k) {
                return bool_or(o.get(k), false) ? std::string("true") : std::string("false");
            };
            declare(o, 0,
                    "xlet::triangular_solve<" + b("left_side") + ", " + b("lower") + ", " + b("unit_diagonal") +
                        ", xlet::transpose_type::" + tt + result_types(1) + ">(" + val(o, 0) + ", " + val(o, 1) + ")",
                    depth, false);
            return true;
        }
        if (n.rfind("stablehlo.batch_norm_", 0) == 0) {
            std::string fi = std::to_string(int_or(o.get("feature_index"), 0));
            std::string eps = float_attr(o.get("epsilon"), "f32"); // an f32 attribute, a float argument
            std::string args;
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                args += val(o, k) + ", ";
            std::string call = "xlet::" + n.substr(10) + "<" + fi + result_types(0) + ">(" + args + eps + ")";
            if (o.results.size() == 1)
                declare(o, 0, call, depth, false);
            else
                declare_tuple(o, call, depth);
            return true;
        }
        if (n == "stablehlo.map") {
            std::string ins = "std::forward_as_tuple(";
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                ins += (k ? ", " : "") + val(o, k);
            std::vector<std::int64_t> d = int_list(o.get("dimensions"));
            declare(o, 0,
                    "xlet::map(" + ins + "), " + scalar_lambda(o.regions[0], depth, false) + ", " + dims_lit(d) + ")",
                    depth, false);
            return true;
        }
        if (n == "stablehlo.composite") {
            const attr* nm = o.get("name");
            const attr* dec = o.get("decomposition");
            std::string name = nm && nm->k == attr::kind::string ? nm->s : "composite";
            const func* f = m_.find(dec->s);
            std::string lam = "[&](";
            std::string call = fname_[dec->s] + "(";
            if (spmd_funcs_.count(dec->s)) call += f->args.empty() ? "xlet_ctx" : "xlet_ctx, ";
            for (std::size_t k = 0; k < f->args.size(); ++k) {
                lam += (k ? ", " : "") + std::string("const ") + cpp_type(f->args[k].t) + "& a" + std::to_string(k);
                call += (k ? ", " : "") + std::string("a") + std::to_string(k);
            }
            lam += ") { return " + call + "); }";
            std::string e = "xlet::composite_call<\"" + name + "\", " + std::to_string(int_or(o.get("version"), 0)) +
                            ">(" + hana_attrs(o.get("composite_attributes")) + ", " + lam;
            for (std::size_t k = 0; k < o.operands.size(); ++k)
                e += ", " + val(o, k);
            e += ")";
            uses_composite_ = true;
            if (o.results.size() == 1)
                declare(o, 0, e, depth, false);
            else
                declare_tuple(o, e, depth);
            return true;
        }
        return false;
    }

    void emit_chlo_binary(const op& o, const std::string& fn, int depth) {
        const type &a = o.operand_types[0], &b = o.operand_types[1];
        std::string extra;
        if (a.dims.size() != b.dims.size()) {
            std::vector<std::int64_t> bd = int_list(o.get("broadcast_dimensions"));
            std::size_t lo = std::min(a.dims.size(), b.dims.size()), hi = std::max(a.dims.size(), b.dims.size());
            if (bd.empty() || !o.get("broadcast_dimensions"))
                for (std::size_t i = 0; i < lo; ++i)
                    bd.push_back(static_cast<std::int64_t>(hi - lo + i)); // numpy: align trailing dims
            if (lo > 0) extra = ", " + dims_lit(bd);
        }
        std::string a0 = val(o, 0), a1 = val(o, 1);
        if (fn == "compare")
            declare(o, 0, compare_expr(o, a0, a1, extra), depth, true);
        else
            declare(o, 0, "xlet::" + fn + "(" + a0 + ", " + a1 + extra + ")", depth, true);
    }

    void emit_reduce(const op& o, int depth) {
        std::size_t n = o.operands.size() / 2;
        std::string dims = dims_lit(int_list(o.get("dimensions")));
        if (o.regions.size() != 1 || o.regions[0].blocks.empty()) {
            error(o.at, "stablehlo.reduce needs one body region");
            return;
        }
        if (n == 1) {
            std::string fn = monoid(o.regions[0]);
            if (fn.empty()) fn = scalar_lambda(o.regions[0], depth, false);
            declare(o, 0, "xlet::reduce(" + val(o, 0) + ", " + scal(o, 1) + ", " + fn + ", " + dims + ")", depth,
                    false);
            return;
        }
        std::string ins = "std::forward_as_tuple(", inits = "std::tuple{";
        for (std::size_t k = 0; k < n; ++k) {
            ins += (k ? ", " : "") + val(o, k);
            inits += (k ? ", " : "") + scal(o, n + k);
        }
        declare_tuple(o,
                      "xlet::reduce(" + ins + "), " + inits + "}, " + scalar_lambda(o.regions[0], depth, false) + ", " +
                          dims + ")",
                      depth);
    }

    void emit_sort(const op& o, int depth) {
        std::int64_t dim = o.get("dimension") ? o.get("dimension")->i : -1;
        bool stable = o.get("is_stable") && o.get("is_stable")->b;
        if (o.regions.size() != 1) {
            error(o.at, "stablehlo.sort needs one comparator region");
            return;
        }
        std::string cmp;
        // compare LT/GT of the first pair with TOTALORDER (or an integer type): the radix fast path.
        const block& b = o.regions[0].blocks[0];
        if (b.ops.size() == 2 && b.ops[0]->name == "stablehlo.compare" && b.arg_names.size() >= 2) {
            const op& c = *b.ops[0];
            std::string dir = enum_word(c.get("comparison_direction"));
            std::string ty = enum_word(c.get("compare_type"));
            const std::string& e = b.arg_types[0].elem;
            bool total = ty == "TOTALORDER" ||
                         ((ty.empty() || ty == "SIGNED" || ty == "UNSIGNED") && (is_integer_elem(e) || e == "i1"));
            if (total && c.operands.size() == 2 && c.operands[0].name == b.arg_names[0] &&
                c.operands[1].name == b.arg_names[1] && b.ops[1]->operands.size() == 1 &&
                b.ops[1]->operands[0].name == c.results[0]) {
                if (dir == "LT") cmp = "xlet::sort_less{}";
                if (dir == "GT") cmp = "xlet::sort_greater{}";
            }
        }
        if (cmp.empty()) cmp = scalar_lambda(o.regions[0], depth, true);
        std::string cfg = "xlet::sort_config{.dimension = " + std::to_string(dim) +
                          ", .is_stable = " + (stable ? "true" : "false") + "}";
        if (o.operands.size() == 1) {
            declare(o, 0, "xlet::sort<" + cfg + ">(" + val(o, 0) + ", " + cmp + ")", depth, false);
            return;
        }
        std::string ins = "std::forward_as_tuple(";
        for (std::size_t k = 0; k < o.operands.size(); ++k)
            ins += (k ? ", " : "") + val(o, k);
        declare_tuple(o, "xlet::sort<" + cfg + ">(" + ins + "), " + cmp + ")", depth);
    }

    void emit_while(const op& o, int depth) {
        if (o.regions.size() != 2) {
            error(o.at, "stablehlo.while needs a cond and a body region");
            return;
        }
        std::string cond = tensor_lambda(o.regions[0], depth, "bool", {});
        std::string body = tensor_lambda(o.regions[1], depth, "tuple", o.result_types);
        std::string init = "std::tuple<";
        for (std::size_t k = 0; k < o.operand_types.size(); ++k)
            init += (k ? ", " : "") + cpp_type(o.operand_types[k]);
        init += ">{";
        for (std::size_t k = 0; k < o.operands.size(); ++k)
            init += (k ? ", " : "") + val(o, k);
        init += "}";
        declare_tuple(o, "xlet::while_loop(" + cond + ", " + body + ", " + init + ")", depth);
    }

    void emit_if_case(const op& o, int depth) {
        bool is_if = o.name == "stablehlo.if";
        std::string tt = "std::tuple<";
        for (std::size_t k = 0; k < o.result_types.size(); ++k)
            tt += (k ? ", " : "") + cpp_type(o.result_types[k]);
        tt += ">";
        std::string id = fresh(o.results.empty() ? "branch" : o.results[0].substr(0, o.results[0].find('#')) + "_all");
        out_ << ind(depth) << tt << " " << id << " = [&]() -> " << tt << " {\n";
        if (is_if) {
            if (o.regions.size() != 2) {
                error(o.at, "stablehlo.if needs two regions");
                return;
            }
            out_ << ind(depth + 1) << "if (" << scal(o, 0) << ") {\n";
            emit_branch(o.regions[0], depth + 2, o.result_types);
            out_ << ind(depth + 1) << "} else {\n";
            emit_branch(o.regions[1], depth + 2, o.result_types);
            out_ << ind(depth + 1) << "}\n";
        } else {
            std::size_t nb = o.regions.size();
            if (nb == 0) {
                error(o.at, "stablehlo.case needs at least one branch");
                return;
            }
            // An index outside [0, n) runs the last branch (spec).
            std::string ix = fresh("case_index");
            out_ << ind(depth + 1) << "const std::int64_t " << ix << " = " << scal(o, 0) << ";\n";
            out_ << ind(depth + 1) << "switch (" << ix << " < 0 || " << ix << " >= " << nb << " ? " << nb - 1 << " : "
                 << ix << ") {\n";
            for (std::size_t r = 0; r < nb; ++r) {
                out_ << ind(depth + 1) << (r + 1 == nb ? "default" : "case " + std::to_string(r)) << ": {\n";
                emit_branch(o.regions[r], depth + 2, o.result_types);
                out_ << ind(depth + 1) << "}\n";
            }
            out_ << ind(depth + 1) << "}\n";
        }
        out_ << ind(depth) << "}();\n";
        for (std::size_t i = 0; i < o.results.size(); ++i) {
            std::string r = fresh(o.results[i]);
            out_ << ind(depth) << (uses_[o.results[i]] ? "" : "[[maybe_unused]] ") << "auto& " << r << " = std::get<"
                 << i << ">(" << id << ");\n";
            bind(o.results[i], r, o.result_types[i], false);
        }
    }

    // check dialect: assertions that report and continue (the runner counts them).
    void emit_check(const op& o, int depth) {
        std::string at = "\"" + where(m_, o.at) + "\"";
        const std::string& n = o.name;
        if (n == "check.expect_eq_const" || n == "check.expect_almost_eq_const") {
            const attr* v = o.get("value");
            std::vector<std::uint8_t> bytes;
            // of a bounded operand (the generic form gives its type), the value's type: the sizes
            // expected; of a quantized operand, its stored integers
            // (the pretty form gives the value's type as the operand's: a quantized operand's is its own)
            const value_info* x = lookup(o.operands[0].name);
            type t = is_bounded(o.operand_types[0]) ? v->t : x && is_quant_elem(x->t.elem) ? x->t : o.operand_types[0];
            std::string id = fresh("expected");
            bool splat = false;
            if (!constant_bytes(n, o.at, *v, t, bytes, splat)) return;
            if (splat) {
                out_ << ind(depth) << "{\n"
                     << ind(depth + 1) << "const " << cpp_type(t) << " " << id << " = xlet::constant<" << cpp_type(t)
                     << ">(" << cpp_scalar(t.elem, bytes.data()) << ");\n";
            } else if (bytes.empty()) {
                error(o.at, n + ": no values");
                return;
            } else {
                std::ostringstream data;
                static const char* hexd = "0123456789abcdef";
                for (auto b : bytes)
                    data << "\\x" << hexd[b >> 4] << hexd[b & 15];
                out_ << ind(depth) << "{\n"
                     << ind(depth + 1) << "const auto " << id << " = xlet_translate::from_bytes<" << cpp_type(t)
                     << ">(\"" << data.str() << "\");\n";
            }
            if (n == "check.expect_eq_const")
                out_ << ind(depth + 1) << "xlet_translate::check::expect_eq(" << val(o, 0) << ", " << id << ", " << at
                     << ");\n";
            else
                out_ << ind(depth + 1) << "xlet_translate::check::expect_almost_eq(" << val(o, 0) << ", " << id << ", "
                     << tolerance(o) << ", " << at << ");\n";
            out_ << ind(depth) << "}\n";
            return;
        }
        if (n == "check.expect_eq") {
            out_ << ind(depth) << "xlet_translate::check::expect_eq(" << val(o, 0) << ", " << val(o, 1) << ", " << at
                 << ");\n";
            return;
        }
        if (n == "check.expect_almost_eq") {
            out_ << ind(depth) << "xlet_translate::check::expect_almost_eq(" << val(o, 0) << ", " << val(o, 1) << ", "
                 << tolerance(o) << ", " << at << ");\n";
            return;
        }
        if (n == "check.expect_close") {
            std::int64_t mx = o.get("max_ulp_difference") ? o.get("max_ulp_difference")->i : 1;
            std::int64_t mn = o.get("min_ulp_difference") ? o.get("min_ulp_difference")->i : 0;
            out_ << ind(depth) << "xlet_translate::check::expect_close(" << val(o, 0) << ", " << val(o, 1) << ", " << mn
                 << ", " << mx << ", " << at << ");\n";
            return;
        }
    }
    // The interpreter's meaning (stablehlo-translate --interpret): expect_almost_eq within 0.001,
    // expect_close within 3 ULP, check.eq exact on integers and pred, within 1e-4 otherwise.
    void emit_check_call(const op& o, int depth) {
        const std::string at = "\"" + where(m_, o.at) + "\"", args = val(o, 0) + ", " + val(o, 1) + ", ";
        const std::string& c = o.callee;
        if (c == "check.eq") {
            const std::string e = "xlet_translate::check::eq(" + args + at + ")";
            if (o.results.empty())
                out_ << ind(depth) << "(void)" << e << ";\n";
            else
                declare(o, 0, e, depth, false);
            return;
        }
        out_ << ind(depth) << "xlet_translate::check::"
             << (c == "check.expect_eq"          ? "expect_eq(" + args
                 : c == "check.expect_almost_eq" ? "expect_almost_eq(" + args + "0.001, "
                                                 : "expect_close(" + args + "0, 3, ")
             << at << ");\n";
    }
    static std::string tolerance(const op& o) {
        const attr* t = o.get("tolerance");
        if (!t) return "1e-4";
        if (t->k == attr::kind::floating) return t->s;
        if (t->k == attr::kind::integer) return std::to_string(t->i);
        return "1e-4";
    }

    static std::string check_helpers() {
        return R"XLT(
#include <cmath>
#include <cstdio>
#include <exception>

#ifndef XLET_TRANSLATE_CHECK_HELPERS
#define XLET_TRANSLATE_CHECK_HELPERS
namespace xlet_translate::check {
inline int failed = 0, passed = 0;
template<class T>
double as_double(const T& v) {
    if constexpr (requires { v.real(); }) return static_cast<double>(v.real());
    else return static_cast<double>(v);
}
template<class T>
bool same(const T& a, const T& b) {
    if constexpr (requires { a.real(); a.imag(); }) return same(a.real(), b.real()) && same(a.imag(), b.imag());
    else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, xlet::half> || std::is_same_v<T, xlet::bfloat16>)
        // the same bits (so -0 is not +0), or both NaN whatever their payloads
        return (std::isnan(static_cast<double>(a)) && std::isnan(static_cast<double>(b))) ||
               std::memcmp(&a, &b, sizeof(T)) == 0;
    else return a == b;
}
template<class E>
std::string show(const E& v) {
    if constexpr (requires { v.real(); v.imag(); }) {
        std::string s = "("; // appended, not "(" + ...: GCC 12 warns -Wrestrict there (PR 105329)
        s += show(v.real());
        s += ", ";
        s += show(v.imag());
        return s + ")";
    }
    else if constexpr (std::is_same_v<E, bool>) return v ? "true" : "false";
    else if constexpr (std::is_integral_v<E>) return std::to_string(v);
    else if constexpr (xlet::is_quantized<E>) return std::to_string(static_cast<long long>(v.stored)); // stored integer
    else { char b[64]; std::snprintf(b, sizeof b, "%.9g", static_cast<double>(v)); return b; }
}
// A value's run-time sizes (a bounded value's sizes, a tensor's extents) and its storage (of the
// bounds, for a bounded value).
template<class V>
std::vector<std::size_t> sizes_of(const V& v) {
    if constexpr (requires { v.sizes(); }) return {v.sizes().begin(), v.sizes().end()};
    else return {V::extents.begin(), V::extents.end()};
}
template<class V>
const auto& storage_of(const V& v) {
    if constexpr (requires { v.padded(); }) return v.padded();
    else return v;
}
inline std::string show_list(const std::vector<std::size_t>& v) {
    std::string s = "[";
    for (std::size_t d = 0; d < v.size(); ++d) {
        if (d) s += ", ";
        s += std::to_string(v[d]);
    }
    return s + "]";
}
template<class A, class B, class P>
void compare(const A& got_e, const B& want_e, const char* where, const char* what, P ok) {
    auto got = xlet::eval(got_e);
    auto want = xlet::eval(want_e);
    if constexpr (requires { got.sizes(); } || requires { want.sizes(); }) {
        // a bounded value: its sizes must be the expected ones, and its elements within them are
        // compared (past a size is padding, no part of the value)
        const auto size = sizes_of(got), expected = sizes_of(want);
        if (size != expected) {
            ++failed;
            std::printf("%s: %s failed: got sizes %s, expected %s\n", where, what, show_list(size).c_str(),
                        show_list(expected).c_str());
            return;
        }
        const auto& g = storage_of(got);
        const auto& w = storage_of(want);
        using G = std::remove_cvref_t<decltype(g)>;
        using W = std::remove_cvref_t<decltype(w)>;
        std::vector<std::size_t> i(size.size());
        std::size_t n = 1;
        for (auto s : size) n *= s;
        for (std::size_t k = 0; k < n; ++k) {
            std::size_t a = 0, b = 0; // row-major offsets in each storage
            for (std::size_t d = 0; d < i.size(); ++d) {
                a = a * G::extents[d] + i[d];
                b = b * W::extents[d] + i[d];
            }
            if (!ok(g.data()[a], w.data()[b])) {
                ++failed;
                std::printf("%s: %s failed at index %s: got %s, expected %s\n", where, what, show_list(i).c_str(),
                            show(g.data()[a]).c_str(), show(w.data()[b]).c_str());
                return;
            }
            for (std::size_t d = i.size(); d-- > 0 && ++i[d] == size[d];) i[d] = 0; // row-major odometer
        }
    } else {
        for (std::size_t i = 0; i < got.size(); ++i)
            if (!ok(got.data()[i], want.data()[i])) {
                ++failed;
                std::printf("%s: %s failed at flat index %zu: got %s, expected %s\n", where, what, i,
                            show(got.data()[i]).c_str(), show(want.data()[i]).c_str());
                return;
            }
    }
    ++passed;
}
template<class A, class B>
void expect_eq(const A& got, const B& want, const char* where) {
    compare(got, want, where, "expect_eq", [](const auto& a, const auto& b) { return same(a, b); });
}
template<class A, class B>
void expect_almost_eq(const A& got, const B& want, double tol, const char* where) {
    compare(got, want, where, "expect_almost_eq", [tol](const auto& a, const auto& b) {
        if constexpr (requires { a.real(); a.imag(); })
            return (std::abs(static_cast<double>(a.real()) - static_cast<double>(b.real())) <= tol || same(a.real(), b.real())) &&
                   (std::abs(static_cast<double>(a.imag()) - static_cast<double>(b.imag())) <= tol || same(a.imag(), b.imag()));
        else if constexpr (std::is_same_v<std::remove_cvref_t<decltype(a)>, bool>) return a == b;
        else return same(a, b) || std::abs(static_cast<double>(a) - static_cast<double>(b)) <= tol;
    });
}
// ULP distance between two floats of one type, counted on the ordered integer line.
template<class T>
std::uint64_t ulp_distance(T a, T b) {
    if constexpr (requires { a.real(); }) return std::max(ulp_distance(a.real(), b.real()), ulp_distance(a.imag(), b.imag()));
    else {
        using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint16_t>>;
        using S = std::make_signed_t<U>;
        if (std::isnan(static_cast<double>(a)) || std::isnan(static_cast<double>(b)))
            return std::isnan(static_cast<double>(a)) && std::isnan(static_cast<double>(b)) ? 0 : UINT64_MAX;
        auto key = [](T v) {
            U u; std::memcpy(&u, &v, sizeof u);
            constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
            return static_cast<std::int64_t>(u & sign ? -static_cast<std::int64_t>(static_cast<S>(u & ~sign)) : static_cast<std::int64_t>(u));
        };
        std::int64_t d = key(a) - key(b);
        return static_cast<std::uint64_t>(d < 0 ? -d : d);
    }
}
template<class A, class B>
void expect_close(const A& got, const B& want, std::uint64_t lo, std::uint64_t hi, const char* where) {
    compare(got, want, where, "expect_close", [lo, hi](const auto& a, const auto& b) {
        std::uint64_t d = ulp_distance(a, b);
        return d >= lo && d <= hi;
    });
}
// custom_call @check.eq: the comparison's answer as a pred (a failure is also counted).
template<class A, class B>
xlet::tensor<bool> eq(const A& got, const B& want, const char* where) {
    const int before = failed;
    using T = typename std::remove_cvref_t<B>::value_type;
    if constexpr (std::is_integral_v<T> || xlet::is_quantized<T>) expect_eq(got, want, where); // (stored integers)
    else expect_almost_eq(got, want, 1e-4, where);
    return xlet::tensor<bool>{failed == before};
}
} // namespace xlet_translate::check
#endif

)XLT";
    }

    void emit_runner(const std::string& ns) {
        out_ << R"XLT(
int main() {
    int errors = 0;
)XLT";
        for (auto& f : m_.funcs) {
            if (!f.args.empty() || !f.is_public() || spmd_funcs_.count(f.name)) continue; // run_parallel runs those
            out_ << "    try {\n        (void)" << ns << "::" << fname_[f.name]
                 << "();\n    } catch (const std::exception& e) {\n"
                 << "        ++errors;\n        std::printf(\"" << where(m_, f.at) << ": @" << f.name
                 << " threw: %s\\n\", e.what());\n    }\n";
        }
        out_ << "    std::printf(\"%d passed, %d failed\\n\", xlet_translate::check::passed, "
                "xlet_translate::check::failed + errors);\n"
             << "    return xlet_translate::check::failed + errors == 0 ? 0 : 1;\n}\n";
    }
};

} // namespace

emit_result emit_cpp(const module& m, const emit_options& opt) {
    emitter e(m, opt);
    return e.run();
}

std::vector<std::string> supported_ops() {
    std::vector<std::string> v;
    for (auto& [k, _] : unary_ops)
        v.push_back(k);
    for (auto& [k, _] : binary_ops)
        v.push_back(k);
    for (auto& [k, _] : chlo_binary_ops)
        v.push_back(k);
    v.insert(v.end(), other_ops.begin(), other_ops.end());
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace xlt

namespace xlt {

namespace {

std::int64_t elements(const type& t) {
    if (t.k != type::kind::tensor || !t.is_static()) return 0;
    return num_elements(t);
}

// FLOPs of one op (0 for ops that only move data): multiply-adds count 2.
double op_flops(const op& o) {
    const std::string& n = o.name;
    if (o.result_types.empty() || o.operand_types.empty()) return 0;
    double out = static_cast<double>(elements(o.result_types[0]));
    if (n == "stablehlo.dot_general" || n == "stablehlo.dot") {
        std::vector<std::int64_t> lc;
        if (n == "stablehlo.dot")
            lc = {static_cast<std::int64_t>(o.operand_types[0].dims.size()) - 1};
        else if (const attr* d = o.get("dot_dimension_numbers"))
            lc = int_list(d->field("lhs_contracting_dimensions"));
        double k = 1;
        for (auto c : lc)
            if (c >= 0 && static_cast<std::size_t>(c) < o.operand_types[0].dims.size())
                k *= static_cast<double>(o.operand_types[0].dims[static_cast<std::size_t>(c)]);
        return 2 * out * k;
    }
    if (n == "stablehlo.convolution") {
        // each output element: kernel taps x input features of its group = kernel elements / output features
        const type& k = o.operand_types[1];
        double per = static_cast<double>(elements(k));
        const std::string& raw = o.get("dimension_numbers") ? o.get("dimension_numbers")->raw : "";
        // the output-feature dimension of the kernel: 'o' in its bracket list
        auto x = raw.find("]x[");
        if (x != std::string::npos) {
            std::size_t pos = 0, dim = 0;
            for (std::size_t i = x + 3; i < raw.size() && raw[i] != ']'; ++i) {
                if (raw[i] == ',') ++dim;
                if (raw[i] == 'o') pos = dim;
            }
            if (pos < k.dims.size() && k.dims[pos] > 0) per /= static_cast<double>(k.dims[pos]);
        }
        return 2 * out * per;
    }
    if (n == "stablehlo.reduce")
        return static_cast<double>(elements(o.operand_types[0])) * static_cast<double>(o.results.size());
    if (n == "stablehlo.reduce_window") {
        double w = 1;
        for (auto d : int_list(o.get("window_dimensions")))
            w *= static_cast<double>(d);
        return out * w;
    }
    if (n == "stablehlo.fft") {
        double len = 1;
        for (auto d : int_list(o.get("fft_length")))
            len *= static_cast<double>(d);
        double batch = std::max(out, static_cast<double>(elements(o.operand_types[0]))) / std::max(len, 1.0);
        return 5 * batch * len * std::log2(std::max(len, 2.0)); // the conventional 5 n log2 n
    }
    static const std::set<std::string> moves = {"stablehlo.broadcast_in_dim",
                                                "stablehlo.broadcast",
                                                "stablehlo.reshape",
                                                "stablehlo.transpose",
                                                "stablehlo.reverse",
                                                "stablehlo.slice",
                                                "stablehlo.concatenate",
                                                "stablehlo.pad",
                                                "stablehlo.dynamic_slice",
                                                "stablehlo.dynamic_update_slice",
                                                "stablehlo.gather",
                                                "stablehlo.scatter",
                                                "stablehlo.iota",
                                                "stablehlo.bitcast_convert",
                                                "stablehlo.sort",
                                                "stablehlo.get_tuple_element",
                                                "stablehlo.tuple"};
    if (moves.count(n)) return 0;
    return out; // element-wise: one operation an element
}

bool benchable(const op& o) {
    static const std::set<std::string> skip = {"func.return",
                                               "stablehlo.return",
                                               "stablehlo.constant",
                                               "func.call",
                                               "stablehlo.while",
                                               "stablehlo.if",
                                               "stablehlo.case",
                                               "stablehlo.tuple",
                                               "stablehlo.get_tuple_element",
                                               "stablehlo.after_all",
                                               "stablehlo.create_token",
                                               "stablehlo.custom_call",
                                               "stablehlo.composite",
                                               "stablehlo.get_dimension_size",
                                               "stablehlo.optimization_barrier"};
    if (skip.count(o.name) || o.name.rfind("check.", 0) == 0 || o.results.empty() || is_spmd(o) ||
        o.name == "interpreter.run_parallel")
        return false;
    for (auto& t : o.operand_types)
        if (t.k != type::kind::tensor) return false;
    for (auto& t : o.result_types)
        if (t.k != type::kind::tensor) return false;
    return !any_bounded(o.operand_types) && !any_bounded(o.result_types); // (no inputs of run-time sizes)
}

std::string short_op(const std::string& n) {
    auto d = n.find('.');
    return d == std::string::npos ? n : n.substr(d + 1);
}

} // namespace

emit_result emit_bench(const module& m, const emit_options& opt) {
    module c = clone(m);
    std::string ns = opt.ns.empty() ? (m.name.empty() ? "module" : sanitize(m.name)) : opt.ns;
    struct reg {
        std::string name, fn;
        std::vector<type> args;
        double flops;
    };
    std::vector<reg> regs;
    std::set<std::string> names;
    for (auto& f : m.funcs)
        names.insert(f.name);
    std::vector<func> extra;
    // Functions that run collectives need a replica pool: not benchmarked (docs/stablehlo.md).
    const std::set<std::string> spmd = spmd_functions(m);
    for (auto& f : m.funcs) {
        // (bounded arguments or results: the benchmark has no run-time sizes to give)
        if (!f.is_public() || f.results.empty() || spmd.count(f.name) || any_bounded(f.results) ||
            std::any_of(f.args.begin(), f.args.end(), [](const func_arg& a) { return is_bounded(a.t); }))
            continue;
        double total = 0;
        int k = 0;
        // the ops of f's body and of the functions it calls (JAX puts the work in private ones)
        std::vector<const op*> body;
        std::set<std::string> seen;
        std::function<void(const func&)> collect = [&](const func& h) {
            if (!seen.insert(h.name).second) return;
            for (auto& op_ptr : h.body.blocks[0].ops) {
                if (op_ptr->name == "func.call") {
                    if (const func* callee = m.find(op_ptr->callee)) collect(*callee);
                } else {
                    body.push_back(op_ptr.get());
                }
            }
        };
        collect(f);
        for (const op* op_ptr : body) {
            const op& o = *op_ptr;
            if (!benchable(o)) continue;
            double fl = op_flops(o);
            total += fl;
            // a function holding this op alone, on arguments of its operands' types
            func g;
            char idx[16];
            std::snprintf(idx, sizeof idx, "%03d", k); // zero-padded: the cases sort in program order
            g.name = "op." + f.name + "." + idx + "_" + short_op(o.name);
            while (names.count(g.name))
                g.name += "_";
            names.insert(g.name);
            g.visibility = "private";
            g.at = o.at;
            g.body.blocks.emplace_back();
            block& b = g.body.blocks[0];
            auto copy = clone(o);
            for (std::size_t i = 0; i < o.operands.size(); ++i) {
                std::string a = "in" + std::to_string(i);
                g.args.push_back({a, o.operand_types[i], {}, o.at});
                b.arg_names.push_back(a);
                b.arg_types.push_back(o.operand_types[i]);
                b.arg_locs.push_back(o.at);
                copy->operands[i].name = a;
            }
            auto ret = std::make_unique<op>();
            ret->name = "func.return";
            ret->at = o.at;
            for (std::size_t i = 0; i < o.results.size(); ++i) {
                ret->operands.push_back({o.results[i], o.at});
                ret->operand_types.push_back(o.result_types[i]);
            }
            g.results = o.result_types;
            g.result_attrs.resize(o.result_types.size());
            b.ops.push_back(std::move(copy));
            b.ops.push_back(std::move(ret));
            regs.push_back({"op/" + f.name + "/" + idx + "_" + short_op(o.name), g.name, g.args.empty() ? std::vector<type>{} : [&] {
                                std::vector<type> v;
                                for (auto& a : g.args)
                                    v.push_back(a.t);
                                return v;
                            }(),
                            fl});
            extra.push_back(std::move(g));
            ++k;
        }
        std::vector<type> args;
        for (auto& a : f.args)
            args.push_back(a.t);
        regs.insert(regs.end() - k, {"module/" + f.name, f.name, args, total});
    }
    for (auto& g : extra)
        c.funcs.push_back(std::move(g));
    emit_options o = opt;
    o.ns = ns;
    o.runner = false;
    emit_result r = emit_cpp(c, o);
    if (!r.errors.empty()) return r;
    // the function names the emitter chose: sanitize() of the MLIR names, made unique in order
    std::map<std::string, std::string> fname;
    std::set<std::string> used;
    for (auto& f : c.funcs) {
        std::string n = sanitize(f.name);
        while (used.count(n))
            n += "_";
        used.insert(n);
        fname[f.name] = n;
    }
    std::ostringstream out;
    out << "#include <xlet/bench.hpp>\n";
    std::string code = r.code;
    auto pragma = code.find("#pragma once\n");
    if (pragma != std::string::npos) code.erase(pragma, 13);
    out << code << "\n// Benchmark cases: the module's public functions and each op of their bodies alone.\n";
    int line = 0;
    for (auto& g : regs) {
        out << "static const bool xlet_bench_case_" << line++ << " = ::xlet::bench::add<";
        for (std::size_t i = 0; i < g.args.size(); ++i)
            out << (i ? ", " : "") << cpp_type(g.args[i]);
        char fl[64];
        std::snprintf(fl, sizeof fl, "%.17g", g.flops);
        out << ">(\"" << g.name << "\", " << fl << ", [](const auto&... a) { return " << ns << "::" << fname[g.fn]
            << "(a...); });\n";
    }
    out << "\nint main(int argc, char** argv) { return xlet::bench::main(argc, argv); }\n";
    r.code = out.str();
    return r;
}

} // namespace xlt
