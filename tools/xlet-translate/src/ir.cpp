#include "ir.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>

namespace xlt {

bool type::is_static() const {
    if (k == kind::tuple) {
        for (auto& e : elems)
            if (!e.is_static()) return false;
        return true;
    }
    for (auto d : dims)
        if (d < 0) return false;
    return true;
}

type tensor_type(std::vector<std::int64_t> dims, const std::string& elem) {
    type t;
    t.k = type::kind::tensor;
    t.dims = std::move(dims);
    t.elem = elem;
    return t;
}

const attr* attr::field(const std::string& key) const {
    for (auto& f : fields)
        if (f.name == key) return &f;
    return nullptr;
}

const attr* op::get(const std::string& key) const {
    for (auto& [k, v] : attrs)
        if (k == key) return &v;
    return nullptr;
}
attr* op::get(const std::string& key) {
    for (auto& [k, v] : attrs)
        if (k == key) return &v;
    return nullptr;
}
void op::set(const std::string& key, attr a) {
    if (attr* p = get(key))
        *p = std::move(a);
    else
        attrs.emplace_back(key, std::move(a));
}

const func* module::find(const std::string& n) const {
    for (auto& f : funcs)
        if (f.name == n) return &f;
    return nullptr;
}

std::unique_ptr<op> clone(const op& o) {
    auto c = std::make_unique<op>();
    c->name = o.name;
    c->results = o.results;
    c->operands = o.operands;
    c->operand_types = o.operand_types;
    c->result_types = o.result_types;
    c->attrs = o.attrs;
    c->callee = o.callee;
    c->at = o.at;
    c->vhlo_defaults = o.vhlo_defaults;
    c->vhlo_written = o.vhlo_written;
    for (auto& r : o.regions)
        c->regions.push_back(clone(r));
    return c;
}
region clone(const region& r) {
    region c;
    for (auto& b : r.blocks) {
        block nb;
        nb.arg_names = b.arg_names;
        nb.arg_types = b.arg_types;
        nb.arg_locs = b.arg_locs;
        for (auto& o : b.ops)
            nb.ops.push_back(clone(*o));
        c.blocks.push_back(std::move(nb));
    }
    return c;
}
module clone(const module& m) {
    module c;
    c.name = m.name;
    c.attrs = m.attrs;
    c.file = m.file;
    for (auto& f : m.funcs) {
        func g;
        g.name = f.name;
        g.visibility = f.visibility;
        g.args = f.args;
        g.results = f.results;
        g.result_attrs = f.result_attrs;
        g.attrs = f.attrs;
        g.body = clone(f.body);
        g.at = f.at;
        c.funcs.push_back(std::move(g));
    }
    for (auto& o : m.ops)
        c.ops.push_back(clone(*o));
    return c;
}

const std::set<std::string>& elementwise_ops() {
    static const std::set<std::string> s = {"stablehlo.abs",
                                            "stablehlo.cbrt",
                                            "stablehlo.ceil",
                                            "stablehlo.convert",
                                            "stablehlo.count_leading_zeros",
                                            "stablehlo.cosine",
                                            "stablehlo.exponential",
                                            "stablehlo.exponential_minus_one",
                                            "stablehlo.floor",
                                            "stablehlo.imag",
                                            "stablehlo.log",
                                            "stablehlo.log_plus_one",
                                            "stablehlo.logistic",
                                            "stablehlo.not",
                                            "stablehlo.negate",
                                            "stablehlo.popcnt",
                                            "stablehlo.real",
                                            "stablehlo.round_nearest_afz",
                                            "stablehlo.round_nearest_even",
                                            "stablehlo.rsqrt",
                                            "stablehlo.sign",
                                            "stablehlo.sine",
                                            "stablehlo.sqrt",
                                            "stablehlo.tan",
                                            "stablehlo.tanh",
                                            "stablehlo.add",
                                            "stablehlo.atan2",
                                            "stablehlo.divide",
                                            "stablehlo.maximum",
                                            "stablehlo.minimum",
                                            "stablehlo.multiply",
                                            "stablehlo.power",
                                            "stablehlo.remainder",
                                            "stablehlo.shift_left",
                                            "stablehlo.shift_right_arithmetic",
                                            "stablehlo.shift_right_logical",
                                            "stablehlo.subtract",
                                            "stablehlo.and",
                                            "stablehlo.or",
                                            "stablehlo.xor"};
    return s;
}

bool is_float_elem(const std::string& e) { return e == "f16" || e == "bf16" || e == "f32" || e == "f64"; }
bool is_complex_elem(const std::string& e) { return e.rfind("complex<", 0) == 0; }
bool is_unsigned_elem(const std::string& e) { return e.rfind("ui", 0) == 0; }
bool is_integer_elem(const std::string& e) {
    return e == "i8" || e == "i16" || e == "i32" || e == "i64" || e == "ui8" || e == "ui16" || e == "ui32" ||
           e == "ui64" || e == "si8" || e == "si16" || e == "si32" || e == "si64";
}
int elem_bits(const std::string& e) {
    if (e == "i1") return 1;
    if (e == "i8" || e == "ui8" || e == "si8") return 8;
    if (e == "i16" || e == "ui16" || e == "si16" || e == "f16" || e == "bf16") return 16;
    if (e == "i32" || e == "ui32" || e == "si32" || e == "f32") return 32;
    if (e == "i64" || e == "ui64" || e == "si64" || e == "f64" || e == "complex<f32>") return 64;
    if (e == "complex<f64>") return 128;
    return 0;
}

// ---- quantized element types ---------------------------------------------------------------

std::string quant_type::storage() const { return (is_signed ? "i" : "ui") + std::to_string(bits); }

std::string quant_type::check() const {
    if (bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32)
        return "the storage type of a quantized type must have 2, 4, 8, 16 or 32 bits (got " + std::to_string(bits) +
               ")";
    std::int64_t lo = is_signed ? -(std::int64_t{1} << (bits - 1)) : 0;
    std::int64_t hi = is_signed ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
    std::string st = (is_signed ? "i" : "u") + std::to_string(bits);
    if (storage_min < lo || storage_max > hi || storage_min >= storage_max)
        return "storage range [" + std::to_string(storage_min) + ", " + std::to_string(storage_max) +
               "] is not a range within " + st + " [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (expressed != "f32" && expressed != "bf16" && expressed != "f16" && expressed != "f64")
        return "the expressed type of a quantized type must be f16, bf16, f32 or f64 (got " + expressed + ")";
    if (scales.empty() || scales.size() != zero_points.size()) return "a quantized type needs a scale per zero point";
    if (axis < -1 || (axis == -1 && scales.size() != 1))
        return "a per-tensor quantized type has one scale and zero point";
    for (std::size_t i = 0; i < scales.size(); ++i) {
        if (!std::isfinite(scales[i]) || !(scales[i] > 0)) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%g", scales[i]);
            return std::string("scale ") + buf + " is not positive and finite";
        }
        if (zero_points[i] < storage_min || zero_points[i] > storage_max)
            return "zero point " + std::to_string(zero_points[i]) + " is outside the storage range [" +
                   std::to_string(storage_min) + ", " + std::to_string(storage_max) + "]";
    }
    return "";
}

