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
// true. False keeps the op: `why` is empty when the op is not one of these (or has an element
// type they do not cover), and says what is wrong otherwise (dynamic shapes). `fresh(base)` gives
// a value name not used in the function yet.
bool chlo_decompose_math(const op& o, const std::function<std::string(const std::string&)>& fresh,
                         std::vector<std::unique_ptr<op>>& seq, std::string& why);

// chlo.ragged_dot (masked dot_generals, as upstream) and chlo.scan (a stablehlo.while), on static
// shapes; the same contract as above.
bool chlo_decompose_ragged_dot_scan(op& o, const std::function<std::string(const std::string&)>& fresh,
                                    std::vector<std::unique_ptr<op>>& seq, std::string& why);

} // namespace xlt
