// xlet-translate's own small IR of a StableHLO module: what MLIR's generic form says of an op
// (name, operands, results, attributes, regions, types), with the source position of everything.
// The parser turns both the pretty and the generic syntax into this; passes and emitters read it.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace xlt {

struct loc {
    std::uint32_t line = 0, col = 0;
};

// A diagnostic: "file:line:col: error: text".
struct diagnostic {
    loc at;
    std::string text;
};

// A type: a ranked tensor (dims; -1 is `?`), a tuple, a token, or an element type alone
// (`f32` in `1.0 : f32`). Element types keep MLIR's spelling: i1 i8 ui8 f32 bf16 complex<f32> ...
// but a quantized element type, which is kept exact: see quant_type below.
struct type {
    enum class kind { none, tensor, tuple, token, scalar, other } k = kind::none;
    std::vector<std::int64_t> dims;
    std::string elem;                 // tensor / scalar element type
    std::vector<std::int64_t> bounds; // #stablehlo.bounds<...> of a tensor (-1 = none), empty if absent
    std::string encoding;             // any other tensor encoding, as written
    std::vector<type> elems;          // tuple
    std::string text;                 // other: the spelling (!foo.bar<...>)
    bool is_static() const;
    bool operator==(const type&) const = default;
};
type tensor_type(std::vector<std::int64_t> dims, const std::string& elem); // tensor<dims x elem>

// An attribute, kept structured where the emitters need it and as text where they do not.
struct attr {
    enum class kind {
        none,
        unit,
        boolean,
        integer,
        floating,
        string,
        symbol,
        array,
        dict,
        dense,
        dense_array,
        type_attr,
        dialect,
        ident
    } k = kind::none;
    bool b = false;
    std::int64_t i = 0;
    std::string s;          // string contents, symbol name, number text, dialect name (#stablehlo.gather), ident
    type t;                 // `: type` of a number or a dense attr; element type of dense_array; type_attr
    std::vector<attr> list; // array, dense_array, dialect positional
    // dict entries and dialect `key = value` parameters, each named by its `name` (a vector of
    // pairs would need attr complete here: libc++ and Clang reject std::pair of an incomplete type)
    std::vector<attr> fields;
    std::string name;
    std::string raw; // dialect: the text between <>, as written
    // dense: literals flattened in row-major order (each a number text, true/false, or "(re,im)");
    // a hex blob is decoded to bytes instead.
    std::vector<std::string> elems;
    std::vector<std::uint8_t> hex;
    bool is_hex = false;
    loc at;

    const attr* field(const std::string& key) const;
};

// A uniform quantized element type, MLIR's !quant.uniform<i8<-127:127>:f32:1, {0.5:-3, 0.25}>:
// integers of a storage type in [storage_min, storage_max] standing for (i - zero_point) * scale
// of the expressed type, per tensor (axis -1, one scale) or per slice of dimension `axis`.
// In type::elem it is spelled as MLIR spells it but with each scale in the shortest decimal that
// reads back to the same double ("0.1", where MLIR prints 1.000000e-01), so that the passes see
// the exact scale; elem_str gives MLIR's spelling, which the printer writes.
struct quant_type {
    bool is_signed = true;
    int bits = 8;
    std::int64_t storage_min = -128, storage_max = 127;
    std::string expressed = "f32";
    std::int64_t axis = -1;
    std::vector<double> scales;
    std::vector<std::int64_t> zero_points;
    bool operator==(const quant_type&) const = default;
    bool per_axis() const { return axis >= 0; }
    // Its integer element type: i8, or ui8 for unsigned storage (MLIR keeps u8 in a signless i8; xlet
    // keeps the unsigned values unsigned).
    std::string storage() const;
    // The spec's constraints of the type alone (C3, C5-C7, C9-C11); "" when it satisfies them.
    std::string check() const;
};
bool is_quant_elem(const std::string& e);
std::optional<quant_type> quant_of(const std::string& elem); // nullopt if e is not a quantized element type
std::string quant_elem(const quant_type& q);                 // the exact spelling kept in type::elem
// Of a tensor of this quantized element type: C12, C13 of the spec; "" when they hold.
std::string quant_check_tensor(const quant_type& q, const std::vector<std::int64_t>& dims);
// An element type as MLIR prints it (a quantized one with each scale as printf's %e).
std::string elem_str(const std::string& e);

