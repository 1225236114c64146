// xlet_ref: a deliberately naive reference evaluator for the XLA elementwise ops.
//
// Test code only. Dynamic shapes, std::vector storage, plain index loops, <cmath>/<complex>.
// Element semantics follow docs/semantics.md; it is written independently of include/xlet
// (only xlet/core/float16.hpp is used, for the f16/bf16 storage types).
//
// Conventions:
//  * array<T> is row-major; a rank-0 array (dims == {}) holds one element.
//  * f16/bf16 (xlet::half, xlet::bfloat16) are storage types: each op converts its operands to
//    float, computes in float and constructs the storage type from the float result once.
//  * An invalid shape combination, or an op that is not defined for the element type, throws
//    std::invalid_argument.
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xlet/core/float16.hpp>

namespace xlet_ref {

using dims_t = std::vector<std::int64_t>;

[[noreturn]] inline void fail(const std::string& what) { throw std::invalid_argument("xlet_ref: " + what); }

// ---------------------------------------------------------------------------------------------
// Element type classification
// ---------------------------------------------------------------------------------------------
template <class T>
inline constexpr bool is_storage_float_v = std::is_same_v<T, xlet::half> || std::is_same_v<T, xlet::bfloat16>;
template <class T>
inline constexpr bool is_complex_v = false;
template <class F>
inline constexpr bool is_complex_v<std::complex<F>> = true;
template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_storage_float_v<T>;
template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool dependent_false_v = false;

template <class T>
struct real_type {
    using type = T;
};
template <class F>
struct real_type<std::complex<F>> {
    using type = F;
};
template <class T>
using real_t = typename real_type<T>::type; // c64 -> float, others unchanged

// ---------------------------------------------------------------------------------------------
// array
// ---------------------------------------------------------------------------------------------
inline std::int64_t element_count(const dims_t& dims) {
    std::int64_t n = 1;
    for (std::int64_t d : dims) {
        if (d < 0) fail("negative dimension size");
        n *= d;
    }
    return n;
}

// Row-major offset of a multi-index.
inline std::int64_t flatten(const dims_t& idx, const dims_t& dims) {
    if (idx.size() != dims.size()) fail("index rank does not match array rank");
    std::int64_t off = 0;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        if (idx[k] < 0 || idx[k] >= dims[k]) fail("index out of range");
        off = off * dims[k] + idx[k];
    }
    return off;
}

// Multi-index of a row-major offset.
inline dims_t unflatten(std::int64_t flat, const dims_t& dims) {
    dims_t idx(dims.size());
    for (std::size_t k = dims.size(); k-- > 0;) {
        idx[k] = flat % dims[k];
        flat /= dims[k];
    }
    return idx;
}

template <class T>
struct array {
    dims_t dims;
    std::vector<T> data;

    array() : dims{}, data(1) {} // rank 0, value-initialised element
    array(dims_t d, std::vector<T> v) : dims(std::move(d)), data(std::move(v)) {
        if (element_count(dims) != static_cast<std::int64_t>(data.size()))
            fail("data size does not match the element count of dims");
    }

    std::int64_t size() const { return element_count(dims); }
    std::int64_t rank() const { return static_cast<std::int64_t>(dims.size()); }
    typename std::vector<T>::reference at(const dims_t& idx) {
        return data[static_cast<std::size_t>(flatten(idx, dims))];
    }
    typename std::vector<T>::const_reference at(const dims_t& idx) const {
        return data[static_cast<std::size_t>(flatten(idx, dims))];
    }

    // Value equality (IEEE: NaN != NaN, -0 == +0). See identical() for bitwise equality.
    friend bool operator==(const array& a, const array& b) { return a.dims == b.dims && a.data == b.data; }
};

template <class T>
array<T> scalar(T v) {
    return array<T>({}, {v});
}

// Same dims and bit-identical elements (distinguishes -0/+0, NaN payloads).
template <class T>
bool identical(const array<T>& a, const array<T>& b) {
    if (a.dims != b.dims) return false;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        T x = a.data[i], y = b.data[i];
        if constexpr (std::is_same_v<T, bool>) {
            if (x != y) return false;
        } else if (std::memcmp(&x, &y, sizeof(T)) != 0) {
            return false;
        }
    }
    return true;
}

template <class T>
std::ostream& operator<<(std::ostream& os, const array<T>& a) {
    os << "[";
    for (std::size_t k = 0; k < a.dims.size(); ++k)
        os << (k ? "," : "") << a.dims[k];
    os << "]{";
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        if (i) os << ", ";
        if constexpr (std::is_integral_v<T>)
            os << +a.data[i]; // s8/u8/pred as numbers
        else
            os << a.data[i];
    }
    return os << "}";
}

