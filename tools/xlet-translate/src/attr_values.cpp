#include "attr_values.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace xlt {

namespace {
std::string real_elem(const std::string& e) {
    if (e == "complex<f32>") return "f32";
    if (e == "complex<f64>") return "f64";
    return e;
}
} // namespace

// A literal's bytes in the element type (little-endian, as the data sits in memory).
bool literal_bytes(const std::string& elem, const std::string& text, std::vector<std::uint8_t>& out, std::string& why) {
    auto put = [&](std::uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i)
            out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    if (is_complex_elem(elem)) {
        if (text.size() < 5 || text.front() != '(' || text.back() != ')') {
            why = "expected a complex literal (re, im)";
            return false;
        }
        auto comma = text.find(',');
        std::string re = text.substr(1, comma - 1), im = text.substr(comma + 1, text.size() - comma - 2);
        std::string r = real_elem(elem);
        return literal_bytes(r, re, out, why) && literal_bytes(r, im, out, why);
    }
    if (elem == "i1") {
        if (text == "true" || text == "1")
            out.push_back(1);
        else if (text == "false" || text == "0")
            out.push_back(0);
        else {
            why = "expected true or false";
            return false;
        }
        return true;
    }
    bool hex = text.find("0x") != std::string::npos || text.find("0X") != std::string::npos;
    int bits = elem_bits(elem);
    if (is_float_elem(elem)) {
        if (hex) { // raw bits
            std::uint64_t v = std::strtoull(text.c_str(), nullptr, 16);
            put(v, bits / 8);
            return true;
        }
        if (text == "true" || text == "false") {
            why = "a boolean literal for a floating-point type";
            return false;
        }
        errno = 0;
        double d = std::strtod(text.c_str(), nullptr);
        if (elem == "f64")
            put(std::bit_cast<std::uint64_t>(d), 8);
        else if (elem == "f32")
            put(std::bit_cast<std::uint32_t>(std::strtof(text.c_str(), nullptr)), 4);
        else {
            // f16 / bf16: round the double to nearest even in the 16-bit format.
            const int E = elem == "f16" ? 5 : 8, M = elem == "f16" ? 10 : 7;
            std::uint64_t b = std::bit_cast<std::uint64_t>(d);
            std::uint16_t sign = static_cast<std::uint16_t>((b >> 63) << 15);
            std::uint64_t mag = b & 0x7FFFFFFFFFFFFFFFull;
            std::uint16_t r;
            const int bias = (1 << (E - 1)) - 1;
            if (mag >= 0x7FF0000000000000ull) { // inf / nan
                r = static_cast<std::uint16_t>(((1u << E) - 1) << M);
                if (mag > 0x7FF0000000000000ull) r |= static_cast<std::uint16_t>(1u << (M - 1));
            } else {
                int ex = static_cast<int>(mag >> 52) - 1023;
                std::uint64_t man = (mag & 0xFFFFFFFFFFFFFull) | (mag ? (1ull << 52) : 0);
                if ((mag >> 52) == 0) ex = -1022, man = mag & 0xFFFFFFFFFFFFFull; // double subnormal
                int e16 = ex + bias;
                int shift = 52 - M;
                if (e16 <= 0) shift += 1 - e16, e16 = 0; // subnormal in the target
                std::uint64_t q = shift >= 64 ? 0 : man >> shift;
                std::uint64_t rem = shift >= 64 ? man : man & ((1ull << shift) - 1);
                std::uint64_t half = shift >= 64 ? ~0ull : 1ull << (shift - 1);
                if (shift < 64 && (rem > half || (rem == half && (q & 1)))) ++q;
                // q holds the implicit bit when normal: fold it into the exponent field
                std::uint64_t v = e16 == 0 ? q : (static_cast<std::uint64_t>(e16) << M) + (q - (1ull << M));
                if (e16 == 0 && q >> M) v = q; // rounded up into the smallest normal: q already 1<<M
                if (v >= ((1ull << E) - 1) << M) v = ((1ull << E) - 1) << M; // overflow to inf
                r = static_cast<std::uint16_t>(v);
            }
            put(sign | r, 2);
        }
        return true;
    }
    if (bits == 0 || !is_integer_elem(elem)) {
        why = "unsupported element type " + elem;
        return false;
    }
    if (text == "true" || text == "false") {
        put(text == "true", bits / 8);
        return true;
    }
    if (text.find_first_of(".eE") != std::string::npos && !hex) {
        why = "a floating-point literal for an integer type";
        return false;
    }
    bool neg = !text.empty() && text[0] == '-';
    std::string digits = text.substr(neg || (!text.empty() && text[0] == '+') ? 1 : 0);
    std::uint64_t u = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
    put(neg ? 0 - u : u, bits / 8);
    return true;
}

