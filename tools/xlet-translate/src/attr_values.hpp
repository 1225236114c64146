// Values of attributes: the bytes of dense constants in their element type, integer lists of
// every spelling (array<i64: ...>, [..], dense<..>), enum words (#stablehlo<... LT>). Shared by
// the emitters and the passes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir.hpp"

namespace xlt {

// One literal (a number's text, true/false, "(re,im)") as the bytes of `elem`, little-endian.
bool literal_bytes(const std::string& elem, const std::string& text, std::vector<std::uint8_t>& out, std::string& why);
std::uint64_t load_le(const std::uint8_t* p, int bytes);
std::int64_t num_elements(const type& t); // product of the dims (negative when a dim is dynamic)
// One element's bytes when the attribute is a splat; false otherwise (why set on a bad literal).
bool dense_splat(const attr& a, const type& t, std::vector<std::uint8_t>& out, std::string& why);
// Every element's bytes (a splat repeated); at most 2^26 elements.
bool dense_bytes(const attr& a, const type& t, std::vector<std::uint8_t>& out, std::string& why);
// The integers of a list attribute, or of a small integer dense constant; empty if none.
std::vector<std::int64_t> int_list(const attr* a);
// An integer of an attribute tree (attr, or the VHLO passes' own node): `5 : i64`; ty "":
// untyped, as `5` in a dimension list.
template<class N>
N int_node(std::int64_t v, const std::string& ty) {
    N a;
    a.k = N::kind::integer;
    a.i = v;
    a.s = std::to_string(v);
    if (!ty.empty()) {
        a.t.k = type::kind::scalar;
        a.t.elem = ty;
    }
    return a;
}
inline attr int_attr(std::int64_t v, const std::string& ty = "i64") { return int_node<attr>(v, ty); }
// [1, 2]: a list of untyped integers (the fields of dimension numbers and aliases).
attr int_list_attr(const std::vector<std::int64_t>& v);
// An array<i64: ...> attribute of these integers (what the generic form calls a dimension list).
attr i64_array(const std::vector<std::int64_t>& v, loc at = {});
// A float (of f32, or f64) as MLIR's printer writes it in a dense constant or a VHLO float:
// "1.000000e+00" when six digits read back to the same value, else the shortest of up to 9 / 17
// significant digits, "0.333333343", "-2.14748365E+9"; a hex literal when neither has a '.'.
std::string mlir_float_literal(double v, bool f64);
// A convolution's dimension numbers (#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, or
// its fields): batch, feature and spatial dimensions of input, kernel and output.
struct conv_dims {
    std::int64_t ib = 0, if_ = 0, kif = 0, kof = 0, ob = 0, of = 0;
    std::vector<std::int64_t> is, ks, os;
};
bool read_conv_dims(const attr& a, conv_dims& d, std::string& why);
// The last word of an enum attribute: #stablehlo<comparison_direction LT> -> "LT".
std::string enum_word(const attr* a);

} // namespace xlt
