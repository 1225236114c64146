// RaggedDot (spec: RaggedDot, which defers to StableHLO's chlo.ragged_dot):
//   ragged_dot<ragged_dot_dims{.dot = dot_dims{.lhs_contracting = {1}, .rhs_contracting = {1}},
//                              .lhs_ragged = {0}, .rhs_group = {0}}>(lhs, rhs, group_sizes)
//   ragged_dot<dims, Out>(...)                      preferred_element_type: the result type
//
// lhs has one ragged dimension r (lhs_ragged = {r}) cut into G consecutive groups of run-time sizes
// group_sizes[0..G): group g covers indices [start_g, start_g + group_sizes[g]) of r, start_g being
// the sum of the sizes before it. Three modes, by the kind of r in the dot dimension numbers:
//   1. r is a free (non-contracting, non-batch) dimension of lhs, e.g. the MoE case
//      [m,k] x [g,k,n] -> [m,n]: rhs has a group dimension (rhs_group = {gd}, size G) that is
//      neither batch nor contracting. The result is dot_general's (batch ++ lhs free ++ rhs free,
//      without gd): out[..., i in group g, ...] = sum_k lhs[..., i, ..., k] * rhs[g, ..., k, ...].
//      Indices of r after the last group (start_G <= i < size(r)) give zeros.
//   2. r is a contracting dimension, e.g. [m,k] x [k,n] -> [g,m,n]: rhs_group is empty, the result
//      is [G] ++ dot_general's shape, and out[g, ...] sums only over the indices of r in group g
//      (the other contracting dimensions in full). Indices after the last group are in no sum.
//   3. r is a batch dimension: rhs_group is empty and the result is dot_general's, unchanged
//      (the groups only partition the batch, as in XLA's ragged_dot_rewriter); group_sizes is
//      checked all the same.
// Run-time checks (xlet::error "xlet::ragged_dot: ..."): a negative group size, and sizes summing
// to more than size(r) (XLA leaves both undefined; we refuse them rather than read out of range).
// group_sizes is rank 1 [G] of any integer type; XLA's per-batch form [b..., g] is not supported.
// Accumulation and element types are dot_general's (ops/linalg/dot.hpp): f32/f64 accumulations (f16/bf16
// operands converted to f32 once) run one GEMM of kernels/gemm.hpp per group (and per batch
// index, and per index of the lhs free dimensions outside r in mode 1), integer and complex ones
// the generic loop. Each output element is computed by one GEMM call, so results do not depend on
// the thread count. Groups that are small run side by side on TBB, large ones use the GEMM's
// own threads.
//
// Rules (xlet numbering; C1-C11 are dot_general's rules on the dot dimension numbers, rhs's group
// dimension excluded):
//   C1  lhs and rhs have the same element type, an integer, floating or complex type
//   C2  lhs_batch and rhs_batch have the same size   C3 lhs/rhs_contracting have the same size
//   C4  lhs_batch ++ lhs_contracting has no repeated dimension   C5 same for rhs
//   C6-C9 batch / contracting dimensions are in range   C10 / C11 paired sizes are equal
//   C12 lhs_ragged holds exactly one dimension, in [0, rank(lhs))
//   C13 mode 1: rhs_group holds exactly one dimension, in [0, rank(rhs)), neither batch nor
//       contracting; modes 2 and 3: rhs_group is empty
//   C14 group_sizes is a rank-1 array of an integer type
//   C15 mode 1: the rhs group dimension has size G (= size of group_sizes)
//   C16 the preferred element type is of the operands' kind (as dot_general's C14)
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../../core/error.hpp"
#include "dot.hpp"

