// xlet_ref, layout and indexing ops: a deliberately naive reference for Broadcast, BroadcastInDim
// (in reference.hpp), Reshape, Collapse, Transpose, Rev, Slice, Pad, ConcatInDim, DynamicSlice,
// DynamicUpdateSlice, Gather and Scatter.
//
// Test code only. Written from the spec text (xla-operation-semantics, Gather/Scatter completed by
// StableHLO's formulas for the batching dimensions), not from include/xlet. Every op walks its
// output (or, for scatter, its updates) with a plain row-major loop over a multi-index and computes
// the source index with the spec's formula; dynamic shapes, std::vector storage. Invalid arguments
// throw std::invalid_argument.
//
// Choices where the spec leaves room (each stated at the op):
//  * DynamicSlice / DynamicUpdateSlice / Gather clamp every start index to
//    [0, operand_size - slice_size] (the spec's formula; Gather inherits it from "we dynamic-slice").
//  * Scatter: the spec text applies an update "if O is a valid index for output", i.e. element by
//    element, and its worked example drops a row that lies outside the operand. XLA's implementations
//    skip the whole update window when any part of it is out of bounds. Both are available
//    (scatter_oob::skip_window, the default, is XLA's). Updates are applied one at a time, window
//    after window in row-major order of the scatter index G, each window in row-major order of its
//    own index (the spec leaves the order unspecified; xlet documents this one). It differs from the
//    row-major order of the update index U when a window dimension precedes a scatter dimension.
//  * Start indices of unsigned types are read as their (non-negative) value; u64 values above
//    INT64_MAX saturate to INT64_MAX, which every clamp / bounds check treats the same way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "reference.hpp"

namespace xlet_ref {

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------
inline std::string show_dims(const dims_t& d) {
    std::string s = "{";
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (i) s.push_back(',');
        s.append(std::to_string(d[i]));
    }
    s.push_back('}');
    return s;
}

inline bool contains(const dims_t& d, std::int64_t x) { return std::find(d.begin(), d.end(), x) != d.end(); }

inline bool all_unique(const dims_t& d) {
    for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t j = i + 1; j < d.size(); ++j)
            if (d[i] == d[j]) return false;
    return true;
}
inline bool strictly_increasing(const dims_t& d) {
    for (std::size_t i = 1; i < d.size(); ++i)
        if (d[i - 1] >= d[i]) return false;
    return true;
}
inline bool all_in_range(const dims_t& d, std::int64_t rank) {
    for (auto x : d)
        if (x < 0 || x >= rank) return false;
    return true;
}
inline bool is_permutation_of_rank(const dims_t& p, std::size_t rank) {
    return p.size() == rank && all_in_range(p, static_cast<std::int64_t>(rank)) && all_unique(p);
}

