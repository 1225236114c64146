// The C++ emitters: a header with one function per func.func over xlet's public ops (--emit cpp),
// and a program that runs the check-dialect assertions of a test module (--emit runner).
#pragma once
#include <string>
#include <vector>

#include "ir.hpp"

namespace xlt {

struct emit_options {
    std::string ns;      // namespace of the generated code; default: the module's name or "module"
    bool runner = false; // also emit main() running every function with check ops
};

struct emit_result {
    std::string code;
    std::vector<diagnostic> errors; // every unsupported op, type or attribute, all at once
};

emit_result emit_cpp(const module& m, const emit_options& opt);

// A Google Benchmark program (--emit bench): the module's functions as above, each public function
// timed as "module/<f>" and each op of its body alone as "op/<f>/<k>_<op>" with the same shapes,
// at 1 and N threads, with bytes/s, FLOP/s and the fractions of the host's limits (<xlet/bench.hpp>).
emit_result emit_bench(const module& m, const emit_options& opt);

// The names of the ops the C++ emitter translates (for docs and the coverage test).
std::vector<std::string> supported_ops();

} // namespace xlt
