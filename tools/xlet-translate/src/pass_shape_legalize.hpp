// shape-legalize-to-stablehlo (StableHLO's experimental ShapeLegalizeToStablehlo): the shape
// computations of dynamic programs written in the shape, tensor and arith dialects become
// StableHLO ops on i32 tensors. Internal to xlet-translate; run_pass (passes.cpp) dispatches to it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir.hpp"

namespace xlt {

// options: reconcile-casts=true|false (default false). Diagnostics appended to `errs`; false when
// an op could not be legalized (the module is then left as it was).
bool shape_legalize_to_stablehlo(module& m, const std::map<std::string, std::string>& options,
                                 std::vector<diagnostic>& errs);

} // namespace xlt