// An integer index element read as int64 (unsigned values above INT64_MAX saturate).
template<class I>
std::int64_t index_value(I v) {
    static_assert(is_int_v<I>, "index arrays hold integers");
    if constexpr (std::is_unsigned_v<I>) {
        if (static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::numeric_limits<std::int64_t>::max();
    }
    return static_cast<std::int64_t>(v);
}

inline std::int64_t clamp64(std::int64_t v, std::int64_t lo, std::int64_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// Visits every multi-index of `dims` in row-major order.
template<class F>
void for_each_index(const dims_t& dims, F f) {
    const std::int64_t n = element_count(dims);
    for (std::int64_t flat = 0; flat < n; ++flat)
        f(unflatten(flat, dims));
}

// Builds the array of shape `dims` whose element at index o is f(o).
template<class T, class F>
array<T> generate(const dims_t& dims, F f) {
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(element_count(dims)));
    for_each_index(dims, [&](const dims_t& o) { out.push_back(f(o)); });
    return array<T>(dims, std::move(out));
}

// ---------------------------------------------------------------------------------------------
// Broadcast(operand, broadcast_sizes): new dimensions on the left;
// output[i0..iN, j0..jM] = operand[j0..jM].
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> broadcast(const array<T>& a, const dims_t& sizes) {
    for (auto s : sizes)
        if (s < 0) fail("broadcast: broadcast_sizes must be >= 0");
    dims_t out = sizes;
    out.insert(out.end(), a.dims.begin(), a.dims.end());
    const std::size_t n = sizes.size();
    return generate<T>(
        out, [&](const dims_t& o) { return a.at(dims_t(o.begin() + static_cast<std::ptrdiff_t>(n), o.end())); });
}

// ---------------------------------------------------------------------------------------------
// Reshape(operand, new_sizes): flatten row-major, refill row-major.
// Reshape(operand, dimensions, new_sizes): flatten with the loop nest whose slowest-varying
// dimension is dimensions[0] and fastest dimensions[rank-1], then refill.
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> reshape(const array<T>& a, const dims_t& new_sizes) {
    for (auto s : new_sizes)
        if (s < 0) fail("reshape: negative size");
    if (element_count(new_sizes) != a.size())
        fail("reshape: " + show_dims(new_sizes) + " does not hold the " + std::to_string(a.size()) + " elements of " +
             show_dims(a.dims));
    return array<T>(new_sizes, a.data);
}

template<class T>
array<T> reshape(const array<T>& a, const dims_t& dimensions, const dims_t& new_sizes) {
    if (!is_permutation_of_rank(dimensions, a.dims.size()))
        fail("reshape: dimensions must be a permutation of 0..rank-1");
    // The loop nest: counter k walks operand dimension dimensions[k]; the last counter is fastest.
    dims_t nest(dimensions.size());
    for (std::size_t k = 0; k < dimensions.size(); ++k)
        nest[k] = a.dims[static_cast<std::size_t>(dimensions[k])];
    std::vector<T> flat;
    for_each_index(nest, [&](const dims_t& c) {
        dims_t src(a.dims.size());
        for (std::size_t k = 0; k < dimensions.size(); ++k)
            src[static_cast<std::size_t>(dimensions[k])] = c[k];
        flat.push_back(a.at(src));
    });
    return reshape(array<T>(nest, std::move(flat)), new_sizes); // rank 0: one visit, one element
}

// Collapse(operand, dimensions): consecutive increasing dimensions become one, of their product.
template<class T>
array<T> collapse(const array<T>& a, const dims_t& dimensions) {
    if (dimensions.empty()) fail("collapse: no dimensions");
    if (!all_in_range(dimensions, a.rank())) fail("collapse: dimension out of range");
    for (std::size_t i = 1; i < dimensions.size(); ++i)
        if (dimensions[i] != dimensions[i - 1] + 1) fail("collapse: dimensions must be consecutive and increasing");
    dims_t out;
    for (std::int64_t d = 0; d < a.rank(); ++d) {
        const auto ud = static_cast<std::size_t>(d);
        if (d == dimensions.front()) {
            std::int64_t p = 1;
            for (auto k : dimensions)
                p *= a.dims[static_cast<std::size_t>(k)];
            out.push_back(p);
        } else if (!contains(dimensions, d)) {
            out.push_back(a.dims[ud]);
        }
    }
    return reshape(a, out);
}

// ---------------------------------------------------------------------------------------------
// Transpose(operand, permutation): input_dimensions[permutation[i]] = output_dimensions[i], i.e.
// output[o] = operand[in] with in[permutation[i]] = o[i].
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> transpose(const array<T>& a, const dims_t& perm) {
    if (!is_permutation_of_rank(perm, a.dims.size())) fail("transpose: not a permutation of 0..rank-1");
    dims_t out(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i)
        out[i] = a.dims[static_cast<std::size_t>(perm[i])];
    return generate<T>(out, [&](const dims_t& o) {
        dims_t in(o.size());
        for (std::size_t i = 0; i < perm.size(); ++i)
            in[static_cast<std::size_t>(perm[i])] = o[i];
        return a.at(in);
    });
}

// Rev(operand, dimensions): index i along a reversed dimension of size N reads N - 1 - i.
template<class T>
array<T> rev(const array<T>& a, const dims_t& dims) {
    if (!all_in_range(dims, a.rank())) fail("rev: dimension out of range");
    if (!all_unique(dims)) fail("rev: dimensions not unique");
    return generate<T>(a.dims, [&](const dims_t& o) {
        dims_t in = o;
        for (auto d : dims) {
            const auto ud = static_cast<std::size_t>(d);
            in[ud] = a.dims[ud] - 1 - o[ud];
        }
        return a.at(in);
    });
}

// ---------------------------------------------------------------------------------------------
// Slice(operand, start_indices, limit_indices, strides): output[o] = operand[start + o * stride],
// output size ceil((limit - start) / stride).
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> slice(const array<T>& a, const dims_t& start, const dims_t& limit, dims_t strides = {}) {
    const std::size_t r = a.dims.size();
    if (strides.empty()) strides.assign(r, 1);
    if (start.size() != r || limit.size() != r || strides.size() != r) fail("slice: one entry per dimension");
    dims_t out(r);
    for (std::size_t d = 0; d < r; ++d) {
        if (start[d] < 0 || start[d] > limit[d] || limit[d] > a.dims[d])
            fail("slice: need 0 <= start <= limit <= size");
        if (strides[d] < 1) fail("slice: stride must be >= 1");
        std::int64_t n = 0;
        for (std::int64_t i = start[d]; i < limit[d]; i += strides[d])
            ++n; // count, no formula
        out[d] = n;
    }
    return generate<T>(out, [&](const dims_t& o) {
        dims_t in(r);
        for (std::size_t d = 0; d < r; ++d)
            in[d] = start[d] + o[d] * strides[d];
        return a.at(in);
    });
}

// ---------------------------------------------------------------------------------------------
// Pad(operand, padding_value, padding_config). As the spec says, interior padding happens first
// (interior[d] values between neighbours), then edge padding, which removes elements of the
// interior-padded array when negative.
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> pad(const array<T>& a, T value, const dims_t& low, const dims_t& high, const dims_t& interior) {
    const std::size_t r = a.dims.size();
    if (low.size() != r || high.size() != r || interior.size() != r) fail("pad: one entry per dimension");
    for (auto v : interior)
        if (v < 0) fail("pad: interior padding must be >= 0");
    // Step 1: the interior-padded array.
    dims_t mid(r);
    for (std::size_t d = 0; d < r; ++d)
        mid[d] = a.dims[d] == 0 ? 0 : a.dims[d] + (a.dims[d] - 1) * interior[d];
    std::vector<T> mid_data(static_cast<std::size_t>(element_count(mid)), value);
    array<T> m(mid, std::move(mid_data));
    for_each_index(a.dims, [&](const dims_t& i) {
        dims_t at(r);
        for (std::size_t d = 0; d < r; ++d)
            at[d] = i[d] * (interior[d] + 1);
        m.at(at) = a.at(i);
    });
    // Step 2: edge padding (negative: crop).
    dims_t out(r);
    for (std::size_t d = 0; d < r; ++d) {
        out[d] = low[d] + mid[d] + high[d];
        if (out[d] < 0) fail("pad: a padded dimension would have a negative size");
    }
    return generate<T>(out, [&](const dims_t& o) {
        dims_t in(r);
        for (std::size_t d = 0; d < r; ++d) {
            in[d] = o[d] - low[d];
            if (in[d] < 0 || in[d] >= mid[d]) return value;
        }
        return m.at(in);
    });
}

// ---------------------------------------------------------------------------------------------
// ConcatInDim(operands..., dimension): operands in order along `dimension`; all other sizes equal.
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> concatenate(const std::vector<array<T>>& ops, std::int64_t dimension) {
    if (ops.empty()) fail("concatenate: needs at least one operand");
    const auto r = ops[0].rank();
    if (dimension < 0 || dimension >= r) fail("concatenate: dimension out of range");
    const auto k = static_cast<std::size_t>(dimension);
    dims_t out = ops[0].dims;
    out[k] = 0;
    for (const auto& o : ops) {
        if (o.rank() != r) fail("concatenate: ranks differ");
        for (std::size_t d = 0; d < o.dims.size(); ++d)
            if (d != k && o.dims[d] != ops[0].dims[d]) fail("concatenate: sizes differ outside the dimension");
        out[k] += o.dims[k];
    }
    return generate<T>(out, [&](const dims_t& o) {
        dims_t in = o;
        std::size_t j = 0;
        while (in[k] >= ops[j].dims[k])
            in[k] -= ops[j++].dims[k];
        return ops[j].at(in);
    });
}

// ---------------------------------------------------------------------------------------------
// DynamicSlice(operand, start_indices, slice_sizes), with the spec's clamp
// start[i] = clamp(start[i], 0, operand.dimension_size[i] - slice_sizes[i]).
// ---------------------------------------------------------------------------------------------
template<class T>
array<T> dynamic_slice(const array<T>& a, const dims_t& starts, const dims_t& sizes) {
    const std::size_t r = a.dims.size();
    if (starts.size() != r || sizes.size() != r) fail("dynamic_slice: one start and one size per dimension");
    dims_t s(r);
    for (std::size_t d = 0; d < r; ++d) {
        if (sizes[d] < 0 || sizes[d] > a.dims[d]) fail("dynamic_slice: slice size out of range");
        s[d] = clamp64(starts[d], 0, a.dims[d] - sizes[d]);
    }
    return generate<T>(sizes, [&](const dims_t& o) {
        dims_t in(r);
        for (std::size_t d = 0; d < r; ++d)
            in[d] = s[d] + o[d];
        return a.at(in);
    });
}

// DynamicUpdateSlice(operand, update, start_indices), starts clamped to
// [0, operand.dimension_size[i] - update.dimension_size[i]].
template<class T>
array<T> dynamic_update_slice(const array<T>& a, const array<T>& update, const dims_t& starts) {
    const std::size_t r = a.dims.size();
    if (starts.size() != r || update.dims.size() != r) fail("dynamic_update_slice: one start per dimension, same rank");
    dims_t s(r);
    for (std::size_t d = 0; d < r; ++d) {
        if (update.dims[d] > a.dims[d]) fail("dynamic_update_slice: update larger than the operand");
        s[d] = clamp64(starts[d], 0, a.dims[d] - update.dims[d]);
    }
    return generate<T>(a.dims, [&](const dims_t& o) {
        dims_t u(r);
        for (std::size_t d = 0; d < r; ++d) {
            u[d] = o[d] - s[d];
            if (u[d] < 0 || u[d] >= update.dims[d]) return a.at(o);
        }
        return update.at(u);
    });
}

// ---------------------------------------------------------------------------------------------
// Index vectors shared by Gather and Scatter
// ---------------------------------------------------------------------------------------------
// The indices array with index_vector_dim == rank read as having a trailing dimension of size 1.
template<class I>
array<I> with_index_vector_dim(const array<I>& idx, std::int64_t index_vector_dim) {
    if (index_vector_dim < 0 || index_vector_dim > idx.rank()) fail("index_vector_dim must be in [0, rank(indices)]");
    if (index_vector_dim < idx.rank()) return idx;
    dims_t d = idx.dims;
    d.push_back(1);
    return array<I>(d, idx.data);
}

// The indices dimensions other than index_vector_dim (the batch dimensions), in order.
inline dims_t batch_dims_of(const dims_t& idx_dims, std::int64_t ivd) {
    dims_t b;
    for (std::size_t d = 0; d < idx_dims.size(); ++d)
        if (static_cast<std::int64_t>(d) != ivd) b.push_back(static_cast<std::int64_t>(d));
    return b;
}

// S[i] = indices[Combine(G, i)]: G with i inserted at position index_vector_dim.
template<class I>
dims_t index_vector(const array<I>& idx, const dims_t& G, std::int64_t ivd) {
    const std::int64_t n = idx.dims[static_cast<std::size_t>(ivd)];
    dims_t S(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        dims_t at = G;
        at.insert(at.begin() + ivd, i);
        S[static_cast<std::size_t>(i)] = index_value(idx.at(at));
    }
    return S;
}

// Position of indices dimension `d` among the batch dimensions (index_vector_dim skipped).
inline std::size_t batch_position(std::int64_t d, std::int64_t ivd) {
    return static_cast<std::size_t>(d < ivd ? d : d - 1);
}

// ---------------------------------------------------------------------------------------------
// Gather(operand, start_indices, offset_dims, collapsed_slice_dims, start_index_map,
//        index_vector_dim, slice_sizes, operand_batching_dims, start_indices_batching_dims)
// For an output index Out: G = Out at the batch dims (output dims not in offset_dims);
// S = start_indices[Combine(G, :)]; Sin[start_index_map[k]] = clamp(S[k], 0, size - slice_size);
// Bin[operand_batching_dims[k]] = G at start_indices_batching_dims[k];
// Oin[remapped_offset_dims(k)] = Out[offset_dims[k]] (remapped skips collapsed and batching dims);
// In = Sin + Bin + Oin.
// ---------------------------------------------------------------------------------------------
template<class T, class I>
array<T> gather(const array<T>& operand, const array<I>& start_indices_in, const dims_t& offset_dims,
                const dims_t& collapsed_slice_dims, const dims_t& start_index_map, std::int64_t index_vector_dim,
                const dims_t& slice_sizes, const dims_t& operand_batching_dims = {},
                const dims_t& start_indices_batching_dims = {}) {
    const array<I> idx = with_index_vector_dim(start_indices_in, index_vector_dim);
    const std::int64_t ivd = index_vector_dim;
    const std::int64_t orank = operand.rank();
    const dims_t bsrc = batch_dims_of(idx.dims, ivd);
    const std::size_t batch_rank = bsrc.size();
    const std::int64_t out_rank = static_cast<std::int64_t>(batch_rank + offset_dims.size());
    if (orank !=
        static_cast<std::int64_t>(offset_dims.size() + collapsed_slice_dims.size() + operand_batching_dims.size()))
        fail("gather: rank(operand) != |offset_dims| + |collapsed_slice_dims| + |operand_batching_dims|");
    if (slice_sizes.size() != operand.dims.size()) fail("gather: one slice size per operand dimension");
    for (std::size_t d = 0; d < slice_sizes.size(); ++d)
        if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dims[d]) fail("gather: slice size out of range");
    if (!strictly_increasing(offset_dims) || !all_in_range(offset_dims, out_rank)) fail("gather: offset_dims");
    if (!strictly_increasing(collapsed_slice_dims) || !all_in_range(collapsed_slice_dims, orank))
        fail("gather: collapsed_slice_dims");
    for (auto d : collapsed_slice_dims)
        if (slice_sizes[static_cast<std::size_t>(d)] != 1 || contains(operand_batching_dims, d))
            fail("gather: collapsed dim");
    if (!strictly_increasing(operand_batching_dims) || !all_in_range(operand_batching_dims, orank))
        fail("gather: operand_batching_dims");
    if (start_indices_batching_dims.size() != operand_batching_dims.size() ||
        !all_unique(start_indices_batching_dims) ||
        !all_in_range(start_indices_batching_dims, start_indices_in.rank()) ||
        contains(start_indices_batching_dims, ivd))
        fail("gather: start_indices_batching_dims");
    for (std::size_t k = 0; k < operand_batching_dims.size(); ++k) {
        const auto od = static_cast<std::size_t>(operand_batching_dims[k]);
        if (slice_sizes[od] != 1 ||
            operand.dims[od] != idx.dims[static_cast<std::size_t>(start_indices_batching_dims[k])])
            fail("gather: batching dims must have slice size 1 and equal sizes");
    }
    if (static_cast<std::int64_t>(start_index_map.size()) != idx.dims[static_cast<std::size_t>(ivd)])
        fail("gather: start_index_map size");
    if (!all_unique(start_index_map) || !all_in_range(start_index_map, orank)) fail("gather: start_index_map");
    for (auto d : start_index_map)
        if (contains(operand_batching_dims, d)) fail("gather: start_index_map names a batching dimension");

    // remapped_offset_dims: offset dim k -> the k-th operand dim that is neither collapsed nor batching.
    dims_t remapped;
    for (std::int64_t d = 0; d < orank; ++d)
        if (!contains(collapsed_slice_dims, d) && !contains(operand_batching_dims, d)) remapped.push_back(d);
    dims_t batch_pos; // output dims not in offset_dims
    for (std::int64_t p = 0; p < out_rank; ++p)
        if (!contains(offset_dims, p)) batch_pos.push_back(p);
    dims_t out(static_cast<std::size_t>(out_rank));
    for (std::size_t k = 0; k < batch_rank; ++k)
        out[static_cast<std::size_t>(batch_pos[k])] = idx.dims[static_cast<std::size_t>(bsrc[k])];
    for (std::size_t k = 0; k < offset_dims.size(); ++k)
        out[static_cast<std::size_t>(offset_dims[k])] = slice_sizes[static_cast<std::size_t>(remapped[k])];

    return generate<T>(out, [&](const dims_t& Out) {
        dims_t G(batch_rank);
        for (std::size_t k = 0; k < batch_rank; ++k)
            G[k] = Out[static_cast<std::size_t>(batch_pos[k])];
        const dims_t S = index_vector(idx, G, ivd);
        dims_t In(static_cast<std::size_t>(orank), 0);
        for (std::size_t k = 0; k < start_index_map.size(); ++k) {
            const auto d = static_cast<std::size_t>(start_index_map[k]);
            In[d] += clamp64(S[k], 0, operand.dims[d] - slice_sizes[d]);
        }
        for (std::size_t k = 0; k < operand_batching_dims.size(); ++k)
            In[static_cast<std::size_t>(operand_batching_dims[k])] +=
                G[batch_position(start_indices_batching_dims[k], ivd)];
        for (std::size_t k = 0; k < offset_dims.size(); ++k)
            In[static_cast<std::size_t>(remapped[k])] += Out[static_cast<std::size_t>(offset_dims[k])];
        return operand.at(In);
    });
}

