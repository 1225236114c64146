// Recursive descent over the characters (MLIR's syntax is context-sensitive: `4x8xf32` inside
// tensor<> is dims then a type, elsewhere an identifier), one function per production.
// Pretty forms of the StableHLO / CHLO / check ops are turned into the generic form's attribute
// names (broadcast_dimensions, dot_dimension_numbers, ...), so passes and emitters see one shape.
#include "parser.hpp"

#include "attr_values.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <type_traits>

namespace xlt {

namespace {

struct parse_error {
    loc at;
    std::string text;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '-';
}
bool suffix_char(char c) { // %names, ^labels and @symbols
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '-';
}

class parser {
public:
    parser(std::string_view src, parse_limits lim) : s_(src), lim_(lim) {
        line_starts_.push_back(0);
        for (std::size_t i = 0; i < s_.size(); ++i)
            if (s_[i] == '\n') line_starts_.push_back(i + 1);
    }

    module parse_top() {
        module m;
        skip_ws();
        bool wrapped = false;
        while (!eof()) {
            if (peek() == '#' || peek() == '!') {
                parse_alias_def();
            } else if (starts_kw("module")) {
                if (wrapped) fail("only one module per file");
                wrapped = true;
                pos_ += 6;
                skip_ws();
                if (peek() == '@') m.name = parse_symbol();
                skip_ws();
                if (starts_kw("attributes")) {
                    pos_ += 10;
                    m.attrs = parse_attr_dict();
                }
                expect('{');
                skip_ws();
                while (peek() != '}') {
                    if (eof()) fail("expected '}' to close the module");
                    parse_module_item(m);
                    skip_ws();
                }
                ++pos_;
                skip_loc_suffix();
            } else if (starts_with("{-#")) {
                skip_resource_block();
            } else {
                parse_module_item(m);
            }
            skip_ws();
        }
        return m;
    }

    loc here() const { return loc_of(pos_); }

    // One attribute (or type) spanning the whole text: what the passes re-read from the body of a
    // dialect attribute (#vhlo.tensor_v1<dense<...> : tensor<...>>).
    template<class T, class F>
    T whole(F&& parse_one) {
        skip_ws();
        T v = parse_one();
        skip_ws();
        if (!eof())
            fail("unexpected text after the " + std::string(std::is_same_v<T, type> ? "type" : "attribute") + found());
        return v;
    }
    attr whole_attr() {
        return whole<attr>([&] { return parse_attr(); });
    }
    type whole_type() {
        return whole<type>([&] { return parse_type(); });
    }

    loc loc_of(std::size_t p) const {
        auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), p);
        std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
        return {static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(p - line_starts_[line - 1] + 1)};
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;
    parse_limits lim_;
    int depth_ = 0;
    std::vector<std::size_t> line_starts_;
    std::map<std::string, std::string> attr_aliases_, type_aliases_; // name -> text (re-parsed on use)

    struct depth_guard {
        parser& p;
        explicit depth_guard(parser& q) : p(q) {
            if (++p.depth_ > p.lim_.max_depth) p.fail("nesting deeper than " + std::to_string(p.lim_.max_depth));
        }
        ~depth_guard() { --p.depth_; }
    };

    [[noreturn]] void fail(const std::string& what) const { throw parse_error{here(), what}; }
    [[noreturn]] void fail_at(loc at, const std::string& what) const { throw parse_error{at, what}; }

    bool eof() const { return pos_ >= s_.size(); }
    char peek(std::size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }
    bool starts_with(std::string_view t) const { return s_.substr(pos_, t.size()) == t; }
    bool starts_kw(std::string_view t) const {
        return starts_with(t) && !ident_char(peek(t.size())) && peek(t.size()) != '<';
    }

