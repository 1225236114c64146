// Tracing: how xlet::to_stablehlo (stablehlo/export.hpp) records the program a C++ callable runs.
//
// Compiled in only where XLET_TRACE is defined before the first xlet header (export.hpp defines
// it when it comes first): every other translation unit keeps the ops' code and compile time as
// without tracing, and an op that runs there while a recorder is active throws, naming the cause
// (a program that exports must compile that code with XLET_TRACE too: the same rule as NDEBUG
// for assert, one setting per program is the safe use).
//
// While a recorder is active on the calling thread, every materialisation (an expression written
// into storage) and every heavy op appends StableHLO ops to it; values are identified by the
// storage they live in (address, type and a hash of the contents when they were written), so a
// tensor the program fills by hand, or one no traced op wrote, becomes a constant of its current
// contents. Copies and moves of tensors carry their identity along (core/tensor.hpp). The op runs
// as usual with the recorder paused, so nested evaluations inside a kernel are not recorded. When
// no recorder is active (every program that does not export), each hook is one thread-local load.
#pragma once
#include <array>
#include <bit>
#include <initializer_list>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "owner.hpp"
#include "shape.hpp"
#include "types.hpp"

// The trace path's functions: out of line and optimised for size.
#define XLET_TRACE_COLD [[gnu::cold, gnu::noinline]]

#ifdef XLET_TRACE
#define XLET_TRACE_COMPILED 1
#else
#define XLET_TRACE_COMPILED 0
#endif

namespace xlet::trace {

// One op of the traced program, in StableHLO's generic form.
struct op {
    std::string name;          // "stablehlo.add"
    std::vector<int> operands; // value ids
    std::vector<int> results;  // value ids
    std::string attrs;         // "comparison_direction = ..., ..." (inside the braces)
    std::vector<int> regions;  // indices into recorder::regions
};

// A region (function body, reduce body, while cond/body, ...): block arguments, ops, the returned values.
struct region {
    std::vector<int> args;
    std::vector<op> ops;
    std::vector<int> results;
    std::string terminator = "stablehlo.return";
};

// A value an object carries itself instead of its storage (xlet::bounded: its run-time sizes live
// beside a static expression, so no storage holds the bounded value): which recorder, the id, and
// the region that defines it (usable while that region is open).
struct carried {
    const void* rec = nullptr;
    int id = -1;
    int region = -1;
};

// (A template of nothing, whose members are defined in core/trace_record.hpp, which only units compiled
// with XLET_TRACE include: other units parse these declarations alone.)
template<class = void>
class basic_recorder {
public:
    std::vector<std::string> types; // by value id
    std::vector<region> regions;    // regions[0]: the function body

    // to_stablehlo(expr): memory no traced op wrote (the expression's arrays) becomes arguments
    // of the function rather than constants.
    bool leaves_are_arguments = false;

    basic_recorder();
    ~basic_recorder();
    basic_recorder(const basic_recorder&) = delete;
    basic_recorder& operator=(const basic_recorder&) = delete;

    // A new argument of the function (region 0).
    XLET_TRACE_COLD int argument(std::string type);

    int new_value(std::string type);
    // Appends an op to the innermost open region; returns the id of its first result (results
    // are consecutive ids).
    XLET_TRACE_COLD int emit(std::string name, std::vector<int> operands, const std::vector<std::string>& result_types,
                             std::string attrs = {}, std::vector<int> regs = {});
    // Opens a region with block arguments of the given types; returns its index.
    XLET_TRACE_COLD int open_region(const std::vector<std::string>& arg_types);
    XLET_TRACE_COLD void close_region(std::vector<int> results);
    int current_region() const { return stack_.back(); }

    // Makes closed region g isolated from above (async_start's body): every value its ops (or
    // their nested regions) read from outside becomes a new block argument of g; returns those
    // outer values, in order, for the op to take as extra operands.
    XLET_TRACE_COLD std::vector<int> isolate(int g);