// Applies f to every element.
template <class R, class T, class F>
array<R> map(const array<T>& a, F f) {
    std::vector<R> out;
    out.reserve(a.data.size());
    for (std::size_t i = 0; i < a.data.size(); ++i)
        out.push_back(f(static_cast<T>(a.data[i])));
    return array<R>(a.dims, std::move(out));
}

// Applies f to pairs of elements of two arrays of identical shape.
template <class R, class A, class B, class F>
array<R> zip(const array<A>& a, const array<B>& b, F f) {
    if (a.dims != b.dims) fail("zip: shapes differ");
    std::vector<R> out;
    out.reserve(a.data.size());
    for (std::size_t i = 0; i < a.data.size(); ++i)
        out.push_back(f(static_cast<A>(a.data[i]), static_cast<B>(b.data[i])));
    return array<R>(a.dims, std::move(out));
}

// ---------------------------------------------------------------------------------------------
// Broadcasting
// ---------------------------------------------------------------------------------------------

// BroadcastInDim: operand dimension i maps to output dimension bdims[i]; it must have size 1 or
// the output's size there. Unmapped output dimensions replicate the operand.
template <class T>
array<T> broadcast_in_dim(const array<T>& a, const dims_t& out_dims, const dims_t& bdims) {
    if (static_cast<std::int64_t>(bdims.size()) != a.rank()) fail("broadcast_dimensions size != operand rank");
    const auto out_rank = static_cast<std::int64_t>(out_dims.size());
    for (std::size_t i = 0; i < bdims.size(); ++i) {
        if (bdims[i] < 0 || bdims[i] >= out_rank) fail("broadcast dimension out of range");
        for (std::size_t j = 0; j < i; ++j)
            if (bdims[j] == bdims[i]) fail("broadcast dimensions are not unique");
        const std::int64_t od = out_dims[static_cast<std::size_t>(bdims[i])];
        if (a.dims[i] != 1 && a.dims[i] != od) fail("operand dimension is neither 1 nor the output size");
    }
    const std::int64_t n = element_count(out_dims);
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(n));
    for (std::int64_t flat = 0; flat < n; ++flat) {
        const dims_t o = unflatten(flat, out_dims);
        dims_t src(a.dims.size());
        for (std::size_t i = 0; i < a.dims.size(); ++i)
            src[i] = (a.dims[i] == 1) ? 0 : o[static_cast<std::size_t>(bdims[i])];
        out.push_back(a.at(src));
    }
    return array<T>(out_dims, std::move(out));
}

inline dims_t identity_dims(std::size_t rank) {
    dims_t d(rank);
    for (std::size_t i = 0; i < rank; ++i)
        d[i] = static_cast<std::int64_t>(i);
    return d;
}

// Degenerate-dimension broadcasting of two same-rank shapes: sizes equal, or one of them is 1.
inline std::int64_t degenerate_dim(std::int64_t a, std::int64_t b) {
    if (a == b) return a;
    if (a == 1) return b;
    if (b == 1) return a;
    fail("incompatible dimension sizes " + std::to_string(a) + " and " + std::to_string(b));
}

// Broadcasts both operands of a binary op to the common shape (no broadcast_dimensions):
// equal shapes, a scalar operand, or same rank with degenerate (size 1) dimensions.
template <class A, class B>
std::pair<array<A>, array<B>> broadcast_pair(const array<A>& l, const array<B>& r) {
    if (l.dims == r.dims) return {l, r};
    if (l.rank() == 0) return {broadcast_in_dim(l, r.dims, {}), r};
    if (r.rank() == 0) return {l, broadcast_in_dim(r, l.dims, {})};
    if (l.rank() != r.rank()) fail("operands of different rank need broadcast_dimensions");
    dims_t out(l.dims.size());
    for (std::size_t d = 0; d < out.size(); ++d)
        out[d] = degenerate_dim(l.dims[d], r.dims[d]);
    const dims_t id = identity_dims(out.size());
    return {broadcast_in_dim(l, out, id), broadcast_in_dim(r, out, id)};
}