    void skip_ws() {
        for (;;) {
            while (!eof() && std::isspace(static_cast<unsigned char>(peek())))
                ++pos_;
            if (starts_with("//")) {
                while (!eof() && peek() != '\n')
                    ++pos_;
                continue;
            }
            return;
        }
    }
    bool accept(char c) {
        skip_ws();
        if (peek() == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool accept(std::string_view t) {
        skip_ws();
        if (starts_with(t)) {
            pos_ += t.size();
            return true;
        }
        return false;
    }
    bool accept_kw(std::string_view t) {
        skip_ws();
        if (starts_kw(t)) {
            pos_ += t.size();
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!accept(c)) fail(std::string("expected '") + c + "'" + found());
    }
    void expect(std::string_view t) {
        if (!accept(t)) fail("expected '" + std::string(t) + "'" + found());
    }
    void expect_kw(std::string_view t) {
        if (!accept_kw(t)) fail("expected '" + std::string(t) + "'" + found());
    }
    std::string found() const {
        if (eof()) return " at the end of the input";
        std::string t;
        for (std::size_t k = 0; k < 16 && !eof() && pos_ + k < s_.size(); ++k) {
            char c = s_[pos_ + k];
            if (c == '\n') break;
            t += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
        }
        return ", found '" + t + "'";
    }

    std::string parse_bare_ident() {
        skip_ws();
        if (!ident_start(peek())) fail("expected an identifier" + found());
        std::size_t b = pos_;
        while (!eof() && ident_char(peek()))
            ++pos_;
        return std::string(s_.substr(b, pos_ - b));
    }
    // Identifier without '.' and '-' (element type names, keywords inside attributes).
    std::string parse_word() {
        skip_ws();
        if (!ident_start(peek())) fail("expected a keyword" + found());
        std::size_t b = pos_;
        while (!eof() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_'))
            ++pos_;
        return std::string(s_.substr(b, pos_ - b));
    }

    std::string parse_string_lit() {
        skip_ws();
        if (peek() != '"') fail("expected a string" + found());
        ++pos_;
        std::string out;
        for (;;) {
            if (eof() || peek() == '\n') fail("unterminated string");
            char c = s_[pos_++];
            if (c == '"') break;
            if (c == '\\') {
                if (eof()) fail("unterminated string");
                char e = s_[pos_++];
                if (e == 'n')
                    out += '\n';
                else if (e == 't')
                    out += '\t';
                else if (e == '"' || e == '\\')
                    out += e;
                else if (std::isxdigit(static_cast<unsigned char>(e)) &&
                         std::isxdigit(static_cast<unsigned char>(peek()))) {
                    char h[3] = {e, s_[pos_++], 0};
                    out += static_cast<char>(std::strtol(h, nullptr, 16));
                } else {
                    fail("invalid escape in string");
                }
            } else {
                out += c;
            }
        }
        return out;
    }

    // %name, %0, %arg0, %0#1 (the '#k' selects a result of a group).
    value_ref parse_value_ref() {
        skip_ws();
        value_ref v;
        v.at = here();
        if (peek() != '%') fail("expected a value (%name)" + found());
        ++pos_;
        std::size_t b = pos_;
        while (!eof() && suffix_char(peek()))
            ++pos_;
        if (pos_ == b) fail("expected a value name after '%'");
        v.name = std::string(s_.substr(b, pos_ - b));
        if (peek() == '#' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
            ++pos_;
            std::size_t d = pos_;
            while (!eof() && std::isdigit(static_cast<unsigned char>(peek())))
                ++pos_;
            v.name += "#" + std::string(s_.substr(d, pos_ - d));
        }
        return v;
    }
    std::string parse_symbol() {
        skip_ws();
        if (peek() != '@') fail("expected a symbol (@name)" + found());
        ++pos_;
        if (peek() == '"') return parse_string_lit();
        std::size_t b = pos_;
        while (!eof() && suffix_char(peek()))
            ++pos_;
        if (pos_ == b) fail("expected a symbol name after '@'");
        return std::string(s_.substr(b, pos_ - b));
    }

    std::int64_t parse_int() {
        skip_ws();
        std::size_t b = pos_;
        bool neg = false;
        if (peek() == '-' || peek() == '+') {
            neg = peek() == '-';
            ++pos_;
        }
        int base = 10;
        if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
            base = 16;
            pos_ += 2;
        }
        std::size_t d = pos_;
        while (!eof() && (base == 16 ? std::isxdigit(static_cast<unsigned char>(peek()))
                                     : std::isdigit(static_cast<unsigned char>(peek()))))
            ++pos_;
        if (d == pos_) {
            pos_ = b;
            fail("expected an integer" + found());
        }
        std::uint64_t u = 0;
        auto r = std::from_chars(s_.data() + d, s_.data() + pos_, u, base);
        if (r.ec != std::errc{}) fail_at(loc_of(b), "integer out of range");
        if (!neg && u > static_cast<std::uint64_t>(INT64_MAX)) fail_at(loc_of(b), "integer out of range");
        if (neg && u > static_cast<std::uint64_t>(INT64_MAX) + 1) fail_at(loc_of(b), "integer out of range");
        return neg ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
    }

    // A number's text (int, float, hex), validated, returned as written.
    std::string parse_number_text() {
        skip_ws();
        std::size_t b = pos_;
        if (peek() == '-' || peek() == '+') ++pos_;
        if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
            pos_ += 2;
            std::size_t d = pos_;
            while (!eof() && std::isxdigit(static_cast<unsigned char>(peek())))
                ++pos_;
            if (d == pos_) fail("expected hex digits");
            return std::string(s_.substr(b, pos_ - b));
        }
        std::size_t d = pos_;
        while (!eof() && std::isdigit(static_cast<unsigned char>(peek())))
            ++pos_;
        if (d == pos_) {
            // inf / nan spellings
            for (std::string_view w : {"inf", "nan", "INF", "NAN"})
                if (starts_with(w)) {
                    pos_ += w.size();
                    return std::string(s_.substr(b, pos_ - b));
                }
            pos_ = b;
            fail("expected a number" + found());
        }
        if (peek() == '.') {
            ++pos_;
            while (!eof() && std::isdigit(static_cast<unsigned char>(peek())))
                ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            std::size_t e = pos_;
            ++pos_;
            if (peek() == '-' || peek() == '+') ++pos_;
            std::size_t ed = pos_;
            while (!eof() && std::isdigit(static_cast<unsigned char>(peek())))
                ++pos_;
            if (ed == pos_) pos_ = e; // not an exponent after all
        }
        return std::string(s_.substr(b, pos_ - b));
    }
    bool at_number() {
        skip_ws();
        char c = peek();
        return std::isdigit(static_cast<unsigned char>(c)) ||
               ((c == '-' || c == '+') && (std::isdigit(static_cast<unsigned char>(peek(1))) ||
                                           s_.substr(pos_ + 1, 3) == "inf" || s_.substr(pos_ + 1, 3) == "nan"));
    }

    // ---- types -------------------------------------------------------------------------------
    // `dims`: those of the tensor whose element type this is (none for an element type alone).
    std::string parse_elem_type(const std::vector<std::int64_t>* dims = nullptr) {
        skip_ws();
        if (starts_with("!quant.uniform<")) return parse_quant_uniform(dims);
        if (starts_with("complex<")) {
            pos_ += 8;
            std::string inner = parse_elem_type();
            expect('>');
            return "complex<" + inner + ">";
        }
        if (peek() == '!') {
            auto t = parse_type();
            if (t.k == type::kind::other) return t.text;
            fail("expected an element type");
        }
        return parse_word();
    }

    // !quant.uniform<storage[<min:max>]:expressed[:axis], scale[:zero_point] | {scale[:zero_point], ...}>
    // (MLIR's quant dialect: storage i8 / si8, unsigned ui8 or u8), checked as StableHLO checks a
    // quantized element type (the spec's C1-C13: a storage range within the storage type, positive
    // finite scales, zero points within the storage range, one scale per slice of a dimension of
    // the tensor); each fault a parse error at its token. Its exact spelling (ir.hpp).
    std::string parse_quant_uniform(const std::vector<std::int64_t>* dims) {
        pos_ += 15; // "!quant.uniform<"
        quant_type q;
        skip_ws();
        loc st = here();
        std::string storage = parse_word();
        std::string_view w = storage;
        if (w.rfind("ui", 0) == 0 || w.rfind("si", 0) == 0)
            w.remove_prefix(2);
        else if (w.rfind("i", 0) == 0 || w.rfind("u", 0) == 0)
            w.remove_prefix(1);
        else
            fail_at(st, "expected the storage type of a quantized type (i8, ui8, u8 ...), found '" + storage + "'");
        q.is_signed = storage[0] == 's' || storage[0] == 'i';
        int bits = 0;
        auto r = std::from_chars(w.data(), w.data() + w.size(), bits);
        if (w.empty() || r.ec != std::errc{} || r.ptr != w.data() + w.size() || bits < 1 || bits > 64)
            fail_at(st, "expected the storage type of a quantized type (i8, ui8, u8 ...), found '" + storage + "'");
        q.bits = bits;
        if (bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32) fail_at(st, q.check());
        q.storage_min = q.is_signed ? -(std::int64_t{1} << (bits - 1)) : 0;
        q.storage_max = q.is_signed ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
        q.scales = {1.0}; // (a valid scale and zero point until they are read)
        if (peek() == '<') {
            ++pos_;
            loc rt = here();
            q.storage_min = parse_int();
            expect(':');
            q.storage_max = parse_int();
            expect('>');
            q.zero_points = {q.storage_min};
            if (std::string why = q.check(); !why.empty()) fail_at(rt, why);
        }
        q.zero_points = {q.storage_min};
        expect(':');
        skip_ws();
        loc et = here();
        q.expressed = parse_word();
        if (std::string why = q.check(); !why.empty()) fail_at(et, why);
        loc axis_at{};
        if (accept(':')) {
            skip_ws();
            axis_at = here();
            q.axis = parse_int();
            if (q.axis < 0 || q.axis > 2147483647)
                fail_at(axis_at, "quantization dimension " + std::to_string(q.axis) + " out of range");
        }
        expect(',');
        q.scales.clear();
        q.zero_points.clear();
        bool list = accept('{');
        if (list != q.per_axis())
            fail(list ? "a per-tensor quantized type has one scale (a list {...} needs a quantization dimension)"
                      : "expected '{' and a scale per slice of the quantization dimension");
        do {
            skip_ws();
            loc sat = here();
            std::string text = parse_number_text();
            double scale = 0;
            auto sr = std::from_chars(text.data(), text.data() + text.size(), scale);
            if (sr.ec == std::errc::result_out_of_range) fail_at(sat, "scale " + text + " is out of range");
            if (sr.ec != std::errc{} || sr.ptr != text.data() + text.size())
                fail_at(sat, "expected a scale (a float literal), found '" + text + "'");
            std::int64_t zp = 0;
            loc zat = sat;
            if (accept(':')) {
                skip_ws();
                zat = here();
                zp = parse_int();
            }
            if (q.scales.size() >= lim_.max_elements) fail_at(sat, "too many scales");
            q.scales.push_back(scale);
            q.zero_points.push_back(zp);
            if (!std::isfinite(scale) || !(scale > 0)) fail_at(sat, q.check());
            if (std::string why = q.check(); !why.empty()) fail_at(zat, why);
        } while (list && accept(','));
        if (list) expect('}');
        expect('>');
        if (dims)
            if (std::string why = quant_check_tensor(q, *dims); !why.empty()) fail_at(axis_at, why);
        return quant_elem(q);
    }

    // `<dims x elem[, encoding]>` of "tensor" / "memref" (from the '<').
    type parse_shaped(loc at) {
        expect('<');
        type t;
        t.k = type::kind::tensor;
        std::size_t count = 1;
        skip_ws();
        if (peek() == '*') fail("unranked tensors (tensor<*x...>) are not supported");
        for (;;) {
            skip_ws();
            if (peek() == '?') {
                ++pos_;
                t.dims.push_back(-1);
            } else if (std::isdigit(static_cast<unsigned char>(peek()))) {
                std::size_t b = pos_;
                while (!eof() && std::isdigit(static_cast<unsigned char>(peek())))
                    ++pos_;
                std::int64_t d = 0;
                auto r = std::from_chars(s_.data() + b, s_.data() + pos_, d);
                if (r.ec != std::errc{} || d > (std::int64_t{1} << 40)) fail_at(loc_of(b), "dimension size too large");
                t.dims.push_back(d);
                if (d > 0) {
                    if (count > lim_.max_elements * 64 / static_cast<std::size_t>(d) + 1)
                        fail_at(at, "tensor type with too many elements");
                    count *= static_cast<std::size_t>(d);
                }
            } else {
                break;
            }
            if (peek() != 'x') fail("expected 'x' after a dimension" + found());
            ++pos_;
        }
        t.elem = parse_elem_type(&t.dims);
        if (accept(',')) {
            skip_ws();
            std::size_t b = pos_;
            if (starts_with("#stablehlo.bounds<")) {
                pos_ += 18;
                for (;;) {
                    skip_ws();
                    loc bat = here();
                    if (accept('?')) {
                        t.bounds.push_back(-1);
                    } else {
                        // StableHLO's verifier of the encoding (MLIR runs it as it builds the type):
                        // a bound on a dynamic dimension only; and the limits of a dimension here
                        std::int64_t v = parse_int();
                        std::size_t d = t.bounds.size();
                        if (v < 0 || v > (std::int64_t{1} << 40))
                            fail_at(bat, "bound " + std::to_string(v) + " out of range");
                        if (d < t.dims.size() && t.dims[d] >= 0)
                            fail_at(bat, "static dimension " + std::to_string(d) + " cannot have a bound");
                        if (v > 0) { // the bounded shape counts, as the dimensions above
                            if (count > lim_.max_elements * 64 / static_cast<std::size_t>(v) + 1)
                                fail_at(at, "tensor type with too many elements");
                            count *= static_cast<std::size_t>(v);
                        }
                        t.bounds.push_back(v);
                    }
                    if (accept('>')) break;
                    expect(',');
                }
                if (t.bounds.size() != t.dims.size())
                    fail_at(loc_of(b), "#stablehlo.bounds has " + std::to_string(t.bounds.size()) +
                                           " bounds for a tensor of rank " + std::to_string(t.dims.size()));
            } else {
                skip_balanced_attr();
                t.encoding = std::string(s_.substr(b, pos_ - b));
            }
        }
        expect('>');
        return t;
    }

    type parse_type() {
        depth_guard g(*this);
        skip_ws();
        type t;
        loc at = here();
        if (starts_with("memref<")) {
            // a buffer (StableHLO 1.13: function arguments and results, custom_call operands): read
            // as a tensor's dimensions and element type, kept as its text (xlet has no buffers)
            pos_ += 6;
            t = parse_shaped(at);
            if (!t.bounds.empty() || !t.encoding.empty())
                fail_at(at, "memref layouts and memory spaces are not supported");
            std::string text = "memref<";
            for (auto d : t.dims)
                text += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
            type m;
            m.k = type::kind::other;
            m.text = text + elem_str(t.elem) + ">";
            return m;
        }
        if (starts_with("tensor<")) {
            pos_ += 6;
            return parse_shaped(at);
        }
        if (starts_with("tuple<")) {
            pos_ += 6;
            t.k = type::kind::tuple;
            if (!accept('>')) {
                do
                    t.elems.push_back(parse_type());
                while (accept(','));
                expect('>');
            }
            return t;
        }
        if (starts_with("!stablehlo.token")) {
            pos_ += 16;
            t.k = type::kind::token;
            return t;
        }
        if (peek() == '!') {
            std::size_t b = pos_;
            ++pos_;
            std::string name;
            while (!eof() && suffix_char(peek()))
                name += s_[pos_++];
            if (name == "quant.uniform" && peek() == '<') { // a quantized element type alone
                pos_ = b;
                t.k = type::kind::scalar;
                t.elem = parse_quant_uniform(nullptr);
                return t;
            }
            if (name == "stablehlo.future") { // its types read, and spelled as MLIR prints them
                expect('<');
                t.k = type::kind::other;
                t.text = "!stablehlo.future<";
                for (bool first = true; !accept('>'); first = false) {
                    if (!first) expect(',');
                    t.text += (first ? "" : ", ") + type_str(parse_type());
                }
                t.text += ">";
                return t;
            }
            if (peek() == '<') skip_angle();
            auto it = type_aliases_.find(name);
            if (it != type_aliases_.end()) return reparse_type(it->second, at);
            t.k = type::kind::other;
            t.text = std::string(s_.substr(b, pos_ - b));
            return t;
        }
        if (peek() == '(') fail("expected a type, found a function type");
        if (ident_start(peek()) || starts_with("complex<")) {
            t.k = type::kind::scalar;
            t.elem = parse_elem_type();
            return t;
        }
        fail("expected a type" + found());
    }

    type reparse_type(const std::string& text, loc at) {
        parser sub(text, lim_);
        sub.depth_ = depth_;
        sub.type_aliases_ = type_aliases_;
        try {
            type t = sub.parse_type();
            sub.skip_ws();
            if (!sub.eof()) fail_at(at, "bad type alias");
            return t;
        } catch (const parse_error& e) {
            fail_at(at, "in a type alias: " + e.text);
        }
    }

    // (T, T) -> T | (T) -> (T, T) | T -> T
    void parse_functional_type(std::vector<type>& ins, std::vector<type>& outs) {
        skip_ws();
        if (accept('(')) {
            if (!accept(')')) {
                do
                    ins.push_back(parse_type());
                while (accept(','));
                expect(')');
            }
        } else {
            ins.push_back(parse_type());
        }
        expect("->");
        parse_result_types(outs);
    }
    void parse_result_types(std::vector<type>& outs) {
        skip_ws();
        if (accept('(')) {
            if (!accept(')')) {
                do
                    outs.push_back(parse_type());
                while (accept(','));
                expect(')');
            }
        } else {
            outs.push_back(parse_type());
        }
    }

    // ---- attributes --------------------------------------------------------------------------
    void skip_angle() { // at '<': skips a balanced <...>, strings and nested brackets included
        depth_guard g(*this);
        int depth = 0;
        do {
            if (eof()) fail("unbalanced '<'");
            char c = peek();
            if (c == '"') {
                parse_string_lit();
                continue;
            }
            if (c == '-' && peek(1) == '>') {
                pos_ += 2;
                continue;
            }
            if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
            if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
            if (depth > lim_.max_depth) fail("nesting deeper than " + std::to_string(lim_.max_depth));
            ++pos_;
        } while (depth > 0);
    }
    // Skips one attribute-like run up to a ',' or '>' at depth 0 (tensor encodings we keep as text).
    void skip_balanced_attr() {
        int depth = 0;
        for (;;) {
            if (eof()) fail("unexpected end of input");
            char c = peek();
            if (c == '"') {
                parse_string_lit();
                continue;
            }
            if (depth == 0 && (c == ',' || c == '>')) return;
            if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
            if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
            if (depth < 0 || depth > lim_.max_depth) fail("unbalanced brackets");
            ++pos_;
        }
    }

    std::vector<std::pair<std::string, attr>> parse_attr_dict() {
        depth_guard g(*this);
        std::vector<std::pair<std::string, attr>> out;
        expect('{');
        if (accept('}')) return out;
        do {
            skip_ws();
            loc at = here();
            std::string key = peek() == '"' ? parse_string_lit() : parse_bare_ident();
            for (auto& [k, v] : out)
                if (k == key) fail_at(at, "duplicate attribute '" + key + "'");
            attr a;
            if (accept('=')) {
                a = parse_attr();
            } else {
                a.k = attr::kind::unit;
                a.at = at;
            }
            out.emplace_back(std::move(key), std::move(a));
        } while (accept(','));
        expect('}');
        return out;
    }

    attr parse_attr() {
        depth_guard g(*this);
        skip_ws();
        attr a;
        a.at = here();
        char c = peek();
        if (c == '"') {
            a.k = attr::kind::string;
            a.s = parse_string_lit();
            if (accept(':')) a.t = parse_type(); // typed string: ignored
            return a;
        }
        if (c == '@') {
            a.k = attr::kind::symbol;
            a.s = parse_symbol();
            while (accept("::"))
                a.s += "::" + parse_symbol();
            return a;
        }
        if (c == '[') {
            ++pos_;
            a.k = attr::kind::array;
            if (!accept(']')) {
                do
                    a.list.push_back(parse_attr());
                while (accept(','));
                expect(']');
            }
            return a;
        }
        if (c == '{') {
            a.k = attr::kind::dict;
            for (auto& [k, v] : parse_attr_dict()) {
                a.fields.push_back(std::move(v));
                a.fields.back().name = k;
            }
            return a;
        }
        if (starts_kw("true") || starts_kw("false")) {
            a.k = attr::kind::boolean;
            a.b = peek() == 't';
            pos_ += a.b ? 4 : 5;
            if (accept(':')) a.t = parse_type();
            return a;
        }
        if (starts_kw("unit")) {
            pos_ += 4;
            a.k = attr::kind::unit;
            return a;
        }
        if (starts_with("dense<")) {
            pos_ += 6;
            parse_dense_body(a);
            return a;
        }
        if (starts_with("dense_resource<")) {
            fail("dense_resource constants are not supported (re-export the module with the data inline)");
        }
        if (starts_with("array<")) {
            pos_ += 6;
            a.k = attr::kind::dense_array;
            a.t.k = type::kind::scalar;
            a.t.elem = parse_elem_type();
            if (accept(':')) {
                do {
                    skip_ws();
                    attr e;
                    e.at = here();
                    if (starts_kw("true") || starts_kw("false")) {
                        e.k = attr::kind::boolean;
                        e.b = peek() == 't';
                        pos_ += e.b ? 4 : 5;
                        e.i = e.b;
                    } else {
                        std::string num = parse_number_text();
                        classify_number(e, num);
                    }
                    a.list.push_back(e);
                } while (accept(','));
            }
            expect('>');
            return a;
        }
        if (starts_with("loc(")) {
            pos_ += 3;
            skip_angle_paren();
            a.k = attr::kind::unit;
            return a;
        }
        if (c == '#') {
            return parse_hash_attr();
        }
        if (c == '<') { // a dialect attribute's body written without its name (algorithm = <...>)
            std::size_t b = pos_;
            skip_angle();
            a.k = attr::kind::dialect;
            a.raw = std::string(s_.substr(b + 1, pos_ - b - 2));
            return a;
        }
        if (at_number()) {
            std::string num = parse_number_text();
            classify_number(a, num);
            if (accept(':')) {
                a.t = parse_type();
                if (a.t.k == type::kind::scalar && is_float_elem(a.t.elem) && a.k == attr::kind::integer) {
                    a.k = attr::kind::floating;
                }
            }
            return a;
        }
        if (c == '!' || starts_with("tensor<") || starts_with("tuple<") || starts_with("complex<")) {
            a.k = attr::kind::type_attr;
            a.t = parse_type();
            return a;
        }
        if (ident_start(c)) {
            std::size_t b = pos_;
            std::string w = parse_bare_ident();
            if (w == "i1" || w == "f32" || w == "f64" || w == "f16" || w == "bf16" ||
                (w.size() > 1 && (w[0] == 'i' || w[0] == 'f' || w.rfind("ui", 0) == 0) &&
                 std::all_of(w.begin() + (w[0] == 'u' ? 2 : 1), w.end(),
                             [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))) {
                pos_ = b;
                a.k = attr::kind::type_attr;
                a.t = parse_type();
                return a;
            }
            a.k = attr::kind::ident;
            a.s = w;
            return a;
        }
        fail("expected an attribute" + found());
    }

    void skip_angle_paren() { // at '(' of loc(...)
        depth_guard g(*this);
        int depth = 0;
        do {
            if (eof()) fail("unbalanced '('");
            char c = peek();
            if (c == '"') {
                parse_string_lit();
                continue;
            }
            if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
            if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
            if (depth > lim_.max_depth) fail("nesting deeper than " + std::to_string(lim_.max_depth));
            ++pos_;
        } while (depth > 0);
    }
    void skip_loc_suffix() {
        skip_ws();
        if (starts_with("loc(")) {
            pos_ += 3;
            skip_angle_paren();
        }
    }

    static void classify_number(attr& a, const std::string& num) {
        a.s = num;
        bool is_float = num.find_first_of(".eEn") != std::string::npos && num.find("0x") == std::string::npos &&
                        num.find("0X") == std::string::npos;
        if (num.find("inf") != std::string::npos || num.find("nan") != std::string::npos) is_float = true;
        if (is_float) {
            a.k = attr::kind::floating;
        } else {
            a.k = attr::kind::integer;
            bool neg = !num.empty() && num[0] == '-';
            std::size_t off = (num[0] == '-' || num[0] == '+') ? 1 : 0;
            int base = 10;
            if (num.size() > off + 1 && num[off] == '0' && (num[off + 1] == 'x' || num[off + 1] == 'X')) {
                base = 16;
                off += 2;
            }
            std::uint64_t u = 0;
            std::from_chars(num.data() + off, num.data() + num.size(), u, base);
            a.i = neg ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
        }
    }

    // #alias, #dialect<...>, #dialect.name<...>, #loc...
    attr parse_hash_attr() {
        attr a;
        a.at = here();
        ++pos_; // '#'
        std::string name;
        while (!eof() && suffix_char(peek()))
            name += s_[pos_++];
        if (name.empty()) fail("expected an attribute name after '#'");
        if (peek() != '<') {
            auto it = attr_aliases_.find(name);
            if (it == attr_aliases_.end()) {
                if (name.rfind("loc", 0) == 0) {
                    a.k = attr::kind::unit;
                    return a;
                }
                fail_at(a.at, "unknown attribute alias #" + name);
            }
            parser sub(it->second, lim_);
            sub.depth_ = depth_;
            sub.attr_aliases_ = attr_aliases_;
            sub.type_aliases_ = type_aliases_;
            try {
                attr r = sub.parse_attr();
                r.at = a.at;
                return r;
            } catch (const parse_error& e) {
                fail_at(a.at, "in attribute alias #" + name + ": " + e.text);
            }
        }
        std::size_t b = pos_;
        skip_angle();
        a.k = attr::kind::dialect;
        a.s = name;
        a.raw = std::string(s_.substr(b + 1, pos_ - b - 2));
        // Structured parameters where the body is `key = value, ...` (gather, scatter, dot, ...).
        parser sub(a.raw, lim_);
        sub.depth_ = depth_;
        sub.attr_aliases_ = attr_aliases_;
        sub.type_aliases_ = type_aliases_;
        try {
            sub.skip_ws();
            std::vector<attr> fields;
            while (!sub.eof()) {
                std::string key = sub.parse_bare_ident();
                sub.expect('=');
                fields.push_back(sub.parse_attr());
                fields.back().name = key;
                if (!sub.accept(',')) break;
                sub.skip_ws();
            }
            sub.skip_ws();
            if (sub.eof()) a.fields = std::move(fields);
        } catch (const parse_error&) {
            // positional body (#stablehlo<comparison_direction LT>, conv's [b, 0, 1, f]x...): raw only
        }
        return a;
    }

    // dense<...> [: type]. Literals are kept as text, flattened row-major; hex blobs decoded.
    void parse_dense_body(attr& a) {
        a.k = attr::kind::dense;
        skip_ws();
        if (peek() == '"') {
            std::string hex = parse_string_lit();
            if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X') || hex.size() % 2)
                fail_at(a.at, "a dense hex string must be \"0x\" and an even number of hex digits");
            if ((hex.size() - 2) / 2 > lim_.max_elements * 16) fail_at(a.at, "dense constant too large");
            a.is_hex = true;
            a.hex.reserve((hex.size() - 2) / 2);
            for (std::size_t i = 2; i < hex.size(); i += 2) {
                unsigned v = 0;
                auto r = std::from_chars(hex.data() + i, hex.data() + i + 2, v, 16);
                if (r.ec != std::errc{} || r.ptr != hex.data() + i + 2) fail_at(a.at, "bad hex digit in dense string");
                a.hex.push_back(static_cast<std::uint8_t>(v));
            }
        } else if (peek() != '>') {
            parse_dense_elem(a, 0);
        }
        expect('>');
        if (!accept(':')) fail("expected ':' and the type of a dense constant");
        skip_ws();
        loc type_at = here();
        a.t = parse_type();
        if (a.t.k == type::kind::tensor && !a.t.is_static()) // as MLIR
            fail_at(type_at, "a dense constant's type must have a static shape, not " + type_str(a.t));
    }
    void parse_dense_elem(attr& a, int depth) {
        if (depth > lim_.max_depth) fail("nesting deeper than " + std::to_string(lim_.max_depth));
        skip_ws();
        if (accept('[')) {
            if (accept(']')) return;
            do
                parse_dense_elem(a, depth + 1);
            while (accept(','));
            expect(']');
            return;
        }
        if (a.elems.size() >= lim_.max_elements) fail("dense constant too large");
        if (accept('(')) {
            std::string re = parse_scalar_lit();
            expect(',');
            std::string im = parse_scalar_lit();
            expect(')');
            a.elems.push_back("(" + re + "," + im + ")");
            return;
        }
        a.elems.push_back(parse_scalar_lit());
    }
    std::string parse_scalar_lit() {
        skip_ws();
        if (starts_kw("true")) {
            pos_ += 4;
            return "true";
        }
        if (starts_kw("false")) {
            pos_ += 5;
            return "false";
        }
        return parse_number_text();
    }

    // ---- module items ----------------------------------------------------------------------
    void parse_alias_def() {
        char sigil = peek();
        ++pos_;
        std::string name;
        while (!eof() && suffix_char(peek()))
            name += s_[pos_++];
        if (name.empty()) fail("expected an alias name");
        expect('=');
        skip_ws();
        std::size_t b = pos_;
        if (sigil == '#') {
            if (starts_with("loc(")) {
                pos_ += 3;
                skip_angle_paren();
                attr_aliases_[name] = "unit";
                return;
            }
            parse_attr();
            attr_aliases_[name] = std::string(s_.substr(b, pos_ - b));
        } else {
            parse_type();
            type_aliases_[name] = std::string(s_.substr(b, pos_ - b));
        }
    }

    void skip_resource_block() {
        std::size_t e = s_.find("#-}", pos_);
        if (e == std::string_view::npos) fail("unterminated '{-#' block");
        pos_ = e + 3;
    }

    void parse_module_item(module& m) {
        skip_ws();
        if (peek() == '#' || peek() == '!') {
            parse_alias_def();
            return;
        }
        if (starts_with("{-#")) {
            skip_resource_block();
            return;
        }
        loc at = here();
        if (accept_kw("func.func") || accept_kw("func")) {
            m.funcs.push_back(parse_func(at));
            for (std::size_t k = 0; k + 1 < m.funcs.size(); ++k)
                if (m.funcs[k].name == m.funcs.back().name) // as MLIR: one symbol per name
                    fail_at(at, "redefinition of symbol @" + m.funcs.back().name);
            return;
        }
        if (starts_with("\"func.func\""))
            fail("the generic form of func.func is not supported; print the module with its pretty form");
        if (peek() == '"') { // another op in generic form: the vhlo.func_v1 of a VHLO module
            m.ops.push_back(parse_op());
            return;
        }
        if (accept_kw("vhlo.func_v1")) {
            m.ops.push_back(parse_vhlo_func(at));
            return;
        }
        fail_at(at, "expected func.func at module level" + found());
    }

    // stablehlo-opt's pretty form of a VHLO function, `vhlo.func_v1 @f(%a: T, ...) -> (R, ...) {
    // body } {attributes}`, as its generic form: the name and the signature become the sym_name
    // and function_type attributes the custom syntax leaves out.
    std::unique_ptr<op> parse_vhlo_func(loc at) {
        auto o = std::make_unique<op>();
        o->name = "vhlo.func_v1";
        o->at = at;
        skip_ws();
        loc name_at = here();
        std::string name = parse_symbol();
        std::vector<std::string> names;
        std::vector<type> ins, outs;
        std::vector<loc> locs;
        expect('(');
        if (!accept(')')) {
            do {
                skip_ws();
                locs.push_back(here());
                names.push_back(parse_value_ref().name);
                expect(':');
                ins.push_back(parse_type());
                skip_loc_suffix();
            } while (accept(','));
            expect(')');
        }
        expect("->");
        expect('(');
        if (!accept(')')) {
            do
                outs.push_back(parse_type());
            while (accept(','));
            expect(')');
        }
        o->regions.push_back(parse_region(&names, &ins, &locs));
        opt_attr_dict(*o);
        // the two attributes of the custom syntax, spelled as VHLO spells them
        auto join = [](const std::vector<type>& ts) {
            std::string j;
            for (std::size_t k = 0; k < ts.size(); ++k)
                j += (k ? ", " : "") + type_str(ts[k]);
            return ts.empty() ? std::string("()") : j;
        };
        std::string quoted = "\"";
        for (unsigned char c : name) {
            static const char* hex = "0123456789ABCDEF";
            if (c == '\\')
                quoted += "\\\\";
            else if (c >= 0x20 && c < 0x7f && c != '"')
                quoted += static_cast<char>(c);
            else
                quoted += std::string("\\") + hex[c >> 4] + hex[c & 15];
        }
        attr sym;
        sym.k = attr::kind::dialect;
        sym.s = "vhlo.string_v1";
        sym.raw = quoted + "\"";
        sym.at = name_at;
        attr fty;
        fty.k = attr::kind::dialect;
        fty.s = "vhlo.type_v1";
        fty.raw = "!vhlo.func_v1<(" + join(ins) + ") -> " + join(outs) + ">";
        fty.at = name_at;
        for (const char* key : {"sym_name", "function_type"})
            if (o->get(key)) fail_at(at, std::string("vhlo.func_v1: ") + key + " is given twice");
        o->attrs.insert(o->attrs.begin(), {{"sym_name", sym}, {"function_type", fty}});
        skip_loc_suffix();
        return o;
    }

    func parse_func(loc at) {
        func f;
        f.at = at;
        skip_ws();
        for (const char* v : {"public", "private", "nested"})
            if (accept_kw(v)) f.visibility = v;
        f.name = parse_symbol();
        expect('(');
        if (!accept(')')) {
            do {
                func_arg arg;
                skip_ws();
                arg.at = here();
                arg.name = parse_value_ref().name;
                expect(':');
                arg.t = parse_type();
                skip_ws();
                if (peek() == '{') arg.attrs = parse_attr_dict();
                skip_loc_suffix();
                f.args.push_back(std::move(arg));
            } while (accept(','));
            expect(')');
        }
        if (accept("->")) {
            skip_ws();
            if (accept('(')) {
                if (!accept(')')) {
                    do {
                        f.results.push_back(parse_type());
                        skip_ws();
                        f.result_attrs.push_back(peek() == '{' ? parse_attr_dict() : decltype(f.attrs){});
                    } while (accept(','));
                    expect(')');
                }
            } else {
                f.results.push_back(parse_type());
                f.result_attrs.emplace_back();
            }
        }
        if (accept_kw("attributes")) f.attrs = parse_attr_dict();
        skip_ws();
        if (peek() != '{')
            fail_at(at, "function @" + f.name + " has no body (external declarations are not supported)");
        std::vector<std::string> names;
        std::vector<type> types;
        std::vector<loc> locs;
        for (auto& a : f.args) {
            names.push_back(a.name);
            types.push_back(a.t);
            locs.push_back(a.at);
        }
        f.body = parse_region(&names, &types, &locs);
        skip_loc_suffix();
        return f;
    }

    // { [^bb(args):] ops } ; entry block arguments may come from the enclosing syntax.
    region parse_region(const std::vector<std::string>* names = nullptr, const std::vector<type>* types = nullptr,
                        const std::vector<loc>* locs = nullptr) {
        depth_guard g(*this);
        region r;
        expect('{');
        r.blocks.emplace_back();
        block* b = &r.blocks.back();
        if (names) {
            b->arg_names = *names;
            b->arg_types = *types;
            b->arg_locs = *locs;
        }
        skip_ws();
        if (peek() == '^') {
            parse_block_label(*b);
        }
        for (;;) {
            skip_ws();
            if (peek() == '}') {
                ++pos_;
                break;
            }
            if (eof()) fail("expected '}' to close a region");
            if (peek() == '^') {
                fail("regions with more than one block are not supported");
            }
            b->ops.push_back(parse_op());
        }
        return r;
    }
    void parse_block_label(block& b) {
        ++pos_;
        while (!eof() && suffix_char(peek()))
            ++pos_;
        if (accept('(')) {
            if (!accept(')')) {
                do {
                    skip_ws();
                    loc at = here();
                    b.arg_names.push_back(parse_value_ref().name);
                    expect(':');
                    b.arg_types.push_back(parse_type());
                    b.arg_locs.push_back(at);
                    skip_loc_suffix();
                } while (accept(','));
                expect(')');
            }
        }
        expect(':');
    }

    // ---- operations --------------------------------------------------------------------------
    std::unique_ptr<op> parse_op() {
        depth_guard g(*this);
        auto o = std::make_unique<op>();
        skip_ws();
        o->at = here();
        // results
        if (peek() == '%') {
            do {
                auto v = parse_value_ref();
                if (v.name.find('#') != std::string::npos) fail_at(v.at, "a result name cannot carry '#'");
                if (peek() == ':' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
                    ++pos_;
                    std::int64_t n = parse_int();
                    if (n < 1 || n > 4096) fail("bad result count");
                    for (std::int64_t k = 0; k < n; ++k)
                        o->results.push_back(v.name + "#" + std::to_string(k));
                } else {
                    o->results.push_back(v.name);
                }
            } while (accept(','));
            expect('=');
            skip_ws();
            o->at = here();
        }
        if (peek() == '"') {
            o->name = parse_string_lit();
            parse_generic_tail(*o);
        } else {
            o->name = parse_bare_ident();
            if (o->name == "return") o->name = "func.return";
            if (o->name == "call") o->name = "func.call";
            parse_pretty(*o);
        }
        skip_loc_suffix();
        return o;
    }

    void parse_generic_tail(op& o) {
        expect('(');
        if (!accept(')')) {
            do
                o.operands.push_back(parse_value_ref());
            while (accept(','));
            expect(')');
        }
        if (accept('[')) fail("successor blocks are not supported");
        skip_ws();
        if (starts_with("<{")) {
            ++pos_;
            o.attrs = parse_attr_dict();
            expect('>');
        }
        skip_ws();
        if (peek() == '(') {
            ++pos_;
            do
                o.regions.push_back(parse_region());
            while (accept(','));
            expect(')');
        }
        skip_ws();
        if (peek() == '{') {
            for (auto& kv : parse_attr_dict())
                merge_attr(o, std::move(kv));
        }
        expect(':');
        parse_functional_type(o.operand_types, o.result_types);
        if (o.name == "func.call" || o.name == "func.return") {
            if (auto* c = o.get("callee"); c && c->k == attr::kind::symbol) o.callee = c->s;
        }
        if (o.name == "stablehlo.custom_call") {
            if (auto* c = o.get("call_target_name"); c && c->k == attr::kind::string) o.callee = c->s;
        }
        check_counts(o);
    }
    void merge_attr(op& o, std::pair<std::string, attr> kv) {
        if (o.get(kv.first)) fail_at(kv.second.at, "duplicate attribute '" + kv.first + "'");
        o.attrs.push_back(std::move(kv));
    }
    void opt_attr_dict(op& o) {
        skip_ws();
        if (peek() == '{') {
            for (auto& kv : parse_attr_dict())
                merge_attr(o, std::move(kv));
        }
    }
    void check_counts(op& o) {
        if (o.operand_types.size() != o.operands.size())
            fail_at(o.at, o.name + ": " + std::to_string(o.operands.size()) + " operands but " +
                              std::to_string(o.operand_types.size()) + " operand types");
        if (o.result_types.size() != o.results.size())
            fail_at(o.at, o.name + ": " + std::to_string(o.results.size()) + " results but " +
                              std::to_string(o.result_types.size()) + " result types");
    }

    // %a, %b, ... ; stops before a ',' that is not followed by another value (`%x, dims = [..]`).
    void operands_until_colon(op& o) {
        skip_ws();
        if (peek() != '%') return;
        for (;;) {
            o.operands.push_back(parse_value_ref());
            skip_ws();
            std::size_t comma = pos_;
            if (!accept(',')) return;
            skip_ws();
            if (peek() != '%') {
                pos_ = comma;
                return;
            }
        }
    }
    // `: T` (every operand and result T) or a functional type.
    void same_type(op& o) {
        expect(':');
        skip_ws();
        if (peek() == '(') {
            parse_functional_type(o.operand_types, o.result_types);
        } else {
            type t = parse_type();
            if (accept("->")) { // chlo's `T -> T`
                o.operand_types.assign(o.operands.size(), t);
                parse_result_types(o.result_types);
            } else {
                o.operand_types.assign(o.operands.size(), t);
                o.result_types.assign(o.results.size(), t);
            }
        }
        check_counts(o);
    }
    void functional(op& o) {
        expect(':');
        parse_functional_type(o.operand_types, o.result_types);
        check_counts(o);
    }
    std::vector<std::int64_t> int_list_brackets() {
        std::vector<std::int64_t> v;
        expect('[');
        if (accept(']')) return v;
        do
            v.push_back(parse_int());
        while (accept(','));
        expect(']');
        return v;
    }
    void keyed_list(op& o, const char* kw, const char* attr_name) {
        expect_kw(kw);
        expect('=');
        skip_ws();
        loc at = here();
        if (starts_with("array<")) {
            o.set(attr_name, parse_attr());
            return;
        }
        o.set(attr_name, i64_array(int_list_brackets(), at));
    }
    attr enum_attr(const std::string& dialect_kind, const std::string& value, loc at) {
        attr a;
        a.k = attr::kind::dialect;
        a.s = "stablehlo";
        a.raw = dialect_kind + " " + value;
        a.at = at;
        return a;
    }
    attr int_attr(std::int64_t v, loc at, const char* ty = "i64") {
        attr a;
        a.k = attr::kind::integer;
        a.i = v;
        a.s = std::to_string(v);
        a.at = at;
        a.t.k = type::kind::scalar;
        a.t.elem = ty;
        return a;
    }

    void parse_pretty(op& o) {
        const std::string& n = o.name;
        // pretty form `operands attr-dict : <one type or a functional type>`
        static const std::set<std::string> unary = [] {
            std::set<std::string> u = elementwise_ops();
            u.insert({"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize", "stablehlo.create_token",
                      "stablehlo.after_all", "stablehlo.reverse", "stablehlo.clamp", "stablehlo.cholesky"});
            return u;
        }();
        loc at = o.at;
        if (unary.count(n)) {
            operands_until_colon(o);
            if (n == "stablehlo.reverse") {
                // `%x, dims = [..]`: operands_until_colon stopped before the comma
                expect(',');
                keyed_list(o, "dims", "dimensions");
            } else if (n == "stablehlo.cholesky") {
                if (accept(',')) {
                    expect_kw("lower");
                    expect('=');
                    skip_ws();
                    attr b;
                    b.k = attr::kind::boolean;
                    b.at = here();
                    if (accept_kw("true"))
                        b.b = true;
                    else
                        expect_kw("false"); // a bare bool here: `: type` after it is the op's type
                    o.set("lower", b);
                }
            }
            opt_attr_dict(o);
            same_type(o);
            return;
        }
        if (n == "stablehlo.constant" || n == "chlo.constant") {
            skip_ws();
            if (peek() == '(') {
                ++pos_;
                expect(')');
                parse_generic_after_operands(o);
                return;
            }
            opt_attr_dict(o);
            attr v = parse_attr();
            if (v.k != attr::kind::dense) fail_at(v.at, "expected a dense<...> constant");
            o.result_types.push_back(v.t);
            o.set("value", std::move(v));
            check_counts(o);
            return;
        }
        if (n == "stablehlo.iota") {
            expect_kw("dim");
            expect('=');
            o.set("iota_dimension", int_attr(parse_int(), here()));
            opt_attr_dict(o);
            expect(':');
            o.result_types.push_back(parse_type());
            check_counts(o);
            return;
        }
        if (n == "stablehlo.replica_id" || n == "stablehlo.partition_id") {
            opt_attr_dict(o);
            expect(':');
            o.result_types.push_back(parse_type());
            check_counts(o);
            return;
        }
        if (n == "stablehlo.compare") {
            skip_ws();
            o.set("comparison_direction", enum_attr("comparison_direction", parse_word(), here()));
            expect(',');
            o.operands.push_back(parse_value_ref());
            expect(',');
            o.operands.push_back(parse_value_ref());
            if (accept(',')) o.set("compare_type", enum_attr("comparison_type", parse_word(), here()));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.slice") {
            o.operands.push_back(parse_value_ref());
            skip_ws();
            loc la = here();
            std::vector<std::int64_t> st, li, sd;
            expect('[');
            if (!accept(']')) {
                do {
                    st.push_back(parse_int());
                    expect(':');
                    li.push_back(parse_int());
                    sd.push_back(accept(':') ? parse_int() : 1);
                } while (accept(','));
                expect(']');
            }
            o.set("start_indices", i64_array(st, la));
            o.set("limit_indices", i64_array(li, la));
            o.set("strides", i64_array(sd, la));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.dynamic_slice") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            skip_ws();
            while (peek() == '%') {
                o.operands.push_back(parse_value_ref());
                expect(',');
                skip_ws();
            }
            keyed_list(o, "sizes", "slice_sizes");
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.broadcast" || n == "stablehlo.broadcast_in_dim" || n == "stablehlo.transpose" ||
            n == "stablehlo.dynamic_broadcast_in_dim") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            if (n == "stablehlo.dynamic_broadcast_in_dim") {
                o.operands.push_back(parse_value_ref());
                expect(',');
            }
            if (n == "stablehlo.broadcast")
                keyed_list(o, "sizes", "broadcast_sizes");
            else if (n == "stablehlo.transpose")
                keyed_list(o, "dims", "permutation");
            else
                keyed_list(o, "dims", "broadcast_dimensions");
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.concatenate") {
            skip_ws();
            while (peek() == '%') {
                o.operands.push_back(parse_value_ref());
                expect(',');
                skip_ws();
            }
            expect_kw("dim");
            expect('=');
            o.set("dimension", int_attr(parse_int(), here()));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.pad") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            o.operands.push_back(parse_value_ref());
            expect(',');
            keyed_list(o, "low", "edge_padding_low");
            expect(',');
            keyed_list(o, "high", "edge_padding_high");
            expect(',');
            keyed_list(o, "interior", "interior_padding");
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.dynamic_iota") { // %shape, dim = 0 : (shape type) -> type
            o.operands.push_back(parse_value_ref());
            expect(',');
            expect_kw("dim");
            expect('=');
            o.set("iota_dimension", int_attr(parse_int(), here()));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.get_dimension_size" || n == "stablehlo.set_dimension_size") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            if (n == "stablehlo.set_dimension_size") {
                o.operands.push_back(parse_value_ref());
                expect(',');
            }
            expect_kw("dim");
            expect('=');
            o.set("dimension", int_attr(parse_int(), here()));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.get_tuple_element") {
            o.operands.push_back(parse_value_ref());
            expect('[');
            o.set("index", int_attr(parse_int(), here(), "i32"));
            expect(']');
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.tuple") {
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            type t = parse_type();
            if (t.k != type::kind::tuple) fail_at(at, "stablehlo.tuple: expected a tuple type");
            o.operand_types = t.elems;
            o.result_types.push_back(t);
            check_counts(o);
            return;
        }
        if (n == "stablehlo.optimization_barrier") {
            skip_ws();
            if (accept('(')) {
                expect(')');
                opt_attr_dict(o);
                check_counts(o);
                return;
            }
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            do
                o.operand_types.push_back(parse_type());
            while (accept(','));
            o.result_types = o.operand_types;
            check_counts(o);
            return;
        }
        if (n == "stablehlo.select") {
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            skip_ws();
            if (peek() == '(') {
                parse_functional_type(o.operand_types, o.result_types);
            } else {
                type p = parse_type();
                expect(',');
                type t = parse_type();
                o.operand_types = {p, t, t};
                o.result_types = {t};
            }
            check_counts(o);
            return;
        }
        if (n == "stablehlo.complex") {
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            skip_ws();
            if (peek() == '(') {
                parse_functional_type(o.operand_types, o.result_types);
            } else {
                type t = parse_type();
                type r = t;
                if (t.elem == "complex<f32>")
                    r.elem = "f32";
                else if (t.elem == "complex<f64>")
                    r.elem = "f64";
                else
                    fail_at(at, "stablehlo.complex: expected a complex result type");
                o.operand_types = {r, r};
                o.result_types = {t};
            }
            check_counts(o);
            return;
        }
        if (n == "stablehlo.dot" || n == "stablehlo.dot_general") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            o.operands.push_back(parse_value_ref());
            if (n == "stablehlo.dot_general") {
                expect(',');
                attr dd;
                dd.k = attr::kind::dialect;
                dd.s = "stablehlo.dot";
                dd.at = here();
                std::vector<std::int64_t> lb, rb, lc, rc;
                if (accept_kw("batching_dims")) {
                    expect('=');
                    lb = int_list_brackets();
                    expect_kw("x");
                    rb = int_list_brackets();
                    expect(',');
                }
                expect_kw("contracting_dims");
                expect('=');
                lc = int_list_brackets();
                expect_kw("x");
                rc = int_list_brackets();
                auto list = [&](const std::vector<std::int64_t>& v) {
                    attr a;
                    a.k = attr::kind::array;
                    for (auto x : v) {
                        a.list.push_back(int_attr(x, dd.at));
                        a.list.back().t = type{}; // printed untyped, as in #stablehlo.dot<...>
                    }
                    return a;
                };
                if (!lb.empty()) {
                    dd.fields.push_back(list(lb));
                    dd.fields.back().name = "lhs_batching_dimensions";
                }
                if (!rb.empty()) {
                    dd.fields.push_back(list(rb));
                    dd.fields.back().name = "rhs_batching_dimensions";
                }
                {
                    dd.fields.push_back(list(lc));
                    dd.fields.back().name = "lhs_contracting_dimensions";
                }
                {
                    dd.fields.push_back(list(rc));
                    dd.fields.back().name = "rhs_contracting_dimensions";
                }
                o.set("dot_dimension_numbers", dd);
            }
            // `, precision = [DEFAULT, HIGHEST]` and `, algorithm = <...>` (dot_general only)
            while (accept(',')) {
                skip_ws();
                loc pa = here();
                if (accept_kw("precision")) {
                    expect('=');
                    expect('[');
                    attr pc;
                    pc.k = attr::kind::array;
                    pc.at = pa;
                    if (!accept(']')) {
                        do
                            pc.list.push_back(enum_attr("precision", parse_word(), here()));
                        while (accept(','));
                        expect(']');
                    }
                    o.set("precision_config", pc);
                } else if (accept_kw("algorithm")) {
                    expect('=');
                    attr al = parse_attr();
                    if (al.k == attr::kind::dialect && al.s.empty()) al.s = "stablehlo.dot_algorithm";
                    o.set("algorithm", std::move(al));
                } else {
                    fail("expected 'precision' or 'algorithm'" + found());
                }
            }
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.convolution") {
            expect('(');
            o.operands.push_back(parse_value_ref());
            expect(',');
            o.operands.push_back(parse_value_ref());
            expect(')');
            expect_kw("dim_numbers");
            expect('=');
            skip_ws();
            std::size_t b = pos_;
            loc dat = here();
            while (!eof() && !(peek() == ',' && depth_of(b, pos_) == 0))
                ++pos_;
            attr dn;
            dn.k = attr::kind::dialect;
            dn.s = "stablehlo.conv";
            dn.raw = std::string(s_.substr(b, pos_ - b));
            dn.at = dat;
            // three layouts, and between them only 'x' and "->" (the raw text is printed again: a
            // comment or another op caught in it would not read back)
            conv_dims cd;
            std::string why;
            int level = 0;
            bool clean = true;
            for (char c : dn.raw) {
                level += c == '[' ? 1 : c == ']' ? -1 : 0;
                if (level == 0 && c != ']' && c != 'x' && c != '-' && c != '>' &&
                    !std::isspace(static_cast<unsigned char>(c)))
                    clean = false;
            }
            if (!clean || !read_conv_dims(dn, cd, why))
                fail_at(dat, "expected dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
            o.set("dimension_numbers", dn);
            expect(',');
            expect_kw("window");
            expect('=');
            expect('{');
            if (!accept('}')) {
                do {
                    skip_ws();
                    loc wa = here();
                    std::string key = parse_word();
                    expect('=');
                    if (key == "pad") {
                        attr p;
                        p.k = attr::kind::dense;
                        p.at = wa;
                        expect('[');
                        std::int64_t rows = 0;
                        if (!accept(']')) {
                            do {
                                auto pr = int_list_brackets();
                                if (pr.size() != 2) fail_at(wa, "window pad entries are [low, high] pairs");
                                p.elems.push_back(std::to_string(pr[0]));
                                p.elems.push_back(std::to_string(pr[1]));
                                ++rows;
                            } while (accept(','));
                            expect(']');
                        }
                        p.t.k = type::kind::tensor;
                        p.t.dims = {rows, 2};
                        p.t.elem = "i64";
                        o.set("padding", p);
                    } else if (key == "reverse") {
                        attr r;
                        r.k = attr::kind::dense_array;
                        r.at = wa;
                        r.t.k = type::kind::scalar;
                        r.t.elem = "i1";
                        expect('[');
                        if (!accept(']')) {
                            do {
                                skip_ws();
                                attr e;
                                if (accept_kw("true"))
                                    e.i = 1, e.b = true;
                                else if (accept_kw("false"))
                                    e.i = 0;
                                else
                                    e.i = parse_int() != 0, e.b = e.i != 0;
                                e.k = attr::kind::boolean;
                                r.list.push_back(e);
                            } while (accept(','));
                            expect(']');
                        }
                        o.set("window_reversal", r);
                    } else {
                        const char* name = key == "stride"       ? "window_strides"
                                           : key == "lhs_dilate" ? "lhs_dilation"
                                           : key == "rhs_dilate" ? "rhs_dilation"
                                                                 : nullptr;
                        if (!name) fail_at(wa, "unknown convolution window field '" + key + "'");
                        o.set(name, i64_array(int_list_brackets(), wa));
                    }
                } while (accept(','));
                expect('}');
            }
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.fft") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            expect_kw("type");
            expect('=');
            o.set("fft_type", enum_attr("fft_type", parse_word(), here()));
            expect(',');
            keyed_list(o, "length", "fft_length");
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.rng_bit_generator") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            expect_kw("algorithm");
            expect('=');
            o.set("rng_algorithm", enum_attr("rng_algorithm", parse_word(), here()));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.rng") {
            for (int k = 0; k < 3; ++k) {
                o.operands.push_back(parse_value_ref());
                expect(',');
            }
            expect_kw("distribution");
            expect('=');
            o.set("rng_distribution", enum_attr("rng_distribution", parse_word(), here()));
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.reduce_precision") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            expect_kw("format");
            expect('=');
            skip_ws();
            loc fa = here();
            std::string f = parse_word(); // e5m10
            std::size_t mpos = f.find('m');
            if (f.size() < 4 || f[0] != 'e' || mpos == std::string::npos) fail_at(fa, "expected a format like e5m10");
            std::int64_t e = 0, m = 0;
            auto r1 = std::from_chars(f.data() + 1, f.data() + mpos, e);
            auto r2 = std::from_chars(f.data() + mpos + 1, f.data() + f.size(), m);
            if (r1.ec != std::errc{} || r2.ec != std::errc{} || r1.ptr != f.data() + mpos ||
                r2.ptr != f.data() + f.size())
                fail_at(fa, "expected a format like e5m10");
            o.set("exponent_bits", int_attr(e, fa, "i32"));
            o.set("mantissa_bits", int_attr(m, fa, "i32"));
            opt_attr_dict(o);
            same_type(o);
            return;
        }
        if (n == "stablehlo.custom_call") {
            skip_ws();
            loc ca = here();
            o.callee = parse_symbol();
            attr t;
            t.k = attr::kind::string;
            t.s = o.callee;
            t.at = ca;
            o.set("call_target_name", t);
            expect('(');
            if (!accept(')')) {
                do
                    o.operands.push_back(parse_value_ref());
                while (accept(','));
                expect(')');
            }
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.composite") {
            skip_ws();
            loc ca = here();
            attr nm;
            nm.k = attr::kind::string;
            nm.s = parse_string_lit();
            nm.at = ca;
            o.set("name", nm);
            operands_until_colon(o);
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n == "stablehlo.while") {
            expect('(');
            std::vector<std::string> iter;
            std::vector<loc> ilocs;
            if (!accept(')')) {
                do {
                    auto a = parse_value_ref();
                    iter.push_back(a.name);
                    ilocs.push_back(a.at);
                    expect('=');
                    o.operands.push_back(parse_value_ref());
                } while (accept(','));
                expect(')');
            }
            if (!o.operands.empty()) {
                expect(':');
                do
                    o.operand_types.push_back(parse_type());
                while (accept(','));
            }
            o.result_types = o.operand_types;
            if (accept_kw("attributes")) {
                for (auto& kv : parse_attr_dict())
                    merge_attr(o, std::move(kv));
            }
            expect_kw("cond");
            o.regions.push_back(parse_region(&iter, &o.operand_types, &ilocs));
            expect_kw("do");
            o.regions.push_back(parse_region(&iter, &o.operand_types, &ilocs));
            check_counts(o);
            return;
        }
        if (n == "stablehlo.reduce") {
            parse_pretty_reduce(o);
            return;
        }
        if (n == "func.return" || n == "stablehlo.return" || n == "check.expect_eq" || n == "check.expect_almost_eq" ||
            n == "check.expect_serialized_eq") {
            operands_until_colon(o);
            // check.* ops: `, tolerance = ...` or `, probe_id = ...` style extras
            while (accept(',')) {
                skip_ws();
                std::string key = parse_bare_ident();
                expect('=');
                o.set(key, parse_check_value());
            }
            opt_attr_dict(o);
            if (accept(':')) {
                do
                    o.operand_types.push_back(parse_type());
                while (accept(','));
            }
            if (n != "func.return" && n != "stablehlo.return" && o.operand_types.size() == 1 && o.operands.size() == 2)
                o.operand_types.push_back(o.operand_types[0]); // check ops print the type of lhs only
            check_counts(o);
            return;
        }
        if (n == "check.expect_eq_const" || n == "check.expect_almost_eq_const" || n == "check.expect_close") {
            o.operands.push_back(parse_value_ref());
            expect(',');
            if (n == "check.expect_close") {
                o.operands.push_back(parse_value_ref());
                while (accept(',')) {
                    skip_ws();
                    std::string key = parse_bare_ident();
                    expect('=');
                    skip_ws();
                    o.set(key, int_attr(parse_int(), here(), "ui64")); // `3 : tensor<...>` is not a typed int
                }
                opt_attr_dict(o);
                expect(':');
                o.operand_types.push_back(parse_type());
                expect(',');
                o.operand_types.push_back(parse_type());
                check_counts(o);
                return;
            }
            attr v = parse_attr();
            if (v.k != attr::kind::dense) fail_at(v.at, "expected a dense<...> constant");
            o.operand_types.push_back(v.t);
            o.set("value", std::move(v));
            while (accept(',')) {
                skip_ws();
                std::string key = parse_bare_ident();
                expect('=');
                o.set(key, parse_check_value());
            }
            opt_attr_dict(o);
            check_counts(o);
            return;
        }
        if (n == "func.call") {
            skip_ws();
            o.callee = parse_symbol();
            expect('(');
            if (!accept(')')) {
                do
                    o.operands.push_back(parse_value_ref());
                while (accept(','));
                expect(')');
            }
            opt_attr_dict(o);
            functional(o);
            return;
        }
        if (n.rfind("chlo.", 0) == 0) {
            parse_pretty_chlo(o);
            return;
        }
        if (parse_pretty_shape_computation(o)) return;
        // Ops whose pretty form is `operands attr-dict : functional-type` (reshape, bitcast_convert,
        // dynamic_update_slice, ...) and any op of another dialect printed that way.
        operands_until_colon(o);
        opt_attr_dict(o);
        skip_ws();
        if (peek() != ':') fail_at(at, "unknown syntax for '" + n + "' (print the module in generic form)");
        functional(o);
    }

