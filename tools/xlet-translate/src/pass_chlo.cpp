// CHLO's special functions as StableHLO ops, for chlo-legalize-to-stablehlo. The formulas and
// their coefficients are those of StableHLO's own pass (stablehlo/transforms/
// ChloLegalizeToStablehlo.cpp and ChloDecompositionPatterns.td), so that a module lowered here
// computes what it computes lowered by stablehlo-opt:
//   erf, erfc     Cephes' rational approximations in f64; in f32 Eigen's erf and Cephes' erfc
//   erf_inv       Giles' polynomials in w = -log(1 - x^2) ("Approximating the erfinv function")
//   lgamma        Lanczos' approximation (g = 7, 9 terms) with Euler's reflection below 1/2
//   digamma       the derivative of the same approximation, reflected with pi cot(pi x)
//   zeta          Hurwitz zeta by Euler-Maclaurin summation (Johansson 2015, formula (5))
//   polygamma     (-1)^(n+1) n! zeta(n + 1, x), digamma for n = 0
//   bessel_i1e    Cephes' Chebyshev series on [0, 8] and (8, inf)
//   next_after    integer steps on the bits
//   mulhi         the high half of the product in the doubled width (64 bits: four 32-bit parts)
// f16 and bf16 are computed in f32 and rounded back, as upstream does. On a dynamic (ranked) shape
// each constant is a rank-0 one dynamic_broadcast_in_dim'ed to the operand's shape (upstream's
// getConstantLike through shape.shape_of, here in StableHLO as shape-legalize-to-stablehlo writes it).
#include "pass_chlo.hpp"

#include "attr_values.hpp" // i64_array, int_attr, int_list_attr

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <span>
#include <string>

namespace xlt {

namespace {

// A value of the decomposition: its name and its type; a constant not made yet has its literal
// instead (made where an op first uses it, so that the ops come out in one order whatever order
// the compiler evaluates function arguments in).
struct val {
    std::string name;
    type t;
    std::string literal;
};

// MLIR's float literal wants a '.' before any exponent ("1.0e+20", not "1e+20").
std::string mlir_float(std::string s) {
    if (s.find('.') != std::string::npos) return s;
    auto e = s.find('e');
    if (e == std::string::npos) return s + ".0";
    s.insert(e, ".0");
    return s;
}
template<class T>
std::string shortest(T v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return mlir_float(std::string(buf, r.ptr));
}

// The bits of +inf, quiet NaN and the smallest subnormal of a float type, as hex literals.
std::string special(const std::string& elem, char what) {
    bool neg = what == '-';
    if (elem == "f64")
        return what == 'n'   ? "0x7FF8000000000000"
               : what == 's' ? "0x0000000000000001"
                             : (neg ? "0xFFF0000000000000" : "0x7FF0000000000000");
    if (elem == "f32")
        return what == 'n' ? "0x7FC00000" : what == 's' ? "0x00000001" : (neg ? "0xFF800000" : "0x7F800000");
    if (elem == "bf16") return what == 'n' ? "0x7FC0" : what == 's' ? "0x0001" : (neg ? "0xFF80" : "0x7F80");
    return what == 'n' ? "0x7E00" : what == 's' ? "0x0001" : (neg ? "0xFC00" : "0x7C00");
}

class builder {
public:
    builder(const std::function<std::string(const std::string&)>& fresh, std::vector<std::unique_ptr<op>>& seq, loc at)
        : fresh_(fresh), seq_(seq), at_(at) {}

    val emit(const std::string& name, const std::vector<val>& args, const type& rt) {
        auto o = std::make_unique<op>();
        o->name = name;
        for (auto& a : args) {
            o->operands.push_back({a.literal.empty() ? a.name : make(a.literal, a.t).name, at_});
            o->operand_types.push_back(a.t);
        }
        std::string r = fresh_("t");
        o->results = {r};
        o->result_types = {rt};
        o->at = at_;
        seq_.push_back(std::move(o));
        return {r, rt, {}};
    }
    op& last() { return *seq_.back(); }

    // A splat constant of type t from its literal, made when first used (one op per literal and type).
    val literal(const std::string& text, const type& t) { return {"", t, text}; }
    // getConstantLike: v rounded to x's element type.
    val like(double v, const val& x) {
        const std::string& e = x.t.elem;
        if (std::isnan(v)) return literal(special(e, 'n'), x.t);
        if (std::isinf(v)) return literal(special(e, v < 0 ? '-' : '+'), x.t);
        if (e == "f64") return literal(shortest(v), x.t);
        if (e == "f32") return literal(shortest(static_cast<float>(v)), x.t);
        return literal(std::to_string(static_cast<long long>(v)), x.t);
    }
    val like(float v, const val& x) { return x.t.elem == "f32" ? literal(shortest(v), x.t) : like(double{v}, x); }
    val like(int v, const val& x) { return like(double(v), x); }
    val inf(const val& x) { return literal(special(x.t.elem, '+'), x.t); }
    val nan(const val& x) { return literal(special(x.t.elem, 'n'), x.t); }

    val un(const char* n, const val& a) { return emit(std::string("stablehlo.") + n, {a}, a.t); }
    val bin(const char* n, const val& a, const val& b) { return emit(std::string("stablehlo.") + n, {a, b}, a.t); }
    val add(const val& a, const val& b) { return bin("add", a, b); }
    val sub(const val& a, const val& b) { return bin("subtract", a, b); }
    val mul(const val& a, const val& b) { return bin("multiply", a, b); }
    val div(const val& a, const val& b) { return bin("divide", a, b); }
    val neg(const val& a) { return un("negate", a); }
    val abs(const val& a) { return un("abs", a); }
    val floor(const val& a) { return un("floor", a); }
    val cmp(const val& a, const val& b, const char* dir) {
        type pt = a.t;
        pt.elem = "i1";
        val v = emit("stablehlo.compare", {a, b}, pt);
        attr d;
        d.k = attr::kind::dialect;
        d.s = "stablehlo";
        d.raw = std::string("comparison_direction ") + dir;
        last().set("comparison_direction", d);
        return v;
    }
    val select(const val& p, const val& a, const val& b) { return emit("stablehlo.select", {p, a, b}, a.t); }
    val convert(const val& a, const std::string& elem, const char* how = "stablehlo.convert") {
        type t = a.t;
        t.elem = elem;
        return emit(how, {a}, t);
    }

    // v itself, or the constant of its literal.
    val made(const val& v) { return v.literal.empty() ? v : make(v.literal, v.t); }
    // The constants of a dynamic type take the shape of `x` (a value of that rank).
    void shape_from(const val& x) { like_ = x; }

    // shape.shape_of(x) as shape-legalize-to-stablehlo writes it: each dimension's
    // get_dimension_size reshaped to tensor<1xi32>, concatenated (tensor<0xi32> for a scalar).
    val shape_of(const val& x) {
        type i32;
        i32.k = type::kind::tensor;
        i32.elem = "i32";
        std::vector<val> parts;
        for (std::size_t d = 0; d < x.t.dims.size(); ++d) {
            i32.dims = {};
            val s = emit("stablehlo.get_dimension_size", {x}, i32);
            last().set("dimension", int_attr(static_cast<std::int64_t>(d)));
            i32.dims = {1};
            parts.push_back(emit("stablehlo.reshape", {s}, i32));
        }
        i32.dims = {static_cast<std::int64_t>(x.t.dims.size())};
        if (parts.empty()) { // a scalar's: dense<> : tensor<0xi32>
            val c = emit("stablehlo.constant", {}, i32);
            attr a;
            a.k = attr::kind::dense;
            a.t = i32;
            last().set("value", a);
            return c;
        }
        val v = emit("stablehlo.concatenate", parts, i32);
        last().set("dimension", int_attr(0));
        return v;
    }

    // The shape of `like` (shape_from), made once: what the constants of a dynamic type take.
    val like_shape() {
        if (shape_.name.empty()) shape_ = shape_of(like_);
        return shape_;
    }

private:
    val make(const std::string& text, const type& t) {
        std::string key = type_str(t) + " " + text;
        if (auto it = consts_.find(key); it != consts_.end()) return it->second;
        val v;
        if (t.is_static()) {
            v = emit("stablehlo.constant", {}, t);
            attr a;
            a.k = attr::kind::dense;
            a.t = t;
            a.elems = {text};
            last().set("value", a);
        } else {
            // of a dynamic type: the rank-0 constant broadcast to the shape of like_ (made once)
            type scalar = t;
            scalar.dims.clear();
            val c = make(text, scalar);
            v = emit("stablehlo.dynamic_broadcast_in_dim", {c, like_shape()}, t);
            last().set("broadcast_dimensions", i64_array({}));
        }
        consts_[key] = v;
        return v;
    }

