// Writes the StableHLO module of every case of export_cases.hpp into the directory given:
// <case>.mlir (today's syntax, imported by xlet-translate) and <case>.mlir15.mlir (integer lists
// as dense<>, for MLIR 15's mlir-opt). Run at build time (tests/CMakeLists.txt). Built with
// XLET_GEN_QUANT_PASSES, the cases of tests/passes/quant_pass_cases.hpp instead.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <xlet/stablehlo/export.hpp>

#ifdef XLET_GEN_QUANT_PASSES
#include "quant_pass_cases.hpp"
#define XLET_GEN_CASES XLET_QUANT_PASS_CASES
namespace cases = quant_pass_cases;
#else
#include "export_cases.hpp"
#define XLET_GEN_CASES XLET_EXPORT_CASES
namespace cases = export_cases;
#endif

namespace {
template<class Case>
bool write(const std::string& dir, const char* name) {
    typename Case::args args{};
    for (int compat : {0, 15}) {
        xlet::stablehlo_options o;
        o.module_name = name;
        o.mlir_compat = compat;
        std::string text;
        if constexpr (requires { Case::replicas; }) { // an SPMD case
            o.replicas = Case::replicas;
            o.partitions = Case::partitions;
            text = std::apply(
                [&](const auto&... a) {
                    return xlet::to_stablehlo(
                        o, [](xlet::replica_context& ctx, const auto&... x) { return Case::f(ctx, x...); }, a...);
                },
                args);
        } else {
            text = std::apply(
                [&](const auto&... a) {
                    return xlet::to_stablehlo(
                        o, [](const auto&... x) { return Case::f(x...); }, a...);
                },
                args);
        }
        const std::string path = dir + "/" + name + (compat ? ".mlir15.mlir" : ".mlir");
        std::ofstream out(path);
        out << text;
        if (!out) {
            std::cerr << "export_gen: cannot write " << path << "\n";
            return false;
        }
    }
    return true;
}
} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: export_gen <output directory>\n";
        return 2;
    }
    bool ok = true;
#define XLET_WRITE(name) ok = write<cases::name>(argv[1], #name) && ok;
    XLET_GEN_CASES(XLET_WRITE)
#undef XLET_WRITE
    return ok ? 0 : 1;
}