namespace xlet {

// RaggedDotDimensionNumbers: the dot dimension numbers, lhs's ragged dimension, rhs's group dimension.
struct ragged_dot_dims {
    dot_dims dot{};
    dim_list lhs_ragged{};
    dim_list rhs_group{};
};

namespace detail {

enum class ragged_mode { non_contracting, contracting, batch };

template<ragged_dot_dims D, class L, class R, class G, class Out>
struct ragged_dot_rules {
    using T = element_of<L>;
    static constexpr dot_dims DD = D.dot;
    static constexpr std::size_t RL = shape_of<L>::rank, RR = shape_of<R>::rank;
    static constexpr auto le = shape_of<L>::extents;
    static constexpr auto re = shape_of<R>::extents;
    static constexpr bool c1 = std::is_same_v<element_of<L>, element_of<R>> && dot_numeric<T>;
    using dims = dot_dims_rules<DD, L, R>;
    static constexpr bool dims_ok = dims::dims_ok;
    static constexpr bool c12 = D.lhs_ragged.size() == 1 && D.lhs_ragged.in_range(RL);
    static constexpr std::int64_t r = c12 ? D.lhs_ragged[0] : 0;
    static constexpr ragged_mode mode = DD.lhs_contracting.contains(r) ? ragged_mode::contracting
                                        : DD.lhs_batch.contains(r)     ? ragged_mode::batch
                                                                       : ragged_mode::non_contracting;
    static constexpr bool c13 =
        !c12 || (mode == ragged_mode::non_contracting
                     ? D.rhs_group.size() == 1 && D.rhs_group.in_range(RR) && !DD.rhs_batch.contains(D.rhs_group[0]) &&
                           !DD.rhs_contracting.contains(D.rhs_group[0])
                     : D.rhs_group.size() == 0);
    static constexpr bool c14 = shape_of<G>::rank == 1 && is_integer<element_of<G>>;
    static constexpr std::size_t groups = [] {
        if constexpr (shape_of<G>::rank >= 1)
            return shape_of<G>::extents[0];
        else
            return std::size_t{1};
    }();
    static constexpr bool c15 = !(c12 && c13 && c14) || mode != ragged_mode::non_contracting ||
                                re[static_cast<std::size_t>(D.rhs_group[0])] == groups;
    static constexpr bool c16 = dot_out_fits<T, Out>;
    static constexpr bool ok = c1 && dims::ok && c12 && c13 && c14 && c15 && c16;