    // Side effects (infeed, outfeed) keep their program order in the module: each takes the
    // region's last token and leaves the one it produces (the first is an after_all of nothing).
    XLET_TRACE_COLD int token_in();
    XLET_TRACE_COLD void token_out(int id);

    // Storage [p, p + bytes) now holds value id (of the given type).
    XLET_TRACE_COLD void bind(const void* p, std::size_t bytes, std::string_view type, int id);
    // The value stored at p, if a traced op wrote it there, the contents are still what it wrote,
    // and it was defined in a region that is open (an enclosing one); -1 otherwise.
    XLET_TRACE_COLD int find(const void* p, std::size_t bytes, std::string_view type) const;
    // The padded contents of bounded value id (a static type) live at p: reading them as a static
    // array needs the sizes taken off first (padding_of, eval/bounded.hpp).
    XLET_TRACE_COLD void bind_padding(const void* p, std::size_t bytes, std::string_view type, int id);
    XLET_TRACE_COLD int padding_of(const void* p, std::size_t bytes, std::string_view type) const;
    // Storage that stops holding a value it was bound to (a placeholder that goes away).
    XLET_TRACE_COLD void forget(const void* p);
    carried carry(int id) const { return {this, id, stack_.back()}; }
    int carried_id(const carried& c) const { return c.rec == this && c.id >= 0 && is_open(c.region) ? c.id : -1; }

    // The ops appended to the current region from index `first` on applied an element-wise
    // function to bounded values (eval/bounded.hpp): a result dimension that a bounded operand
    // supplies (same rank and extent, dynamic there) is dynamic, as in XLA's shape inference.
    XLET_TRACE_COLD void retype_bounded(std::size_t first);

    // StableHLO's type of a bounded value: the dimensions of static type t in mask become "?"
    // bounded by their extent (tensor<10x4xf32> -> tensor<?x4xf32, #stablehlo.bounds<10, ?>>).
    static std::string bounded_type(std::string_view t, unsigned mask);
    // The dimensions of a tensor type printed here (a "?" reads as its bound); mask gets the
    // dynamic ones.
    static std::vector<std::size_t> type_dims(std::string_view t, unsigned& mask);

    // A copy or move of storage: the destination holds what the source held.
    XLET_TRACE_COLD void copied(const void* from, const void* to);

    // What a unit that copies a tensor calls (trace::copied): set by the constructor, so that units
    // compiled without XLET_TRACE, which see only these declarations, can still report copies.
    void (*on_copy)(basic_recorder&, const void*, const void*) = nullptr;

private:
    struct state; // the storage bindings and side-effect tokens (core/trace_record.hpp)
    detail::owner<state> st_;
    std::vector<int> stack_;
    int lookup(const void* p, std::size_t bytes, std::string_view type, bool padding) const;

