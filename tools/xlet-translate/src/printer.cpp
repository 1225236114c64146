#include "printer.hpp"

#include <algorithm>
#include <sstream>

#include "vhlo_ops.hpp"

namespace xlt {

namespace {

struct printer {
    std::ostringstream os;
    bool legacy = false;

    void indent(int n) {
        for (int i = 0; i < n; ++i)
            os << "  ";
    }
    std::string dict(const std::vector<std::pair<std::string, attr>>& d) const {
        std::string s = "{";
        for (std::size_t i = 0; i < d.size(); ++i) {
            s += (i ? ", " : "") + d[i].first;
            if (d[i].second.k != attr::kind::unit) s += " = " + attr_str(d[i].second, legacy);
        }
        return s + "}";
    }
    static std::string types(const std::vector<type>& ts, bool paren_single) {
        if (ts.size() == 1 && !paren_single) return type_str(ts[0]);
        std::string s = "(";
        for (std::size_t i = 0; i < ts.size(); ++i)
            s += (i ? ", " : "") + type_str(ts[i]);
        return s + ")";
    }

    void results(const op& o) {
        if (o.results.empty()) return;
        // %x#0 .. %x#n-1 print as the group %x:n
        const std::string& r0 = o.results[0];
        auto hash = r0.find('#');
        bool group = hash != std::string::npos && o.results.size() > 0;
        if (group) {
            std::string base = r0.substr(0, hash);
            for (std::size_t k = 0; k < o.results.size(); ++k)
                if (o.results[k] != base + "#" + std::to_string(k)) group = false;
            if (group) {
                os << '%' << base << ':' << o.results.size() << " = ";
                return;
            }
        }
        for (std::size_t k = 0; k < o.results.size(); ++k)
            os << (k ? ", " : "") << '%' << o.results[k];
        os << " = ";
    }

    void print_op(const op& o, int ind) {
        indent(ind);
        results(o);
        os << '"' << o.name << "\"(";
        for (std::size_t k = 0; k < o.operands.size(); ++k)
            os << (k ? ", " : "") << '%' << o.operands[k].name;
        os << ')';
        auto attrs = o.attrs;
        // A VHLO op is written as stablehlo-opt writes it: its inherent attributes as properties
        // (`<{...}>`, before the regions), the others after them, each dictionary sorted by name
        // (MLIR's dictionaries are). MLIR 15 (legacy) has no properties.
        if (const vhlo::op_info* vi = o.name.rfind("vhlo.", 0) == 0 ? vhlo::find_op(o.name) : nullptr) {
            std::vector<std::pair<std::string, attr>> props;
            attrs.clear();
            for (auto& kv : o.attrs)
                (vhlo::is_inherent(*vi, kv.first) && !legacy ? props : attrs).push_back(kv);
            auto by_name = [](const auto& a, const auto& b) { return a.first < b.first; };
            std::stable_sort(props.begin(), props.end(), by_name);
            std::stable_sort(attrs.begin(), attrs.end(), by_name);
            if (!props.empty()) os << " <" << dict(props) << '>';
        }
        if (!o.regions.empty()) {
            os << " (";
            for (std::size_t r = 0; r < o.regions.size(); ++r) {
                if (r) os << ", ";
                print_region(o.regions[r], ind, true);
            }
            os << ')';
        }
        if (o.name == "func.call" && !o.get("callee")) {
            attr c;
            c.k = attr::kind::symbol;
            c.s = o.callee;
            attrs.emplace_back("callee", c);
        }
        if (!attrs.empty()) os << ' ' << dict(attrs);
        os << " : " << types(o.operand_types, true) << " -> " << types(o.result_types, o.result_types.size() != 1)
           << '\n';
    }

    void print_region(const region& r, int ind, bool with_args) {
        os << "{\n";
        for (auto& b : r.blocks) {
            if (with_args && !b.arg_names.empty()) {
                indent(ind);
                os << "^bb0(";
                for (std::size_t k = 0; k < b.arg_names.size(); ++k)
                    os << (k ? ", " : "") << '%' << b.arg_names[k] << ": " << type_str(b.arg_types[k]);
                os << "):\n";
            }
            for (auto& o : b.ops)
                print_op(*o, ind + 1);
        }
        indent(ind);
        os << '}';
    }

    void print_func(const func& f) {
        os << "  func.func " << (f.visibility.empty() ? "" : f.visibility + " ") << '@' << f.name << '(';
        for (std::size_t k = 0; k < f.args.size(); ++k) {
            os << (k ? ", " : "") << '%' << f.args[k].name << ": " << type_str(f.args[k].t);
            if (!f.args[k].attrs.empty()) os << ' ' << dict(f.args[k].attrs);
        }
        os << ')';
        if (!f.results.empty()) {
            os << " -> (";
            for (std::size_t k = 0; k < f.results.size(); ++k) {
                os << (k ? ", " : "") << type_str(f.results[k]);
                if (k < f.result_attrs.size() && !f.result_attrs[k].empty()) os << ' ' << dict(f.result_attrs[k]);
            }
            os << ')';
        }
        if (!f.attrs.empty()) os << " attributes " << dict(f.attrs);
        os << ' ';
        print_region(f.body, 1, false);
        os << '\n';
    }
};

} // namespace

std::string print_module(const module& m, bool legacy) {
    printer p;
    p.legacy = legacy;
    p.os << "module";
    if (!m.name.empty()) p.os << " @" << m.name;
    if (!m.attrs.empty()) p.os << " attributes " << p.dict(m.attrs);
    p.os << " {\n";
    for (auto& f : m.funcs)
        p.print_func(f);
    for (auto& o : m.ops)
        p.print_op(*o, 1);
    p.os << "}\n";
    return p.os.str();
}

} // namespace xlt