    static consteval bool check() {
        using SL = shown_t<L>;
        using SR = shown_t<R>;
        using SG = shown_t<G>;
        static_assert(diag::got<c1, SL, SR>::value, "xlet::ragged_dot [C1]: lhs and rhs must have the same element "
                                                    "type, an integer, floating or complex type");
        XLET_DOT_DIMS_ASSERTS("xlet::ragged_dot", dims, SL, SR);
        static_assert(diag::got<c12, SL, SR>::value,
                      "xlet::ragged_dot [C12]: lhs_ragged must hold exactly one dimension, in [0, rank(lhs))");
        static_assert(diag::got<c13, SL, SR>::value,
                      "xlet::ragged_dot [C13]: rhs_group must hold exactly one dimension of rhs, neither batch nor "
                      "contracting, when the ragged dimension is a free lhs dimension, and be empty otherwise");
        static_assert(diag::got<c14, SG>::value,
                      "xlet::ragged_dot [C14]: group_sizes must be a rank-1 array of an integer type");
        static_assert(diag::got<c15, SR, SG>::value,
                      "xlet::ragged_dot [C15]: the rhs group dimension must have one entry per group "
                      "(the size of group_sizes)");
        static_assert(diag::got<c16, SL, SR, Out>::value,
                      "xlet::ragged_dot [C16]: the preferred element type must be of the operands' kind "
                      "(integer, floating or complex)");
        return ok;
    }
};

// The group sizes as offsets: start[g], start[G] = their sum; refuses negative sizes and sums
// beyond the ragged dimension's size.
template<class Gv>
std::vector<std::size_t> ragged_starts(const Gv& gs, std::size_t dim) {
    using I = typename Gv::value_type;
    constexpr std::size_t n = Gv::size();
    std::vector<std::size_t> start(n + 1, 0);
    for (std::size_t g = 0; g < n; ++g) {
        const I v = gs.data()[g];
        if constexpr (std::is_signed_v<I>)
            if (v < 0) throw error("ragged_dot", "group_sizes[", g, "] = ", v, " is negative");
        const auto u = static_cast<std::make_unsigned_t<I>>(v);
        if (u > dim - start[g])
            throw error("ragged_dot", "group sizes sum to more than the ragged dimension's size ", dim, " (at group ",
                        g, ")");
        start[g + 1] = start[g] + static_cast<std::size_t>(u);
    }
    return start;
}

// One GEMM of a ragged product: C[m, N] = A[m, k] B[k, N] at these offsets.
struct ragged_task {
    std::ptrdiff_t a = 0, b = 0;
    std::size_t c = 0, m = 0, k = 0;
};

// Runs the tasks: one after the other with the GEMM's own threads when one is large, else side by
// side (each on one thread). Either way each element is computed by one GEMM call: same bits.
template<bool Fast, class Acc, class A, class C, class Cvt>
void ragged_run(const std::vector<ragged_task>& tasks, std::size_t n, const A* a, std::ptrdiff_t rsa,
                std::ptrdiff_t csa, const A* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, C* c, const Cvt& to_out) {
    auto one = [&](const ragged_task& t, bool par) {
        if constexpr (Fast)
            gemm<Acc>(t.m, n, t.k, a + t.a, rsa, csa, b + t.b, rsb, csb, c + t.c, static_cast<std::ptrdiff_t>(n),
                      gemm_update::assign, par);
        else
            gemm_generic<Acc>(t.m, n, t.k, a + t.a, rsa, csa, b + t.b, rsb, csb, c + t.c,
                              static_cast<std::ptrdiff_t>(n), to_out, par);
    };
    std::size_t total = 0, largest = 0;
    for (const auto& t : tasks) {
        const std::size_t w = t.m * n * std::max<std::size_t>(t.k, 1);
        total += w;
        largest = std::max(largest, w);
    }
    if (tasks.size() > 1 && largest < dot_batch_task_work && total >= gemm_parallel_work) {
        tbb::this_task_arena::isolate([&] {
            gemm_for(true, tasks.size(), 1, [&](std::size_t t0, std::size_t t1) {
                for (std::size_t t = t0; t < t1; ++t)
                    one(tasks[t], false);
            });
        });
        return;
    }
    for (const auto& t : tasks)
        one(t, true);
}

// ragged_run into the result: the GEMM writes Acc, so a narrower result type (bf16, f16) goes
// through an Acc scratch whose task rows are then converted.
template<bool Fast, class Acc, class A, class O, class Cvt>
void ragged_run_into(const std::vector<ragged_task>& tasks, std::size_t n, const A* a, std::ptrdiff_t rsa,
                     std::ptrdiff_t csa, const A* b, std::ptrdiff_t rsb, std::ptrdiff_t csb, O* out,
                     std::size_t out_size, const Cvt& to_out) {
    if constexpr (Fast && !std::is_same_v<O, Acc>) {
        scratch<Acc> tmp(out_size);
        ragged_run<true, Acc>(tasks, n, a, rsa, csa, b, rsb, csb, tmp.data(), to_out);
        for (const auto& t : tasks)
            for (std::size_t i = t.c; i < t.c + t.m * n; ++i)
                out[i] = to_out(tmp[i]);
    } else {
        ragged_run<Fast, Acc>(tasks, n, a, rsa, csa, b, rsb, csb, out, to_out);
    }
}

// Mode 1's plan: dot_general's, with rhs's group dimension taken out of its free dimensions.
template<dot_dims D, std::size_t RL, std::size_t RR>
constexpr dot_plan<RL, RR> ragged_plan_grouped(const extents_t<RL>& le, const extents_t<RR>& re, std::size_t gd) {
    dot_plan<RL, RR> p = make_dot_plan<D, RL, RR>(le, re);
    std::size_t j = 0;
    p.n = 1;
    for (std::size_t i = 0; i < p.nrf; ++i)
        if (p.rf[i] != gd) {
            p.rf[j++] = p.rf[i];
            p.n *= re[p.rf[i]];
        }
    p.nrf = j;
    return p;
}

// Mode 2: the ragged contracting pair moved to the front of both contracting lists, so that a
// group's share of the flattened k is one contiguous range.
template<dot_dims D>
constexpr dot_dims ragged_front(std::int64_t r) {
    dot_dims d = D;
    const int j = D.lhs_contracting.find(r);
    d.lhs_contracting.v[0] = r;
    d.rhs_contracting.v[0] = D.rhs_contracting[static_cast<std::size_t>(j)];
    std::size_t o = 1;
    for (std::size_t i = 0; i < D.lhs_contracting.size(); ++i)
        if (static_cast<int>(i) != j) {
            d.lhs_contracting.v[o] = D.lhs_contracting[i];
            d.rhs_contracting.v[o] = D.rhs_contracting[i];
            ++o;
        }
    return d;
}

// rhs in mode 1 as [group, batch, contracting, free] when its groups do not collapse.
template<std::size_t RR, class Plan>
constexpr std::array<std::int64_t, RR> ragged_rhs_perm(const Plan& p, std::size_t gd) {
    const auto rest = dot_side_perm<false, RR>(p);
    std::array<std::int64_t, RR> perm{};
    perm[0] = static_cast<std::int64_t>(gd);
    for (std::size_t i = 1; i < RR; ++i)
        perm[i] = rest[i - 1];
    return perm;
}

template<ragged_dot_dims D, class Out, class L, class R, class G>
auto ragged_dot_impl(L&& lhs, R&& rhs, const G& group_sizes) {
    using Rules = ragged_dot_rules<D, L, R, G, Out>;
    using T = element_of<L>;
    using Ty = dot_types<T, Out>;
    using O = typename Ty::out;
    using Acc = typename Ty::acc;
    constexpr bool fast = gemm_fast<Acc>;
    using A = std::conditional_t<fast, Acc, T>;
    static constexpr auto le = shape_of<L>::extents;
    static constexpr auto re = shape_of<R>::extents;
    constexpr std::size_t RL = le.size(), RR = re.size();
    constexpr std::size_t r = static_cast<std::size_t>(Rules::r);
    constexpr std::size_t NG = Rules::groups;
    const auto& gs = as_array(group_sizes);
    const std::vector<std::size_t> start = ragged_starts(gs, le[r]);

    if constexpr (Rules::mode == ragged_mode::batch) {
        return dot_general_impl<D.dot, Out>(std::forward<L>(lhs), std::forward<R>(rhs));
    } else if constexpr (Rules::mode == ragged_mode::contracting) {
        auto to_out = [](const Acc& v) { return static_cast<O>(convert_fn<O>::scalar(v)); };
        static constexpr dot_dims DF = ragged_front<D.dot>(Rules::r);
        static constexpr auto P = make_dot_plan<DF, RL, RR>(le, re);
        static constexpr auto E0 = dot_out_extents<P>(le, re);
        constexpr auto OE = [] {
            extents_t<E0.size() + 1> e{};
            e[0] = NG;
            for (std::size_t i = 0; i < E0.size(); ++i)
                e[i + 1] = E0[i];
            return e;
        }();
        typename tensor_of_impl<O, OE, std::make_index_sequence<OE.size()>>::type out;
        if constexpr (NG * P.batch * P.m * P.n > 0) {
            if constexpr (P.k == 0) {
                if constexpr (!fast) std::fill(out.begin(), out.end(), to_out(Acc{}));
            } else {
                static constexpr dot_side sl = make_dot_side<true>(le, P);
                static constexpr dot_side sr = make_dot_side<false>(re, P);
                static constexpr auto pl = dot_side_perm<true, RL>(P);
                static constexpr auto pr = dot_side_perm<false, RR>(P);
                const auto& a = dot_operand<A, sl.direct, pl>(std::forward<L>(lhs));
                const auto& b = dot_operand<A, sr.direct, pr>(std::forward<R>(rhs));
                constexpr std::size_t inner = P.k / le[r]; // the other contracting dimensions
                std::vector<ragged_task> tasks;
                for (std::size_t g = 0; g < NG; ++g)
                    for (std::size_t q = 0; q < P.batch; ++q) {
                        const auto k0 = static_cast<std::ptrdiff_t>(start[g] * inner);
                        const auto bq = static_cast<std::ptrdiff_t>(q);
                        tasks.push_back({bq * sl.sb + k0 * sl.sc, bq * sr.sb + k0 * sr.sc,
                                         (g * P.batch + q) * P.m * P.n, P.m, (start[g + 1] - start[g]) * inner});
                    }
                ragged_run_into<fast, Acc>(tasks, P.n, a.data(), sl.sf, sl.sc, b.data(), sr.sc, sr.sf, out.data(),
                                           out.size(), to_out);
            }
        }
        return out;
    } else {
        auto to_out = [](const Acc& v) { return static_cast<O>(convert_fn<O>::scalar(v)); };
        constexpr std::size_t gd = static_cast<std::size_t>(D.rhs_group[0]);
        static constexpr auto P = ragged_plan_grouped<D.dot, RL, RR>(le, re, gd);
        constexpr auto OE = dot_out_extents<P>(le, re);
        typename tensor_of_impl<O, OE, std::make_index_sequence<OE.size()>>::type out;
        if constexpr (P.batch * P.m * P.n > 0) {
            // Rows of the flattened lhs free index: (outer, r, inner); a group is inner-long runs.
            constexpr auto split = [] {
                std::array<std::size_t, 2> oi{1, 1};
                bool after = false;
                for (std::size_t i = 0; i < P.nlf; ++i) {
                    if (P.lf[i] == r)
                        after = true;
                    else
                        oi[after ? 1 : 0] *= le[P.lf[i]];
                }
                return oi;
            }();
            constexpr std::size_t outer = split[0], inner = split[1], R0 = le[r];
            std::vector<ragged_task> tasks;
            if constexpr (P.k > 0) {
                static constexpr dot_side sl = make_dot_side<true>(le, P);
                static constexpr dot_side sr0 = make_dot_side<false>(re, P);
                // The group stride: rhs's own when read in place, else that of the [g, ...] copy.
                static constexpr std::ptrdiff_t sg =
                    sr0.direct ? row_major_strides(re)[gd] : static_cast<std::ptrdiff_t>(P.batch * P.k * P.n);
                static constexpr auto pl = dot_side_perm<true, RL>(P);
                static constexpr auto pr = ragged_rhs_perm<RR>(P, gd);
                const auto& a = dot_operand<A, sl.direct, pl>(std::forward<L>(lhs));
                const auto& b = dot_operand<A, sr0.direct, pr>(std::forward<R>(rhs));
                for (std::size_t q = 0; q < P.batch; ++q)
                    for (std::size_t o = 0; o < outer; ++o)
                        for (std::size_t g = 0; g < NG; ++g) {
                            if (start[g + 1] == start[g]) continue;
                            const std::size_t row = o * R0 * inner + start[g] * inner;
                            const auto bq = static_cast<std::ptrdiff_t>(q);
                            tasks.push_back({bq * sl.sb + static_cast<std::ptrdiff_t>(row) * sl.sf,
                                             bq * sr0.sb + static_cast<std::ptrdiff_t>(g) * sg, (q * P.m + row) * P.n,
                                             (start[g + 1] - start[g]) * inner, P.k});
                        }
                ragged_run_into<fast, Acc>(tasks, P.n, a.data(), sl.sf, sl.sc, b.data(), sr0.sc, sr0.sf, out.data(),
                                           out.size(), to_out);
            }
            // Rows in no group (after the last one, or every row when k = 0): zeros.
            const O zero = to_out(Acc{});
            const std::size_t covered = P.k > 0 ? start[NG] : 0;
            for (std::size_t q = 0; q < P.batch; ++q)
                for (std::size_t o = 0; o < outer; ++o) {
                    const std::size_t row0 = o * R0 * inner + covered * inner, row1 = (o + 1) * R0 * inner;
                    std::fill(out.data() + (q * P.m + row0) * P.n, out.data() + (q * P.m + row1) * P.n, zero);
                }
        }
        return out;
    }
}

// to_stablehlo: chlo.ragged_dot's dimension numbers, every list spelled (CHLO's attribute has no
// defaults).
template<ragged_dot_dims D>
std::string ragged_dot_attrs() {
    const std::pair<const char*, dim_list> fields[] = {{"lhs_batching_dimensions", D.dot.lhs_batch},
                                                       {"rhs_batching_dimensions", D.dot.rhs_batch},
                                                       {"lhs_contracting_dimensions", D.dot.lhs_contracting},
                                                       {"rhs_contracting_dimensions", D.dot.rhs_contracting},
                                                       {"lhs_ragged_dimensions", D.lhs_ragged},
                                                       {"rhs_group_dimensions", D.rhs_group}};
    std::string d;
    for (const auto& [name, l] : fields)
        d += std::string(d.empty() ? "" : ", ") + name + " = " + trace::int_list(l);
    return "ragged_dot_dimension_numbers = #chlo.ragged_dot<" + d + ">";
}

} // namespace detail

// RaggedDot(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision_config,
// preferred_element_type): see the modes above. group_sizes is read at run time.
template<ragged_dot_dims D, class Out = void, precision_config Precision = precision_config{}, expression L,
         expression R, expression G>
auto ragged_dot(L&& lhs, R&& rhs, const G& group_sizes) {
    using Rules = detail::ragged_dot_rules<D, L, R, G, Out>;
    if constexpr (Rules::check())
        return trace::heavy(
            "chlo.ragged_dot", [] { return detail::ragged_dot_attrs<D>(); },
            [&] { return detail::ragged_dot_impl<D, Out>(std::forward<L>(lhs), std::forward<R>(rhs), group_sizes); },
            lhs, rhs, group_sizes);
}

} // namespace xlet