    // A check op's option value: a number may carry its own `: f64`, but the `: tensor<...>` after it
    // is the op's type (`tolerance = 0.1 : tensor<f64>`).
    attr parse_check_value() {
        skip_ws();
        if (!at_number()) return parse_attr();
        attr a;
        a.at = here();
        classify_number(a, parse_number_text());
        std::size_t save = pos_;
        if (accept(':')) {
            skip_ws();
            if (starts_with("tensor<") || starts_with("tuple<") || peek() == '(')
                pos_ = save;
            else
                a.t = parse_type();
        }
        if (a.k == attr::kind::integer && a.t.k == type::kind::scalar && is_float_elem(a.t.elem))
            a.k = attr::kind::floating;
        return a;
    }

    void parse_generic_after_operands(op& o) {
        skip_ws();
        if (starts_with("<{")) {
            ++pos_;
            o.attrs = parse_attr_dict();
            expect('>');
        }
        opt_attr_dict(o);
        functional(o);
    }

    int depth_of(std::size_t b, std::size_t e) const {
        int d = 0;
        for (std::size_t i = b; i < e; ++i) {
            char c = s_[i];
            if (c == '[' || c == '(' || c == '{') ++d;
            if (c == ']' || c == ')' || c == '}') --d;
        }
        return d;
    }