// With explicit broadcast_dimensions: the lower-rank operand's dimension i maps to dimension
// bdims[i] of the higher-rank one; then degenerate broadcasting. Equal ranks: bdims must be
// empty or the identity.
template <class A, class B>
std::pair<array<A>, array<B>> broadcast_pair(const array<A>& l, const array<B>& r, const dims_t& bdims) {
    if (l.rank() == r.rank()) {
        if (!bdims.empty() && bdims != identity_dims(l.dims.size()))
            fail("broadcast_dimensions must be empty or the identity for operands of equal rank");
        return broadcast_pair(l, r);
    }
    const bool l_low = l.rank() < r.rank();
    const dims_t& low = l_low ? l.dims : r.dims;
    const dims_t& high = l_low ? r.dims : l.dims;
    if (bdims.size() != low.size()) fail("broadcast_dimensions size != rank of the lower-rank operand");
    dims_t out = high;
    for (std::size_t i = 0; i < bdims.size(); ++i) {
        if (bdims[i] < 0 || bdims[i] >= static_cast<std::int64_t>(high.size()))
            fail("broadcast dimension out of range");
        const auto d = static_cast<std::size_t>(bdims[i]);
        out[d] = degenerate_dim(low[i], high[d]);
    }
    const dims_t id = identity_dims(high.size());
    if (l_low) return {broadcast_in_dim(l, out, bdims), broadcast_in_dim(r, out, id)};
    return {broadcast_in_dim(l, out, id), broadcast_in_dim(r, out, bdims)};
}

// ---------------------------------------------------------------------------------------------
// Op enums
// ---------------------------------------------------------------------------------------------
// Same-type unary ops. abs, real, imag, is_finite are separate functions (result type differs).
// clang-format off
enum class unop {
    cbrt, ceil, clz, cos, cosh, erf, exp, expm1, floor, log, log1p, logistic, neg, not_, popcnt,
    round, round_nearest_even, rsqrt, sign, sin, sqrt, tan, tanh
};
enum class binop {
    add, sub, mul, div, rem, max, min, pow, atan2, and_, or_, xor_,
    shift_left, shift_right_arithmetic, shift_right_logical
};
enum class cmpop { eq, ne, ge, gt, le, lt, eq_total, ne_total, ge_total, gt_total, le_total, lt_total };
// clang-format on

// ---------------------------------------------------------------------------------------------
// Element functions: integers (all arithmetic done in std::uint64_t, which wraps; the final
// conversion to a narrower type is modular in C++20, so there is no undefined behaviour).
// ---------------------------------------------------------------------------------------------
template <class I>
I wrap(std::uint64_t v) {
    return static_cast<I>(v);
}
template <class I>
std::uint64_t u64(I v) {
    return static_cast<std::uint64_t>(v);
}
template <class I>
constexpr std::uint64_t bit_width_of() {
    return sizeof(I) * 8;
}

template <class I>
I int_abs(I x) {
    if constexpr (std::is_signed_v<I>) {
        if (x < 0) return wrap<I>(0 - u64(x));
    }
    return x;
}

template <class I>
I int_unary(unop op, I x) {
    using U = std::make_unsigned_t<I>;
    switch (op) {
    case unop::neg:
        return wrap<I>(0 - u64(x));
    case unop::not_:
        return wrap<I>(~u64(x));
    case unop::clz:
        return static_cast<I>(std::countl_zero(static_cast<U>(x)));
    case unop::popcnt:
        return static_cast<I>(std::popcount(static_cast<U>(x)));
    case unop::sign:
        if (x > 0) return I(1);
        if constexpr (std::is_signed_v<I>) {
            if (x < 0) return I(-1);
        }
        return I(0);
    default:
        fail("unary op not defined for integers");
    }
}

template <class I>
I int_pow(I base, I e) {
    if constexpr (std::is_signed_v<I>) {
        if (e < 0) {
            if (base == 1) return I(1);
            if (base == -1) return (e % 2 == 0) ? I(1) : I(-1);
            return I(0);
        }
    }
    std::uint64_t result = 1, b = u64(base), n = u64(e);
    while (n != 0) { // exponentiation by squaring, modulo 2^64
        if (n & 1) result *= b;
        b *= b;
        n >>= 1;
    }
    return wrap<I>(result);
}

template <class I>
I int_binary(binop op, I a, I b) {
    using U = std::make_unsigned_t<I>;
    using S = std::make_signed_t<I>;
    const std::uint64_t amount = static_cast<U>(b); // shift amount read as unsigned
    const bool amount_in_range = amount < bit_width_of<I>();
    switch (op) {
    case binop::add:
        return wrap<I>(u64(a) + u64(b));
    case binop::sub:
        return wrap<I>(u64(a) - u64(b));
    case binop::mul:
        return wrap<I>(u64(a) * u64(b));
    case binop::div:
        if (b == 0) return static_cast<I>(-1); // all bits set
        if constexpr (std::is_signed_v<I>) {
            constexpr I lowest = std::numeric_limits<I>::lowest();
            if (a == lowest && b == -1) return lowest;
        }
        return static_cast<I>(a / b);
    case binop::rem:
        if (b == 0) return a;
        if constexpr (std::is_signed_v<I>) {
            if (a == std::numeric_limits<I>::lowest() && b == -1) return I(0);
        }
        return static_cast<I>(a % b);
    case binop::max:
        return a > b ? a : b;
    case binop::min:
        return a < b ? a : b;
    case binop::pow:
        return int_pow(a, b);
    case binop::and_:
        return static_cast<I>(a & b);
    case binop::or_:
        return static_cast<I>(a | b);
    case binop::xor_:
        return static_cast<I>(a ^ b);
    case binop::shift_left:
        return amount_in_range ? wrap<I>(u64(static_cast<U>(a)) << amount) : I(0);
    case binop::shift_right_logical:
        return amount_in_range ? wrap<I>(u64(static_cast<U>(a)) >> amount) : I(0);
    case binop::shift_right_arithmetic: {
        const S s = static_cast<S>(a); // the two's complement bits read as signed
        if (!amount_in_range) return static_cast<I>(s < 0 ? S(-1) : S(0));
        return static_cast<I>(static_cast<S>(s >> amount)); // C++20: arithmetic shift
    }
    default:
        fail("binary op not defined for integers");
    }
}

