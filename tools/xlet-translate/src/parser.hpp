// The StableHLO text parser: MLIR's pretty and generic syntax into xlt::module.
// Faces untrusted input: every failure is a diagnostic with its position, never a crash; nesting
// deeper than max_depth and constants larger than max_elements are errors, not stack overflows.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir.hpp"

namespace xlt {

struct parse_limits {
    int max_depth = 200;
    std::size_t max_elements = std::size_t{1} << 26; // elements of one dense constant or tensor type
};

struct parse_result {
    module mod;
    std::vector<diagnostic> errors; // empty on success; a parse error stops at its first one
};

parse_result parse_module(std::string_view text, const std::string& file, parse_limits limits = {});

// One attribute or one type alone, spanning the whole text (what the passes re-read from the
// body of a dialect attribute); false with the reason when it does not parse.
bool parse_attribute(std::string_view text, attr& out, std::string& why, parse_limits limits = {});
bool parse_type(std::string_view text, type& out, std::string& why, parse_limits limits = {});

} // namespace xlt