std::uint64_t load_le(const std::uint8_t* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}

std::int64_t num_elements(const type& t) {
    std::int64_t n = 1;
    for (auto d : t.dims)
        n *= d;
    return n;
}

// The bytes of a dense attribute, expanded to every element of its type (a splat repeated).
// One element's bytes when the attribute is a splat (one literal, or a one-element hex blob).
bool dense_splat(const attr& a, const type& t, std::vector<std::uint8_t>& out, std::string& why) {
    int w = elem_bits(t.elem) == 1 ? 1 : elem_bits(t.elem) / 8;
    if (w == 0) return false;
    if (a.is_hex && static_cast<int>(a.hex.size()) == w) {
        out = a.hex;
        if (t.elem == "i1") out[0] = out[0] != 0;
        return true;
    }
    if (!a.is_hex && a.elems.size() == 1) return literal_bytes(t.elem, a.elems[0], out, why);
    return false;
}

static constexpr std::int64_t max_embedded_elements = std::int64_t{1} << 26;

bool dense_bytes(const attr& a, const type& t, std::vector<std::uint8_t>& out, std::string& why) {
    std::int64_t n = num_elements(t);
    int w = elem_bits(t.elem) == 1 ? 1 : elem_bits(t.elem) / 8;
    if (w == 0) {
        why = "unsupported element type " + t.elem;
        return false;
    }
    if (n < 0 || n > max_embedded_elements) {
        why = "a constant of " + std::to_string(n) + " elements is too large to embed in C++";
        return false;
    }
    if (a.is_hex) {
        if (static_cast<std::int64_t>(a.hex.size()) == n * w) {
            out = a.hex;
        } else if (static_cast<std::int64_t>(a.hex.size()) == w) {
            for (std::int64_t i = 0; i < n; ++i)
                out.insert(out.end(), a.hex.begin(), a.hex.end());
        } else {
            why = "hex data of " + std::to_string(a.hex.size()) + " bytes for " + std::to_string(n) + " elements";
            return false;
        }
        if (t.elem == "i1")
            for (auto& b : out)
                b = b != 0;
        return true;
    }
    std::vector<std::uint8_t> one;
    if (static_cast<std::int64_t>(a.elems.size()) == n) {
        out.reserve(static_cast<std::size_t>(n * w));
        for (auto& e : a.elems)
            if (!literal_bytes(t.elem, e, out, why)) return false;
        return true;
    }
    if (a.elems.size() == 1) {
        if (!literal_bytes(t.elem, a.elems[0], one, why)) return false;
        for (std::int64_t i = 0; i < n; ++i)
            out.insert(out.end(), one.begin(), one.end());
        return true;
    }
    why = std::to_string(a.elems.size()) + " values for " + std::to_string(n) + " elements";
    return false;
}

std::vector<std::int64_t> int_list(const attr* a) {
    std::vector<std::int64_t> v;
    if (!a) return v;
    if (a->k == attr::kind::dense_array || a->k == attr::kind::array) {
        for (auto& e : a->list)
            v.push_back(e.k == attr::kind::boolean ? e.b : e.i);
    } else if (a->k == attr::kind::dense) {
        std::vector<std::uint8_t> bytes;
        std::string why;
        type t = a->t;
        if (t.k == type::kind::tensor && num_elements(t) >= 0 && num_elements(t) <= 65536 &&
            dense_bytes(*a, t, bytes, why)) {
            int w = elem_bits(t.elem) == 1 ? 1 : elem_bits(t.elem) / 8;
            for (std::size_t i = 0; i + w <= bytes.size(); i += w) {
                std::uint64_t u = load_le(bytes.data() + i, w);
                int bits = w * 8;
                v.push_back(bits == 64 ? static_cast<std::int64_t>(u)
                                       : static_cast<std::int64_t>(u << (64 - bits)) >> (64 - bits));
            }
        }
    } else if (a->k == attr::kind::integer) {
        v.push_back(a->i);
    }
    return v;
}

std::string enum_word(const attr* a) { // #stablehlo<comparison_direction LT> -> LT; ident LT -> LT
    if (!a) return "";
    if (a->k == attr::kind::ident || a->k == attr::kind::string) return a->s;
    if (a->k == attr::kind::dialect) {
        auto p = a->raw.find_last_of(' ');
        std::string w = p == std::string::npos ? a->raw : a->raw.substr(p + 1);
        while (!w.empty() && std::isspace(static_cast<unsigned char>(w.back())))
            w.pop_back();
        return w;
    }
    return "";
}