// ---------------------------------------------------------------------------------------------
// Element functions: pred
// ---------------------------------------------------------------------------------------------
inline bool bool_unary(unop op, bool x) {
    if (op == unop::not_) return !x;
    fail("unary op not defined for pred");
}

inline bool bool_binary(binop op, bool a, bool b) {
    switch (op) {
    case binop::add:
    case binop::or_:
    case binop::max:
        return a || b;
    case binop::mul:
    case binop::and_:
    case binop::min:
        return a && b;
    case binop::xor_:
        return a != b;
    default:
        fail("binary op not defined for pred");
    }
}

// ---------------------------------------------------------------------------------------------
// Element functions: float, double (f16/bf16 come here as float)
// ---------------------------------------------------------------------------------------------
template <class F>
F round_half_even(F x) {
    if (!std::isfinite(x)) return x;
    const F lo = std::floor(x);
    const F frac = x - lo; // exact, in [0, 1)
    F r;
    if (frac < F(0.5))
        r = lo;
    else if (frac > F(0.5))
        r = lo + 1;
    else
        r = (std::fmod(lo, F(2)) == 0) ? lo : lo + 1;
    return std::copysign(r, x); // a zero result keeps the sign of x
}

template <class F>
F float_unary(unop op, F x) {
    switch (op) {
    case unop::cbrt:
        return std::cbrt(x);
    case unop::ceil:
        return std::ceil(x);
    case unop::cos:
        return std::cos(x);
    case unop::cosh:
        return std::cosh(x);
    case unop::erf:
        return std::erf(x);
    case unop::exp:
        return std::exp(x);
    case unop::expm1:
        return std::expm1(x);
    case unop::floor:
        return std::floor(x);
    case unop::log:
        return std::log(x);
    case unop::log1p:
        return std::log1p(x);
    case unop::logistic:
        return F(1) / (F(1) + std::exp(-x));
    case unop::neg:
        return -x;
    case unop::round:
        return std::round(x); // ties away from zero
    case unop::round_nearest_even:
        return round_half_even(x);
    case unop::rsqrt:
        return F(1) / std::sqrt(x);
    case unop::sign:
        if (x < 0) return F(-1);
        if (x > 0) return F(1);
        return x; // -0, +0, NaN
    case unop::sin:
        return std::sin(x);
    case unop::sqrt:
        return std::sqrt(x);
    case unop::tan:
        return std::tan(x);
    case unop::tanh:
        return std::tanh(x);
    default:
        fail("unary op not defined for floating point");
    }
}

template <class F>
F float_binary(binop op, F a, F b) {
    switch (op) {
    case binop::add:
        return a + b;
    case binop::sub:
        return a - b;
    case binop::mul:
        return a * b;
    case binop::div:
        return a / b;
    case binop::rem:
        return std::fmod(a, b);
    case binop::pow:
        return std::pow(a, b);
    case binop::atan2:
        return std::atan2(a, b);
    case binop::max:
    case binop::min: {
        if (std::isnan(a)) return a;
        if (std::isnan(b)) return b;
        if (a == b) { // equal values; differ at most in the sign of zero
            const bool pick_a = (op == binop::max) ? !std::signbit(a) : std::signbit(a);
            return pick_a ? a : b;
        }
        if (op == binop::max) return a > b ? a : b;
        return a < b ? a : b;
    }
    default:
        fail("binary op not defined for floating point");
    }
}