    const std::function<std::string(const std::string&)>& fresh_;
    std::vector<std::unique_ptr<op>>& seq_;
    loc at_;
    std::map<std::string, val> consts_;
    val like_, shape_;
};

// c[0] x^(n-1) + ... + c[n-1], by Horner's rule.
template<class T>
val polynomial(builder& b, const val& x, std::span<const T> c) {
    val p = b.like(c[0], x);
    for (std::size_t i = 1; i < c.size(); ++i)
        p = b.add(b.mul(p, x), b.like(c[i], x));
    return p;
}

// Clenshaw's recurrence for a Chebyshev series (Cephes' chbevl): (b0 - b2) / 2.
template<class T>
val chebyshev(builder& b, const val& x, std::span<const T> c) {
    val b0 = b.like(0.0, x), b1 = b0, b2 = b0;
    for (T ci : c) {
        b2 = b1;
        b1 = b0;
        b0 = b.add(b.sub(b.mul(x, b1), b2), b.like(ci, x));
    }
    return b.mul(b.sub(b0, b2), b.like(0.5, x));
}

// ---- erf, erfc -----------------------------------------------------------------------------------

// f64, |x| >= 1 (Cephes' erfc): e^-x^2 P(|x|) / Q(|x|) below 8, e^-x^2 R(|x|) / S(|x|) above; 0 where
// e^-x^2 underflows; 2 - erfc(-x) for negative x.
val erfc_f64_ge1(builder& b, const val& x) {
    static constexpr double maxlog = 7.09782712893383996843E2;
    static constexpr double p[] = {2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
                                   4.86371970985681366614E1,   1.96520832956077098242E2,  5.26445194995477358631E2,
                                   9.34528527171957607540E2,   1.02755188689515710272E3,  5.57535335369399327526E2};
    static constexpr double q[] = {1.00000000000000000000E0, 1.32281951154744992508E1, 8.67072140885989742329E1,
                                   3.54937778887819891062E2, 9.75708501743205489753E2, 1.82390916687909736289E3,
                                   2.24633760818710981792E3, 1.65666309194161350182E3, 5.57535340817727675546E2};
    static constexpr double r[] = {5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
                                   6.16021097993053585195E0,  7.40974269950448939160E0, 2.97886665372100240670E0};
    static constexpr double s[] = {1.00000000000000000000E0, 2.26052863220117276590E0, 9.39603524938001434673E0,
                                   1.20489539808096656605E1, 1.70814450747565897222E1, 9.60896809063285878198E0,
                                   3.36907645100081516050E0};
    val z = b.neg(b.mul(x, x));
    val ez = b.un("exponential", z);
    val ax = b.abs(x);
    val pp = polynomial<double>(b, ax, p);
    val ezp = b.mul(ez, pp);
    val below8 = b.div(ezp, polynomial<double>(b, ax, q));
    val pr = polynomial<double>(b, ax, r);
    val ezr = b.mul(ez, pr);
    val above8 = b.div(ezr, polynomial<double>(b, ax, s));
    val approx = b.select(b.cmp(ax, b.like(8.0, x), "LT"), below8, above8);
    val zero = b.like(0.0, x);
    val clamped = b.select(b.cmp(z, b.like(-maxlog, x), "LT"), zero, approx);
    val neg = b.cmp(x, zero, "LT");
    return b.select(neg, b.sub(b.like(2.0, x), clamped), clamped);
}

// f64, |x| < 1 (Cephes' erf): x T(x^2) / U(x^2).
val erf_f64_lt1(builder& b, const val& x) {
    static constexpr double t[] = {9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
                                   7.00332514112805075473E3, 5.55923013010394962768E4};
    static constexpr double u[] = {1.00000000000000000000E0, 3.35617141647503099647E1, 5.21357949780152679795E2,
                                   4.59432382970980127987E3, 2.26290000613890934246E4, 4.92673942608635921086E4};
    val xx = b.mul(x, x);
    val pt = polynomial<double>(b, xx, t);
    val xpt = b.mul(x, pt);
    return b.div(xpt, polynomial<double>(b, xx, u));
}

// f32, |x| >= 1 (Cephes' erfcf): e^-x^2 / |x| P(1/x^2) below 2, R(1/x^2) above.
val erfc_f32_ge1(builder& b, const val& x) {
    static constexpr double maxlog = 88.72283905206835;
    static constexpr float p[] = {+2.326819970068386E-2f, -1.387039388740657E-1f, +3.687424674597105E-1f,
                                  -5.824733027278666E-1f, +6.210004621745983E-1f, -4.944515323274145E-1f,
                                  +3.404879937665872E-1f, -2.741127028184656E-1f, +5.638259427386472E-1f};
    static constexpr float r[] = {-1.047766399936249E+1f, +1.297719955372516E+1f, -7.495518717768503E+0f,
                                  +2.921019019210786E+0f, -1.015265279202700E+0f, +4.218463358204948E-1f,
                                  -2.820767439740514E-1f, +5.641895067754075E-1f};
    val xx = b.mul(x, x);
    val z = b.neg(xx);
    val ax = b.abs(x);
    val one = b.like(1.0, x);
    val rxx = b.div(one, xx);
    val ez = b.un("exponential", z);
    val e = b.mul(ez, b.div(one, ax));
    val two = b.like(2.0, x);
    val lt2 = b.cmp(ax, two, "LT");
    val pp = polynomial<float>(b, rxx, p);
    val poly = b.select(lt2, pp, polynomial<float>(b, rxx, r));
    val approx = b.mul(e, poly);
    val zero = b.like(0.0, x);
    val clamped = b.select(b.cmp(z, b.like(-maxlog, x), "LT"), zero, approx);
    val neg = b.cmp(x, zero, "LT");
    return b.select(neg, b.sub(two, clamped), clamped);
}

// f32, |x| < 1 (Cephes' erff): x T(x^2).
val erf_f32_lt1(builder& b, const val& x) {
    static constexpr float t[] = {+7.853861353153693E-5f, -8.010193625184903E-4f, +5.188327685732524E-3f,
                                  -2.685381193529856E-2f, +1.128358514861418E-1f, -3.761262582423300E-1f,
                                  +1.128379165726710E+0f};
    return b.mul(x, polynomial<float>(b, b.mul(x, x), t));
}

// f32 (Eigen's erf): x alpha(x^2) / beta(x^2) on x clamped to [-4, 4], the result clamped to [-1, 1].
val erf_f32(builder& b, const val& x0) {
    static constexpr float alpha[] = {-2.72614225801306e-10f, 2.77068142495902e-08f,  -2.10102402082508e-06f,
                                      -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f,
                                      -1.60960333262415e-02f};
    static constexpr float beta[] = {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
                                     -7.37332916720468e-03f, -1.42647390514189e-02f};
    val x = b.emit("stablehlo.clamp", {b.like(-4.0, x0), x0, b.like(4.0, x0)}, x0.t);
    val xx = b.mul(x, x);
    val pa = polynomial<float>(b, xx, alpha);
    val xpa = b.mul(x, pa);
    val e = b.div(xpa, polynomial<float>(b, xx, beta));
    return b.emit("stablehlo.clamp", {b.like(-1.0, x), e, b.like(1.0, x)}, x.t);
}

val erf_f64(builder& b, const val& x) {
    val small = erf_f64_lt1(b, x);
    val one = b.like(1.0, x);
    val large = b.sub(one, erfc_f64_ge1(b, x));
    val lt1 = b.cmp(b.abs(x), one, "LT");
    return b.select(lt1, small, large);
}

template<bool f64>
val erfc_any(builder& b, const val& x) {
    val large = f64 ? erfc_f64_ge1(b, x) : erfc_f32_ge1(b, x);
    val one = b.like(1.0, x);
    val small = b.sub(one, f64 ? erf_f64_lt1(b, x) : erf_f32_lt1(b, x));
    val lt1 = b.cmp(b.abs(x), one, "LT");
    return b.select(lt1, small, large);
}

// ---- erf_inv -------------------------------------------------------------------------------------

// w = -log1p(-x^2); p(w) with the coefficients of w's interval; x p; +-inf at x = +-1.
val erf_inv_f32(builder& b, const val& x) {
    static constexpr float lt5[] = {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f,
                                    -0.00125372503f, -0.00417768164f, 0.246640727f,    1.50140941f};
    static constexpr float ge5[] = {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                                    -0.0076224613f,   0.00943887047f,  1.00167406f,    2.83297682f};
    val w = b.neg(b.un("log_plus_one", b.mul(x, b.neg(x))));
    val lt = b.cmp(w, b.like(5.0, x), "LT");
    val w_lt = b.sub(w, b.like(2.5, x));
    val w_ge = b.sub(b.un("sqrt", w), b.like(3.0, x));
    w = b.select(lt, w_lt, w_ge);
    val p = b.select(lt, b.like(lt5[0], x), b.like(ge5[0], x));
    for (int i = 1; i < 9; ++i) {
        val c = b.select(lt, b.like(lt5[i], x), b.like(ge5[i], x));
        p = b.add(c, b.mul(p, w));
    }
    val r = b.mul(p, x);
    val at1 = b.cmp(b.abs(x), b.like(1.0, x), "EQ");
    return b.select(at1, b.mul(x, b.inf(x)), r);
}

// f64: three intervals of w (below 6.25, below 16, above), polynomials of 23, 19 and 17 terms.
val erf_inv_f64(builder& b, const val& x) {
    static constexpr double lt625[] = {
        -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,  1.115787767802518096e-17,
        -1.333171662854620906e-16,  2.0972767875968561637e-17,  6.6376381343583238325e-15,  -4.0545662729752068639e-14,
        -8.1519341976054721522e-14, 2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
        1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
        -1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352,   -0.00074070253416626697512,
        -0.0060336708714301490533,  0.24015818242558961693,     1.6536545626831027356};
    static constexpr double lt16[] = {
        2.2137376921775787049e-09,  9.0756561938885390979e-08, -2.7517406297064545428e-07, 1.8239629214389227755e-08,
        1.5027403968909827627e-06,  -4.013867526981545969e-06, 2.9234449089955446044e-06,  1.2475304481671778723e-05,
        -4.7318229009055733981e-05, 6.8284851459573175448e-05, 2.4031110387097893999e-05,  -0.0003550375203628474796,
        0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,   -0.0037512085075692412107,
        0.005370914553590063617,    1.0052589676941592334,     3.0838856104922207635};
    static constexpr double ge16[] = {
        -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,  -3.7894654401267369937e-09,
        7.6157012080783393804e-09,  -1.4960026627149240478e-08, 2.9147953450901080826e-08,  -6.7711997758452339498e-08,
        2.2900482228026654717e-07,  -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
        7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
        4.8499064014085844221};
    val w = b.neg(b.un("log_plus_one", b.mul(x, b.neg(x))));
    val is625 = b.cmp(w, b.like(6.25, x), "LT");
    val is16 = b.cmp(w, b.like(16.0, x), "LT");
    // the i-th coefficient of w's interval (the intervals' polynomials are aligned at their ends)
    auto coefficient = [&](int i) {
        val c = b.like(lt625[i], x);
        if (i < 19) c = b.select(is625, c, b.like(lt16[i], x));
        if (i < 17) c = b.select(is16, c, b.like(ge16[i], x));
        return c;
    };
    val sqrt_w = b.un("sqrt", w);
    val w_lt625 = b.sub(w, b.like(3.125, x));
    val shift = b.select(is16, b.like(3.25, x), b.like(5.0, x));
    val w_ge625 = b.sub(sqrt_w, shift);
    w = b.select(is625, w_lt625, w_ge625);
    val p = coefficient(0);
    auto step = [&](int i) {
        val c = coefficient(i);
        return b.add(c, b.mul(p, w));
    };
    for (int i = 1; i < 17; ++i)
        p = step(i);
    for (int i = 17; i < 19; ++i)
        p = b.select(is16, step(i), p);
    for (int i = 19; i < 23; ++i)
        p = b.select(is625, step(i), p);
    val r = b.mul(p, x);
    val at1 = b.cmp(b.abs(x), b.like(1.0, x), "EQ");
    return b.select(at1, b.mul(x, b.inf(x)), r);
}

// ---- lgamma, digamma (f32 and f64 alike) -------------------------------------------------------------

// Lanczos' approximation with g = 7 and 9 terms:
//   gamma(z + 1) = sqrt(2 pi) t^(z + 1/2) e^-t a(z),  t = z + g + 1/2,  a(z) = c0 + sum c_k / (z + k)
constexpr double lanczos_g = 7;
constexpr double lanczos_c0 = 0.99999999999980993227684700473478;
constexpr double lanczos_c[] = {676.520368121885098567009190444019, -1259.13921672240287047156078755283,
                                771.3234287776530788486528258894,   -176.61502916214059906584551354,
                                12.507343278686904814458936853,     -0.13857109526572011689554707,
                                9.984369578019570859563e-6,         1.50563273514931155834e-7};

// log(t) = log(g + 1/2) + log1p(z / (g + 1/2)): the constant folded, log1p on the device.
val lanczos_log_t(builder& b, const val& z) {
    val gh = b.like(lanczos_g + 0.5, z);
    return b.add(b.like(std::log(lanczos_g + 0.5), z), b.un("log_plus_one", b.div(z, gh)));
}

val lgamma(builder& b, const val& x) {
    // z = -x below 1/2 (Euler's reflection), x - 1 otherwise
    val half = b.like(0.5, x);
    val reflect = b.cmp(x, half, "LT");
    val one = b.like(1.0, x);
    val neg_x = b.neg(x);
    val z = b.select(reflect, neg_x, b.sub(x, one));
    val a = b.like(lanczos_c0, x);
    for (int i = 0; i < 8; ++i)
        a = b.add(a, b.div(b.like(lanczos_c[i], x), b.add(z, b.like(i + 1, x))));
    val t = b.add(b.like(lanczos_g + 0.5, x), z);
    val log_t = lanczos_log_t(b, z);
    // (z + 1/2) log t - t as (z + 1/2 - t / log t) log t: t may overflow where the difference does not
    val zh = b.add(z, half);
    val r = b.mul(b.sub(zh, b.div(t, log_t)), log_t);
    val lg = b.add(b.like((std::log(2.0) + std::log(std::numbers::pi)) / 2, x), r);
    lg = b.add(lg, b.un("log", a));
    // reflection: lgamma(x) = log(pi) - lgamma(1 - x) - log|sin(pi x)|, with |sin(pi x)| from the
    // fractional part of |x| folded into [0, 1/2] (exactly 0 at the integers)
    val ax = b.abs(x);
    val frac = b.sub(ax, b.floor(ax));
    val above_half = b.cmp(half, frac, "LT");
    frac = b.select(above_half, b.sub(one, frac), frac);
    val den = b.un("log", b.un("sine", b.mul(b.like(std::numbers::pi, x), frac)));
    val refl = b.sub(b.sub(b.like(std::log(std::numbers::pi), x), den), lg);
    // an infinite log|sin| wins (no -inf - inf)
    type pt = x.t;
    pt.elem = "i1";
    val finite = b.emit("stablehlo.is_finite", {den}, pt);
    refl = b.select(finite, refl, b.neg(den));
    lg = b.select(reflect, refl, lg);
    // lgamma(+-inf) = +inf
    val is_inf = b.cmp(b.abs(x), b.inf(x), "EQ");
    return b.select(is_inf, b.inf(x), lg);
}

val digamma(builder& b, const val& x) {
    val half = b.like(0.5, x);
    val reflect = b.cmp(x, half, "LT");
    val one = b.like(1.0, x);
    val neg_x = b.neg(x);
    val z = b.select(reflect, neg_x, b.sub(x, one));
    // a(z) and a'(z) = -sum c_k / (z + k)^2
    val zero = b.like(0.0, x);
    val a = b.like(lanczos_c0, x);
    val da = zero;
    for (int i = 0; i < 8; ++i) {
        val c = b.like(lanczos_c[i], x);
        val zk = b.add(z, b.like(i + 1, x));
        da = b.sub(da, b.div(c, b.mul(zk, zk)));
        val term = b.div(c, zk);
        a = b.add(a, term);
    }
    val t = b.add(b.like(lanczos_g + 0.5, x), z);
    val log_t = lanczos_log_t(b, z);
    // digamma(z + 1) = log t + a'(z) / a(z) - g / t
    val dg = b.add(log_t, b.div(da, a));
    dg = b.sub(dg, b.div(b.like(lanczos_g, x), t));
    // reflection: digamma(x) = digamma(1 - x) - pi cot(pi x), x shifted into [-1/2, 1/2] first
    val reduced = b.add(x, b.abs(b.floor(b.add(x, b.like(0.5, x)))));
    val pi = b.like(std::numbers::pi, x);
    val px = b.mul(pi, reduced);
    val cos = b.un("cosine", px);
    val sin = b.un("sine", px);
    val pi_cos = b.mul(pi, cos);
    val refl = b.sub(dg, b.div(pi_cos, sin));
    dg = b.select(reflect, refl, dg);
    // NaN at the poles, 0 and the negative integers
    val le0 = b.cmp(x, zero, "LE");
    val is_int = b.cmp(x, b.floor(x), "EQ");
    val pole = b.bin("and", le0, is_int);
    return b.select(pole, b.nan(x), dg);
}

// ---- zeta, polygamma (f32 and f64 alike) -----------------------------------------------------------

// Hurwitz zeta(x, q) = sum_k (q + k)^-x: ten terms, then the Euler-Maclaurin tail with 12
// Bernoulli terms (Horner's rule), as XLA's math library.
val zeta(builder& b, const val& x, const val& q) {
    static constexpr double coeffs[] = {-7.1661652561756670113e18,
                                        1.8152105401943546773e17,
                                        -4.5979787224074726105e15,
                                        1.1646782814350067249e14,
                                        -2.950130727918164224e12,
                                        7.47242496e10,
                                        -1.8924375803183791606e9,
                                        47900160.0,
                                        -1209600.0,
                                        30240.0,
                                        -720.0,
                                        12.0};
    constexpr int terms = 12, iters = 9, two_terms_minus_one = 2 * terms - 1;
    val zero = b.like(0.0, q);
    val one = b.like(1.0, q);
    val acc = q;
    val neg_x = b.neg(x);
    val power_sum = b.bin("power", q, neg_x);
    for (int i = 0; i < iters; ++i) {
        acc = b.add(acc, one);
        power_sum = b.add(power_sum, b.bin("power", acc, neg_x));
    }
    acc = b.add(acc, one);
    val q_neg_power = b.bin("power", acc, neg_x);
    val qa = b.mul(q_neg_power, acc);
    val correction = b.div(qa, b.sub(x, one));
    val inv_acc2 = b.div(one, b.mul(acc, acc));
    val horner = zero;
    for (int i = 0; i < terms - 1; ++i) {
        val fl = b.add(x, b.like(two_terms_minus_one - 1 - 2 * i, x));
        val f = b.mul(fl, b.add(x, b.like(two_terms_minus_one - 2 - 2 * i, x)));
        val h = b.add(horner, b.like(1. / coeffs[i], acc));
        horner = b.mul(f, b.mul(inv_acc2, h));
    }
    val x_acc = b.div(x, acc);
    val last = b.add(b.like(1. / coeffs[terms - 1], acc), horner);
    val tail = b.mul(q_neg_power, b.add(b.like(0.5, q_neg_power), b.mul(x_acc, last)));
    val accurate = b.add(b.add(power_sum, correction), tail);
    // the plain sum where the tail cannot change it
    val tiny = b.literal(special(acc.t.elem, 's'), acc.t);
    val abs_q = b.abs(q_neg_power);
    val bound = b.mul(b.abs(power_sum), tiny);
    val out = b.select(b.cmp(abs_q, bound, "LT"), power_sum, accurate);
    // NaN for x < 1, and for q <= 0 with x not an integer
    val nan = b.nan(x);
    val below1 = b.cmp(x, one, "LT");
    out = b.select(below1, nan, out);
    val q_le0 = b.cmp(q, zero, "LE");
    val x_not_int = b.cmp(x, b.floor(x), "NE");
    out = b.select(b.bin("and", q_le0, x_not_int), nan, out);
    // the poles at integer q <= 0: +inf for even integer x, NaN otherwise
    val q_int = b.cmp(q, b.floor(q), "EQ");
    val at_pole = b.bin("and", q_le0, q_int);
    val x_int = b.cmp(x, b.floor(x), "EQ");
    val x_even = b.cmp(b.bin("remainder", x, b.like(2.0, x)), zero, "EQ");
    val inf = b.inf(x);
    val pole_value = b.select(b.bin("and", x_int, x_even), inf, nan);
    out = b.select(at_pole, pole_value, out);
    // x = 1: the harmonic series
    val is1 = b.cmp(x, one, "EQ");
    return b.select(is1, inf, out);
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) (n! as exp(lgamma(n + 1))); digamma at n = 0; NaN
// unless n is a natural number.
val polygamma(builder& b, const val& n, const val& x) {
    val one = b.like(1.0, x);
    val two = b.like(2.0, x);
    val sign = b.sub(b.mul(two, b.bin("remainder", n, two)), one);
    val n1 = b.add(n, one);
    val fact = b.un("exponential", lgamma(b, n1));
    val z = zeta(b, n1, x);
    val r = b.mul(b.mul(sign, fact), z);
    val zero = b.like(0.0, x);
    val n0 = b.cmp(n, zero, "EQ");
    r = b.select(n0, digamma(b, x), r);
    val non_int = b.cmp(n, b.floor(n), "NE");
    val negative = b.cmp(n, zero, "LT");
    val non_natural = b.bin("or", non_int, negative);
    return b.select(non_natural, b.nan(x), r);
}

// ---- bessel_i1e ------------------------------------------------------------------------------------

// exp(-|x|) I1(x) = sign(x) |x| A(|x| / 2 - 2) for |x| <= 8, sign(x) B(32 / |x| - 2) / sqrt|x| above
// (A, B Chebyshev series).
template<class T>
val bessel_i1e(builder& b, const val& x, std::span<const T> ca, std::span<const T> cb) {
    val z = b.abs(x);
    val two = b.like(2.0, x);
    val small = b.mul(z, chebyshev<T>(b, b.sub(b.mul(b.like(0.5, x), z), two), ca));
    val series = chebyshev<T>(b, b.sub(b.div(b.like(32.0, x), z), two), cb);
    val large = b.div(series, b.un("sqrt", z));
    val le8 = b.cmp(z, b.like(8.0, x), "LE");
    val r = b.select(le8, small, large);
    return b.mul(b.un("sign", x), r);
}

val bessel_i1e_f32(builder& b, const val& x) {
    static constexpr float a[] = {9.38153738649577178388E-9f,  -4.44505912879632808065E-8f, 2.00329475355213526229E-7f,
                                  -8.56872026469545474066E-7f, 3.47025130813767847674E-6f,  -1.32731636560394358279E-5f,
                                  4.78156510755005422638E-5f,  -1.61760815825896745588E-4f, 5.12285956168575772895E-4f,
                                  -1.51357245063125314899E-3f, 4.15642294431288815669E-3f,  -1.05640848946261981558E-2f,
                                  2.47264490306265168283E-2f,  -5.29459812080949914269E-2f, 1.02643658689847095384E-1f,
                                  -1.76416518357834055153E-1f, 2.52587186443633654823E-1f};
    static constexpr float c[] = {-3.83538038596423702205E-9f, -2.63146884688951950684E-8f, -2.51223623787020892529E-7f,
                                  -3.88256480887769039346E-6f, -1.10588938762623716291E-4f, -9.76109749136146840777E-3f,
                                  7.78576235018280120474E-1f};
    return bessel_i1e<float>(b, x, a, c);
}

val bessel_i1e_f64(builder& b, const val& x) {
    static constexpr double a[] = {
        2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
        -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
        3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
        -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
        9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
        -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
        4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
        -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
        2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
        -1.76416518357834055153E-1,  2.52587186443633654823E-1};
    static constexpr double c[] = {
        7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
        -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
        -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
        4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
        -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
        3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
        -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
        -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
        7.78576235018280120474E-1};
    return bessel_i1e<double>(b, x, a, c);
}

// ---- next_after --------------------------------------------------------------------------------

// Steps x's bits by one toward y: down in magnitude when |x| > |y| or the signs differ, up otherwise;
// from +-0 to the smallest subnormal signed as y; y when x == y (or both are zeros); NaN if either is.
val next_after(builder& b, const val& x, const val& y) {
    int bits = elem_bits(x.t.elem);
    std::string it = "i" + std::to_string(bits);
    val xi = b.convert(x, it, "stablehlo.bitcast_convert");
    val yi = b.convert(y, it, "stablehlo.bitcast_convert");
    val x_nan = b.cmp(x, x, "NE");
    val nan_in = b.bin("or", x_nan, b.cmp(y, y, "NE"));
    val nan_bits = b.convert(b.nan(x), it, "stablehlo.bitcast_convert");
    // the sign bit and the other bits, as the signed integers of that width
    std::int64_t sign_bit = bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
    std::int64_t magnitude =
        bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    val sign_mask = b.literal(std::to_string(sign_bit), xi.t);
    val mag_mask = b.literal(std::to_string(magnitude), xi.t);
    val x_abs = b.bin("and", xi, mag_mask);
    val y_abs = b.bin("and", yi, mag_mask);
    val equal = b.cmp(x, y, "EQ");
    val zero = b.literal("0", xi.t);
    val x_zero = b.cmp(x_abs, zero, "EQ");
    val y_zero = b.cmp(y_abs, zero, "EQ");
    val x_sign = b.bin("and", xi, sign_mask);
    val y_sign = b.bin("and", yi, sign_mask);
    val one = b.literal("1", xi.t);
    val from_zero = b.bin("or", y_sign, one);
    val signs_differ = b.cmp(x_sign, y_sign, "NE");
    val x_larger = b.cmp(x_abs, y_abs, "GT");
    val down = b.bin("or", x_larger, signs_differ);
    val step = b.select(down, b.literal("-1", xi.t), one);
    val r = b.add(xi, step);
    val zero_value = b.select(y_zero, yi, from_zero);
    r = b.select(x_zero, zero_value, r);
    r = b.select(equal, yi, r);
    r = b.select(nan_in, nan_bits, r);
    return b.convert(r, x.t.elem, "stablehlo.bitcast_convert");
}

// ---- mulhi -------------------------------------------------------------------------------------------

// The high 64 bits of a 128-bit unsigned product from 32-bit halves:
//   p0 = lo(a) lo(b), p1 = lo(a) hi(b), p2 = hi(a) lo(b), p3 = hi(a) hi(b)
//   mid1 = p1 + (p0 >> 32), mid2 = p2 + lo(mid1), result = p3 + (mid1 >> 32) + (mid2 >> 32)
val mulhi_u64(builder& b, const val& a, const val& c) {
    val k32 = b.literal("32", a.t);
    val mask = b.literal("4294967295", a.t);
    val a_hi = b.bin("shift_right_logical", a, k32);
    val c_hi = b.bin("shift_right_logical", c, k32);
    val a_lo = b.bin("and", a, mask);
    val c_lo = b.bin("and", c, mask);
    val p3 = b.mul(a_hi, c_hi);
    val p1 = b.mul(a_lo, c_hi);
    val p0 = b.mul(a_lo, c_lo);
    val mid1 = b.add(p1, b.bin("shift_right_logical", p0, k32));
    val p2 = b.mul(a_hi, c_lo);
    val mid2 = b.add(p2, b.bin("and", mid1, mask));
    val r = b.add(p3, b.bin("shift_right_logical", mid1, k32));
    return b.add(r, b.bin("shift_right_logical", mid2, k32));
}

val mulhi(builder& b, const val& lhs, const val& rhs) {
    const std::string& e = lhs.t.elem;
    bool is_unsigned = is_unsigned_elem(e);
    int bits = elem_bits(e);
    if (bits < 64) {
        // in the doubled width: (lhs * rhs) >> bits, arithmetic for signed, logical for unsigned
        std::string wide = (is_unsigned ? "ui" : "i") + std::to_string(2 * bits);
        val wl = b.convert(lhs, wide);
        val p = b.mul(wl, b.convert(rhs, wide));
        val s = b.bin(is_unsigned ? "shift_right_logical" : "shift_right_arithmetic", p,
                      b.literal(std::to_string(bits), p.t));
        return b.convert(s, e);
    }
    if (is_unsigned) return mulhi_u64(b, lhs, rhs);
    // signed: the unsigned high half, less rhs where lhs < 0 and lhs where rhs < 0 (two's complement)
    val ul = b.convert(lhs, "ui64");
    val ur = b.convert(rhs, "ui64");
    val hi = mulhi_u64(b, ul, ur);
    val zero = b.literal("0", lhs.t);
    val uzero = b.literal("0", ul.t);
    val l_neg = b.cmp(lhs, zero, "LT");
    hi = b.sub(hi, b.select(l_neg, ur, uzero));
    val r_neg = b.cmp(rhs, zero, "LT");
    hi = b.sub(hi, b.select(r_neg, ul, uzero));
    return b.convert(hi, e);
}

// ---- dispatch ------------------------------------------------------------------------------------

// StableHLO's floats narrower than f16 (f8E4M3FN, f8E5M2, ..., f6E2M3FN, f4E2M1FN).
bool is_minifloat(const std::string& e) {
    return e.rfind("f8E", 0) == 0 || e.rfind("f6E", 0) == 0 || e.rfind("f4E", 0) == 0;
}
bool is_math_float(const std::string& e) {
    return e == "f16" || e == "bf16" || e == "f32" || e == "f64" || is_minifloat(e);
}

// Floats narrower than f32 through f32 (upstream's materializeWithUpcast), the others as they are.
template<class F>
val upcast(builder& b, std::vector<val> args, F&& f) {
    std::string e = args[0].t.elem;
    bool narrow = e == "f16" || e == "bf16" || is_minifloat(e);
    if (narrow)
        for (auto& a : args)
            a = b.convert(a, "f32");
    val r = f(args);
    return narrow ? b.convert(r, e) : r;
}

// ---- ragged_dot and scan -----------------------------------------------------------------------
//
// As upstream's ConvertRaggedDotOp and ConvertScanOp (static shapes first):
//   ragged_dot, ragged non-contracting dimension (mode 1, lhs [.., m, k] x rhs [g, .., k, n]): for
//     each group i, lhs masked to the rows [start_i, start_i + group_sizes[i]) of the ragged
//     dimension (an iota compared with the two bounds, then select against zeros) times rhs's slice
//     i of the group dimension, one dot_general per group, summed;
//   ragged contracting dimension (mode 2, result [g, ...]): the same masks, each dot_general
//     reshaped to [1, ...], then concatenated along 0;
//   ragged batch dimension (mode 3): dot_general (the groups only partition the batch).
//   group_sizes may be [g] or [b.., g] (per-batch starts, broadcast over lhs's leading dims).
//   scan: a stablehlo.while over an i64 counter i < N: its operands are (i, carries, outputs
//     zeroed); the body slices each input at position i (N - 1 - i in reverse) with dynamic_slice
//     and reshape, runs the scan's body on them and the carries, writes each output's slice with
//     dynamic_update_slice and yields (i + 1, new carries, outputs).
// On dynamic shapes, as upstream, with the extents as get_dimension_size: ragged_dot's iota a
//   dynamic_iota, its zeros, starts and broadcasts to lhs dynamic_broadcast_in_dim, the slices of
//   group_sizes and rhs real_dynamic_slice and dynamic_reshape, mode 2's reshapes dynamic_reshape
//   (a dynamic group count is refused); scan's dynamic inputs sliced by real_dynamic_slice from
//   [.., pos, ..] to [.., pos + 1, ..] (stablehlo-refine-shapes makes it a dynamic_slice of size 1
//   again), its dynamic outputs zeroed by dynamic_broadcast_in_dim and updated through a
//   dynamic_reshape (without inputs, a dynamic result is refused).

std::vector<std::int64_t> int_list_of(const attr* a) {
    std::vector<std::int64_t> v;
    if (!a) return v;
    if (a->k == attr::kind::dense)
        for (auto& e : a->elems) {
            std::int64_t x = -1; // not a number: out of every range
            std::from_chars(e.data(), e.data() + e.size(), x);
            v.push_back(x);
        }
    else
        for (auto& x : a->list)
            v.push_back(x.i);
    return v;
}
std::string zero_text(const std::string& elem) {
    if (elem == "i1") return "false";
    if (is_complex_elem(elem)) return "(0.0,0.0)";
    if (is_float_elem(elem)) return "0.0";
    return "0";
}
std::vector<std::int64_t> iota_vec(std::size_t n) {
    std::vector<std::int64_t> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<std::int64_t>(i);
    return v;
}

// A #stablehlo.dot<...> of four lists (empty batch lists left out, as the parser does).
attr dot_dims_attr(const std::vector<std::int64_t>& lb, const std::vector<std::int64_t>& rb,
                   const std::vector<std::int64_t>& lc, const std::vector<std::int64_t>& rc) {
    attr d;
    d.k = attr::kind::dialect;
    d.s = "stablehlo.dot";
    auto list = [&](const char* name, const std::vector<std::int64_t>& v) {
        attr a = int_list_attr(v);
        a.name = name;
        d.fields.push_back(a);
    };
    if (!lb.empty()) list("lhs_batching_dimensions", lb);
    if (!rb.empty()) list("rhs_batching_dimensions", rb);
    list("lhs_contracting_dimensions", lc);
    list("rhs_contracting_dimensions", rc);
    return d;
}

// chlo precision -> stablehlo precision (HIGHEST, HIGH, anything else DEFAULT), as upstream.
std::optional<attr> precision_of(const op& o) {
    const attr* p = o.get("precision_config");
    if (!p || p->k != attr::kind::array) return std::nullopt;
    attr a;
    a.k = attr::kind::array;
    for (auto& x : p->list) {
        std::string w = x.raw.empty() ? x.s : x.raw;
        attr e;
        e.k = attr::kind::dialect;
        e.s = "stablehlo";
        e.raw = w.find("HIGHEST") != std::string::npos ? "precision HIGHEST"
                : w.find("HIGH") != std::string::npos  ? "precision HIGH"
                                                       : "precision DEFAULT";
        a.list.push_back(e);
    }
    return a;
}

// A constant tensor<N x elem> of these integers (a splat one made once).
val const_ints(builder& b, const std::vector<std::int64_t>& v, const std::string& elem) {
    type t = tensor_type({static_cast<std::int64_t>(v.size())}, elem);
    if (!v.empty() && std::all_of(v.begin(), v.end(), [&](std::int64_t x) { return x == v[0]; }))
        return b.made(b.literal(std::to_string(v[0]), t));
    val c = b.emit("stablehlo.constant", {}, t);
    attr a;
    a.k = attr::kind::dense;
    a.t = t;
    for (auto x : v)
        a.elems.push_back(std::to_string(x));
    b.last().set("value", a);
    return c;
}
// The extent of x's dimension d as tensor<1 x elem>: get_dimension_size (an i32), converted to
// elem if it is not i32, reshaped.
val extent1(builder& b, const val& x, std::size_t d, const std::string& elem = "i32") {
    val s = b.emit("stablehlo.get_dimension_size", {x}, tensor_type({}, "i32"));
    b.last().set("dimension", int_attr(static_cast<std::int64_t>(d)));
    if (elem != "i32") s = b.convert(s, elem);
    return b.emit("stablehlo.reshape", {s}, tensor_type({1}, elem));
}
// Rank-1 pieces concatenated (the sum of their lengths).
val concat1(builder& b, const std::vector<val>& parts, const std::string& elem) {
    std::int64_t n = 0;
    for (auto& p : parts)
        n += p.t.dims.empty() ? 1 : p.t.dims[0];
    val v = b.emit("stablehlo.concatenate", parts, tensor_type({n}, elem));
    b.last().set("dimension", int_attr(0));
    return v;
}

bool ragged_dot(const op& o, builder& b, std::vector<std::unique_ptr<op>>& seq, std::string& why) {
    if (o.operands.size() != 3 || o.operand_types.size() != 3 || o.results.size() != 1 || o.result_types.size() != 1)
        return false;
    const type &lt = o.operand_types[0], &rt = o.operand_types[1], &gt = o.operand_types[2], &ot = o.result_types[0];
    for (const type* t : {&lt, &rt, &gt, &ot})
        if (t->k != type::kind::tensor) return false;
    const attr* dn = o.get("ragged_dot_dimension_numbers");
    if (!dn || gt.dims.empty() || !is_integer_elem(gt.elem)) return false;
    auto lb = int_list_of(dn->field("lhs_batching_dimensions")), rb = int_list_of(dn->field("rhs_batching_dimensions"));
    auto lc = int_list_of(dn->field("lhs_contracting_dimensions")),
         rc = int_list_of(dn->field("rhs_contracting_dimensions"));
    auto lr = int_list_of(dn->field("lhs_ragged_dimensions")), rg = int_list_of(dn->field("rhs_group_dimensions"));
    std::size_t lrank = lt.dims.size(), rrank = rt.dims.size();
    auto in = [](std::int64_t d, std::size_t r) { return d >= 0 && static_cast<std::size_t>(d) < r; };
    if (lr.size() != 1 || !in(lr[0], lrank) || lc.size() != rc.size() || lb.size() != rb.size()) return false;
    std::optional<attr> prec = precision_of(o);
    auto dot = [&](const val& l, const val& r, const type& t, const std::vector<std::int64_t>& rbd,
                   const std::vector<std::int64_t>& rcd) {
        val v = b.emit("stablehlo.dot_general", {l, r}, t);
        b.last().set("dot_dimension_numbers", dot_dims_attr(lb, rbd, lc, rcd));
        if (prec) b.last().set("precision_config", *prec);
        return v;
    };
    val lhs{o.operands[0].name, lt, {}}, rhs{o.operands[1].name, rt, {}}, gs{o.operands[2].name, gt, {}};
    int mode = lrank < rrank ? 1 : lrank < ot.dims.size() ? 2 : 3;
    if (mode == 3) { // the groups only partition the batch: dot_general, on any shapes
        dot(lhs, rhs, ot, rb, rc);
        seq.back()->results[0] = o.results[0];
        return true;
    }
    const std::int64_t r = lr[0];
    const std::size_t ru = static_cast<std::size_t>(r);
    std::int64_t rhs_ragged = -1; // mode 2: rhs's contracting dimension paired with r
    for (std::size_t i = 0; i < lc.size(); ++i)
        if (lc[i] == r) rhs_ragged = rc[i];
    if (mode == 1 && (rg.size() != 1 || !in(rg[0], rrank))) return false;
    if (mode == 2 && (rhs_ragged < 0 || ot.dims.empty())) return false;
    const std::size_t gd = mode == 1 ? static_cast<std::size_t>(rg[0]) : 0; // rhs's group dimension (mode 1)
    // the group count: group_sizes' last dimension (or, in mode 1, rhs's group dimension)
    std::int64_t g = gt.dims.back();
    if (mode == 1 && g < 0) g = rt.dims[gd];
    if (g < 0) {
        why = "chlo.ragged_dot with a dynamic group count (upstream does not decompose it either)";
        return false;
    }
    // (one masked dot_general per group: past 4096 groups the op is kept)
    if (g == 0 || g > 4096 || (mode == 1 && rt.dims[gd] >= 0 && rt.dims[gd] != g)) return false;
    std::vector<std::int64_t> batch(gt.dims.begin(), gt.dims.end() - 1);
    if (batch.size() >= lrank) return false;
    for (std::size_t d = 0; d < batch.size(); ++d) // per-batch sizes run along lhs's leading dimensions
        if (lt.dims[d] >= 0 && batch[d] >= 0 && lt.dims[d] != batch[d]) return false;
    // On dynamic shapes (as upstream): lhs's shape for the masks and its zeros, group_sizes' batch
    // extents for the starts and sizes, rhs's extents for its slices (real_dynamic_slice,
    // dynamic_reshape), each extent a get_dimension_size
    const bool ldyn = !lt.is_static(), gdyn = !gt.is_static(), rdyn = !rt.is_static();
    b.shape_from(lhs); // the zeros of a dynamic lhs: a rank-0 zero broadcast to lhs's shape
    const std::size_t grank = gt.dims.size();
    val batch_extents; // gdyn: group_sizes' extents but the last, tensor<(rank - 1)xi32>
    if (gdyn) {
        val gshape = b.shape_of(gs);
        batch_extents = b.emit("stablehlo.slice", {gshape}, tensor_type({static_cast<std::int64_t>(grank - 1)}, "i32"));
        b.last().set("start_indices", i64_array({0}));
        b.last().set("limit_indices", i64_array({static_cast<std::int64_t>(grank - 1)}));
        b.last().set("strides", i64_array({1}));
    }
    // the mask's pieces: start (zeros of the batch shape), the iota of the ragged dimension
    type bt = tensor_type(batch, "i64"), li = lt;
    li.elem = "i64";
    val start = b.literal("0", bt);
    if (gdyn) {
        start = b.emit("stablehlo.dynamic_broadcast_in_dim",
                       {b.made(b.literal("0", tensor_type({}, "i64"))), batch_extents}, bt);
        b.last().set("broadcast_dimensions", i64_array({}));
    }
    std::vector<std::int64_t> ishape(lrank, 1);
    ishape[ru] = lt.dims[ru];
    val iota;
    if (lt.dims[ru] < 0) { // dynamic_iota of [1, .., size of lhs's ragged dimension, .., 1]
        std::vector<val> parts;
        for (std::size_t d = 0; d < lrank; ++d)
            parts.push_back(d == ru ? extent1(b, lhs, d) : b.made(b.literal("1", tensor_type({1}, "i32"))));
        val ext = concat1(b, parts, "i32");
        iota = b.emit("stablehlo.dynamic_iota", {ext}, tensor_type(ishape, "i64"));
    } else {
        iota = b.emit("stablehlo.iota", {}, tensor_type(ishape, "i64"));
    }
    b.last().set("iota_dimension", int_attr(r));
    val zero = b.literal(zero_text(lt.elem), lt); // made where the first select takes it
    // v broadcast to lhs's shape (of i64) along `dims`
    auto to_lhs = [&](const val& v, const std::vector<std::int64_t>& dims) {
        val x = ldyn ? b.emit("stablehlo.dynamic_broadcast_in_dim", {v, b.like_shape()}, li)
                     : b.emit("stablehlo.broadcast_in_dim", {v}, li);
        b.last().set("broadcast_dimensions", i64_array(dims));
        return x;
    };
    val iota_b = to_lhs(iota, iota_vec(lrank));
    std::vector<std::int64_t> rbd = rb, rcd = rc;
    if (mode == 1) // rhs's dimensions once the group dimension is sliced away
        for (auto* v : {&rbd, &rcd})
            for (auto& d : *v)
                if (d > rg[0]) --d;
    // rdyn, mode 1: rhs's extents, and the shape of one group's rhs (the group dimension dropped)
    std::vector<val> rext;
    val rhs_group_shape;
    if (mode == 1 && rdyn) {
        std::vector<val> kept;
        for (std::size_t d = 0; d < rrank; ++d) {
            rext.push_back(extent1(b, rhs, d));
            if (d != gd) kept.push_back(rext.back());
        }
        rhs_group_shape = concat1(b, kept, "i32");
    }
    type part = ot; // mode 2: one group's result
    if (mode == 2) part.dims.erase(part.dims.begin());
    std::vector<val> parts;
    val out;
    for (std::int64_t i = 0; i < g; ++i) {
        std::vector<std::int64_t> s0(grank, 0), s1 = gt.dims, st(grank, 1);
        s0.back() = i;
        s1.back() = i + 1;
        std::vector<std::int64_t> sd = batch;
        sd.push_back(1);
        val sl, size;
        if (gdyn) { // real_dynamic_slice [0, .., i] to [the batch extents, i + 1]
            val startv = const_ints(b, s0, "i32");
            val lim = concat1(b, {batch_extents, const_ints(b, {i + 1}, "i32")}, "i32");
            val ones = b.made(b.literal("1", tensor_type({static_cast<std::int64_t>(grank)}, "i32")));
            sl = b.emit("stablehlo.real_dynamic_slice", {gs, startv, lim, ones}, tensor_type(sd, gt.elem));
            size = b.emit("stablehlo.dynamic_reshape", {sl, batch_extents}, tensor_type(batch, gt.elem));
        } else {
            sl = b.emit("stablehlo.slice", {gs}, tensor_type(sd, gt.elem));
            b.last().set("start_indices", i64_array(s0));
            b.last().set("limit_indices", i64_array(s1));
            b.last().set("strides", i64_array(st));
            size = b.emit("stablehlo.reshape", {sl}, tensor_type(batch, gt.elem));
        }
        if (gt.elem != "i64") size = b.convert(size, "i64");
        val limit = b.add(start, size);
        val ge = b.cmp(iota_b, to_lhs(start, iota_vec(batch.size())), "GE");
        val lt_ = b.cmp(iota_b, to_lhs(limit, iota_vec(batch.size())), "LT");
        val mask = b.emit("stablehlo.and", {ge, lt_}, ge.t);
        val masked = b.select(mask, lhs, zero);
        if (mode == 1) {
            std::vector<std::int64_t> r0(rrank, 0), r1 = rt.dims, rs(rrank, 1), sh = rt.dims;
            r0[gd] = i;
            r1[gd] = i + 1;
            sh[gd] = 1;
            val rsl, ri;
            std::vector<std::int64_t> gsh = sh;
            gsh.erase(gsh.begin() + static_cast<std::ptrdiff_t>(gd));
            if (rdyn) { // real_dynamic_slice [0, .., i, .., 0] to [rhs's extents, i + 1 at the group dimension]
                std::vector<val> lim = rext;
                lim[gd] = const_ints(b, {i + 1}, "i32");
                val limv = concat1(b, lim, "i32");
                val startv = const_ints(b, r0, "i32");
                val ones = b.made(b.literal("1", tensor_type({static_cast<std::int64_t>(rrank)}, "i32")));
                rsl = b.emit("stablehlo.real_dynamic_slice", {rhs, startv, limv, ones}, tensor_type(sh, rt.elem));
                ri = b.emit("stablehlo.dynamic_reshape", {rsl, rhs_group_shape}, tensor_type(gsh, rt.elem));
            } else {
                rsl = b.emit("stablehlo.slice", {rhs}, tensor_type(sh, rt.elem));
                b.last().set("start_indices", i64_array(r0));
                b.last().set("limit_indices", i64_array(r1));
                b.last().set("strides", i64_array(rs));
                ri = b.emit("stablehlo.reshape", {rsl}, tensor_type(gsh, rt.elem));
            }
            val d = dot(masked, ri, ot, rbd, rcd);
            out = i == 0 ? d : b.add(out, d);
        } else {
            val d = dot(masked, rhs, part, rb, rc);
            type one = part;
            one.dims.insert(one.dims.begin(), 1);
            if (part.is_static()) {
                parts.push_back(b.emit("stablehlo.reshape", {d}, one));
            } else { // dynamic_reshape to [1, the dot's extents]
                std::vector<val> ext{b.made(b.literal("1", tensor_type({1}, "i32")))};
                for (std::size_t e = 0; e < part.dims.size(); ++e)
                    ext.push_back(extent1(b, d, e));
                parts.push_back(b.emit("stablehlo.dynamic_reshape", {d, concat1(b, ext, "i32")}, one));
            }
        }
        start = limit;
    }
    if (mode == 2) {
        b.emit("stablehlo.concatenate", parts, ot);
        b.last().set("dimension", int_attr(0));
    }
    seq.back()->results[0] = o.results[0];
    return true;
}

bool scan(const op& o, const std::function<std::string(const std::string&)>& fresh,
          std::vector<std::unique_ptr<op>>& seq, std::string& why) {
    auto seg = int_list_of(o.get("operandSegmentSizes"));
    const attr* da = o.get("dimension");
    if (seg.size() != 2 || !da || o.regions.size() != 1 || o.regions[0].blocks.size() != 1) return false;
    const std::size_t m = static_cast<std::size_t>(seg[0]), k = static_cast<std::size_t>(seg[1]);
    if (seg[0] < 0 || seg[1] < 0 || m + k != o.operands.size() || o.operand_types.size() != m + k ||
        o.results.size() < k || o.result_types.size() != o.results.size())
        return false;
    const std::size_t n = o.results.size() - k;
    const block& body = o.regions[0].blocks[0];
    if (body.arg_names.size() != m + k || body.ops.empty() || body.ops.back()->name != "stablehlo.return" ||
        body.ops.back()->operands.size() != n + k)
        return false;
    for (auto* ts : {&o.operand_types, &o.result_types})
        for (auto& t : *ts)
            if (t.k != type::kind::tensor) return false;
    const std::int64_t dim = da->i;
    const std::size_t d = static_cast<std::size_t>(dim);
    for (std::size_t j = 0; j < m; ++j)
        if (dim < 0 || d >= o.operand_types[j].dims.size()) return false;
    for (std::size_t j = 0; j < n; ++j)
        if (dim < 0 || d >= o.result_types[j].dims.size()) return false;
    if (m == 0 && n == 0) return false;
    // On dynamic shapes (as upstream): N from the first input, a dynamic output zeroed through
    // dynamic_broadcast_in_dim to its extents (each dynamic one an input's), a dynamic input
    // sliced with real_dynamic_slice [.., pos, ..] to [.., pos + 1, ..]. Without inputs nothing
    // gives a dynamic output's extents: upstream refuses that scan too.
    for (std::size_t j = 0; j < n; ++j) {
        const type& t = o.result_types[j];
        if (t.is_static()) continue;
        if (m == 0) {
            why = "chlo.scan with no inputs and a dynamic result (upstream does not decompose it either)";
            return false;
        }
        const type& ref = o.operand_types[j < m ? j : 0]; // the input whose extents a dynamic output takes
        for (std::size_t e = 0; e < t.dims.size(); ++e)
            if (t.dims[e] < 0 && e != d && ref.dims.size() != t.dims.size()) {
                why = "chlo.scan on dynamic shapes: dimension " + std::to_string(e) + " of result " +
                      std::to_string(j) + " is dynamic and input " + std::to_string(j < m ? j : 0) +
                      " has another rank (upstream takes that input's shape for it)";
                return false;
            }
    }
    const loc at = o.at;
    const type i64 = tensor_type({}, "i64"), i32 = tensor_type({}, "i32");
    builder b(fresh, seq, at);
    // N, as an i64 scalar
    val size;
    if (m > 0) {
        size = b.emit("stablehlo.get_dimension_size", {{o.operands[0].name, o.operand_types[0], {}}}, i32);
        b.last().set("dimension", int_attr(dim));
    } else {
        size = b.emit("stablehlo.constant", {}, i32);
        attr v;
        v.k = attr::kind::dense;
        v.t = i32;
        v.elems = {std::to_string(o.result_types[0].dims[d])};
        b.last().set("value", v);
    }
    size = b.convert(size, "i64");
    // the while's operands: the counter, the inits, the outputs zeroed
    std::vector<val> ops{b.emit("stablehlo.constant", {}, i64)};
    {
        attr v;
        v.k = attr::kind::dense;
        v.t = i64;
        v.elems = {"0"};
        b.last().set("value", v);
    }
    for (std::size_t j = 0; j < k; ++j)
        ops.push_back({o.operands[m + j].name, o.operand_types[m + j], {}});
    for (std::size_t j = 0; j < n; ++j) {
        const type& t = o.result_types[j];
        val z = b.emit("stablehlo.constant", {}, tensor_type({}, t.elem));
        attr v;
        v.k = attr::kind::dense;
        v.t = tensor_type({}, t.elem);
        v.elems = {zero_text(t.elem)};
        b.last().set("value", v);
        if (t.is_static()) {
            ops.push_back(b.emit("stablehlo.broadcast_in_dim", {z}, t));
        } else { // the extents: static ones as constants, N, the others the reference input's
            const std::size_t ref = j < m ? j : 0;
            std::vector<val> ext;
            for (std::size_t e = 0; e < t.dims.size(); ++e)
                ext.push_back(
                    t.dims[e] >= 0
                        ? const_ints(b, {t.dims[e]}, "i32")
                        : extent1(b, {o.operands[e == d ? 0 : ref].name, o.operand_types[e == d ? 0 : ref], {}}, e));
            val shape = concat1(b, ext, "i32");
            ops.push_back(b.emit("stablehlo.dynamic_broadcast_in_dim", {z, shape}, t));
        }
        b.last().set("broadcast_dimensions", i64_array({}));
    }
    auto w = std::make_unique<op>();
    w->name = "stablehlo.while";
    w->at = at;
    for (auto& v : ops) {
        w->operands.push_back({v.name, at});
        w->operand_types.push_back(v.t);
        w->result_types.push_back(v.t);
    }
    // results: a fresh counter, then the carries and outputs under the scan's own names (the
    // caller's group-name fix renames what does not form a group)
    w->results.push_back(fresh("scan_i"));
    for (std::size_t j = 0; j < k; ++j)
        w->results.push_back(o.results[n + j]);
    for (std::size_t j = 0; j < n; ++j)
        w->results.push_back(o.results[j]);
    // cond: i < N
    {
        region r;
        r.blocks.emplace_back();
        block& cb = r.blocks[0];
        for (auto& v : ops) {
            cb.arg_names.push_back(fresh("scan_c"));
            cb.arg_types.push_back(v.t);
            cb.arg_locs.push_back(at);
        }
        builder c(fresh, cb.ops, at);
        val lt = c.cmp({cb.arg_names[0], i64, {}}, size, "LT");
        auto ret = std::make_unique<op>();
        ret->name = "stablehlo.return";
        ret->at = at;
        ret->operands.push_back({lt.name, at});
        ret->operand_types.push_back(lt.t);
        cb.ops.push_back(std::move(ret));
        w->regions.push_back(std::move(r));
    }
    // body
    {
        region r;
        r.blocks.emplace_back();
        block& bb = r.blocks[0];
        bb.arg_names.push_back(fresh("scan_i"));
        for (std::size_t j = 0; j < k; ++j)
            bb.arg_names.push_back(body.arg_names[m + j]); // the carries keep the body's names
        for (std::size_t j = 0; j < n; ++j)
            bb.arg_names.push_back(fresh("scan_out"));
        for (auto& v : ops)
            bb.arg_types.push_back(v.t);
        bb.arg_locs.assign(ops.size(), at);
        builder c(fresh, bb.ops, at);
        val i{bb.arg_names[0], i64, {}};
        val pos = i;
        if (o.get("is_reverse") && o.get("is_reverse")->b) {
            val last = c.sub(size, c.literal("1", i64));
            pos = c.sub(last, i);
        }
        val next; // pos + 1, the limit of a dynamic input's slice (made once)
        for (std::size_t j = 0; j < m; ++j) {
            const type& t = o.operand_types[j];
            const val x{o.operands[j].name, t, {}};
            std::vector<std::int64_t> sizes = t.dims;
            sizes[d] = 1;
            val s;
            if (t.is_static()) {
                std::vector<val> args{x};
                for (std::size_t e = 0; e < t.dims.size(); ++e)
                    args.push_back(e == d ? pos : c.literal("0", i64));
                s = c.emit("stablehlo.dynamic_slice", args, tensor_type(sizes, t.elem));
                c.last().set("slice_sizes", i64_array(sizes));
            } else { // real_dynamic_slice from [0, .., pos, .., 0] to [extents, with pos + 1 at d]
                const type one = tensor_type({1}, "i64");
                if (next.name.empty()) next = c.add(pos, c.literal("1", i64));
                std::vector<val> starts, limits;
                for (std::size_t e = 0; e < t.dims.size(); ++e)
                    starts.push_back(c.emit("stablehlo.reshape", {e == d ? pos : c.literal("0", i64)}, one));
                val startv = concat1(c, starts, "i64");
                for (std::size_t e = 0; e < t.dims.size(); ++e)
                    limits.push_back(e == d           ? c.emit("stablehlo.reshape", {next}, one)
                                     : t.dims[e] >= 0 ? const_ints(c, {t.dims[e]}, "i64")
                                                      : extent1(c, x, e, "i64"));
                val limitv = concat1(c, limits, "i64");
                val ones = c.made(c.literal("1", tensor_type({static_cast<std::int64_t>(t.dims.size())}, "i64")));
                s = c.emit("stablehlo.real_dynamic_slice", {x, startv, limitv, ones}, tensor_type(sizes, t.elem));
            }
            sizes.erase(sizes.begin() + dim);
            if (s.t.is_static()) {
                c.emit("stablehlo.reshape", {s}, tensor_type(sizes, t.elem));
            } else { // dynamic_reshape to the input's extents but d
                std::vector<val> ext;
                for (std::size_t e = 0; e < t.dims.size(); ++e)
                    if (e != d) ext.push_back(t.dims[e] >= 0 ? const_ints(c, {t.dims[e]}, "i32") : extent1(c, x, e));
                val shape = concat1(c, ext, "i32"); // not empty: s is dynamic off d
                c.emit("stablehlo.dynamic_reshape", {s, shape}, tensor_type(sizes, t.elem));
            }
            bb.ops.back()->results[0] = body.arg_names[j]; // the inputs' slices keep the body's names
        }
        const op& term = *body.ops.back();
        for (std::size_t q = 0; q + 1 < body.ops.size(); ++q)
            bb.ops.push_back(clone(*body.ops[q]));
        std::vector<val> yield{c.add(i, c.literal("1", i64))};
        for (std::size_t j = 0; j < k; ++j)
            yield.push_back({term.operands[n + j].name, o.operand_types[m + j], {}});
        for (std::size_t j = 0; j < n; ++j) {
            const type& t = o.result_types[j];
            std::vector<std::int64_t> one = t.dims;
            one[d] = 1;
            type et = term.operand_types.size() > j ? term.operand_types[j] : tensor_type({}, t.elem);
            const val cur{bb.arg_names[1 + k + j], t, {}};
            val e;
            if (tensor_type(one, t.elem).is_static()) {
                e = c.emit("stablehlo.reshape", {{term.operands[j].name, et, {}}}, tensor_type(one, t.elem));
            } else { // dynamic_reshape to the output's extents, 1 at d
                std::vector<val> ext;
                for (std::size_t x = 0; x < t.dims.size(); ++x)
                    ext.push_back(x == d || t.dims[x] >= 0 ? const_ints(c, {one[x]}, "i32") : extent1(c, cur, x));
                val shape = concat1(c, ext, "i32");
                e = c.emit("stablehlo.dynamic_reshape", {{term.operands[j].name, et, {}}, shape},
                           tensor_type(one, t.elem));
            }
            std::vector<val> args{cur, e};
            for (std::size_t x = 0; x < t.dims.size(); ++x)
                args.push_back(x == d ? pos : c.literal("0", i64));
            yield.push_back(c.emit("stablehlo.dynamic_update_slice", args, t));
        }
        auto ret = std::make_unique<op>();
        ret->name = "stablehlo.return";
        ret->at = at;
        for (auto& v : yield) {
            ret->operands.push_back({v.name, at});
            ret->operand_types.push_back(v.t);
        }
        bb.ops.push_back(std::move(ret));
        w->regions.push_back(std::move(r));
    }
    seq.push_back(std::move(w));
    return true;
}
} // namespace

bool chlo_decompose_math(const op& o, const std::function<std::string(const std::string&)>& fresh,
                         std::vector<std::unique_ptr<op>>& seq, std::string& /*why*/) {
    static const std::map<std::string, std::size_t> arity = {
        {"chlo.erf", 1},        {"chlo.erfc", 1},       {"chlo.erf_inv", 1},       {"chlo.lgamma", 1},
        {"chlo.digamma", 1},    {"chlo.bessel_i1e", 1}, {"chlo.polygamma", 2},     {"chlo.zeta", 2},
        {"chlo.next_after", 2}, {"chlo.mulhi", 2},      {"chlo.constant_like", 1}, {"chlo.constant", 0}};
    const std::string& n = o.name;
    auto it = arity.find(n);
    if (it == arity.end() || o.operands.size() != it->second || o.operand_types.size() != it->second ||
        o.results.size() != 1 || o.result_types.size() != 1)
        return false;
    const type& rt = o.result_types[0];
    if (rt.k != type::kind::tensor) return false;
    if (n == "chlo.constant") {
        const attr* v = o.get("value");
        if (!v) return false;
        auto c = std::make_unique<op>();
        c->name = "stablehlo.constant";
        c->results = o.results;
        c->result_types = o.result_types;
        c->attrs = o.attrs;
        c->at = o.at;
        seq.push_back(std::move(c));
        return true;
    }
    for (auto& t : o.operand_types)
        if (t.k != type::kind::tensor || (n != "chlo.constant_like" && (t.elem != rt.elem || t.dims != rt.dims)))
            return false;
    builder b(fresh, seq, o.at);
    if (n == "chlo.constant_like") {
        // a splat of the value, of the result's (static) type
        const attr* v = o.get("value");
        if (!v || (v->k != attr::kind::floating && v->k != attr::kind::integer && v->k != attr::kind::boolean))
            return false;
        std::string text = v->k == attr::kind::boolean ? (v->b ? "true" : "false") : v->s;
        if (text.empty()) text = std::to_string(v->i);
        // on a dynamic shape, the rank-0 constant broadcast to the operand's shape (as upstream)
        if (!rt.is_static() && o.operand_types[0].dims.size() != rt.dims.size()) return false;
        b.shape_from({o.operands[0].name, o.operand_types[0], {}});
        b.made(b.literal(text, rt));
        seq.back()->results[0] = o.results[0];
        return true;
    }
    std::vector<val> args;
    for (std::size_t k = 0; k < o.operands.size(); ++k)
        args.push_back({o.operands[k].name, o.operand_types[k], {}});
    b.shape_from(args[0]); // the constants of a dynamic type: of the first operand's shape
    const std::string& e = rt.elem;
    bool f64 = e == "f64";
    val r;
    if (n == "chlo.mulhi") {
        int bits = elem_bits(e);
        if (!is_integer_elem(e) || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return false;
        r = mulhi(b, args[0], args[1]);
    } else {
        if (!is_math_float(e)) return false;
        if (n == "chlo.next_after") {
            if (is_minifloat(e)) return false; // (their encodings have no common bit-step rule here)
            r = next_after(b, args[0], args[1]);
        } else if (n == "chlo.erf") {
            r = f64 ? erf_f64(b, args[0]) : upcast(b, args, [&](auto& a) { return erf_f32(b, a[0]); });
        } else if (n == "chlo.erfc") {
            r = f64 ? erfc_any<true>(b, args[0]) : upcast(b, args, [&](auto& a) { return erfc_any<false>(b, a[0]); });
        } else if (n == "chlo.erf_inv") {
            r = f64 ? erf_inv_f64(b, args[0]) : upcast(b, args, [&](auto& a) { return erf_inv_f32(b, a[0]); });
        } else if (n == "chlo.bessel_i1e") {
            r = f64 ? bessel_i1e_f64(b, args[0]) : upcast(b, args, [&](auto& a) { return bessel_i1e_f32(b, a[0]); });
        } else if (n == "chlo.lgamma") {
            r = upcast(b, args, [&](auto& a) { return lgamma(b, a[0]); });
        } else if (n == "chlo.digamma") {
            r = upcast(b, args, [&](auto& a) { return digamma(b, a[0]); });
        } else if (n == "chlo.zeta") {
            r = upcast(b, args, [&](auto& a) { return zeta(b, a[0], a[1]); });
        } else {
            r = upcast(b, args, [&](auto& a) { return polygamma(b, a[0], a[1]); });
        }
    }
    // the last op defines the result (every decomposition ends in a fresh op)
    if (seq.empty() || seq.back()->results[0] != r.name) b.emit("stablehlo.convert", {r}, rt);
    seq.back()->results[0] = o.results[0];
    return true;
}

std::string chlo_shape_of(const std::string& x, const type& t,
                          const std::function<std::string(const std::string&)>& fresh,
                          std::vector<std::unique_ptr<op>>& seq, loc at) {
    builder b(fresh, seq, at);
    return b.shape_of({x, t, {}}).name;
}

std::string chlo_splat_dynamic(const std::string& text, const type& t, const std::string& like, const type& like_t,
                               std::string& shape, const std::function<std::string(const std::string&)>& fresh,
                               std::vector<std::unique_ptr<op>>& seq, loc at) {
    builder b(fresh, seq, at);
    val extents{shape, tensor_type({static_cast<std::int64_t>(like_t.dims.size())}, "i32"), {}};
    if (shape.empty()) shape = (extents = b.shape_of({like, like_t, {}})).name;
    val c = b.made(b.literal(text, tensor_type({}, t.elem)));
    val v = b.emit("stablehlo.dynamic_broadcast_in_dim", {c, extents}, t);
    b.last().set("broadcast_dimensions", i64_array({}));
    return v.name;
}

bool chlo_broadcast_dynamic(const op& o, const std::function<std::string(const std::string&)>& fresh,
                            std::vector<std::unique_ptr<op>>& seq, std::vector<std::string>& names,
                            std::vector<type>& types, std::string& why) {
    if (o.results.empty() || o.result_types.empty() || o.operand_types.size() != o.operands.size()) return false;
    const type& rt = o.result_types[0];
    if (rt.k != type::kind::tensor) return false;
    const std::size_t rank = rt.dims.size();
    std::size_t low = rank; // the smallest operand rank
    for (auto& t : o.operand_types) {
        if (t.k != type::kind::tensor || t.dims.size() > rank) return false;
        low = std::min(low, t.dims.size());
    }
    // broadcast_dimensions: only numpy's left padding (upstream's isLegalNumpyRankedBroadcast)
    if (const attr* a = o.get("broadcast_dimensions"); a && low < rank) {
        std::vector<std::int64_t> bd = int_list_of(a), pad;
        for (std::size_t d = rank - low; d < rank; ++d)
            pad.push_back(static_cast<std::int64_t>(d));
        if (bd != pad) {
            why = o.name + " on dynamic shapes with broadcast_dimensions other than numpy's left padding (upstream "
                           "does not decompose it either)";
            return false;
        }
    }
    builder b(fresh, seq, o.at);
    // the result's extents: each operand's shape padded on the left with 1s to the result's rank,
    // the maximum of them per dimension
    val extents;
    for (std::size_t k = 0; k < o.operands.size(); ++k) {
        const type& t = o.operand_types[k];
        type ones = tensor_type({static_cast<std::int64_t>(rank - t.dims.size())}, "i32");
        val padded = t.dims.empty() ? b.made(b.literal("1", ones)) : b.shape_of({o.operands[k].name, t, {}});
        if (!t.dims.empty() && t.dims.size() < rank) {
            padded = b.emit("stablehlo.concatenate", {b.literal("1", ones), padded},
                            tensor_type({static_cast<std::int64_t>(rank)}, "i32"));
            b.last().set("dimension", int_attr(0));
        }
        extents = k == 0 ? padded : b.bin("maximum", extents, padded);
    }
    names.clear();
    types.clear();
    for (std::size_t k = 0; k < o.operands.size(); ++k) {
        const type& t = o.operand_types[k];
        if (t.dims.empty() && o.name == "chlo.broadcast_select" && k == 0) { // a scalar predicate stays one
            names.push_back(o.operands[k].name);
            types.push_back(t);
            continue;
        }
        type want = rt;
        want.elem = t.elem;
        std::vector<std::int64_t> dims;
        for (std::size_t d = rank - t.dims.size(); d < rank; ++d)
            dims.push_back(static_cast<std::int64_t>(d));
        val v = b.emit("stablehlo.dynamic_broadcast_in_dim", {{o.operands[k].name, t, {}}, extents}, want);
        b.last().set("broadcast_dimensions", i64_array(dims));
        names.push_back(v.name);
        types.push_back(want);
    }
    return true;
}

bool chlo_decompose_ragged_dot_scan(op& o, const std::function<std::string(const std::string&)>& fresh,
                                    std::vector<std::unique_ptr<op>>& seq, std::string& why) {
    if (o.name == "chlo.ragged_dot") {
        builder b(fresh, seq, o.at);
        std::size_t before = seq.size();
        if (ragged_dot(o, b, seq, why)) return true;
        seq.resize(before);
        return false;
    }
    if (o.name == "chlo.scan") return scan(o, fresh, seq, why);
    return false;
}

} // namespace xlt