    void parse_pretty_reduce(op& o) {
        // (%x init: %i), (%y init: %j) [applies stablehlo.add] across dimensions = [..] {attrs} : type
        // [reducer(%a: T, %c: T) (%b: T, %d: T) { ... }]
        std::vector<value_ref> ins, inits;
        do {
            expect('(');
            ins.push_back(parse_value_ref());
            expect_kw("init");
            expect(':');
            inits.push_back(parse_value_ref());
            expect(')');
        } while (accept(','));
        o.operands = ins;
        o.operands.insert(o.operands.end(), inits.begin(), inits.end());
        std::string applies;
        loc applies_at{};
        if (accept_kw("applies")) {
            skip_ws();
            applies_at = here();
            applies = peek() == '"' ? parse_string_lit() : parse_bare_ident();
        }
        expect_kw("across");
        keyed_list(o, "dimensions", "dimensions");
        opt_attr_dict(o);
        functional(o);
        std::size_t n = ins.size();
        if (!applies.empty()) {
            region r;
            r.blocks.emplace_back();
            block& b = r.blocks.back();
            for (std::size_t k = 0; k < 2 * n; ++k) {
                type t = o.operand_types[n + k % n];
                b.arg_names.push_back("__r" + std::to_string(k));
                b.arg_types.push_back(t);
                b.arg_locs.push_back(applies_at);
            }
            auto inner = std::make_unique<op>();
            inner->name = applies;
            inner->at = applies_at;
            for (std::size_t k = 0; k < 2 * n; ++k) {
                inner->operands.push_back({b.arg_names[k], applies_at});
                inner->operand_types.push_back(b.arg_types[k]);
            }
            for (std::size_t k = 0; k < n; ++k) {
                inner->results.push_back("__rr" + std::to_string(k));
                inner->result_types.push_back(o.operand_types[n + k]);
            }
            auto ret = std::make_unique<op>();
            ret->name = "stablehlo.return";
            ret->at = applies_at;
            for (std::size_t k = 0; k < n; ++k) {
                ret->operands.push_back({inner->results[k], applies_at});
                ret->operand_types.push_back(inner->result_types[k]);
            }
            b.ops.push_back(std::move(inner));
            b.ops.push_back(std::move(ret));
            o.regions.push_back(std::move(r));
            return;
        }
        expect_kw("reducer");
        // (%acc_k: T, %elt_k: T) pairs: block args are all accumulators first, then elements.
        std::vector<std::string> names(2 * n);
        std::vector<type> types(2 * n);
        std::vector<loc> locs(2 * n);
        for (std::size_t k = 0; k < n; ++k) {
            expect('(');
            for (std::size_t j = 0; j < 2; ++j) {
                if (j) expect(',');
                skip_ws();
                locs[k + j * n] = here();
                names[k + j * n] = parse_value_ref().name;
                expect(':');
                types[k + j * n] = parse_type();
                skip_loc_suffix();
            }
            expect(')');
        }
        o.regions.push_back(parse_region(&names, &types, &locs));
    }

