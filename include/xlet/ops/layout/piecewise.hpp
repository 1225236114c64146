// Shared pieces of the piecewise nodes (pad, concatenate): they act on one output dimension that
// the loop plan keeps separate (see `barrier`), pick an operand per row when that dimension is an
// outer loop, and assemble lanes from segments when it is the innermost one.
#pragma once
#include <array>
#include <tuple>

#include "../elementwise/elementwise.hpp"

namespace xlet::detail {

// The loop-plan group that walks output dimension k, or -1 if k has extent 1 (dropped).
template<std::size_t Ro, loop_plan<Ro> P>
consteval int group_of(std::size_t k) {
    for (std::size_t g = 0; g < P.groups; ++g)
        if (P.rep[g] == static_cast<int>(k)) return static_cast<int>(g);
    return -1;
}

// A destination view no leaf can equal: every overlap counts as a hazard (pad and concatenate
// move elements, so reading the destination anywhere is unsafe).
template<std::size_t Ro>
inline constexpr leaf_view<Ro> moved_view{{}, -1};

// Lanes [0, m) of v go to lanes [at, at + m) of out.
template<class T, std::size_t N>
void place_lanes(std::array<T, N>& out, const vec<T, N>& v, std::size_t at, std::size_t m) {
    auto l = to_lanes(v);
    for (std::size_t k = 0; k < m; ++k)
        out[at + k] = l[k];
}

// Call f on the I-th element of tuple t for run-time I.
template<class R, class Tuple, class F>
R visit_at(std::size_t i, Tuple& t, F&& f) {
    R r{};
    detail::apply(
        [&](auto&... c) {
            std::size_t k = 0;
            ((i == k++ ? (r = f(c), 0) : 0), ...);
        },
        t);
    return r;
}

} // namespace xlet::detail