// ---------------------------------------------------------------------------------------------
// Element functions: complex<float>, complex<double>
// ---------------------------------------------------------------------------------------------
template <class F>
std::complex<F> complex_unary(unop op, std::complex<F> z) {
    using C = std::complex<F>;
    const F x = z.real(), y = z.imag();
    switch (op) {
    case unop::cos:
        return std::cos(z);
    case unop::cosh:
        return std::cosh(z);
    case unop::exp:
        return std::exp(z);
    case unop::expm1: { // exp(z) - 1 without cancellation for small z
        if (y == 0) return C(std::expm1(x), y);
        const F s = std::sin(y / 2);
        return C(std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y));
    }
    case unop::log:
        return std::log(z);
    case unop::log1p: { // log(1 + z) without cancellation for small z
        if (std::abs(x) < F(0.5) && std::abs(y) < F(0.5))
            return C(std::log1p(x * (2 + x) + y * y) / 2, std::atan2(y, 1 + x));
        return std::log(C(1) + z);
    }
    case unop::logistic:
        return C(1) / (C(1) + std::exp(-z));
    case unop::neg:
        return -z;
    case unop::rsqrt:
        return C(1) / std::sqrt(z);
    case unop::sign:
        return (z == C(0)) ? C(0) : z / std::abs(z);
    case unop::sin:
        return std::sin(z);
    case unop::sqrt:
        return std::sqrt(z);
    case unop::tan:
        return std::tan(z);
    case unop::tanh:
        return std::tanh(z);
    default:
        fail("unary op not defined for complex");
    }
}

template <class F>
std::complex<F> complex_binary(binop op, std::complex<F> a, std::complex<F> b) {
    using C = std::complex<F>;
    switch (op) {
    case binop::add:
        return a + b;
    case binop::sub:
        return a - b;
    case binop::mul:
        return a * b;
    case binop::div:
        return a / b;
    case binop::pow:
        return std::pow(a, b);
    case binop::atan2: { // atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), y = a, x = b
        const C i(0, 1);
        return -i * std::log((b + i * a) / std::sqrt(b * b + a * a));
    }
    default:
        fail("binary op not defined for complex");
    }
}

// ---------------------------------------------------------------------------------------------
// Element dispatch
// ---------------------------------------------------------------------------------------------
template <class T>
T unary_elem(unop op, T x) {
    if constexpr (is_storage_float_v<T>)
        return T(float_unary<float>(op, static_cast<float>(x)));
    else if constexpr (std::is_floating_point_v<T>)
        return float_unary<T>(op, x);
    else if constexpr (is_complex_v<T>)
        return complex_unary(op, x);
    else if constexpr (std::is_same_v<T, bool>)
        return bool_unary(op, x);
    else if constexpr (is_int_v<T>)
        return int_unary<T>(op, x);
    else
        static_assert(dependent_false_v<T>, "unsupported element type");
}

template <class T>
T binary_elem(binop op, T a, T b) {
    if constexpr (is_storage_float_v<T>)
        return T(float_binary<float>(op, static_cast<float>(a), static_cast<float>(b)));
    else if constexpr (std::is_floating_point_v<T>)
        return float_binary<T>(op, a, b);
    else if constexpr (is_complex_v<T>)
        return complex_binary(op, a, b);
    else if constexpr (std::is_same_v<T, bool>)
        return bool_binary(op, a, b);
    else if constexpr (is_int_v<T>)
        return int_binary<T>(op, a, b);
    else
        static_assert(dependent_false_v<T>, "unsupported element type");
}

