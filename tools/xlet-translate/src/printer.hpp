// Prints a module as StableHLO text: functions in their pretty form, every op in MLIR's generic
// form (which any MLIR parser reads, registered dialect or not).
#pragma once
#include <string>

#include "ir.hpp"

namespace xlt {
std::string print_module(const module& m, bool legacy = false); // legacy: see attr_str
}