    bool is_open(int g) const {
        for (int s : stack_)
            if (s == g) return true;
        return false;
    }
    static std::uint64_t hash(const void* p, std::size_t n);
};

using recorder = basic_recorder<>;

// The recorder of this thread; null when nothing is being traced (the common case).
constinit inline thread_local recorder* active = nullptr;

// Runs the rest of a scope untraced: an op's own kernels and nested evaluations.
struct pause {
    recorder* saved = active;
    pause() { active = nullptr; }
    ~pause() { active = saved; }
    pause(const pause&) = delete;
    pause& operator=(const pause&) = delete;
};

// Whether this translation unit's ops record (XLET_TRACE): internal linkage, one value per unit.
constexpr bool compiled_in = XLET_TRACE_COMPILED;

[[noreturn]] XLET_TRACE_COLD inline void not_compiled_in() {
    throw error("to_stablehlo", "an op ran in code compiled without XLET_TRACE: include "
                                "<xlet/stablehlo/export.hpp> first (or define XLET_TRACE) in every translation "
                                "unit whose code is exported");
}

// The active recorder where tracing is compiled in; null elsewhere (and an error if one is active).
inline recorder* current() {
    if constexpr (compiled_in) {
        return active;
    } else {
        if (active) [[unlikely]]
            not_compiled_in();
        return nullptr;
    }
}

// (A template of nothing: the recorder's copy bookkeeping is compiled only where tensors are copied.)
template<class D = void>
inline void copied(const void* from, const void* to) {
    if (basic_recorder<D>* r = active) [[unlikely]] // (dependent: the class is not instantiated here)
        r->on_copy(*r, from, to);
}

// MLIR's spelling of an element type.
template<class T>
inline constexpr std::string_view mlir_element = "?";
template<>
inline constexpr std::string_view mlir_element<bool> = "i1";
template<>
inline constexpr std::string_view mlir_element<std::int8_t> = "i8";
template<>
inline constexpr std::string_view mlir_element<std::int16_t> = "i16";
template<>
inline constexpr std::string_view mlir_element<std::int32_t> = "i32";
template<>
inline constexpr std::string_view mlir_element<std::int64_t> = "i64";
template<>
inline constexpr std::string_view mlir_element<std::uint8_t> = "ui8";
template<>
inline constexpr std::string_view mlir_element<std::uint16_t> = "ui16";
template<>
inline constexpr std::string_view mlir_element<std::uint32_t> = "ui32";
template<>
inline constexpr std::string_view mlir_element<std::uint64_t> = "ui64";
template<>
inline constexpr std::string_view mlir_element<half> = "f16";
template<>
inline constexpr std::string_view mlir_element<bfloat16> = "bf16";
template<>
inline constexpr std::string_view mlir_element<float> = "f32";
template<>
inline constexpr std::string_view mlir_element<double> = "f64";
template<>
inline constexpr std::string_view mlir_element<std::complex<float>> = "complex<f32>";
template<>
inline constexpr std::string_view mlir_element<std::complex<double>> = "complex<f64>";

// Quantized element types (quant/types.hpp) as MLIR prints them: !quant.uniform<i8:f32, 5.000000e-01:-3>.
template<class T>
requires is_quantized<T>
inline constexpr std::string_view mlir_element<T> = element_traits<T>::name;

// A per-axis quantized element's spelling with its quantization dimension changed to `axis` (a
// view moves it: transpose, reshape; the scales stay).
template<class = void>
std::string quant_axis_renamed(std::string_view name, std::int64_t axis);

// "tensor<2x3xf32>"
template<class T, std::size_t R>
std::string tensor_type(const extents_t<R>& e) {
    std::string s = "tensor<";
    for (std::size_t d : e)
        s += std::to_string(d) + "x";
    s += mlir_element<T>;
    return s + ">";
}
template<class X>
std::string type_of() {
    return tensor_type<typename X::value_type, X::rank>(X::extents);
}

// An integer list attribute: "array<i64: 1, 0>".
template<class = void>
std::string i64_array(const std::vector<std::int64_t>& v);

// Any integer list (std::array, dim_list, ...) as "[1, 0]" (inside dialect attributes).
template<class L>
std::string int_list(const L& l);
// ... and as an array<i64: ...> attribute.
template<class L>
std::string i64_list(const L& l);
template<class = void>
const char* precision_name(precision p);
template<class = void>
std::string precision_attr(precision_config c);
// "a, b" without empty parts.
template<class = void>
std::string join_attrs(std::initializer_list<std::string> parts);

namespace impl {
// A scalar as MLIR prints it (floats: the shortest decimal that reads back the same bits).
template<class T>
std::string scalar_literal(const T& v);
} // namespace impl

// The attribute of a constant: a splat when every element is equal (bitwise); pred and quantized
// elements as nested lists (a quantized constant's value is of the storage type, as StableHLO's
// `constant` of a quantized result: dense<[1, -2]> : tensor<2xi8>); anything else as its raw bytes
// in hex (exact for every type; MLIR's layout: row-major, little-endian, complex as (re, im)).
template<class T>
std::string dense_literal(const T* p, const std::vector<std::size_t>& dims, std::string_view type);

} // namespace xlet::trace

#if XLET_TRACE_COMPILED
#include "trace_record.hpp"
#endif