std::string quant_check_tensor(const quant_type& q, const std::vector<std::int64_t>& dims) {
    if (!q.per_axis()) return "";
    if (q.axis >= static_cast<std::int64_t>(dims.size()))
        return "quantization dimension " + std::to_string(q.axis) + " is not a dimension of a tensor of rank " +
               std::to_string(dims.size());
    std::int64_t d = dims[static_cast<std::size_t>(q.axis)];
    if (d >= 0 && d != static_cast<std::int64_t>(q.scales.size()))
        return "dimension " + std::to_string(q.axis) + " of size " + std::to_string(d) + " has " +
               std::to_string(q.scales.size()) + " scales";
    return "";
}

bool is_quant_elem(const std::string& e) { return e.rfind("!quant.uniform<", 0) == 0; }

namespace {
std::string quant_spelling(const quant_type& q, bool exact) {
    std::string s = "!quant.uniform<" + std::string(q.is_signed ? "i" : "u") + std::to_string(q.bits);
    quant_type d; // the default storage range of this storage type
    d.storage_min = q.is_signed ? -(std::int64_t{1} << (q.bits - 1)) : 0;
    d.storage_max = q.is_signed ? (std::int64_t{1} << (q.bits - 1)) - 1 : (std::int64_t{1} << q.bits) - 1;
    if (q.storage_min != d.storage_min || q.storage_max != d.storage_max)
        s += "<" + std::to_string(q.storage_min) + ":" + std::to_string(q.storage_max) + ">";
    s += ":" + q.expressed;
    if (q.per_axis()) s += ":" + std::to_string(q.axis);
    s += ", ";
    if (q.per_axis()) s += "{";
    for (std::size_t i = 0; i < q.scales.size(); ++i) {
        char buf[64];
        if (exact) { // the shortest decimal that reads back to the same double
            auto r = std::to_chars(buf, buf + sizeof buf, q.scales[i]);
            *r.ptr = '\0';
        } else { // raw_ostream's operator<<(double): printf's %e
            std::snprintf(buf, sizeof buf, "%e", q.scales[i]);
        }
        s += (i ? "," : "") + std::string(buf);
        if (q.zero_points[i] != 0) s += ":" + std::to_string(q.zero_points[i]);
    }
    if (q.per_axis()) s += "}";
    return s + ">";
}
} // namespace

