// chlo-legalize-to-stablehlo's decompositions of CHLO's special functions (erf, erfc, erf_inv,
// lgamma, digamma, polygamma, zeta, bessel_i1e, next_after), of mulhi, constant_like and
// constant; passes.cpp's chlo_legalize calls it for each CHLO op it does not rewrite itself.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir.hpp"

namespace xlt {

// Appends to `seq` the StableHLO ops computing `o` (the last one defines o's result) and returns
// true. False keeps the op, with `why` empty (the op is not one of these or has an element type
// they do not cover). On dynamic (ranked) shapes each constant of the decomposition is a rank-0
// stablehlo.constant dynamic_broadcast_in_dim'ed to the first operand's shape, that shape as
// shape-legalize-to-stablehlo writes shape.shape_of (get_dimension_size, reshape, concatenate).
// `fresh(base)` gives a value name not used in the function yet.
bool chlo_decompose_math(const op& o, const std::function<std::string(const std::string&)>& fresh,
                         std::vector<std::unique_ptr<op>>& seq, std::string& why);

// shape.shape_of(x) (x of the ranked type t) as shape-legalize-to-stablehlo writes it: each
// dimension's get_dimension_size reshaped to tensor<1xi32>, concatenated into tensor<Nxi32>
// (dense<> : tensor<0xi32> for a scalar). Its name.
std::string chlo_shape_of(const std::string& x, const type& t,
                          const std::function<std::string(const std::string&)>& fresh,
                          std::vector<std::unique_ptr<op>>& seq, loc at);

// A splat of `text` of the dynamic type t: a rank-0 stablehlo.constant dynamic_broadcast_in_dim'ed
// to the shape of `like` (of t's rank), that shape made on the first call (`shape` empty) and
// kept in `shape` for the next ones. Its name.
std::string chlo_splat_dynamic(const std::string& text, const type& t, const std::string& like, const type& like_t,
                               std::string& shape, const std::function<std::string(const std::string&)>& fresh,
                               std::vector<std::unique_ptr<op>>& seq, loc at);

// The operands of a CHLO broadcasting op (chlo.broadcast_*) with a dynamic shape, made explicit:
// each operand stablehlo.dynamic_broadcast_in_dim'ed (on its trailing dimensions) to the result's
// extents, computed as upstream's shape.broadcast is by shape-legalize-to-stablehlo: each
// operand's shape (get_dimension_size per dimension, reshape, concatenate) padded on the left with
// 1s, then their stablehlo.maximum (a scalar predicate of broadcast_select is left as it is). The
// names and types of the broadcast operands are returned; the same contract otherwise (false with
// `why` for broadcast_dimensions other than numpy's left padding, which upstream rejects too).
// Incompatible extents (3 and 4) are not checked here: once the shapes are refined, the broadcast
// of 3 to 4 is an error of stablehlo-refine-shapes.
bool chlo_broadcast_dynamic(const op& o, const std::function<std::string(const std::string&)>& fresh,
                            std::vector<std::unique_ptr<op>>& seq, std::vector<std::string>& names,
                            std::vector<type>& types, std::string& why);

// chlo.ragged_dot (masked dot_generals, as upstream) and chlo.scan (a stablehlo.while), on static
// and dynamic (ranked) shapes, as upstream: extents through get_dimension_size, dynamic_iota,
// real_dynamic_slice, dynamic_reshape and dynamic_broadcast_in_dim. The same contract as above;
// `why` set for what upstream refuses too (a dynamic group count, a scan without inputs whose
// result is dynamic).
bool chlo_decompose_ragged_dot_scan(op& o, const std::function<std::string(const std::string&)>& fresh,
                                    std::vector<std::unique_ptr<op>>& seq, std::string& why);

} // namespace xlt
