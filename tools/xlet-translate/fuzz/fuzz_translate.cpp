// libFuzzer target: any bytes through the parser, and what parses through the printer and both
// C++ emitters. Built with clang and -DXLET_FUZZ=ON (docs/architecture.md has the commands):
//   build/fuzz/tools/xlet-translate/fuzz_translate -max_total_time=600 tests/stablehlo
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "emit_cpp.hpp"
#include "parser.hpp"
#include "passes.hpp"
#include "printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto r = xlt::parse_module(text, "fuzz.mlir");
    if (!r.errors.empty()) return 0;
    std::string printed = xlt::print_module(r.mod);
    auto again = xlt::parse_module(printed, "printed.mlir");
    if (!again.errors.empty()) __builtin_trap(); // what we print, we must read back
    (void)xlt::emit_cpp(r.mod, {.ns = "", .runner = true});
    (void)xlt::emit_bench(r.mod, {});
    // every pass on its own copy (a failing pass is fine; a crash is not), then the emitter again
    for (auto& p : xlt::known_passes()) {
        xlt::module m = xlt::clone(r.mod);
        std::vector<xlt::diagnostic> errs;
        std::string opt = p.name == "stablehlo-refine-arguments"         ? "types=tensor<2x4xf32>"
                          : p.name == "stablehlo-compatibility-expander" ? "target=1.0.0"
                          : p.name == "stablehlo-wrap-in-composite"      ? "op-names=stablehlo.add,stablehlo.multiply"
                          : p.name == "stablehlo-legalize-to-vhlo"       ? "allow-other-dialects=true"
                          : p.name == "vhlo-to-version"                  ? "target=1.0.0"
                                                                         : "";
        if (xlt::run_pass(m, p.name, opt, errs)) {
            (void)xlt::print_module(m);
            (void)xlt::emit_cpp(m, {});
        }
    }
    // and the VHLO passes one after the other: there and back, through older versions
    xlt::module v = xlt::clone(r.mod);
    for (auto [pass, opt] : {std::pair{"vhlo-legalize-to-stablehlo", ""},
                             {"stablehlo-legalize-to-vhlo", "allow-other-dialects=true"},
                             {"vhlo-to-version", "target=1.0.0"},
                             {"vhlo-to-version", "target=1.20.0"},
                             {"vhlo-legalize-to-stablehlo", ""}}) {
        std::vector<xlt::diagnostic> errs;
        if (!xlt::run_pass(v, pass, opt, errs)) break;
        (void)xlt::print_module(v);
    }
    return 0;
}
