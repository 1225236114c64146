// Shared by the dot tests (dot_test.cpp, dot_diff_test.cpp): random data without special values,
// and the float comparison with a stated tolerance.
//
// Tolerance: a sum of K products computed in precision u (unit roundoff, 2^-24 for f32, 2^-53 for
// f64), in any order with or without FMA, is within gamma_K * sum_k |a_k||b_k| of the exact sum,
// gamma_K = K u / (1 - K u) (Higham, Accuracy and Stability, 3.1). The check allows
// (K + 1) * 2u * sum |a||b| (twice that), plus one rounding of the result type (u_out * |exact|)
// when the result is narrower than the accumulator (bf16, f16).
#pragma once
#include "layout_common.hpp"
#include "reference/reference_dot.hpp"

#include <cmath>
#include <limits>

namespace dt {

using lt::rf;

template<class T>
T random_value() {
    auto& g = lt::rng();
    if constexpr (std::is_integral_v<T>)
        return static_cast<T>(g());
    else if constexpr (r::is_complex_v<T>)
        return T(std::uniform_real_distribution<double>(-1, 1)(g), std::uniform_real_distribution<double>(-1, 1)(g));
    else
        return T(static_cast<float>(std::uniform_real_distribution<double>(-1, 1)(g)));
}
template<class Tn>
Tn random() {
    Tn t;
    for (std::size_t i = 0; i < Tn::size(); ++i)
        t.data()[i] = random_value<typename Tn::value_type>();
    return t;
}
template<class T>
std::vector<T> random_vec(std::size_t n) {
    std::vector<T> v(n);
    for (auto& x : v)
        x = random_value<T>();
    return v;
}

template<class T>
constexpr double unit_roundoff() {
    if constexpr (std::is_same_v<T, double>)
        return 0x1p-53;
    else if constexpr (std::is_same_v<T, half>)
        return 0x1p-11;
    else if constexpr (std::is_same_v<T, bfloat16>)
        return 0x1p-8;
    else
        return 0x1p-24;
}

// got (values of type Out, accumulated in Acc) against the exact sums `want` and sum |a||b| `abs`.
template<class Acc, class Out>
std::string close_report(const Out* got, const r::array<double>& want, const r::array<double>& abs, std::size_t k) {
    const double ua = unit_roundoff<Acc>(), uo = std::is_same_v<Acc, Out> ? 0.0 : unit_roundoff<Out>();
    std::size_t bad = 0;
    std::ostringstream os;
    for (std::size_t i = 0; i < want.data.size(); ++i) {
        const double g = static_cast<double>(static_cast<Acc>(got[i]));
        const double tol = static_cast<double>(k + 1) * 2 * ua * abs.data[i] + uo * std::fabs(want.data[i]);
        if (!(std::fabs(g - want.data[i]) <= tol)) {
            if (bad < 4) os << " at " << i << " got " << g << " want " << want.data[i] << " tol " << tol << ";";
            ++bad;
        }
    }
    if (bad == 0) return "";
    return std::to_string(bad) + " of " + std::to_string(want.data.size()) + " outside the bound:" + os.str();
}

template<class Tn>
void check_close(const Tn& got, const r::array<double>& want, const r::array<double>& abs, std::size_t k) {
    using Out = typename Tn::value_type;
    using Acc = std::conditional_t<std::is_same_v<Out, double>, double, float>;
    r::dims_t d;
    for (auto e : Tn::extents)
        d.push_back(static_cast<std::int64_t>(e));
    REQUIRE_MESSAGE(d == want.dims, "shape " << r::show_dims(d) << " want " << r::show_dims(want.dims));
    const std::string rep = close_report<Acc, Out>(got.data(), want, abs, k);
    CHECK_MESSAGE(rep.empty(), rep);
}

// A list of dimensions, and dimension numbers, as the reference evaluator spells them.
inline r::dims_t dl(const xlet::dim_list& l) {
    r::dims_t d;
    for (std::size_t i = 0; i < l.size(); ++i)
        d.push_back(l[i]);
    return d;
}
inline r::dot_dims_t ref_dims(const xlet::dot_dims& d) {
    return {dl(d.lhs_batch), dl(d.rhs_batch), dl(d.lhs_contracting), dl(d.rhs_contracting)};
}

} // namespace dt