// ---------------------------------------------------------------------------------------------
// Scatter(operands..., scatter_indices, updates..., update_computation, update_window_dims,
//         inserted_window_dims, scatter_dims_to_operand_dims, index_vector_dim,
//         input_batching_dims, scatter_indices_batching_dims)
// For an update index U: G = U at update_scatter_dims (update dims not in update_window_dims);
// S = scatter_indices[Combine(G, :)]; Sin[scatter_dims_to_operand_dims[k]] = S[k] (no clamp);
// Bin[input_batching_dims[k]] = G at scatter_indices_batching_dims[k];
// Win[window_dims_to_operand_dims(k)] = U[update_window_dims[k]]; I = Sin + Bin + Win;
// output[I] = update_computation(output[I], updates[U]) (current value first, update second).
// ---------------------------------------------------------------------------------------------
enum class scatter_oob {
    skip_window, // XLA: a window that does not fit entirely inside the operand is dropped whole
    skip_element // the spec text: each element is applied "if O is a valid index for output"
};

struct scatter_dnums {
    dims_t update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims;
    std::int64_t index_vector_dim = 0;
    dims_t input_batching_dims{}, scatter_indices_batching_dims{};
};

// Walks the updates window by window (G row-major, then the window index row-major) and calls
// apply(I, U) for every update that lands;
// shared by the single-type and the two-type scatter.
template<class I, class Apply>
void scatter_walk(const dims_t& operand_dims, const array<I>& indices_in, const dims_t& update_dims,
                  const scatter_dnums& n, scatter_oob mode, Apply apply) {
    const array<I> idx = with_index_vector_dim(indices_in, n.index_vector_dim);
    const std::int64_t ivd = n.index_vector_dim;
    const auto orank = static_cast<std::int64_t>(operand_dims.size());
    const auto urank = static_cast<std::int64_t>(update_dims.size());
    const dims_t bsrc = batch_dims_of(idx.dims, ivd);
    if (urank != static_cast<std::int64_t>(n.update_window_dims.size() + bsrc.size()))
        fail("scatter: rank(updates) != |update_window_dims| + rank(scatter_indices) - 1");
    if (!strictly_increasing(n.update_window_dims) || !all_in_range(n.update_window_dims, urank))
        fail("scatter: update_window_dims");
    if (!strictly_increasing(n.inserted_window_dims) || !all_in_range(n.inserted_window_dims, orank))
        fail("scatter: inserted_window_dims");
    if (!strictly_increasing(n.input_batching_dims) || !all_in_range(n.input_batching_dims, orank))
        fail("scatter: input_batching_dims");
    for (auto d : n.inserted_window_dims)
        if (contains(n.input_batching_dims, d)) fail("scatter: inserted window dim is a batching dim");
    if (orank != static_cast<std::int64_t>(n.update_window_dims.size() + n.inserted_window_dims.size() +
                                           n.input_batching_dims.size()))
        fail("scatter: rank(operand) != |update_window_dims| + |inserted_window_dims| + |input_batching_dims|");
    if (static_cast<std::int64_t>(n.scatter_dims_to_operand_dims.size()) != idx.dims[static_cast<std::size_t>(ivd)] ||
        !all_unique(n.scatter_dims_to_operand_dims) || !all_in_range(n.scatter_dims_to_operand_dims, orank))
        fail("scatter: scatter_dims_to_operand_dims");
    for (auto d : n.scatter_dims_to_operand_dims)
        if (contains(n.input_batching_dims, d))
            fail("scatter: scatter_dims_to_operand_dims names a batching dimension");
    if (n.scatter_indices_batching_dims.size() != n.input_batching_dims.size() ||
        !all_unique(n.scatter_indices_batching_dims) ||
        !all_in_range(n.scatter_indices_batching_dims, indices_in.rank()) ||
        contains(n.scatter_indices_batching_dims, ivd))
        fail("scatter: scatter_indices_batching_dims");
    for (std::size_t k = 0; k < n.input_batching_dims.size(); ++k)
        if (operand_dims[static_cast<std::size_t>(n.input_batching_dims[k])] !=
            idx.dims[static_cast<std::size_t>(n.scatter_indices_batching_dims[k])])
            fail("scatter: batching dims of different sizes");

    dims_t window_to_operand; // window_dims_to_operand_dims
    for (std::int64_t d = 0; d < orank; ++d)
        if (!contains(n.inserted_window_dims, d) && !contains(n.input_batching_dims, d)) window_to_operand.push_back(d);
    dims_t update_scatter_dims;
    for (std::int64_t d = 0; d < urank; ++d)
        if (!contains(n.update_window_dims, d)) update_scatter_dims.push_back(d);
    for (std::size_t k = 0; k < update_scatter_dims.size(); ++k)
        if (update_dims[static_cast<std::size_t>(update_scatter_dims[k])] !=
            idx.dims[static_cast<std::size_t>(bsrc[k])])
            fail("scatter: update scatter dimension size != scatter_indices batch size");
    dims_t window_size(static_cast<std::size_t>(orank), 1);
    for (std::size_t k = 0; k < n.update_window_dims.size(); ++k) {
        const auto od = static_cast<std::size_t>(window_to_operand[k]);
        window_size[od] = update_dims[static_cast<std::size_t>(n.update_window_dims[k])];
        if (window_size[od] > operand_dims[od]) fail("scatter: update window larger than the operand");
    }

    dims_t order = update_scatter_dims; // the update dimensions in walking order
    order.insert(order.end(), n.update_window_dims.begin(), n.update_window_dims.end());
    dims_t walk_dims;
    for (auto d : order)
        walk_dims.push_back(update_dims[static_cast<std::size_t>(d)]);
    for_each_index(walk_dims, [&](const dims_t& P) {
        dims_t U(static_cast<std::size_t>(urank));
        for (std::size_t k = 0; k < order.size(); ++k)
            U[static_cast<std::size_t>(order[k])] = P[k];
        dims_t G(update_scatter_dims.size());
        for (std::size_t k = 0; k < G.size(); ++k)
            G[k] = U[static_cast<std::size_t>(update_scatter_dims[k])];
        const dims_t S = index_vector(idx, G, ivd);
        dims_t start(static_cast<std::size_t>(orank), 0); // Sin + Bin
        for (std::size_t k = 0; k < S.size(); ++k)
            start[static_cast<std::size_t>(n.scatter_dims_to_operand_dims[k])] = S[k];
        for (std::size_t k = 0; k < n.input_batching_dims.size(); ++k)
            start[static_cast<std::size_t>(n.input_batching_dims[k])] =
                G[batch_position(n.scatter_indices_batching_dims[k], ivd)];
        dims_t win(static_cast<std::size_t>(orank), 0); // Win
        for (std::size_t k = 0; k < n.update_window_dims.size(); ++k)
            win[static_cast<std::size_t>(window_to_operand[k])] = U[static_cast<std::size_t>(n.update_window_dims[k])];
        bool ok = true;
        dims_t Iout(static_cast<std::size_t>(orank));
        for (std::size_t d = 0; d < operand_dims.size(); ++d) {
            if (mode == scatter_oob::skip_window && (start[d] < 0 || start[d] > operand_dims[d] - window_size[d]))
                ok = false;
            if (start[d] >= operand_dims[d]) ok = false; // (also keeps start + win from overflowing)
            if (!ok) break;
            Iout[d] = start[d] + win[d];
            if (Iout[d] < 0 || Iout[d] >= operand_dims[d]) ok = false;
        }
        if (ok) apply(Iout, U);
    });
}