    // The pretty forms of the arith, shape and tensor ops of shape computations (what
    // --shape-legalize-to-stablehlo rewrites) and of builtin.unrealized_conversion_cast; false if
    // `o` is none of them.
    bool parse_pretty_shape_computation(op& o) {
        const std::string& n = o.name;
        auto scalar = [](const std::string& elem) {
            type t;
            t.k = type::kind::scalar;
            t.elem = elem;
            return t;
        };
        auto comma_types = [&](std::vector<type>& out) {
            do
                out.push_back(parse_type());
            while (accept(','));
        };
        static const std::set<std::string> arith_binary = {
            "arith.addi",       "arith.subi",  "arith.muli",  "arith.divsi", "arith.divui", "arith.ceildivsi",
            "arith.floordivsi", "arith.remsi", "arith.remui", "arith.andi",  "arith.ori",   "arith.xori",
            "arith.maxsi",      "arith.minsi", "arith.maxui", "arith.minui", "arith.shli",  "arith.shrsi",
            "arith.shrui",      "arith.addf",  "arith.subf",  "arith.mulf",  "arith.divf",  "arith.remf"};
        static const std::set<std::string> casts = {"arith.index_cast", "arith.index_castui",
                                                    "arith.extsi",      "arith.extui",
                                                    "arith.trunci",     "arith.sitofp",
                                                    "arith.uitofp",     "arith.fptosi",
                                                    "arith.fptoui",     "arith.extf",
                                                    "arith.truncf",     "arith.bitcast",
                                                    "tensor.cast",      "builtin.unrealized_conversion_cast"};
        if (n == "arith.constant") { // attr-dict value (`0 : index`, `dense<0> : tensor<i32>`, `true`)
            opt_attr_dict(o);
            attr v = parse_attr();
            if (v.k == attr::kind::boolean && v.t.k == type::kind::none) v.t = scalar("i1");
            if (v.t.k == type::kind::none || v.k == attr::kind::type_attr)
                fail_at(v.at, "expected a typed constant (`0 : index`, `dense<1> : tensor<2xi32>`)");
            o.result_types.push_back(v.t);
            o.set("value", std::move(v));
            check_counts(o);
            return true;
        }
        if (arith_binary.count(n)) { // %a, %b attr-dict : T
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            type t = parse_type();
            o.operand_types.assign(o.operands.size(), t);
            o.result_types.assign(o.results.size(), t);
            check_counts(o);
            return true;
        }
        if (casts.count(n)) { // %a, ... attr-dict : T, ... to R, ...
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            skip_ws();
            if (!starts_kw("to")) comma_types(o.operand_types);
            expect_kw("to");
            comma_types(o.result_types);
            check_counts(o);
            return true;
        }
        if (n == "shape.broadcast" || n == "shape.cstr_broadcastable" || n == "shape.cstr_eq") {
            // %a, %b attr-dict : T, T [-> R] (a witness for the constraints)
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            comma_types(o.operand_types);
            if (n == "shape.broadcast") {
                expect("->");
                o.result_types.push_back(parse_type());
            } else {
                type w;
                w.k = type::kind::other;
                w.text = "!shape.witness";
                o.result_types.push_back(w);
            }
            check_counts(o);
            return true;
        }
        if (n == "shape.const_shape") { // attr-dict [6, 4] : tensor<2xindex>
            opt_attr_dict(o);
            skip_ws();
            attr s;
            s.k = attr::kind::dense;
            s.at = here();
            for (auto x : int_list_brackets())
                s.elems.push_back(std::to_string(x));
            s.t = scalar("index");
            s.t.k = type::kind::tensor;
            s.t.dims = {static_cast<std::int64_t>(s.elems.size())};
            o.set("shape", std::move(s));
            expect(':');
            o.result_types.push_back(parse_type());
            check_counts(o);
            return true;
        }
        if (n == "tensor.dim" || n == "tensor.extract" || n == "tensor.from_elements") {
            // tensor.dim %t, %i : T          tensor.extract %t[%i, %j] : T
            // tensor.from_elements %a, %b : T (the elements are of T's element type)
            operands_until_colon(o);
            if (n == "tensor.extract") {
                if (o.operands.size() != 1) fail_at(o.at, "tensor.extract: expected `%tensor[%i, ...]`");
                expect('[');
                if (!accept(']')) {
                    do
                        o.operands.push_back(parse_value_ref());
                    while (accept(','));
                    expect(']');
                }
            }
            opt_attr_dict(o);
            expect(':');
            type t = parse_type();
            if (n == "tensor.from_elements") {
                if (t.k != type::kind::tensor) fail_at(o.at, "tensor.from_elements: expected a tensor type");
                o.operand_types.assign(o.operands.size(), scalar(t.elem));
                o.result_types.push_back(t);
            } else {
                if (t.k != type::kind::tensor) fail_at(o.at, n + ": expected a tensor type");
                o.operand_types.assign(o.operands.size(), scalar("index"));
                if (!o.operand_types.empty()) o.operand_types[0] = t;
                o.result_types.push_back(n == "tensor.dim" ? scalar("index") : scalar(t.elem));
            }
            check_counts(o);
            return true;
        }
        return false;
    }

