// The StableHLO module passes of the seed (spec/stablehlo-passes.fa.txt), on xlet-translate's IR,
// spelled as stablehlo-opt spells them: --stablehlo-refine-arguments='types=tensor<2x4xf32>'.
#pragma once
#include <string>
#include <vector>

#include "ir.hpp"

namespace xlt {

struct pass_info {
    std::string name;    // stablehlo-refine-shapes
    std::string summary; // one line
    std::string options; // "types=<type list>" ...; empty if none
};

// Every pass the tool knows, in the seed's order (docs/passes.md has one row each).
const std::vector<pass_info>& known_passes();

// Runs one pass; `options` is what follows '=' on the command line ("types=tensor<4xf32>",
// "except='a.b,c.d'", "op-names=stablehlo.add version=2"). Diagnostics are appended to `errors`;
// false when the pass failed (the module may then be half rewritten: do not emit it).
bool run_pass(module& m, const std::string& name, const std::string& options, std::vector<diagnostic>& errors);

} // namespace xlt
