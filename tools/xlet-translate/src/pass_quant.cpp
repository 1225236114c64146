// The quantization passes, as StableHLO's StablehloLegalizeQuantToMath.cpp,
// StablehloLegalizeQDQToQuantizedOp.cpp and StablehloLegalizeQuantizedOpToQDQ.cpp write them: the
// same ops in the same order, their constants as MLIR prints them (mlir_float_literal).
//
// A quantized value's integers are its storage type's (i8, ui8 ...): uniform_quantize computes
// clamp(x / scale + zero_point, storage_min, storage_max) rounded to nearest even in f32 and
// converts it; uniform_dequantize (convert(q, i32) - zero_point) * scale; requantization (a
// quantized uniform_quantize, and the operands of add) q * (in_scale / out_scale) + (out_zp -
// in_zp * in_scale / out_scale), clamped and rounded the same way; the scales and zero points of a
// per-axis type are vectors broadcast along its dimension (chlo.broadcast_* with
// broadcast_dimensions). Two departures from upstream, both where upstream would write an invalid
// program: unsigned storage stays unsigned (ui8, where MLIR's u8 is a signless i8), and a
// quantized type expressed in bf16 / f16 is quantized and dequantized through f32 (a convert on
// each side; upstream accepts only f32). And one by design: dot_general, dot and convolution
// requantize their exact i32 sums as xlet's quantized dot does (dot_quantized below: the spec's
// rounding and saturation), where upstream truncates unclamped; a module gives the library's bits.
#include "pass_quant.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "attr_values.hpp"

namespace xlt {

namespace {

struct val {
    std::string name;
    type t;
};

type retyped(type t, const std::string& elem) {
    t.elem = elem;
    return t;
}
std::optional<quant_type> quant_of_type(const type& t) {
    if (t.k != type::kind::tensor) return std::nullopt;
    return quant_of(t.elem);
}
bool op_has_quant(const op& o) {
    for (auto& t : o.operand_types)
        if (has_quant_type(t)) return true;
    for (auto& t : o.result_types)
        if (has_quant_type(t)) return true;
    return false;
}
int int_bits(const std::string& e) { // i8 -> 8, ui16 -> 16
    std::size_t p = e.rfind("ui", 0) == 0 ? 2 : 1;
    return std::atoi(e.c_str() + std::min(p, e.size()));
}

class builder {
public:
    builder(const fresh_name& fresh, std::vector<std::unique_ptr<op>>& seq, loc at)
        : fresh_(fresh), seq_(seq), at_(at) {}

    val emit(const std::string& name, const std::vector<val>& args, const type& rt) {
        auto o = std::make_unique<op>();
        o->name = name;
        for (auto& a : args) {
            o->operands.push_back({a.name, at_});
            o->operand_types.push_back(a.t);
        }
        o->results = {fresh_("q")};
        o->result_types = {rt};
        o->at = at_;
        seq_.push_back(std::move(o));
        return {seq_.back()->results[0], rt};
    }
    op& last() { return *seq_.back(); }

    // A constant of type t from the literals of its elements (one: a splat).
    val constant(std::vector<std::string> elems, const type& t) {
        auto o = std::make_unique<op>();
        o->name = "stablehlo.constant";
        o->results = {fresh_(is_float_elem(t.elem) ? "cst" : "c")};
        o->result_types = {t};
        o->at = at_;
        attr a;
        a.k = attr::kind::dense;
        a.t = t;
        a.elems = std::move(elems);
        o->set("value", a);
        seq_.push_back(std::move(o));
        return {seq_.back()->results[0], t};
    }
    // f32 constants (each value rounded to f32): a scalar, or a vector of these values.
    val f32s(const std::vector<double>& v, bool scalar) {
        std::vector<std::string> e;
        for (double x : v)
            e.push_back(mlir_float_literal(static_cast<float>(x), false));
        return constant(e, scalar ? tensor_type({}, "f32") : tensor_type({static_cast<std::int64_t>(v.size())}, "f32"));
    }
    val f32(double v) { return f32s({v}, true); }
    // integer constants of `elem` (each value wrapped to its width, as upstream's static_cast)
    val ints(const std::vector<std::int64_t>& v, bool scalar, const std::string& elem = "i32") {
        std::vector<std::string> e;
        for (std::int64_t x : v)
            e.push_back(std::to_string(elem == "i32" ? static_cast<std::int32_t>(static_cast<std::uint32_t>(x)) : x));
        return constant(e, scalar ? tensor_type({}, elem) : tensor_type({static_cast<std::int64_t>(v.size())}, elem));
    }
    val i32(std::int64_t v) { return ints({v}, true); }

    val convert(const val& x, const std::string& elem) { return emit("stablehlo.convert", {x}, retyped(x.t, elem)); }
    // chlo.broadcast_<n>(a, b) of type rt, along `axis` of a when b is a per-axis vector
    val bcast(const char* n, const val& a, const val& b, const type& rt, std::optional<std::int64_t> axis = {}) {
        val r = emit(std::string("chlo.broadcast_") + n, {a, b}, rt);
        if (axis) last().set("broadcast_dimensions", i64_array({*axis}));
        return r;
    }
    val clamp(const val& lo, const val& x, const val& hi) { return emit("stablehlo.clamp", {lo, x, hi}, x.t); }
    val round(const val& x) { return emit("stablehlo.round_nearest_even", {x}, x.t); }