// Variadic scatter over operands of one element type; f(current values, update values) returns the
// new values (one per operand).
template<class T, class I>
std::vector<array<T>> scatter(std::vector<array<T>> operands, const array<I>& indices,
                              const std::vector<array<T>>& updates,
                              const std::function<std::vector<T>(const std::vector<T>&, const std::vector<T>&)>& f,
                              const scatter_dnums& n, scatter_oob mode = scatter_oob::skip_window) {
    if (operands.empty() || operands.size() != updates.size()) fail("scatter: one update per operand, at least one");
    for (const auto& o : operands)
        if (o.dims != operands[0].dims) fail("scatter: operands differ in shape");
    for (const auto& u : updates)
        if (u.dims != updates[0].dims) fail("scatter: updates differ in shape");
    scatter_walk(operands[0].dims, indices, updates[0].dims, n, mode, [&](const dims_t& Iout, const dims_t& U) {
        std::vector<T> cur, upd;
        for (std::size_t j = 0; j < operands.size(); ++j) {
            cur.push_back(operands[j].at(Iout));
            upd.push_back(updates[j].at(U));
        }
        const std::vector<T> r = f(cur, upd);
        if (r.size() != operands.size()) fail("scatter: update_computation must return one value per operand");
        for (std::size_t j = 0; j < operands.size(); ++j)
            operands[j].at(Iout) = r[j];
    });
    return operands;
}