std::string quant_elem(const quant_type& q) { return quant_spelling(q, true); }

std::optional<quant_type> quant_of(const std::string& e) {
    if (!is_quant_elem(e)) return std::nullopt;
    std::string_view s(e);
    std::size_t p = 15; // after "!quant.uniform<"
    auto lit = [&](char c) {
        if (p < s.size() && s[p] == c) {
            ++p;
            return true;
        }
        return false;
    };
    auto integer = [&](std::int64_t& v) {
        auto r = std::from_chars(s.data() + p, s.data() + s.size(), v);
        if (r.ec != std::errc{}) return false;
        p = static_cast<std::size_t>(r.ptr - s.data());
        return true;
    };
    quant_type q;
    std::int64_t bits = 0;
    if (lit('i'))
        q.is_signed = true;
    else if (lit('u'))
        q.is_signed = false;
    else
        return std::nullopt;
    if (!integer(bits) || bits < 1 || bits > 32) return std::nullopt;
    q.bits = static_cast<int>(bits);
    q.storage_min = q.is_signed ? -(std::int64_t{1} << (q.bits - 1)) : 0;
    q.storage_max = q.is_signed ? (std::int64_t{1} << (q.bits - 1)) - 1 : (std::int64_t{1} << q.bits) - 1;
    if (lit('<') && !(integer(q.storage_min) && lit(':') && integer(q.storage_max) && lit('>'))) return std::nullopt;
    if (!lit(':')) return std::nullopt;
    std::size_t b = p;
    while (p < s.size() && std::isalnum(static_cast<unsigned char>(s[p])))
        ++p;
    q.expressed = std::string(s.substr(b, p - b));
    if (lit(':') && !integer(q.axis)) return std::nullopt;
    if (!lit(',') || !lit(' ')) return std::nullopt;
    bool list = lit('{');
    do {
        double scale = 0;
        std::int64_t zp = 0;
        auto r = std::from_chars(s.data() + p, s.data() + s.size(), scale);
        if (r.ec != std::errc{}) return std::nullopt;
        p = static_cast<std::size_t>(r.ptr - s.data());
        if (lit(':') && !integer(zp)) return std::nullopt;
        q.scales.push_back(scale);
        q.zero_points.push_back(zp);
    } while (list && lit(','));
    if ((list && !lit('}')) || !lit('>') || p != s.size() || list != q.per_axis()) return std::nullopt;
    return q;
}

std::string elem_str(const std::string& e) {
    if (!is_quant_elem(e)) return e;
    auto q = quant_of(e);
    return q ? quant_spelling(*q, false) : e;
}

std::string type_str(const type& t) {
    switch (t.k) {
    case type::kind::tensor: {
        std::string s = "tensor<";
        for (auto d : t.dims)
            s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
        s += elem_str(t.elem);
        if (!t.bounds.empty()) {
            s += ", #stablehlo.bounds<";
            for (std::size_t i = 0; i < t.bounds.size(); ++i)
                s += (i ? ", " : "") + (t.bounds[i] < 0 ? std::string("?") : std::to_string(t.bounds[i]));
            s += ">";
        } else if (!t.encoding.empty()) {
            s += ", " + t.encoding;
        }
        return s + ">";
    }
    case type::kind::tuple: {
        std::string s = "tuple<";
        for (std::size_t i = 0; i < t.elems.size(); ++i)
            s += (i ? ", " : "") + type_str(t.elems[i]);
        return s + ">";
    }
    case type::kind::token:
        return "!stablehlo.token";
    case type::kind::scalar:
        return elem_str(t.elem);
    case type::kind::other:
        return t.text;
    case type::kind::none:
        break;
    }
    return "none";
}

namespace {
std::string quote(const std::string& s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[4];
            std::snprintf(buf, sizeof buf, "\\%02X", c);
            o += buf;
        } else {
            o += static_cast<char>(c);
        }
    }
    return o + "\"";
}
bool bare_symbol(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-'))
            return false;
    return !std::isdigit(static_cast<unsigned char>(s[0]));
}

// A float literal written as an integer ("1" for f32) gets ".0": MLIR 15 reads only float syntax there.
std::string elem_text(const attr& a, const std::string& e) {
    std::string el = a.t.elem;
    if (!(is_float_elem(el) || is_complex_elem(el))) return e;
    auto fix = [](const std::string& x) {
        if (x.find_first_of(".eExXin") != std::string::npos) return x; // decimal point, exponent, hex, inf, nan
        return x + ".0";
    };
    if (!e.empty() && e.front() == '(') {
        auto c = e.find(',');
        return "(" + fix(e.substr(1, c - 1)) + ", " + fix(e.substr(c + 1, e.size() - c - 2)) + ")";
    }
    return fix(e);
}

