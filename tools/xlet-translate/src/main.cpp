// xlet-translate: StableHLO text in, C++ over xlet (or StableHLO again) out.
//   xlet-translate [--<pass>[=options]]... [--emit cpp|runner|stablehlo] [--namespace NAME] [-o FILE] module.mlir
// Passes run in command-line order, spelled as stablehlo-opt spells them.
// Errors go to stderr as `file:line:col: error: ...`, every one the tool finds; exit code 1.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "emit_cpp.hpp"
#include "parser.hpp"
#include "passes.hpp"
#include "printer.hpp"

namespace {
int usage() {
    std::cerr << "usage: xlet-translate [--emit cpp|runner|stablehlo] [--namespace NAME] [-o FILE] module.mlir\n"
                 "  --emit cpp        a C++ header: one function per func.func over <xlet/xlet.hpp> (default)\n"
                 "  --emit runner     the header and a main() that runs the module's check.* assertions\n"
                 "  --emit bench      a Google Benchmark program timing each public function and each op alone\n"
                 "  --emit stablehlo  the module again, every op in MLIR's generic form\n"
                 "  --mlir-compat=15  with --emit stablehlo: integer lists as dense<[...]> (MLIR 15 has no array<>)\n"
                 "  --list-ops        the ops the C++ emitter translates\n"
                 "  --list-passes     the passes (--stablehlo-refine-shapes, ...), in the seed's order\n"
                 "  --<pass>[=opts]   run a pass, e.g. --stablehlo-refine-arguments='types=tensor<2x4xf32>'\n"
                 "  input '-' reads standard input\n";
    return 2;
}
// --name[=options] of a known pass, split; nothing for any other argument.
std::optional<std::pair<std::string, std::string>> pass_of(const std::string& a) {
    if (a.rfind("--", 0) != 0) return std::nullopt;
    auto eq = a.find('=');
    std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    for (auto& p : xlt::known_passes())
        if (p.name == name) return std::pair{name, eq == std::string::npos ? std::string() : a.substr(eq + 1)};
    return std::nullopt;
}
void report(const std::string& file, const std::vector<xlt::diagnostic>& ds) {
    for (auto& d : ds)
        if (d.at.line == 0)
            std::cerr << file << ": error: " << d.text << '\n'; // a pass option, no position
        else
            std::cerr << file << ':' << d.at.line << ':' << d.at.col << ": error: " << d.text << '\n';
}
} // namespace

int main(int argc, char** argv) {
    std::string emit = "cpp", out, input, ns;
    std::vector<std::pair<std::string, std::string>> passes;
    bool legacy = false; // --mlir-compat=15: integer lists as dense<> for MLIR 15's parser
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const std::string& flag) -> std::string {
            if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0)
                return a.substr(flag.size() + 1);
            if (i + 1 >= argc) {
                std::cerr << "xlet-translate: " << flag << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--emit" || a.rfind("--emit=", 0) == 0)
            emit = value("--emit");
        else if (a == "--namespace" || a.rfind("--namespace=", 0) == 0)
            ns = value("--namespace");
        else if (a == "-o")
            out = value("-o");
        else if (a == "--list-ops") {
            for (auto& n : xlt::supported_ops())
                std::cout << n << '\n';
            return 0;
        } else if (a == "--mlir-compat=15") {
            legacy = true;
        } else if (a == "--list-passes") {
            for (auto& p : xlt::known_passes())
                std::cout << "--" << p.name << (p.options.empty() ? "" : "='" + p.options + "'") << "\n    "
                          << p.summary << '\n';
            return 0;
        } else if (a == "-h" || a == "--help") {
            return usage();
        } else if (auto pass = pass_of(a)) {
            passes.push_back(*pass);
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            std::cerr << "xlet-translate: unknown option " << a << '\n';
            return usage();
        } else if (input.empty())
            input = a;
        else
            return usage();
    }
    if (input.empty()) return usage();
    if (emit != "cpp" && emit != "runner" && emit != "stablehlo" && emit != "bench") {
        std::cerr << "xlet-translate: --emit takes cpp, runner, bench or stablehlo\n";
        return 2;
    }
    std::stringstream buf;
    if (input == "-") {
        buf << std::cin.rdbuf();
    } else {
        std::ifstream in(input, std::ios::binary);
        if (!in) {
            std::cerr << "xlet-translate: cannot read " << input << '\n';
            return 1;
        }
        buf << in.rdbuf();
    }
    std::string file = input == "-" ? "<stdin>" : input;
    auto parsed = xlt::parse_module(buf.str(), file);
    if (!parsed.errors.empty()) {
        report(file, parsed.errors);
        return 1;
    }
    for (auto& [name, options] : passes) {
        std::vector<xlt::diagnostic> errors;
        if (!xlt::run_pass(parsed.mod, name, options, errors)) {
            report(file, errors);
            return 1;
        }
    }
    std::string text;
    if (emit == "stablehlo") {
        text = xlt::print_module(parsed.mod, legacy);
    } else {
        xlt::emit_options opt;
        opt.ns = ns;
        opt.runner = emit == "runner";
        auto r = emit == "bench" ? xlt::emit_bench(parsed.mod, opt) : xlt::emit_cpp(parsed.mod, opt);
        if (!r.errors.empty()) {
            report(file, r.errors);
            return 1;
        }
        text = std::move(r.code);
    }
    if (out.empty()) {
        std::cout << text;
    } else {
        std::ofstream o(out, std::ios::binary);
        o << text;
        if (!o) {
            std::cerr << "xlet-translate: cannot write " << out << '\n';
            return 1;
        }
    }
    return 0;
}