// The raw bits of a float type, as an unsigned integer of the same width.
template <class T>
auto float_bits(T x) {
    using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                    std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    static_assert(sizeof(T) == sizeof(Bits) && std::is_trivially_copyable_v<T>);
    Bits b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// Key whose unsigned order is the total order -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN
// (NaNs of the same sign ordered by payload, larger payload further from zero).
template <class T>
auto total_order_key(T x) {
    const auto b = float_bits(x);
    using Bits = decltype(b);
    const Bits sign = static_cast<Bits>(Bits(1) << (sizeof(Bits) * 8 - 1));
    return static_cast<Bits>((b & sign) ? ~b : (b | sign));
}

template <class V>
bool ordered_compare(cmpop op, const V& a, const V& b) {
    switch (op) {
    case cmpop::eq:
    case cmpop::eq_total:
        return a == b;
    case cmpop::ne:
    case cmpop::ne_total:
        return a != b;
    case cmpop::ge:
    case cmpop::ge_total:
        return a >= b;
    case cmpop::gt:
    case cmpop::gt_total:
        return a > b;
    case cmpop::le:
    case cmpop::le_total:
        return a <= b;
    case cmpop::lt:
    case cmpop::lt_total:
        return a < b;
    }
    fail("unknown comparison");
}

inline bool is_total(cmpop op) { return op >= cmpop::eq_total; }

template <class T>
bool compare_elem(cmpop op, T a, T b) {
    if constexpr (is_float_v<T>) {
        if (is_total(op)) return ordered_compare(op, total_order_key(a), total_order_key(b));
        if constexpr (is_storage_float_v<T>)
            return ordered_compare(op, static_cast<float>(a), static_cast<float>(b));
        else
            return ordered_compare(op, a, b); // IEEE: NaN unordered, -0 == +0
    } else if constexpr (is_complex_v<T>) {
        const bool eq = is_total(op) ? (compare_elem(cmpop::eq_total, a.real(), b.real()) &&
                                        compare_elem(cmpop::eq_total, a.imag(), b.imag()))
                                     : (a == b);
        if (op == cmpop::eq || op == cmpop::eq_total) return eq;
        if (op == cmpop::ne || op == cmpop::ne_total) return !eq;
        fail("ordered comparison not defined for complex");
    } else {
        return ordered_compare(op, a, b); // integers; pred with false < true
    }
}

// ConvertElementType on one element.
template <class U, class T>
U convert_elem(T x) {
    if constexpr (std::is_same_v<U, T>) {
        return x;
    } else if constexpr (is_complex_v<T> && !is_complex_v<U> && !std::is_same_v<U, bool>) {
        return convert_elem<U>(x.real()); // StableHLO: the imaginary part is ignored
    } else if constexpr (std::is_same_v<U, bool>) {
        if constexpr (is_storage_float_v<T>)
            return static_cast<float>(x) != 0.0f;
        else
            return x != T(0); // NaN -> true
    } else if constexpr (std::is_same_v<T, bool>) {
        return convert_elem<U>(static_cast<int>(x ? 1 : 0));
    } else if constexpr (is_complex_v<U>) {
        using R = typename U::value_type;
        if constexpr (is_complex_v<T>)
            return U(static_cast<R>(x.real()), static_cast<R>(x.imag()));
        else
            return U(convert_elem<R>(x), R(0));
    } else if constexpr (is_int_v<U>) {
        if constexpr (is_int_v<T>) {
            return static_cast<U>(x); // modular (C++20)
        } else {                      // float -> int: truncate, saturate, NaN -> 0
            double v;
            if constexpr (is_storage_float_v<T>)
                v = std::trunc(static_cast<double>(static_cast<float>(x)));
            else
                v = std::trunc(static_cast<double>(x));
            if (std::isnan(v)) return U(0);
            constexpr U lo = std::numeric_limits<U>::lowest(), hi = std::numeric_limits<U>::max();
            if (v <= static_cast<double>(lo)) return lo;
            if (v >= static_cast<double>(hi)) return hi; // double(hi) may round up to 2^bits
            return static_cast<U>(v);
        }
    } else if constexpr (is_float_v<U>) {
        if constexpr (is_storage_float_v<T>)
            return static_cast<U>(static_cast<float>(x)); // f16 -> f32 is exact
        else
            return static_cast<U>(x); // one rounding, to nearest even
    } else {
        static_assert(dependent_false_v<U>, "unsupported conversion");
    }
}

// ReducePrecision on the bits of the operand's own type (XLA's algorithm; f16/bf16 included).
template <class F>
F reduce_precision_native(F x, int exponent_bits, int mantissa_bits) {
    static_assert(std::is_same_v<F, float> || std::is_same_v<F, double> || std::is_same_v<F, xlet::half> ||
                  std::is_same_v<F, xlet::bfloat16>);
    if (std::isnan(static_cast<double>(x))) return x; // NaN stays NaN
    using Bits = std::conditional_t<sizeof(F) == 2, std::uint16_t, std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>>;
    auto b = std::bit_cast<Bits>(x);
    constexpr int width = sizeof(F) * 8;
    constexpr int src_mantissa = std::numeric_limits<F>::digits - 1; // 10 / 7 / 23 / 52
    constexpr int src_exponent = width - 1 - src_mantissa;           // 5 / 8 / 8 / 11
    if (mantissa_bits < src_mantissa) {
        // Round to nearest, ties to even, at bit position `shift`: add half an ulp minus one, plus
        // the lowest kept bit, then clear the dropped bits. A carry may run into the exponent.
        const int shift = src_mantissa - mantissa_bits;
        const Bits last_kept = static_cast<Bits>(Bits(1) << shift);
        const Bits lowest_kept_bit = static_cast<Bits>((b >> shift) & 1);
        const Bits bias = static_cast<Bits>((last_kept >> 1) - 1 + lowest_kept_bit);
        b = static_cast<Bits>((b + bias) & ~static_cast<Bits>(last_kept - 1));
    }
    if (exponent_bits < src_exponent) {
        const Bits sign_mask = static_cast<Bits>(Bits(1) << (width - 1));
        const Bits exp_mask = static_cast<Bits>(((Bits(1) << src_exponent) - 1) << src_mantissa);
        const std::int64_t bias = (std::int64_t(1) << (src_exponent - 1)) - 1;
        const std::int64_t reduced_bias = (std::int64_t(1) << (exponent_bits - 1)) - 1;
        const auto biased_exp = static_cast<std::int64_t>((b & exp_mask) >> src_mantissa);
        if (biased_exp > bias + reduced_bias)
            b = static_cast<Bits>((b & sign_mask) | exp_mask); // +-inf
        else if (biased_exp <= bias - reduced_bias)
            b = static_cast<Bits>(b & sign_mask); // +-0
    }
    return std::bit_cast<F>(b);
}

// ---------------------------------------------------------------------------------------------
// Array-level operations
// ---------------------------------------------------------------------------------------------
template <class T>
array<T> unary(unop op, const array<T>& a) {
    return map<T>(a, [op](T x) { return unary_elem<T>(op, x); });
}

// abs: integers wrap (abs(INT_MIN) == INT_MIN); complex -> real magnitude.
template <class T>
array<real_t<T>> abs(const array<T>& a) {
    return map<real_t<T>>(a, [](T x) -> real_t<T> {
        if constexpr (is_complex_v<T>)
            return std::abs(x);
        else if constexpr (is_storage_float_v<T>)
            return T(std::fabs(static_cast<float>(x)));
        else if constexpr (std::is_floating_point_v<T>)
            return std::fabs(x);
        else if constexpr (is_int_v<T>)
            return int_abs(x);
        else
            fail("abs not defined for pred");
    });
}

template <class T>
array<real_t<T>> real(const array<T>& a) {
    static_assert(is_float_v<T> || is_complex_v<T>, "real: floating point or complex operand");
    return map<real_t<T>>(a, [](T x) -> real_t<T> {
        if constexpr (is_complex_v<T>)
            return x.real();
        else
            return x;
    });
}

template <class T>
array<real_t<T>> imag(const array<T>& a) {
    static_assert(is_float_v<T> || is_complex_v<T>, "imag: floating point or complex operand");
    return map<real_t<T>>(a, [](T x) -> real_t<T> {
        if constexpr (is_complex_v<T>)
            return x.imag();
        else
            return real_t<T>(0.0f);
    });
}

template <class T>
array<bool> is_finite(const array<T>& a) {
    static_assert(is_float_v<T>, "is_finite: floating point operand");
    return map<bool>(a, [](T x) {
        if constexpr (is_storage_float_v<T>)
            return std::isfinite(static_cast<float>(x));
        else
            return std::isfinite(x);
    });
}

template <class T>
array<T> binary(binop op, const array<T>& lhs, const array<T>& rhs) {
    auto [l, r] = broadcast_pair(lhs, rhs);
    return zip<T>(l, r, [op](T a, T b) { return binary_elem<T>(op, a, b); });
}
template <class T>
array<T> binary(binop op, const array<T>& lhs, const array<T>& rhs, const dims_t& bdims) {
    auto [l, r] = broadcast_pair(lhs, rhs, bdims);
    return zip<T>(l, r, [op](T a, T b) { return binary_elem<T>(op, a, b); });
}

// complex(real, imag): f32 x f32 -> c64, f64 x f64 -> c128.
template <class F>
array<std::complex<F>> complex(const array<F>& re, const array<F>& im) {
    static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>, "complex: f32 or f64 parts");
    auto [l, r] = broadcast_pair(re, im);
    return zip<std::complex<F>>(l, r, [](F a, F b) { return std::complex<F>(a, b); });
}
template <class F>
array<std::complex<F>> complex(const array<F>& re, const array<F>& im, const dims_t& bdims) {
    static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>, "complex: f32 or f64 parts");
    auto [l, r] = broadcast_pair(re, im, bdims);
    return zip<std::complex<F>>(l, r, [](F a, F b) { return std::complex<F>(a, b); });
}