void dense_nested(std::ostringstream& os, const attr& a, const std::vector<std::int64_t>& dims, std::size_t d,
                  std::size_t& k) {
    if (d == dims.size()) {
        os << elem_text(a, a.elems[k++]);
        return;
    }
    os << '[';
    for (std::int64_t i = 0; i < dims[d]; ++i) {
        if (i) os << ", ";
        dense_nested(os, a, dims, d + 1, k);
    }
    os << ']';
}
} // namespace

std::string attr_str(const attr& a, bool legacy) {
    std::ostringstream os;
    switch (a.k) {
    case attr::kind::none:
    case attr::kind::unit:
        os << "unit";
        break;
    case attr::kind::boolean:
        os << (a.b ? "true" : "false");
        break;
    case attr::kind::integer:
        os << a.i;
        if (a.t.k != type::kind::none) os << " : " << type_str(a.t);
        break;
    case attr::kind::floating:
        os << a.s;
        if (a.t.k != type::kind::none) os << " : " << type_str(a.t);
        break;
    case attr::kind::string:
        os << quote(a.s);
        break;
    case attr::kind::symbol:
        os << '@' << (bare_symbol(a.s) ? a.s : quote(a.s));
        break;
    case attr::kind::array:
        os << '[';
        for (std::size_t i = 0; i < a.list.size(); ++i)
            os << (i ? ", " : "") << attr_str(a.list[i], legacy);
        os << ']';
        break;
    case attr::kind::dict:
        os << '{';
        for (std::size_t i = 0; i < a.fields.size(); ++i) {
            os << (i ? ", " : "") << a.fields[i].name;
            if (a.fields[i].k != attr::kind::unit) os << " = " << attr_str(a.fields[i], legacy);
        }
        os << '}';
        break;
    case attr::kind::dense: {
        os << "dense<";
        if (a.is_hex) {
            os << "\"0x";
            static const char* hexd = "0123456789ABCDEF";
            for (auto b : a.hex)
                os << hexd[b >> 4] << hexd[b & 15];
            os << '"';
        } else {
            std::size_t n = 1;
            for (auto d : a.t.dims)
                n *= d < 0 ? 0 : static_cast<std::size_t>(d);
            bool splat = !a.elems.empty() && std::all_of(a.elems.begin(), a.elems.end(),
                                                         [&](const std::string& e) { return e == a.elems[0]; });
            if (splat && (a.elems.size() == 1 || a.elems.size() == n)) { // MLIR prints splats as one value
                os << elem_text(a, a.elems[0]);
            } else if (a.elems.size() == n && a.t.k == type::kind::tensor) {
                std::size_t k = 0;
                dense_nested(os, a, a.t.dims, 0, k);
            } else {
                os << '[';
                for (std::size_t i = 0; i < a.elems.size(); ++i)
                    os << (i ? ", " : "") << elem_text(a, a.elems[i]);
                os << ']';
            }
        }
        os << "> : " << type_str(a.t);
        break;
    }
    case attr::kind::dense_array:
        if (legacy) {
            os << "dense<[";
            for (std::size_t i = 0; i < a.list.size(); ++i)
                os << (i ? ", " : "")
                   << (a.t.elem == "i1"
                           ? (a.list[i].i || a.list[i].b ? "true" : "false")
                           : (a.list[i].k == attr::kind::floating ? a.list[i].s : std::to_string(a.list[i].i)));
            os << "]> : tensor<" << a.list.size() << "x" << a.t.elem << ">";
            break;
        }
        os << "array<" << a.t.elem;
        for (std::size_t i = 0; i < a.list.size(); ++i)
            os << (i ? ", " : ": ")
               << (a.t.elem == "i1"
                       ? (a.list[i].i ? "true" : "false")
                       : (a.list[i].k == attr::kind::floating ? a.list[i].s : std::to_string(a.list[i].i)));
        os << '>';
        break;
    case attr::kind::type_attr:
        os << type_str(a.t);
        break;
    case attr::kind::dialect:
        if (!a.fields.empty() && a.s.find('.') != std::string::npos) {
            os << '#' << a.s << '<';
            for (std::size_t i = 0; i < a.fields.size(); ++i)
                os << (i ? ", " : "") << a.fields[i].name << " = " << attr_str(a.fields[i], legacy);
            os << '>';
        } else if (a.s.empty()) { // a body written without its name (algorithm = <...>): as read
            os << '<' << a.raw << '>';
        } else {
            os << '#' << a.s << '<' << a.raw << '>';
        }
        break;
    case attr::kind::ident:
        os << a.s;
        break;
    }
    return os.str();
}

} // namespace xlt