namespace {
// A natural number of any size (base 2^32, least significant limb first): the decimal digits of
// a float, exactly, as LLVM's APFloat computes them.
struct big {
    std::vector<std::uint32_t> limb;
    void mul(std::uint32_t m) {
        std::uint64_t carry = 0;
        for (auto& x : limb) {
            std::uint64_t v = std::uint64_t{x} * m + carry;
            x = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
        if (carry) limb.push_back(static_cast<std::uint32_t>(carry));
    }
    std::uint32_t divmod(std::uint32_t m) { // *this /= m; the remainder
        std::uint64_t r = 0;
        for (std::size_t i = limb.size(); i-- > 0;) {
            std::uint64_t v = (r << 32) | limb[i];
            limb[i] = static_cast<std::uint32_t>(v / m);
            r = v % m;
        }
        while (!limb.empty() && limb.back() == 0)
            limb.pop_back();
        return static_cast<std::uint32_t>(r);
    }
    unsigned bits() const {
        return limb.empty() ? 0 : 32 * static_cast<unsigned>(limb.size() - 1) + std::bit_width(limb.back());
    }
};

// APFloat::toString(Str, precision, max_padding, truncate_zero) of a finite float of `mant_bits`
// significand bits (24: f32, 53: f64): the exact decimal digits, cut to `precision` significant
// ones (0: 2 + mant_bits * 59 / 196) rounding half up, written plainly or in scientific notation.
std::string apfloat_text(double v, unsigned mant_bits, unsigned precision, unsigned max_padding, bool truncate_zero) {
    std::string out = std::signbit(v) ? "-" : "";
    if (v == 0) {
        if (max_padding) return out + "0.0";
        if (truncate_zero) return out + "0.0E+0";
        return out + "0.0" + std::string(precision > 1 ? precision - 1 : 0, '0') + "e+00";
    }
    if (!precision) precision = 2 + mant_bits * 59 / 196;
    int e2 = 0;
    double m = std::frexp(std::fabs(v), &e2);
    std::uint64_t sig = static_cast<std::uint64_t>(std::ldexp(m, 53));
    e2 -= 53;
    while (!(sig & 1)) {
        sig >>= 1;
        ++e2;
    }
    big n;
    n.limb = {static_cast<std::uint32_t>(sig), static_cast<std::uint32_t>(sig >> 32)};
    if (!n.limb[1]) n.limb.pop_back();
    int exp = 0; // the value is n * 10^exp
    if (e2 >= 0) {
        for (int k = 0; k < e2; ++k)
            n.mul(2);
    } else {
        for (int k = 0; k < -e2; ++k)
            n.mul(5);
        exp = e2;
    }
    // no more bits than the precision needs (196/59 overestimates log2 10), truncating
    unsigned required = (precision * 196 + 58) / 59, used = n.bits();
    if (used > required)
        for (unsigned t = (used - required) * 59 / 196; t > 0; --t) {
            n.divmod(10);
            ++exp;
        }
    std::vector<int> digits; // least significant first, trailing zeros dropped
    while (!n.limb.empty()) {
        int d = static_cast<int>(n.divmod(10));
        if (digits.empty() && d == 0)
            ++exp;
        else
            digits.push_back(d);
    }
    if (digits.size() > precision) { // round half up to `precision` digits
        std::size_t first = digits.size() - precision;
        if (digits[first - 1] < 5) {
            while (first < digits.size() && digits[first] == 0)
                ++first;
        } else {
            for (; first < digits.size() && digits[first] == 9; ++first) {
            }
            if (first < digits.size()) ++digits[first];
        }
        exp += static_cast<int>(first);
        if (first == digits.size())
            digits = {1};
        else
            digits.erase(digits.begin(), digits.begin() + static_cast<std::ptrdiff_t>(first));
    }
    const int nd = static_cast<int>(digits.size());
    auto digit = [&](int i) { return static_cast<char>('0' + digits[static_cast<std::size_t>(nd - 1 - i)]); };
    bool scientific =
        !max_padding || (exp >= 0 ? exp > static_cast<int>(max_padding) || nd + exp > static_cast<int>(precision)
                                  : exp + nd - 1 < 0 && -(exp + nd - 1) > static_cast<int>(max_padding));
    if (scientific) {
        exp += nd - 1;
        out += digit(0);
        out += '.';
        if (nd == 1 && truncate_zero) out += '0';
        for (int i = 1; i < nd; ++i)
            out += digit(i);
        if (!truncate_zero && static_cast<int>(precision) > nd - 1)
            out += std::string(static_cast<std::size_t>(static_cast<int>(precision) - nd + 1), '0');
        out += truncate_zero ? 'E' : 'e';
        out += exp >= 0 ? '+' : '-';
        std::string e = std::to_string(exp < 0 ? -exp : exp);
        if (!truncate_zero && e.size() < 2) e = "0" + e;
        return out + e;
    }
    if (exp >= 0) {
        for (int i = 0; i < nd; ++i)
            out += digit(i);
        return out + std::string(static_cast<std::size_t>(exp), '0');
    }
    int whole = exp + nd;
    int i = 0;
    if (whole > 0) {
        for (; i < whole; ++i)
            out += digit(i);
        out += '.';
    } else {
        out += "0." + std::string(static_cast<std::size_t>(-whole), '0');
    }
    for (; i < nd; ++i)
        out += digit(i);
    return out;
}
} // namespace

std::string mlir_float_literal(double v, bool f64) {
    if (!f64) v = static_cast<float>(v);
    if (std::isfinite(v)) {
        unsigned mant = f64 ? 53 : 24;
        std::string s = apfloat_text(v, mant, 6, 0, false);
        // it must read back to the same value (in the float's own type, rounded once)
        if (f64 ? std::strtod(s.c_str(), nullptr) == v : static_cast<double>(std::strtof(s.c_str(), nullptr)) == v)
            return s;
        s = apfloat_text(v, mant, 0, 3, true);
        if (s.find('.') != std::string::npos) return s;
    }
    char buf[24];
    if (f64)
        std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(v)));
    else
        std::snprintf(buf, sizeof buf, "0x%X",
                      static_cast<unsigned>(std::bit_cast<std::uint32_t>(static_cast<float>(v))));
    return buf;
}