    void parse_pretty_chlo(op& o) {
        const std::string& n = o.name;
        if (n == "chlo.top_k") {
            expect('(');
            o.operands.push_back(parse_value_ref());
            expect(',');
            expect_kw("k");
            expect('=');
            o.set("k", int_attr(parse_int(), here()));
            if (accept(',')) {
                expect_kw("is_stable");
                expect('=');
                o.set("is_stable", parse_attr());
            }
            expect(')');
            opt_attr_dict(o);
            expect(':');
            o.operand_types.push_back(parse_type());
            expect("->");
            parse_result_types(o.result_types);
            check_counts(o);
            return;
        }
        if (n == "chlo.scan") {
            // `(inputs) inits (inits) dimension=D attributes {..}? region : functional-type`; the
            // segment sizes are what the generic form spells (and the emitters read)
            auto values = [&] {
                std::vector<value_ref> v;
                expect('(');
                if (!accept(')')) {
                    do
                        v.push_back(parse_value_ref());
                    while (accept(','));
                    expect(')');
                }
                return v;
            };
            o.operands = values();
            std::size_t m = o.operands.size();
            expect_kw("inits");
            for (auto& v : values())
                o.operands.push_back(v);
            std::size_t k = o.operands.size() - m;
            expect_kw("dimension");
            expect('=');
            skip_ws();
            o.set("dimension", int_attr(parse_int(), here()));
            if (accept_kw("attributes"))
                for (auto& kv : parse_attr_dict())
                    merge_attr(o, std::move(kv));
            o.regions.push_back(parse_region());
            functional(o);
            if (o.result_types.size() < k) fail_at(o.at, "chlo.scan: fewer results than inits");
            auto segments = [&](std::size_t a, std::size_t b) {
                attr s;
                s.k = attr::kind::dense_array;
                s.t.k = type::kind::scalar;
                s.t.elem = "i32";
                for (std::size_t x : {a, b}) {
                    attr e;
                    e.k = attr::kind::integer;
                    e.i = static_cast<std::int64_t>(x);
                    e.s = std::to_string(x);
                    s.list.push_back(e);
                }
                return s;
            };
            o.set("operandSegmentSizes", segments(m, k));
            o.set("resultSegmentSizes", segments(o.result_types.size() - k, k));
            return;
        }
        if (n == "chlo.broadcast_compare" || n.rfind("chlo.broadcast_", 0) == 0 || n == "chlo.next_after" ||
            n == "chlo.polygamma" || n == "chlo.zeta" || n == "chlo.mulhi") {
            operands_until_colon(o);
            opt_attr_dict(o);
            expect(':');
            skip_ws();
            if (peek() == '(') {
                parse_functional_type(o.operand_types, o.result_types);
            } else { // `T, T -> T`
                do
                    o.operand_types.push_back(parse_type());
                while (accept(','));
                expect("->");
                parse_result_types(o.result_types);
            }
            check_counts(o);
            return;
        }
        // unary chlo ops: `%x : T -> T`; others printed `operands attr-dict : functional-type`
        operands_until_colon(o);
        opt_attr_dict(o);
        same_type(o);
    }
};

} // namespace