    const fresh_name& fresh() const { return fresh_; }
    loc at() const { return at_; }

private:
    const fresh_name& fresh_;
    std::vector<std::unique_ptr<op>>& seq_;
    loc at_;
};

// ---- the arithmetic of quantized values (upstream's helpers of the same names) ------------------

// The scales and zero points of q as constants (the zero points f32 or i32), and the axis they
// broadcast along (none per tensor).
struct qparams {
    val scales, zero_points;
    std::optional<std::int64_t> axis;
};
qparams quantization_params(builder& b, const quant_type& q, bool zero_point_in_fp) {
    qparams p;
    bool scalar = !q.per_axis();
    p.scales = b.f32s(q.scales, scalar);
    if (zero_point_in_fp)
        p.zero_points = b.f32s(std::vector<double>(q.zero_points.begin(), q.zero_points.end()), scalar);
    else
        p.zero_points = b.ints(q.zero_points, scalar);
    if (q.per_axis()) p.axis = q.axis;
    return p;
}

// x * merged_scale + merged_zp, the f32 part of requantizing from `in` to `out`.
val apply_merged_scales_and_zps(builder& b, const quant_type& in, const quant_type& out, val x) {
    if (!in.per_axis() && !out.per_axis()) {
        double scale = in.scales[0] / out.scales[0];
        x = b.bcast("multiply", x, b.f32(scale), x.t);
        double zp = static_cast<double>(out.zero_points[0]) - static_cast<double>(in.zero_points[0]) * scale;
        if (zp != 0) x = b.bcast("add", x, b.f32(zp), x.t);
        return x;
    }
    const quant_type& axis_side = out.per_axis() ? out : in;
    std::size_t n = axis_side.scales.size();
    std::vector<double> scales(n), zps(n);
    for (std::size_t i = 0; i < n; ++i) {
        double is = in.scales[in.per_axis() ? i : 0], os = out.scales[out.per_axis() ? i : 0];
        auto izp = in.zero_points[in.per_axis() ? i : 0], ozp = out.zero_points[out.per_axis() ? i : 0];
        scales[i] = is / os;
        zps[i] = static_cast<double>(ozp) - static_cast<double>(izp) * scales[i];
    }
    x = b.bcast("multiply", x, b.f32s(scales, false), x.t, axis_side.axis);
    if (std::any_of(zps.begin(), zps.end(), [](double z) { return static_cast<float>(z) != 0; }))
        x = b.bcast("add", x, b.f32s(zps, false), x.t, axis_side.axis);
    return x;
}

// x (of in's storage type) requantized to `out`, as integers of out_t's element type (out's
// storage type, or i32 for add); clamped to out's storage range below 32 bits.
val requantize(builder& b, const val& x, const quant_type& in, const quant_type& out, const type& out_t) {
    if (in == out) return b.emit("stablehlo.convert", {x}, out_t);
    type ft = retyped(out_t, "f32");
    val f = b.emit("stablehlo.convert", {x}, ft);
    f = apply_merged_scales_and_zps(b, in, out, f);
    if (int_bits(out_t.elem) < 32) {
        val lo = b.f32(static_cast<double>(out.storage_min)), hi = b.f32(static_cast<double>(out.storage_max));
        f = b.clamp(lo, f, hi);
    }
    f = b.round(f);
    return b.emit("stablehlo.convert", {f}, out_t);
}

// uniform_quantize of a float x: clamp(x / scale + zero_point) rounded, converted to the storage type.
val quantize(builder& b, val x, const quant_type& q) {
    if (x.t.elem != "f32") x = b.convert(x, "f32"); // bf16 / f16 (upstream: f32 only)
    qparams p = quantization_params(b, q, true);
    val lo = b.f32(static_cast<double>(q.storage_min)), hi = b.f32(static_cast<double>(q.storage_max));
    val f = b.bcast("divide", x, p.scales, x.t, p.axis);
    f = b.bcast("add", f, p.zero_points, x.t, p.axis);
    f = b.clamp(lo, f, hi);
    f = b.round(f);
    return b.convert(f, q.storage());
}

// uniform_dequantize of x (q's storage type) to `elem`: (convert(x, i32) - zero_point) * scale.
val dequantize(builder& b, const val& x, const quant_type& q, const std::string& elem) {
    qparams p = quantization_params(b, q, false);
    val i = b.convert(x, "i32");
    i = b.bcast("subtract", i, p.zero_points, i.t, p.axis);
    val f = b.convert(i, "f32");
    f = b.bcast("multiply", f, p.scales, f.t, p.axis);
    if (elem != "f32") f = b.convert(f, elem); // bf16 / f16 (upstream: f32 only)
    return f;
}

// ---- dot_general / dot: integer dot products and their zero-point offsets ----------------------

struct dot_like_dims {
    std::vector<std::int64_t> lhs_batching, lhs_spatial, lhs_contracting, rhs_batching, rhs_spatial, rhs_contracting;
    std::int64_t channel_axis = -1; // the result dimension of a per-axis rhs's (and result's) quantization dimension
};

bool contains(const std::vector<std::int64_t>& v, std::int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}
std::vector<std::int64_t> concat(std::vector<std::int64_t> a, const std::vector<std::int64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// sum over `reduction` of the tensor (as i32) times the other operand's zero point.
val zero_point_partial_offset(builder& b, const val& tensor, std::int64_t other_zp,
                              const std::vector<std::int64_t>& reduction) {
    std::vector<std::int64_t> out_dims;
    for (std::size_t i = 0; i < tensor.t.dims.size(); ++i)
        if (!contains(reduction, static_cast<std::int64_t>(i))) out_dims.push_back(tensor.t.dims[i]);
    val x = b.convert(tensor, "i32");
    val init = b.ints({0}, true);
    val r = b.emit("stablehlo.reduce", {x, init}, tensor_type(out_dims, "i32"));
    op& red = b.last();
    red.set("dimensions", i64_array(reduction));
    block body;
    type scalar = tensor_type({}, "i32");
    body.arg_names = {b.fresh()("a"), b.fresh()("a")};
    body.arg_types = {scalar, scalar};
    body.arg_locs = {b.at(), b.at()};
    std::vector<std::unique_ptr<op>> inner;
    builder ib(b.fresh(), inner, b.at());
    val sum = ib.emit("stablehlo.add", {{body.arg_names[0], scalar}, {body.arg_names[1], scalar}}, scalar);
    ib.emit("stablehlo.return", {sum}, scalar);
    inner.back()->results.clear();
    inner.back()->result_types.clear();
    body.ops = std::move(inner);
    red.regions.resize(1);
    red.regions[0].blocks.push_back(std::move(body));
    return b.bcast("multiply", r, b.i32(other_zp), r.t);
}

// The extents of `output` (of type t) as a tensor<rank x i64>: constants where static,
// get_dimension_size where dynamic.
val dynamic_output_dims(builder& b, const val& output) {
    std::vector<val> parts;
    for (std::size_t i = 0; i < output.t.dims.size(); ++i) {
        if (output.t.dims[i] >= 0) {
            parts.push_back(b.ints({output.t.dims[i]}, false, "i64"));
            continue;
        }
        val d = b.emit("stablehlo.get_dimension_size", {output}, tensor_type({}, "i32"));
        b.last().set("dimension", int_attr(static_cast<std::int64_t>(i)));
        d = b.convert(d, "i64");
        parts.push_back(b.emit("stablehlo.reshape", {d}, tensor_type({1}, "i64")));
    }
    val c = b.emit("stablehlo.concatenate", parts, tensor_type({static_cast<std::int64_t>(parts.size())}, "i64"));
    b.last().set("dimension", int_attr(0));
    return c;
}

// A zero-point contribution (an operand reduced over `reduction`) broadcast to the result: its
// batching dimensions to the result's first ones, its others from `non_batching_start` on.
val broadcast_zp_contribution(builder& b, const val& zp, const std::vector<std::int64_t>& reduction,
                              const std::vector<std::int64_t>& batching, std::int64_t non_batching_start,
                              const val& output, const type& out_t, std::optional<val>& out_dims) {
    std::vector<std::int64_t> dims(zp.t.dims.size());
    std::int64_t batch = 0, other = non_batching_start, orig = 0;
    for (std::size_t i = 0; i < dims.size(); ++i, ++orig) {
        while (contains(reduction, orig))
            ++orig;
        dims[i] = contains(batching, orig) ? batch++ : other++;
    }
    if (out_t.is_static()) {
        val r = b.emit("stablehlo.broadcast_in_dim", {zp}, out_t);
        b.last().set("broadcast_dimensions", i64_array(dims));
        return r;
    }
    if (!out_dims) out_dims = dynamic_output_dims(b, output);
    val r = b.emit("stablehlo.dynamic_broadcast_in_dim", {zp, *out_dims}, out_t);
    b.last().set("broadcast_dimensions", i64_array(dims));
    return r;
}

// zp_l * rhs + zp_r * lhs - zp_l * zp_r * (product of the contracting extents), each term summed
// over the contracting (and spatial) dimensions and broadcast to the result; none when both zero
// points are 0.
std::optional<val> zero_point_offset(builder& b, const val& lhs, const val& rhs, const val& output, std::int64_t lhs_zp,
                                     std::int64_t rhs_zp, const type& out_t, const dot_like_dims& d) {
    std::optional<val> result, out_dims;
    if (rhs_zp != 0) {
        auto reduction = concat(d.lhs_spatial, d.lhs_contracting);
        val c = zero_point_partial_offset(b, lhs, rhs_zp, reduction);
        result = broadcast_zp_contribution(b, c, reduction, d.lhs_batching,
                                           static_cast<std::int64_t>(d.lhs_batching.size()), output, out_t, out_dims);
    }
    if (lhs_zp != 0) {
        auto reduction = concat(d.rhs_spatial, d.rhs_contracting);
        val c = zero_point_partial_offset(b, rhs, lhs_zp, reduction);
        std::int64_t start = static_cast<std::int64_t>(lhs.t.dims.size() - d.lhs_contracting.size());
        if (!d.lhs_spatial.empty() && !d.rhs_spatial.empty()) start = d.lhs_contracting[0];
        c = broadcast_zp_contribution(b, c, reduction, d.rhs_batching, start, output, out_t, out_dims);
        result = result ? b.emit("stablehlo.add", {*result, c}, out_t) : c;
    }
    if (lhs_zp != 0 && rhs_zp != 0) {
        std::uint32_t total = 1;
        bool dynamic = false;
        val dynamic_total = b.i32(1);
        for (std::int64_t i : concat(d.rhs_spatial, d.rhs_contracting)) {
            std::int64_t e = rhs.t.dims[static_cast<std::size_t>(i)];
            if (e < 0) {
                dynamic = true;
                val s = b.emit("stablehlo.get_dimension_size", {rhs}, tensor_type({}, "i32"));
                b.last().set("dimension", int_attr(i));
                dynamic_total = b.emit("stablehlo.multiply", {dynamic_total, s}, tensor_type({}, "i32"));
            } else {
                total *= static_cast<std::uint32_t>(e);
            }
        }
        val offset = b.i32(
            static_cast<std::int64_t>(static_cast<std::uint32_t>(lhs_zp) * static_cast<std::uint32_t>(rhs_zp) * total));
        if (dynamic) offset = b.emit("stablehlo.multiply", {offset, dynamic_total}, tensor_type({}, "i32"));
        result = b.bcast("subtract", *result, offset, result->t);
    }
    return result;
}

bool read_dot_dims(const op& o, dot_like_dims& d, std::string& why) {
    if (o.name == "stablehlo.dot") {
        d.lhs_contracting = {static_cast<std::int64_t>(o.operand_types[0].dims.size()) - 1};
        d.rhs_contracting = {0};
    } else if (const attr* a = o.get("dot_dimension_numbers")) {
        d.lhs_batching = int_list(a->field("lhs_batching_dimensions"));
        d.rhs_batching = int_list(a->field("rhs_batching_dimensions"));
        d.lhs_contracting = int_list(a->field("lhs_contracting_dimensions"));
        d.rhs_contracting = int_list(a->field("rhs_contracting_dimensions"));
    } else {
        why = o.name + " without dot_dimension_numbers";
        return false;
    }
    for (auto* v : {&d.lhs_batching, &d.lhs_contracting})
        for (auto x : *v)
            if (x < 0 || x >= static_cast<std::int64_t>(o.operand_types[0].dims.size())) {
                why = o.name + ": a dimension number out of range";
                return false;
            }
    for (auto* v : {&d.rhs_batching, &d.rhs_contracting})
        for (auto x : *v)
            if (x < 0 || x >= static_cast<std::int64_t>(o.operand_types[1].dims.size())) {
                why = o.name + ": a dimension number out of range";
                return false;
            }
    auto distinct = [](std::vector<std::int64_t> v) {
        std::sort(v.begin(), v.end());
        return std::adjacent_find(v.begin(), v.end()) == v.end();
    };
    if (d.lhs_contracting.size() != d.rhs_contracting.size() || d.lhs_batching.size() != d.rhs_batching.size() ||
        !distinct(concat(d.lhs_batching, d.lhs_contracting)) || !distinct(concat(d.rhs_batching, d.rhs_contracting))) {
        why = o.name + ": malformed dot_dimension_numbers";
        return false;
    }
    return true;
}

// The dimensions of a quantized convolution as a dot product's, for the layouts upstream handles
// (NHWC, NCHW, NDHWC, NCDHW), with its conditions: the kernel's zero points 0 (the offset sums the
// whole kernel, which a window of a nonzero-point kernel would not), a per-axis kernel and result
// quantized along their output feature dimensions (any scales: the combined scales are a vector),
// no lhs dilation. False: the convolution goes through dequantize / quantize.
bool conv_dot_dims(const op& o, const quant_type& rq, const quant_type& resq, dot_like_dims& d) {
    if (std::any_of(rq.zero_points.begin(), rq.zero_points.end(), [](std::int64_t z) { return z != 0; })) return false;
    for (auto x : int_list(o.get("lhs_dilation")))
        if (x != 1) return false;
    conv_dims c;
    std::string why;
    const attr* a = o.get("dimension_numbers");
    if (!a || !read_conv_dims(*a, c, why)) return false;
    std::size_t rank = c.is.size() + 2;
    if (o.operand_types[0].dims.size() != rank || o.operand_types[1].dims.size() != rank ||
        o.result_types[0].dims.size() != rank)
        return false;
    using v = std::vector<std::int64_t>;
    auto is = [&](std::int64_t ib, std::int64_t if_, v is, std::int64_t kif, std::int64_t kof, v ks) {
        return c.ib == ib && c.if_ == if_ && c.is == is && c.kif == kif && c.kof == kof && c.ks == ks && c.ob == ib &&
               c.of == if_ && c.os == is;
    };
    if (is(0, 3, {1, 2}, 2, 3, {0, 1})) // lhs (b, 0, 1, f) x rhs (0, 1, i, o) -> (b, 0, 1, f)
        d = {{0}, {1, 2}, {3}, {}, {0, 1}, {2}};
    else if (is(0, 1, {2, 3}, 1, 0, {2, 3})) // (b, f, 0, 1) x (o, i, 0, 1) -> (b, f, 0, 1)
        d = {{0}, {2, 3}, {1}, {}, {2, 3}, {1}};
    else if (is(0, 4, {1, 2, 3}, 3, 4, {0, 1, 2})) // (b, 0, 1, 2, f) x (0, 1, 2, i, o) -> (b, 0, 1, 2, f)
        d = {{0}, {1, 2, 3}, {4}, {}, {0, 1, 2}, {3}};
    else if (is(0, 1, {2, 3, 4}, 0, 1, {2, 3, 4})) // (b, f, 0, 1, 2) x (o, i, 0, 1, 2) -> (b, f, 0, 1, 2), as upstream
        d = {{0}, {2, 3, 4}, {1}, {}, {2, 3, 4}, {1}};
    else
        return false;
    if ((rq.per_axis() && rq.axis != c.kof) || (resq.per_axis() && resq.axis != c.of)) return false;
    d.channel_axis = c.of;
    return true;
}

// The result dimension that holds rhs dimension a of a dot_general (-1: a contracting dimension).
std::int64_t dot_result_dim(const op& o, const dot_like_dims& d, std::int64_t a) {
    for (std::size_t i = 0; i < d.rhs_batching.size(); ++i)
        if (d.rhs_batching[i] == a) return static_cast<std::int64_t>(i);
    if (contains(d.rhs_contracting, a)) return -1;
    std::int64_t p = static_cast<std::int64_t>(o.operand_types[0].dims.size() - d.lhs_contracting.size());
    for (std::int64_t i = 0; i < a; ++i)
        if (!contains(d.rhs_batching, i) && !contains(d.rhs_contracting, i)) ++p;
    return p;
}

// A scale as the expressed type holds it (the library's quant::uniform rounds its scales so): f32,
// or f16 / bf16 rounded once from the double.
double expressed_scale(double s, const std::string& expressed) {
    if (expressed == "f64") return s;
    if (expressed == "f32") return static_cast<double>(static_cast<float>(s));
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", s);
    std::vector<std::uint8_t> bytes;
    std::string why;
    if (!literal_bytes(expressed, text, bytes, why)) return s;
    const auto bits = static_cast<std::uint32_t>(load_le(bytes.data(), 2));
    if (expressed == "bf16") return static_cast<double>(std::bit_cast<float>(bits << 16));
    const int e = static_cast<int>(bits >> 10 & 31), m = static_cast<int>(bits & 1023); // f16
    const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    return bits >> 15 ? -v : v;
}

// The largest f32 <= v and the smallest f32 >= v, of an integer v (|v| < 2^62).
std::int64_t f32_floor_int(std::int64_t v) {
    const std::uint64_t a = v < 0 ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
    const int bits = 64 - std::countl_zero(a);
    if (bits <= 24) return v;
    const std::int64_t ulp = std::int64_t{1} << (bits - 24), r = v % ulp;
    return r == 0 ? v : v - r - (v < 0 ? ulp : 0);
}
std::int64_t f32_ceil_int(std::int64_t v) { return -f32_floor_int(-v); }

// The integer convolution: lhs padded with its zero point first (a stablehlo.pad, the convolution
// then unpadded), as padding with zeros would add (0 - zero_point) terms.
val conv_kernel(builder& b, const op& o, val& lhs, const val& rhs, const dot_like_dims& d, std::int64_t lhs_zp,
                const type& it) {
    std::vector<std::int64_t> pad = int_list(o.get("padding"));
    auto attrs = o.attrs;
    if (std::any_of(pad.begin(), pad.end(), [](std::int64_t x) { return x != 0; })) {
        std::size_t rank = lhs.t.dims.size();
        std::vector<std::int64_t> low(rank, 0), high(rank, 0);
        for (std::size_t i = 0; i < d.lhs_spatial.size() && 2 * i + 1 < pad.size(); ++i) {
            low[static_cast<std::size_t>(d.lhs_spatial[i])] = pad[2 * i];
            high[static_cast<std::size_t>(d.lhs_spatial[i])] = pad[2 * i + 1];
        }
        type pt = lhs.t;
        for (std::size_t i = 0; i < rank; ++i)
            if (pt.dims[i] >= 0) pt.dims[i] += low[i] + high[i];
        val zp = b.ints({lhs_zp}, true, lhs.t.elem);
        lhs = b.emit("stablehlo.pad", {lhs, zp}, pt);
        b.last().set("edge_padding_low", i64_array(low));
        b.last().set("edge_padding_high", i64_array(high));
        b.last().set("interior_padding", i64_array(std::vector<std::int64_t>(rank, 0)));
        attr zeros;
        zeros.k = attr::kind::dense;
        zeros.t = tensor_type({static_cast<std::int64_t>(rank) - 2, 2}, "i64");
        zeros.elems = {"0"};
        for (auto& [k, a] : attrs)
            if (k == "padding") a = zeros;
    }
    val res = b.emit("stablehlo.convolution", {lhs, rhs}, it);
    b.last().attrs = attrs;
    return res;
}

// dot_general, dot or convolution of a per-tensor quantized lhs and a quantized rhs (per axis: the
// result per tensor or along d.channel_axis): the i32 dot product (convolution) minus its
// zero-point offset, exact modulo 2^32, then requantized as xlet's quantized dot_general
// (quant/dot.hpp, docs/semantics.md "Quantization"), so that both give the same bits: per channel
// the f32 combined scale M = f32(sa * sb / sr) (the scales as the expressed type holds them, the
// product and quotient in double), f = f32(acc) * M + f32(zr), clamped to the f32 values inside
// the storage range, round_nearest_even, converted; 32-bit storage with M = 1 is acc + zr in i32
// (clamped to a narrower storage range). Upstream instead scales the dot and the offset separately
// and truncates the f32 products to i32, unclamped.
void dot_quantized(builder& b, const op& o, val lhs, const val& rhs, const dot_like_dims& d) {
    const type& rt = o.result_types[0];
    quant_type lq = *quant_of_type(o.operand_types[0]), rq = *quant_of_type(o.operand_types[1]),
               resq = *quant_of_type(rt);
    type it = retyped(rt, "i32"), ft = retyped(rt, "f32");
    val res = o.name == "stablehlo.convolution" ? conv_kernel(b, o, lhs, rhs, d, lq.zero_points[0], it)
                                                : b.emit("stablehlo.dot_general", {lhs, rhs}, it);
    if (o.name != "stablehlo.convolution") b.last().attrs = o.attrs;
    if (o.name == "stablehlo.dot") {
        attr dd;
        dd.k = attr::kind::dialect;
        dd.s = "stablehlo.dot";
        for (auto [name, v] : {std::pair{"lhs_contracting_dimensions", d.lhs_contracting},
                               std::pair{"rhs_contracting_dimensions", d.rhs_contracting}}) {
            attr l = int_list_attr(v);
            l.name = name;
            dd.fields.push_back(l);
        }
        b.last().set("dot_dimension_numbers", dd);
    }
    std::optional<val> offset =
        zero_point_offset(b, lhs, rhs, res, lq.zero_points[0], rq.per_axis() ? 0 : rq.zero_points[0], it, d);
    val acc = offset ? b.emit("stablehlo.subtract", {res, *offset}, it) : res;
    // the channels: one, or the per-axis side's scales along d.channel_axis
    const bool vec = rq.per_axis() || resq.per_axis();
    const std::size_t n = rq.per_axis() ? rq.scales.size() : resq.scales.size();
    std::optional<std::int64_t> axis;
    if (vec) axis = d.channel_axis;
    std::vector<double> m(n), zf(n);
    std::vector<std::int64_t> zr(n), exact(n);
    const double sa = expressed_scale(lq.scales[0], lq.expressed);
    const bool wide = int_bits(resq.storage()) == 32;
    for (std::size_t j = 0; j < n; ++j) {
        const double sb = expressed_scale(rq.scales[rq.per_axis() ? j : 0], rq.expressed);
        const double sr = expressed_scale(resq.scales[resq.per_axis() ? j : 0], resq.expressed);
        m[j] = static_cast<float>(sa * sb / sr);
        zr[j] = resq.zero_points[resq.per_axis() ? j : 0];
        zf[j] = static_cast<double>(zr[j]);
        exact[j] = wide && m[j] == 1.0;
    }
    const bool all_exact = std::all_of(exact.begin(), exact.end(), [](std::int64_t e) { return e != 0; });
    const bool any_exact = std::any_of(exact.begin(), exact.end(), [](std::int64_t e) { return e != 0; });
    const bool narrow = resq.storage_min != -2147483648LL || resq.storage_max != 2147483647LL;
    std::optional<val> sum; // acc + zr in i32
    if (any_exact) {
        sum = b.bcast("add", acc, vec ? b.ints(zr, false) : b.i32(zr[0]), it, axis);
        if (narrow) sum = b.clamp(b.i32(resq.storage_min), *sum, b.i32(resq.storage_max));
        if (all_exact) {
            b.convert(*sum, resq.storage());
            return;
        }
    }
    val f = b.convert(acc, "f32");
    f = b.bcast("multiply", f, b.f32s(m, !vec), ft, axis);
    if (std::any_of(zr.begin(), zr.end(), [](std::int64_t z) { return z != 0; }))
        f = b.bcast("add", f, b.f32s(zf, !vec), ft, axis);
    val lo = b.f32(static_cast<double>(f32_ceil_int(resq.storage_min)));
    val hi = b.f32(static_cast<double>(f32_floor_int(resq.storage_max)));
    f = b.clamp(lo, f, hi);
    f = b.round(f);
    if (!any_exact) {
        b.convert(f, resq.storage());
        return;
    }
    // some channels exact, the others scaled: r + exact_j * (sum - r), exact_j in {0, 1}
    val r = b.convert(f, "i32");
    val diff = b.emit("stablehlo.subtract", {*sum, r}, it);
    diff = b.bcast("multiply", diff, b.ints(exact, false), it, axis);
    r = b.emit("stablehlo.add", {r, diff}, it);
    b.convert(r, resq.storage());
}

// A float lhs and a quantized rhs (weights): the op on lhs and rhs dequantized, behind an
// optimization_barrier (so that the dequantized weights are not folded into a constant).
void dot_hybrid(builder& b, const op& o, const val& lhs, const val& rhs) {
    quant_type rq = *quant_of_type(o.operand_types[1]);
    val w = b.emit("stablehlo.optimization_barrier", {rhs}, rhs.t);
    qparams p = quantization_params(b, rq, true);
    val f = b.convert(w, "f32");
    if (std::any_of(rq.zero_points.begin(), rq.zero_points.end(), [](std::int64_t z) { return z != 0; }))
        f = b.bcast("subtract", f, p.zero_points, f.t, p.axis);
    f = b.bcast("multiply", f, p.scales, f.t, p.axis);
    b.emit(o.name, {lhs, f}, o.result_types[0]);
    b.last().attrs = o.attrs;
}

// ---- which ops -----------------------------------------------------------------------------

// A set of op names from their words ("abs add"; stablehlo's without the dialect).
std::set<std::string> op_names(std::string_view words) {
    std::set<std::string> s;
    for (std::size_t b = 0; b < words.size();) {
        std::size_t e = std::min(words.find(' ', b), words.size());
        std::string w(words.substr(b, e - b));
        s.insert(w.find('.') == std::string::npos ? "stablehlo." + w : w);
        b = e + 1;
    }
    return s;
}

// The ops upstream decomposes into dequantize / float op / quantize (its QDQ patterns).
const std::set<std::string>& qdq_ops() {
    static const std::set<std::string> s =
        op_names("abs add atan2 batch_norm_grad batch_norm_inference batch_norm_training cbrt ceil cholesky clamp "
                 "compare convolution cosine divide dot_general dot exponential_minus_one exponential floor "
                 "log_plus_one logistic log maximum minimum multiply negate power reduce_precision remainder "
                 "round_nearest_afz round_nearest_even rsqrt select sign sine sqrt subtract tanh tan "
                 "triangular_solve");
    return s;
}

// The ops quant-to-math keeps, with their quantized types replaced by the storage types (upstream's
// ConvertGenericOp, and the function signature and return); func.call too (upstream has no pattern
// for it, and a call of a converted function must follow its signature).
const std::set<std::string>& storage_ops() {
    static const std::set<std::string> s =
        op_names("bitcast_convert broadcast_in_dim composite concatenate constant dynamic_reshape dynamic_slice "
                 "gather maximum minimum pad reduce_window reshape return select slice transpose "
                 "get_dimension_size dynamic_broadcast_in_dim func.return func.call");
    return s;
}

bool well_formed(const op& o, std::size_t operands, std::size_t results) {
    return o.operands.size() == operands && o.operand_types.size() == operands && o.results.size() == results &&
           o.result_types.size() == results;
}

} // namespace

bool has_quant_type(const type& t) {
    if (t.k == type::kind::tuple)
        return std::any_of(t.elems.begin(), t.elems.end(), [](const type& e) { return has_quant_type(e); });
    return (t.k == type::kind::tensor || t.k == type::kind::scalar) && is_quant_elem(t.elem);
}

void quant_storage_types(type& t) {
    for (auto& e : t.elems)
        quant_storage_types(e);
    if ((t.k == type::kind::tensor || t.k == type::kind::scalar))
        if (auto q = quant_of(t.elem)) t.elem = q->storage();
}

bool quant_op_to_qdq(const op& o, const fresh_name& fresh, quant_rewrite& out) {
    if (!qdq_ops().count(o.name) || !op_has_quant(o) || !o.regions.empty() ||
        o.operand_types.size() != o.operands.size() || o.result_types.size() != o.results.size())
        return false;
    builder b(fresh, out.seq, o.at);
    std::vector<val> args;
    for (std::size_t k = 0; k < o.operands.size(); ++k) {
        val a{o.operands[k].name, o.operand_types[k]};
        if (auto q = quant_of_type(a.t)) a = b.emit("stablehlo.uniform_dequantize", {a}, retyped(a.t, q->expressed));
        args.push_back(a);
    }
    auto f = std::make_unique<op>();
    f->name = o.name;
    f->attrs = o.attrs;
    f->at = o.at;
    for (auto& a : args) {
        f->operands.push_back({a.name, o.at});
        f->operand_types.push_back(a.t);
    }
    std::string group = o.results.size() > 1 ? fresh("q") : "";
    for (std::size_t k = 0; k < o.results.size(); ++k) {
        auto q = quant_of_type(o.result_types[k]);
        f->result_types.push_back(q ? retyped(o.result_types[k], q->expressed) : o.result_types[k]);
        f->results.push_back(!group.empty() ? group + "#" + std::to_string(k) : q ? fresh("q") : o.results[0]);
    }
    op& fo = *f;
    out.seq.push_back(std::move(f));
    for (std::size_t k = 0; k < o.results.size(); ++k) {
        val r{fo.results[k], fo.result_types[k]};
        if (quant_of_type(o.result_types[k])) {
            r = b.emit("stablehlo.uniform_quantize", {r}, o.result_types[k]);
            if (group.empty()) out.seq.back()->results[0] = o.results[0];
        }
        if (!group.empty()) out.renames.emplace_back(o.results[k], r.name);
    }
    return true;
}

void quant_fuse_qdq(func& f, const fresh_name& fresh) {
    // where each value is defined: its op and the block that holds it
    std::map<std::string, std::pair<op*, block*>> defs;
    std::map<std::string, int> uses;
    std::vector<op*> quantizes;
    std::function<void(region&)> index = [&](region& r) {
        for (auto& bl : r.blocks)
            for (auto& o : bl.ops) {
                for (auto& n : o->results)
                    defs[n] = {o.get(), &bl};
                for (auto& v : o->operands)
                    ++uses[v.name];
                if (o->name == "stablehlo.uniform_quantize") quantizes.push_back(o.get());
                for (auto& g : o->regions)
                    index(g);
            }
    };
    index(f.body);
    auto def = [&](const std::string& n) -> op* {
        auto it = defs.find(n);
        return it == defs.end() ? nullptr : it->second.first;
    };
    std::vector<std::pair<std::string, std::string>> renames;
    for (op* q : quantizes) {
        if (!well_formed(*q, 1, 1) || uses[q->results[0]] == 0) continue;
        op* c = def(q->operands[0].name);
        if (!c || !c->regions.empty() || c->results.size() != 1 || c->operands.empty() ||
            c->operand_types.size() != c->operands.size())
            continue;
        bool quantized_operand = false;
        for (auto& t : c->operand_types)
            quantized_operand = quantized_operand || has_quant_type(t);
        if (quantized_operand) continue;
        auto fused = std::make_unique<op>();
        bool all_dequantized = true;
        for (auto& v : c->operands) {
            op* d = def(v.name);
            if (!d || d->name != "stablehlo.uniform_dequantize" || !well_formed(*d, 1, 1)) {
                all_dequantized = false;
                break;
            }
            fused->operands.push_back({d->operands[0].name, c->at});
            fused->operand_types.push_back(d->operand_types[0]);
        }
        if (!all_dequantized) continue;
        fused->name = c->name;
        fused->attrs = c->attrs;
        fused->at = c->at;
        fused->results = {fresh("q")};
        fused->result_types = q->result_types;
        renames.emplace_back(q->results[0], fused->results[0]);
        block* bl = defs[c->results[0]].second;
        auto at =
            std::find_if(bl->ops.begin(), bl->ops.end(), [&](const std::unique_ptr<op>& x) { return x.get() == c; });
        bl->ops.insert(at + 1, std::move(fused));
    }
    // the quantize ops' uses read the fused ops (those stay, unused: the pass deletes nothing)
    std::function<void(region&)> rename = [&](region& r) {
        for (auto& bl : r.blocks)
            for (auto& o : bl.ops) {
                for (auto& v : o->operands)
                    for (auto& [from, to] : renames)
                        if (v.name == from) v.name = to;
                for (auto& g : o->regions)
                    rename(g);
            }
    };
    if (!renames.empty()) rename(f.body);
}

bool quant_op_to_math(const op& o, const fresh_name& fresh, quant_rewrite& out, std::string& why) {
    if (!op_has_quant(o)) return false;
    const std::string& n = o.name;
    auto storage_val = [&](std::size_t k) {
        type t = o.operand_types[k];
        quant_storage_types(t);
        return val{o.operands[k].name, t};
    };
    auto q_of = [&](const type& t) { return quant_of_type(t); };
    builder b(fresh, out.seq, o.at);
    bool done = false;
    if (n == "stablehlo.uniform_quantize" || n == "stablehlo.uniform_dequantize") {
        if (!well_formed(o, 1, 1) || o.operand_types[0].k != type::kind::tensor ||
            o.result_types[0].k != type::kind::tensor) {
            why = "malformed " + n;
            return false;
        }
        auto in = q_of(o.operand_types[0]);
        auto res = q_of(o.result_types[0]);
        if (n == "stablehlo.uniform_dequantize") {
            if (!in || res || !is_float_elem(o.result_types[0].elem)) {
                why = n + " from " + type_str(o.operand_types[0]) + " to " + type_str(o.result_types[0]);
                return false;
            }
            dequantize(b, storage_val(0), *in, o.result_types[0].elem);
        } else if (!res || (!in && !is_float_elem(o.operand_types[0].elem))) {
            why = "Unsupported input element type.";
            return false;
        } else if (!in) {
            quantize(b, storage_val(0), *res);
        } else {
            if (in->per_axis() && res->per_axis() && in->axis != res->axis) {
                why = "Cannot requantize while changing quantization_axis";
                return false;
            }
            if (in->per_axis() && res->per_axis() && in->scales.size() != res->scales.size()) {
                why = "per-axis types of " + std::to_string(in->scales.size()) + " and " +
                      std::to_string(res->scales.size()) + " scales";
                return false;
            }
            type out_t = o.result_types[0];
            quant_storage_types(out_t);
            requantize(b, storage_val(0), *in, *res, out_t);
        }
        done = true;
    } else if (n == "stablehlo.add" && well_formed(o, 2, 1)) {
        auto l = q_of(o.operand_types[0]), r = q_of(o.operand_types[1]), res = q_of(o.result_types[0]);
        if (l && r && res && !l->per_axis() && !r->per_axis() && !res->per_axis()) {
            // requantized to the result's parameters, then lhs + rhs - zero_point
            type it = retyped(o.result_types[0], "i32");
            val lhs = requantize(b, storage_val(0), *l, *res, it);
            val rhs = requantize(b, storage_val(1), *r, *res, it);
            val zp = b.i32(res->zero_points[0]);
            val sum = b.bcast("add", lhs, rhs, it);
            sum = b.bcast("subtract", sum, zp, it);
            if (res->storage() != "i32") {
                val lo = b.i32(res->storage_min), hi = b.i32(res->storage_max);
                sum = b.clamp(lo, sum, hi);
                b.convert(sum, res->storage());
            }
            done = true;
        } else if (l && r && res && l->per_axis() && *l == *r && *l == *res && l->storage() == "i32") {
            // the same per-axis type with i32 storage (a conv / dot result and its bias): lhs + rhs - zp
            type it = retyped(o.result_types[0], "i32");
            val sum = b.emit("stablehlo.add", {storage_val(0), storage_val(1)}, it);
            if (std::any_of(l->zero_points.begin(), l->zero_points.end(), [](std::int64_t z) { return z != 0; }))
                b.bcast("subtract", sum, b.ints(l->zero_points, false), it, l->axis);
            done = true;
        }
    } else if ((n == "stablehlo.dot_general" || n == "stablehlo.dot" || n == "stablehlo.convolution") &&
               well_formed(o, 2, 1) && o.operand_types[0].k == type::kind::tensor &&
               o.operand_types[1].k == type::kind::tensor) {
        auto l = q_of(o.operand_types[0]), r = q_of(o.operand_types[1]), res = q_of(o.result_types[0]);
        bool quantized = l && !l->per_axis() && r && res && (r->per_axis() || !res->per_axis());
        bool hybrid = !l && r && !res && !has_quant_type(o.result_types[0]);
        dot_like_dims d;
        if (hybrid) {
            dot_hybrid(b, o, storage_val(0), storage_val(1));
            done = true;
        } else if (quantized && n == "stablehlo.convolution") {
            if (conv_dot_dims(o, *r, *res, d)) {
                dot_quantized(b, o, storage_val(0), storage_val(1), d);
                done = true;
            }
        } else if (quantized) {
            if (!read_dot_dims(o, d, why)) return false;
            // a per-axis rhs: zero points 0 (dot_general C15), the result along its dimension
            if (r->per_axis()) d.channel_axis = dot_result_dim(o, d, r->axis);
            const bool axes_ok = !r->per_axis() || (d.channel_axis >= 0 &&
                                                    std::all_of(r->zero_points.begin(), r->zero_points.end(),
                                                                [](std::int64_t z) { return z == 0; }) &&
                                                    (!res->per_axis() || res->axis == d.channel_axis));
            if (axes_ok) {
                dot_quantized(b, o, storage_val(0), storage_val(1), d);
                done = true;
            }
        }
    }
    if (done) {
        out.seq.back()->results = {o.results[0]};
        return true;
    }
    if (storage_ops().count(n)) {
        if (n != "stablehlo.maximum" && n != "stablehlo.minimum") return false; // its types change, later
        // min / max of one per-tensor type: the same op on the integers
        auto l = well_formed(o, 2, 1) ? q_of(o.operand_types[0]) : std::nullopt;
        if (l && !l->per_axis() && q_of(o.operand_types[1]) == l && q_of(o.result_types[0]) == l) return false;
    }
    if (qdq_ops().count(n)) { // dequantize, the float op, quantize; then the first and last as math
        quant_rewrite qdq;
        if (!quant_op_to_qdq(o, fresh, qdq)) {
            why = "malformed " + n;
            return false;
        }
        for (auto& x : qdq.seq) {
            if (x->name != "stablehlo.uniform_quantize" && x->name != "stablehlo.uniform_dequantize") {
                out.seq.push_back(std::move(x));
                continue;
            }
            quant_rewrite m;
            if (!quant_op_to_math(*x, fresh, m, why)) return false;
            for (auto& y : m.seq)
                out.seq.push_back(std::move(y));
        }
        out.renames = std::move(qdq.renames);
        return true;
    }
    why = "failed to legalize operation '" + n + "' that was explicitly marked illegal";
    return false;
}

} // namespace xlt