bool read_conv_dims(const attr& a, conv_dims& d, std::string& why) {
    why = "unreadable convolution dimension_numbers";
    if (a.k != attr::kind::dialect) return false;
    if (!a.fields.empty()) {
        auto one = [&](const char* k, std::int64_t& v) {
            const attr* f = a.field(k);
            if (!f || f->k != attr::kind::integer) return false;
            v = f->i;
            return true;
        };
        if (!one("input_batch_dimension", d.ib) || !one("input_feature_dimension", d.if_) ||
            !one("kernel_input_feature_dimension", d.kif) || !one("kernel_output_feature_dimension", d.kof) ||
            !one("output_batch_dimension", d.ob) || !one("output_feature_dimension", d.of))
            return false;
        d.is = int_list(a.field("input_spatial_dimensions"));
        d.ks = int_list(a.field("kernel_spatial_dimensions"));
        d.os = int_list(a.field("output_spatial_dimensions"));
        return true;
    }
    // three bracketed layouts: letters name the batch / feature dimensions, numbers the spatial ones
    std::vector<std::vector<std::string>> groups;
    std::string cur;
    bool in = false;
    for (char c : a.raw) {
        if (c == '[') {
            if (in || groups.size() == 3) return false;
            in = true;
            groups.emplace_back();
            cur.clear();
        } else if (c == ']' || (c == ',' && in)) {
            if (!in || cur.empty()) {
                if (c == ']' && in && groups.back().empty()) { // []
                    in = false;
                    continue;
                }
                return false;
            }
            groups.back().push_back(cur);
            cur.clear();
            if (c == ']') in = false;
        } else if (in && !std::isspace(static_cast<unsigned char>(c))) {
            cur += c;
        }
    }
    if (groups.size() != 3 || in) return false;
    auto side = [&](const std::vector<std::string>& g, char x, char y, std::int64_t& px, std::int64_t& py,
                    std::vector<std::int64_t>& sp) {
        px = py = -1;
        std::size_t n = g.size();
        if (n < 2 || n > 64) return false;
        sp.assign(n - 2, -1);
        for (std::size_t i = 0; i < n; ++i) {
            const std::string& e = g[i];
            auto pos = static_cast<std::int64_t>(i);
            if (e.size() == 1 && e[0] == x && px < 0)
                px = pos;
            else if (e.size() == 1 && e[0] == y && py < 0)
                py = pos;
            else {
                std::size_t k = 0;
                auto r = std::from_chars(e.data(), e.data() + e.size(), k);
                if (r.ec != std::errc{} || r.ptr != e.data() + e.size() || k >= sp.size() || sp[k] >= 0) return false;
                sp[k] = pos;
            }
        }
        return px >= 0 && py >= 0;
    };
    if (!side(groups[0], 'b', 'f', d.ib, d.if_, d.is) || !side(groups[1], 'i', 'o', d.kif, d.kof, d.ks) ||
        !side(groups[2], 'b', 'f', d.ob, d.of, d.os))
        return false;
    why.clear();
    return true;
}

attr int_list_attr(const std::vector<std::int64_t>& v) {
    attr l;
    l.k = attr::kind::array;
    for (auto x : v)
        l.list.push_back(int_attr(x, ""));
    return l;
}

attr i64_array(const std::vector<std::int64_t>& v, loc at) {
    attr a = int_list_attr(v);
    a.k = attr::kind::dense_array;
    a.at = at;
    a.t.k = type::kind::scalar;
    a.t.elem = "i64";
    return a;
}

} // namespace xlt