// Single operand: f(current, update) -> new value.
template<class T, class I>
array<T> scatter(const array<T>& operand, const array<I>& indices, const array<T>& updates,
                 const std::function<T(T, T)>& f, const scatter_dnums& n, scatter_oob mode = scatter_oob::skip_window) {
    std::function<std::vector<T>(const std::vector<T>&, const std::vector<T>&)> g =
        [&](const std::vector<T>& c, const std::vector<T>& u) { return std::vector<T>{f(c[0], u[0])}; };
    return scatter<T, I>(std::vector<array<T>>{operand}, indices, std::vector<array<T>>{updates}, g, n, mode)[0];
}

// Two operands of different element types: f(current0, current1, update0, update1) -> new pair.
template<class A, class B, class I>
std::pair<array<A>, array<B>> scatter(array<A> op0, array<B> op1, const array<I>& indices, const array<A>& up0,
                                      const array<B>& up1, const std::function<std::pair<A, B>(A, B, A, B)>& f,
                                      const scatter_dnums& n, scatter_oob mode = scatter_oob::skip_window) {
    if (op0.dims != op1.dims || up0.dims != up1.dims) fail("scatter: operands (or updates) differ in shape");
    scatter_walk(op0.dims, indices, up0.dims, n, mode, [&](const dims_t& Iout, const dims_t& U) {
        const auto r = f(op0.at(Iout), op1.at(Iout), up0.at(U), up1.at(U));
        op0.at(Iout) = r.first;
        op1.at(Iout) = r.second;
    });
    return {std::move(op0), std::move(op1)};
}

} // namespace xlet_ref