namespace {
template<class T, class F>
bool parse_one(std::string_view text, T& out, std::string& why, parse_limits limits, F&& f) {
    parser p(text, limits);
    try {
        out = f(p);
        return true;
    } catch (const parse_error& e) {
        why = e.text + " (column " + std::to_string(e.at.col) + ")";
    } catch (const std::bad_alloc&) {
        why = "out of memory";
    } catch (const std::length_error&) {
        why = "input too large";
    }
    return false;
}
} // namespace

bool parse_attribute(std::string_view text, attr& out, std::string& why, parse_limits limits) {
    return parse_one(text, out, why, limits, [](parser& p) { return p.whole_attr(); });
}
bool parse_type(std::string_view text, type& out, std::string& why, parse_limits limits) {
    return parse_one(text, out, why, limits, [](parser& p) { return p.whole_type(); });
}

namespace {
// MLIR's SSA scoping: a value is defined once in its function and visible in the regions nested
// below it; sibling regions may reuse names. (The emitter's C++ names would otherwise shadow.)
struct ssa_scopes {
    std::vector<std::set<std::string>> open;
    bool defined(const std::string& n) const {
        for (const auto& s : open)
            if (s.count(n)) return true;
        return false;
    }
    void define(const std::string& full, loc at) {
        const std::string n = full.substr(0, full.find('#'));
        if (open.back().count(n)) return; // the other results of one op (%0#1 after %0#0)
        if (defined(n)) throw parse_error{at, "redefinition of SSA value %" + n};
        open.back().insert(n);
    }
    void region(const xlt::region& r) {
        for (const block& b : r.blocks) {
            open.emplace_back();
            for (std::size_t k = 0; k < b.arg_names.size(); ++k)
                define(b.arg_names[k], k < b.arg_locs.size() ? b.arg_locs[k] : loc{});
            for (const auto& o : b.ops) {
                std::set<std::string> mine; // an op's own results are one definition
                for (const auto& res : o->results) {
                    const std::string n = res.substr(0, res.find('#'));
                    if (mine.insert(n).second && defined(n))
                        throw parse_error{o->at, "redefinition of SSA value %" + n};
                }
                for (const auto& g : o->regions)
                    region(g);
                for (const auto& n : mine)
                    open.back().insert(n);
            }
            open.pop_back();
        }
    }
};
} // namespace

parse_result parse_module(std::string_view text, const std::string& file, parse_limits limits) {
    parse_result r;
    r.mod.file = file;
    parser p(text, limits);
    try {
        module m = p.parse_top();
        for (const func& f : m.funcs) {
            ssa_scopes s; // (the arguments are the body's block arguments)
            s.open.emplace_back();
            s.region(f.body);
        }
        m.file = file;
        r.mod = std::move(m);
    } catch (const parse_error& e) {
        r.errors.push_back({e.at, e.text});
    } catch (const std::bad_alloc&) {
        r.errors.push_back({p.here(), "out of memory"});
    } catch (const std::length_error&) {
        r.errors.push_back({p.here(), "input too large"});
    }
    return r;
}

} // namespace xlt