template <class T>
array<bool> compare(cmpop op, const array<T>& lhs, const array<T>& rhs) {
    auto [l, r] = broadcast_pair(lhs, rhs);
    return zip<bool>(l, r, [op](T a, T b) { return compare_elem<T>(op, a, b); });
}
template <class T>
array<bool> compare(cmpop op, const array<T>& lhs, const array<T>& rhs, const dims_t& bdims) {
    auto [l, r] = broadcast_pair(lhs, rhs, bdims);
    return zip<bool>(l, r, [op](T a, T b) { return compare_elem<T>(op, a, b); });
}

// select: on_true and on_false have the same shape; pred has that shape or is a scalar.
template <class T>
array<T> select(const array<bool>& pred, const array<T>& on_true, const array<T>& on_false) {
    if (on_true.dims != on_false.dims) fail("select: on_true and on_false shapes differ");
    if (pred.rank() == 0) return pred.data[0] ? on_true : on_false;
    if (pred.dims != on_true.dims) fail("select: pred shape differs from the operands");
    std::vector<T> out;
    for (std::size_t i = 0; i < on_true.data.size(); ++i)
        out.push_back(pred.data[i] ? on_true.data[i] : on_false.data[i]);
    return array<T>(on_true.dims, std::move(out));
}
template <class T>
array<T> select(bool pred, const array<T>& on_true, const array<T>& on_false) {
    return select(scalar(pred), on_true, on_false);
}

