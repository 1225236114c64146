// The definitions behind eval/trace.hpp's declarations of the export path's larger functions
// (views, memory values). Included by eval/trace.hpp in units compiled with XLET_TRACE only (see
// core/trace_record.hpp). What stays in eval/trace.hpp: functions an op's code may name in a unit
// without XLET_TRACE, where a call compiled but never run still needs a definition (a traced
// result's binding), and functions whose arguments may be a user's callable (computation): a
// function of a local type must be defined in the unit.
#pragma once
#include <algorithm>

#include "trace.hpp"

namespace xlet::trace {

// A bounded value (eval/bounded.hpp) read as the static array of its padded contents: its sizes
// set to the bounds, so StableHLO's type is static (the padding is unspecified there, computed in xlet).
template<class>
XLET_TRACE_COLD int padded_view(recorder& r, int b, const std::string& type) {
    unsigned mask = 0;
    const auto dims = recorder::type_dims(r.types[static_cast<std::size_t>(b)], mask);
    int v = b;
    for (std::size_t d = 0; d < dims.size(); ++d)
        if ((mask >> d) & 1u) {
            mask &= ~(1u << d);
            const int c = scalar_value<std::int32_t>(r, static_cast<std::int32_t>(dims[d]));
            v = r.emit("stablehlo.set_dimension_size", {v, c}, {recorder::bounded_type(type, mask)},
                       "dimension = " + std::to_string(d) + " : i64");
        }
    return v;
}

// The value held by memory (a tensor, tensor_map, or the leaf of an expression): what a traced op
// wrote there, or else a constant of its current contents.
template<class T, std::size_t R>
XLET_TRACE_COLD int memory_value(recorder& r, const T* p, const extents_t<R>& e) {
    const std::string type = tensor_type<T, R>(e);
    const std::size_t bytes = product(e) * sizeof(T);
    int id = r.find(p, bytes, type);
    if (id >= 0) return id;
    if (const int b = r.padding_of(p, bytes, type); b >= 0) return padded_view(r, b, type);
    if (r.leaves_are_arguments && r.current_region() == 0) {
        id = r.argument(type);
        r.bind(p, bytes, type, id);
        return id;
    }
    const std::vector<std::size_t> dims(e.begin(), e.end());
    id = r.emit("stablehlo.constant", {}, {type}, "value = " + dense_literal(p, dims, type));
    r.bind(p, bytes, type, id);
    return id;
}

inline std::string shaped(const std::vector<std::size_t>& dims, std::string_view elem) {
    std::string s = "tensor<";
    for (auto d : dims)
        s += std::to_string(d) + "x";
    return s + std::string(elem) + ">";
}

// An affine view (eval/view.hpp) as StableHLO ops: child dimension j reads
// scale[j] * out[src[j]] + offset[j] (src[j] < 0: offset[j]). Spelled as reverse (negative
// scales), slice (offsets and strides), reshape (dropping the fixed dimensions), transpose (when
// the kept dimensions are out of order) and broadcast_in_dim (new or size-1 dimensions); each
// only when it does something. `elem` is the child's element type, `out_elem` the view's; they
// differ for a per-axis quantized type (its quantization dimension `axis` of the child moves with
// the dimensions: each op's result names where it is).
template<class>
XLET_TRACE_COLD int view(recorder& r, int v, std::string_view elem, std::vector<std::size_t> cur,
                         const std::vector<std::size_t>& out, const std::vector<int>& src,
                         std::vector<std::ptrdiff_t> scale, std::vector<std::ptrdiff_t> offset,
                         std::string_view out_elem, std::int64_t axis) {
    const int input = v;
    std::string named(elem);
    auto moved_to = [&](std::size_t a) {
        axis = static_cast<std::int64_t>(a);
        named = quant_axis_renamed(elem, axis);
    };
    const std::size_t rc = cur.size();
    std::vector<std::int64_t> rev;
    for (std::size_t j = 0; j < rc; ++j)
        if (src[j] >= 0 && scale[j] < 0) {
            rev.push_back(static_cast<std::int64_t>(j));
            offset[j] = static_cast<std::ptrdiff_t>(cur[j]) - 1 - offset[j];
            scale[j] = -scale[j];
        }
    if (!rev.empty()) v = r.emit("stablehlo.reverse", {v}, {shaped(cur, named)}, "dimensions = " + i64_array(rev));
    std::vector<std::int64_t> start(rc), limit(rc), stride(rc, 1);
    std::vector<std::size_t> sliced(rc);
    bool identity = true;
    for (std::size_t j = 0; j < rc; ++j) {
        start[j] = offset[j];
        if (src[j] < 0 || scale[j] == 0) {
            sliced[j] = 1;
            limit[j] = offset[j] + 1;
        } else {
            const auto n = out[static_cast<std::size_t>(src[j])];
            sliced[j] = n;
            stride[j] = scale[j];
            limit[j] = n == 0 ? offset[j] : offset[j] + scale[j] * static_cast<std::int64_t>(n - 1) + 1;
        }
        identity = identity && start[j] == 0 && stride[j] == 1 && limit[j] == static_cast<std::int64_t>(cur[j]);
    }
    if (!identity) {
        v = r.emit("stablehlo.slice", {v}, {shaped(sliced, named)},
                   "start_indices = " + i64_array(start) + ", limit_indices = " + i64_array(limit) +
                       ", strides = " + i64_array(stride));
        cur = sliced;
    }
    std::vector<std::size_t> kept;
    for (std::size_t j = 0; j < rc; ++j)
        if (src[j] >= 0) kept.push_back(j);
    std::vector<std::size_t> dims;
    for (auto j : kept)
        dims.push_back(cur[j]);
    if (kept.size() < rc) {
        if (axis >= 0) {
            const auto at = std::find(kept.begin(), kept.end(), static_cast<std::size_t>(axis));
            if (at == kept.end()) // (its reshape would drop the quantization dimension)
                throw error("to_stablehlo", "a per-axis quantized dimension of size 1 broadcast to a larger one is "
                                            "not exported");
            moved_to(static_cast<std::size_t>(at - kept.begin()));
        }
        v = r.emit("stablehlo.reshape", {v}, {shaped(dims, named)});
    }
    std::vector<std::size_t> order(kept.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return src[kept[a]] < src[kept[b]]; });
    std::vector<std::int64_t> bdims, perm;
    std::vector<std::size_t> permuted;
    bool sorted = true;
    for (std::size_t i = 0; i < order.size(); ++i) {
        sorted = sorted && order[i] == i;
        perm.push_back(static_cast<std::int64_t>(order[i]));
        permuted.push_back(dims[order[i]]);
        bdims.push_back(src[kept[order[i]]]);
        if (i && bdims[i] == bdims[i - 1])
            throw error("to_stablehlo", "a view that reads a diagonal (two dimensions from one) has no StableHLO form");
    }
    if (!sorted) {
        if (axis >= 0) moved_to(static_cast<std::size_t>(std::find(perm.begin(), perm.end(), axis) - perm.begin()));
        v = r.emit("stablehlo.transpose", {v}, {shaped(permuted, named)}, "permutation = " + i64_array(perm));
    }
    if (permuted != out)
        v = r.emit("stablehlo.broadcast_in_dim", {v}, {shaped(out, named)},
                   "broadcast_dimensions = " + i64_array(bdims));
    // The view's own element type on its last op (a per-axis dimension broadcast from size 1 has
    // its one scale repeated: a type no step above spells).
    if (v != input && !out_elem.empty()) r.types[static_cast<std::size_t>(v)] = shaped(out, out_elem);
    return v;
}

} // namespace xlet::trace