struct op;

struct block {
    std::vector<std::string> arg_names;
    std::vector<type> arg_types;
    std::vector<loc> arg_locs;
    std::vector<std::unique_ptr<op>> ops;
};

struct region {
    std::vector<block> blocks;
};

// A value reference: the op result or block argument named %name (with #k for a result group).
struct value_ref {
    std::string name;
    loc at;
};

struct op {
    std::string name;                 // stablehlo.add, func.return, chlo.erf, check.expect_eq ...
    std::vector<std::string> results; // one name per result (%0:2 becomes %0#0, %0#1)
    std::vector<value_ref> operands;
    std::vector<type> operand_types, result_types;
    std::vector<std::pair<std::string, attr>> attrs; // properties and attributes together
    std::vector<region> regions;
    std::string callee; // func.call @callee, custom_call target when pretty
    loc at;
    // What --stablehlo-legalize-to-vhlo did that VHLO cannot say, for --vhlo-legalize-to-stablehlo
    // to undo in the same run, so that the round trip gives the module back as written:
    // the attributes it added with their default values (VHLO spells every attribute of an op; an
    // empty optional: not known, as for a VHLO module read from text, and then every attribute
    // equal to its default is dropped, as stablehlo-opt does), and the attributes as written whose
    // VHLO form reads back otherwise (array<i64: 1> comes back as dense<1> : tensor<1xi64>, an
    // untyped 5 as 5 : i64), used while their VHLO form is unchanged.
    std::optional<std::vector<std::string>> vhlo_defaults;
    std::vector<std::pair<std::string, attr>> vhlo_written;

    const attr* get(const std::string& key) const;
    attr* get(const std::string& key);
    void set(const std::string& key, attr a);
};

struct func_arg {
    std::string name;
    type t;
    std::vector<std::pair<std::string, attr>> attrs;
    loc at;
};

struct func {
    std::string name;
    std::string visibility; // "", "public", "private"
    std::vector<func_arg> args;
    std::vector<type> results;
    std::vector<std::vector<std::pair<std::string, attr>>> result_attrs;
    std::vector<std::pair<std::string, attr>> attrs;
    region body;
    loc at;
    bool is_public() const { return visibility != "private"; }
};

struct module {
    std::string name; // module @name, may be empty
    std::vector<std::pair<std::string, attr>> attrs;
    std::vector<func> funcs;
    // Ops at module level other than func.func, in MLIR's generic form: the vhlo.func_v1 of a VHLO
    // module (--stablehlo-legalize-to-vhlo). Printed after the functions.
    std::vector<std::unique_ptr<op>> ops;
    std::string file; // for diagnostics
    const func* find(const std::string& name) const;
};

// Deep copies (ops own their regions).
std::unique_ptr<op> clone(const op& o);
region clone(const region& r);
module clone(const module& m);

// StableHLO's element-wise ops of one and two operands (abs ... tanh, add ... xor): the parser
// reads their pretty form, the shape refinement gives their result the operands' shape.
const std::set<std::string>& elementwise_ops();

// Element type facts shared by the emitters.
bool is_float_elem(const std::string& e);
bool is_complex_elem(const std::string& e);
bool is_unsigned_elem(const std::string& e);
bool is_integer_elem(const std::string& e); // signless or unsigned, not i1
int elem_bits(const std::string& e);        // 0 if unknown
std::string type_str(const type& t);        // MLIR spelling: tensor<2x3xf32>
// MLIR spelling (generic form). legacy: integer lists as dense<[..]> : tensor<Nxi64> instead of
// array<i64: ..> (MLIR before 16, e.g. Debian's mlir-opt-15, has no array<> attribute).
std::string attr_str(const attr& a, bool legacy = false);

} // namespace xlt
