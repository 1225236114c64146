// Shared by the layout and gather/scatter tests (tests/layout_test.cpp, layout_diff_test.cpp,
// gather_scatter_test.cpp): conversion between xlet tensors and the reference evaluator's arrays,
// bit-exact comparison with a short report of the first differences, and a fixed-seed random fill
// that mixes special values (NaN, +-0, +-inf, subnormals) into floating-point data.
//
// Layout ops only move elements, so every comparison here is bit-exact (r::identical).
#pragma once
#include <doctest/doctest.h>

#include <xlet/xlet.hpp>

#include "reference/reference_layout.hpp"

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace xlet;
namespace r = xlet_ref;
using c64_t = std::complex<float>;

namespace lt {

// ---- tensors <-> reference arrays -------------------------------------------------------------
template<class A>
r::array<typename std::remove_cvref_t<A>::value_type> ref_of_array(const A& a) {
    using X = std::remove_cvref_t<A>;
    r::dims_t d;
    for (auto e : X::extents) d.push_back(static_cast<std::int64_t>(e));
    return r::array<typename X::value_type>(d, std::vector<typename X::value_type>(a.data(), a.data() + X::size()));
}

// Any expression (evaluated by the library) or array, as a reference array.
template<class E>
auto rf(const E& e) {
    if constexpr (is_array_leaf<std::remove_cvref_t<E>>) return ref_of_array(e);
    else return ref_of_array(eval(e));
}

// A reference array as a tensor of the static type Tn (shapes must match).
template<class Tn>
Tn from_ref(const r::array<typename Tn::value_type>& a) {
    r::dims_t d;
    for (auto e : Tn::extents) d.push_back(static_cast<std::int64_t>(e));
    REQUIRE_MESSAGE(a.dims == d, "from_ref: shape " << r::show_dims(a.dims) << " != " << r::show_dims(d));
    Tn t;
    for (std::size_t i = 0; i < Tn::size(); ++i)
        t.data()[i] = a.data[i];
    return t;
}

template<std::int64_t... I>
r::dims_t vec(dims_t<I...>) {
    return r::dims_t{I...};
}

// ---- comparison -------------------------------------------------------------------------------
template<class T>
std::string show_elem(const T& x) {
    std::ostringstream os;
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
        os << float(x) << " (0x" << std::hex << x.bits() << ")";
    else if constexpr (std::is_integral_v<T>)
        os << +x;
    else
        os << x;
    return os.str();
}

// "" when bit-identical; otherwise the shapes or the first few differing elements.
template<class T>
std::string diff(const r::array<T>& got, const r::array<T>& want) {
    if (got.dims != want.dims) return "shape " + r::show_dims(got.dims) + ", want " + r::show_dims(want.dims);
    std::ostringstream os;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.data.size(); ++i) {
        if (r::identical(r::array<T>({1}, {got.data[i]}), r::array<T>({1}, {want.data[i]}))) continue;
        if (bad < 4) os << " at " << r::show_dims(r::unflatten(static_cast<std::int64_t>(i), got.dims)) << " got " << show_elem(got.data[i])
                        << " want " << show_elem(want.data[i]) << ";";
        ++bad;
    }
    if (bad == 0) return "";
    return std::to_string(bad) + " of " + std::to_string(got.data.size()) + " elements differ:" + os.str();
}

// CHECK that a library expression (or tensor) equals a reference array bit for bit.
#define CHECK_SAME(got_expr, want_expr)                                                                                \
    do {                                                                                                               \
        auto lt_got_ = ::lt::rf(got_expr);                                                                            \
        auto lt_want_ = (want_expr);                                                                                   \
        auto lt_d_ = ::lt::diff(lt_got_, lt_want_);                                                                    \
        CHECK_MESSAGE(lt_d_.empty(), #got_expr << ": " << lt_d_);                                                      \
    } while (0)

// ---- random data ------------------------------------------------------------------------------
inline std::mt19937_64& rng() {
    static std::mt19937_64 g(20240611);
    return g;
}

template<class T>
T special_float(std::size_t k) {
    using L = std::numeric_limits<T>;
    const T v[] = {L::quiet_NaN(), -L::quiet_NaN(), T(-0.0f), T(0.0f), L::infinity(), -L::infinity(), L::denorm_min(), L::max(), L::lowest()};
    return v[k % (sizeof(v) / sizeof(v[0]))];
}

template<class T>
T random_elem(bool specials = true) {
    auto& g = rng();
    if constexpr (std::is_same_v<T, float>) {
        if (specials && g() % 16 == 0) return special_float<float>(g());
        return std::uniform_real_distribution<float>(-1000.0f, 1000.0f)(g);
    } else if constexpr (std::is_same_v<T, half>) {
        if (specials && g() % 16 == 0) return special_float<half>(g());
        return half(std::uniform_real_distribution<float>(-1000.0f, 1000.0f)(g));
    } else if constexpr (std::is_same_v<T, c64_t>) {
        return c64_t(random_elem<float>(specials), random_elem<float>(specials));
    } else if constexpr (std::is_same_v<T, bool>) {
        return (g() & 1) != 0;
    } else {
        static_assert(std::is_integral_v<T>);
        return static_cast<T>(g());
    }
}

template<class Tn>
Tn random_tensor(bool specials = true) {
    Tn t;
    for (std::size_t i = 0; i < Tn::size(); ++i)
        t.data()[i] = random_elem<typename Tn::value_type>(specials);
    return t;
}

// 0, 1, 2, ... as the element type (distinct, easy to read in messages).
template<class Tn>
Tn iota_tensor(int first = 0) {
    Tn t;
    for (std::size_t i = 0; i < Tn::size(); ++i)
        t.data()[i] = static_cast<typename Tn::value_type>(first + static_cast<int>(i));
    return t;
}

} // namespace lt