// clamp(lo, x, hi) = min(max(lo, x), hi); lo and hi have x's shape or are scalars.
template <class T>
array<T> clamp(const array<T>& lo, const array<T>& x, const array<T>& hi) {
    if (lo.rank() != 0 && lo.dims != x.dims) fail("clamp: min must be a scalar or have the operand's shape");
    if (hi.rank() != 0 && hi.dims != x.dims) fail("clamp: max must be a scalar or have the operand's shape");
    std::vector<T> out;
    for (std::size_t i = 0; i < x.data.size(); ++i) {
        const T l = lo.data[lo.rank() == 0 ? 0 : i], h = hi.data[hi.rank() == 0 ? 0 : i];
        out.push_back(binary_elem<T>(binop::min, binary_elem<T>(binop::max, l, static_cast<T>(x.data[i])), h));
    }
    return array<T>(x.dims, std::move(out));
}
template <class T>
array<T> clamp(std::type_identity_t<T> lo, const array<T>& x, std::type_identity_t<T> hi) {
    return clamp(scalar<T>(lo), x, scalar<T>(hi));
}

template <class U, class T>
array<U> convert(const array<T>& a) {
    return map<U>(a, [](T x) { return convert_elem<U>(x); });
}

// BitcastConvertType. Bytes keep their memory order (little-endian host). sizeof(T) > sizeof(U):
// new minor dimension of size sizeof(T)/sizeof(U); sizeof(T) < sizeof(U): the last dimension must
// be sizeof(U)/sizeof(T) and is dropped.
template <class U, class T>
array<U> bitcast_convert(const array<T>& a) {
    static_assert(!std::is_same_v<T, bool> && !std::is_same_v<U, bool>, "bitcast_convert: no pred");
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_copyable_v<U>);
    static_assert(std::endian::native == std::endian::little, "the reference assumes a little-endian host");
    constexpr std::int64_t B = sizeof(T), B2 = sizeof(U);
    static_assert(B % B2 == 0 || B2 % B == 0);
    dims_t out_dims = a.dims;
    if (B > B2) {
        out_dims.push_back(B / B2);
    } else if (B < B2) {
        if (a.rank() == 0 || a.dims.back() != B2 / B)
            fail("bitcast_convert: last dimension must be sizeof(U)/sizeof(T)");
        out_dims.pop_back();
    }
    std::vector<unsigned char> bytes(a.data.size() * sizeof(T));
    for (std::size_t i = 0; i < a.data.size(); ++i)
        std::memcpy(&bytes[i * sizeof(T)], &a.data[i], sizeof(T));
    std::vector<U> out(static_cast<std::size_t>(element_count(out_dims)));
    for (std::size_t i = 0; i < out.size(); ++i)
        std::memcpy(&out[i], &bytes[i * sizeof(U)], sizeof(U));
    return array<U>(out_dims, std::move(out));
}

// ReducePrecision(operand, exponent_bits, mantissa_bits); f16/bf16 are reduced as float.
template <class T>
array<T> reduce_precision(const array<T>& a, int exponent_bits, int mantissa_bits) {
    static_assert(is_float_v<T>, "reduce_precision: floating point operand");
    if (exponent_bits < 1) fail("reduce_precision: exponent_bits must be >= 1");
    if (mantissa_bits < 0) fail("reduce_precision: mantissa_bits must be >= 0");
    return map<T>(a, [=](T x) { return reduce_precision_native<T>(x, exponent_bits, mantissa_bits); });
}

// Iota(shape, iota_dimension): element = its index along iota_dimension, converted to T.
template <class T>
array<T> iota(const dims_t& dims, std::int64_t iota_dimension) {
    if (iota_dimension < 0 || iota_dimension >= static_cast<std::int64_t>(dims.size()))
        fail("iota: iota_dimension out of range");
    const std::int64_t n = element_count(dims);
    std::vector<T> out;
    for (std::int64_t flat = 0; flat < n; ++flat)
        out.push_back(convert_elem<T>(unflatten(flat, dims)[static_cast<std::size_t>(iota_dimension)]));
    return array<T>(dims, std::move(out));
}

} // namespace xlet_ref
