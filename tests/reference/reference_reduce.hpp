// xlet_ref reductions: the spec's Reduce read literally. Each output folds its reduced elements
// one at a time, in row-major order of the reduced dimensions (increasing dimension numbers),
// starting from the init value: f(...f(f(init, x0), x1)..., xn). Test code only.
#pragma once
#include <tuple>

#include "reference_layout.hpp"

namespace xlet_ref {

// Output dims and the split of an operand index into kept and reduced parts.
inline dims_t kept_dims(const dims_t& in, const dims_t& reduced) {
    if (!all_in_range(reduced, static_cast<std::int64_t>(in.size())) || !all_unique(reduced)) fail("reduce: bad dimensions");
    dims_t out;
    for (std::size_t d = 0; d < in.size(); ++d)
        if (!contains(reduced, static_cast<std::int64_t>(d))) out.push_back(in[d]);
    return out;
}

// Visits, for output index o, every operand index in the reduction order.
template <class F>
void for_each_reduced(const dims_t& in, const dims_t& reduced, const dims_t& o, F f) {
    dims_t rd; // reduced sizes in increasing dimension order
    for (std::size_t d = 0; d < in.size(); ++d)
        if (contains(reduced, static_cast<std::int64_t>(d))) rd.push_back(in[d]);
    for_each_index(rd, [&](const dims_t& r) {
        dims_t full(in.size());
        std::size_t ko = 0, kr = 0;
        for (std::size_t d = 0; d < in.size(); ++d)
            full[d] = contains(reduced, static_cast<std::int64_t>(d)) ? r[kr++] : o[ko++];
        f(full);
    });
}

// One operand; f(acc, x) -> T.
template <class T, class F>
array<T> reduce(const array<T>& a, T init, F f, const dims_t& reduced) {
    dims_t od = kept_dims(a.dims, reduced);
    return generate<T>(od, [&](const dims_t& o) {
        T acc = init;
        for_each_reduced(a.dims, reduced, o, [&](const dims_t& i) { acc = static_cast<T>(f(acc, a.at(i))); });
        return acc;
    });
}

// Two operands; f(acc_a, acc_b, a, b) -> pair-like.
template <class A, class B, class F>
std::pair<array<A>, array<B>> reduce(const array<A>& a, const array<B>& b, A ia, B ib, F f, const dims_t& reduced) {
    if (a.dims != b.dims) fail("reduce: operand shapes differ");
    dims_t od = kept_dims(a.dims, reduced);
    std::vector<A> va;
    std::vector<B> vb;
    for_each_index(od, [&](const dims_t& o) {
        A x = ia;
        B y = ib;
        for_each_reduced(a.dims, reduced, o, [&](const dims_t& i) {
            auto r = f(x, y, a.at(i), b.at(i));
            x = static_cast<A>(std::get<0>(r));
            y = static_cast<B>(std::get<1>(r));
        });
        va.push_back(x);
        vb.push_back(y);
    });
    return {array<A>(od, std::move(va)), array<B>(od, std::move(vb))};
}

} // namespace xlet_ref

namespace xlet_ref {

// ReduceWindow read literally (StableHLO): the operand is base-dilated (holes), padded with init;
// each window folds its padded cells (holes are skipped) in row-major window order from init.
struct window_params {
    dims_t window, strides, base_dilations, window_dilations, low, high;
};

template <class T, class F>
array<T> reduce_window(const array<T>& a, T init, F f, const window_params& w) {
    const std::size_t r = a.dims.size();
    dims_t out;
    for (std::size_t d = 0; d < r; ++d) {
        const std::int64_t base = a.dims[d] == 0 ? 0 : (a.dims[d] - 1) * w.base_dilations[d] + 1;
        const std::int64_t padded = base + w.low[d] + w.high[d];
        const std::int64_t dw = (w.window[d] - 1) * w.window_dilations[d] + 1;
        out.push_back(padded < dw ? 0 : (padded - dw) / w.strides[d] + 1);
    }
    return generate<T>(out, [&](const dims_t& o) {
        T acc = init;
        for_each_index(w.window, [&](const dims_t& k) {
            dims_t src(r);
            bool pad = false;
            for (std::size_t d = 0; d < r; ++d) {
                const std::int64_t p = o[d] * w.strides[d] + k[d] * w.window_dilations[d] - w.low[d];
                const std::int64_t base = a.dims[d] == 0 ? 0 : (a.dims[d] - 1) * w.base_dilations[d] + 1;
                if (p < 0 || p >= base) {
                    pad = true;
                    continue;
                }
                if (p % w.base_dilations[d] != 0) return; // a hole: skipped
                src[d] = p / w.base_dilations[d];
            }
            acc = static_cast<T>(f(acc, pad ? init : a.at(src)));
        });
        return acc;
    });
}

} // namespace xlet_ref

namespace xlet_ref {

// SelectAndScatter read literally: windows in row-major order; in each, walk the cells in
// row-major order keeping the first real element and replacing it with a later one e whenever
// select(kept, e) is false; then out[kept] = scatter(out[kept], source[window]).
template <class T, class S, class G>
array<T> select_and_scatter(const array<T>& a, S select, const array<T>& source, T init, G scatter, const window_params& w) {
    const std::size_t r = a.dims.size();
    array<T> out(a.dims, std::vector<T>(a.data.size(), init));
    for_each_index(source.dims, [&](const dims_t& o) {
        bool have = false;
        dims_t best;
        for_each_index(w.window, [&](const dims_t& k) {
            dims_t src(r);
            for (std::size_t d = 0; d < r; ++d) {
                src[d] = o[d] * w.strides[d] + k[d] - w.low[d];
                if (src[d] < 0 || src[d] >= a.dims[d]) return; // padding: never selected
            }
            if (!have || !select(a.at(best), a.at(src))) best = src;
            have = true;
        });
        if (have) out.at(best) = static_cast<T>(scatter(out.at(best), source.at(o)));
    });
    return out;
}

} // namespace xlet_ref
