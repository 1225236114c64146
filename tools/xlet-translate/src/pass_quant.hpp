// The quantization passes of the seed (StableHLO's StablehloLegalizeQDQToQuantizedOp,
// StablehloLegalizeQuantizedOpToQDQ and StablehloLegalizeQuantToMath) on xlet-translate's IR, op by
// op; passes.cpp's run_pass drives them over a module (and leaves it as it was on an error).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir.hpp"

namespace xlt {

using fresh_name = std::function<std::string(const std::string&)>;

// What a rewrite of one op gives: the ops that replace it (the last one defines its results, as
// passes.cpp's expand_ops wants), and the uses to rename where a result of a multi-result op is
// defined by another op (from, to).
struct quant_rewrite {
    std::vector<std::unique_ptr<op>> seq;
    std::vector<std::pair<std::string, std::string>> renames;
};

// stablehlo-legalize-quantized-op-to-qdq on one op: an op of upstream's list (abs ... add ...
// convolution ... tanh, tan, triangular_solve) with a quantized operand or result becomes
// uniform_dequantize of each quantized operand, the op on the expressed type, uniform_quantize of
// each quantized result. False: the op stays.
bool quant_op_to_qdq(const op& o, const fresh_name& fresh, quant_rewrite& out);

// stablehlo-legalize-qdq-to-quantized-op on a function: each used uniform_quantize of a
// single-result op without regions whose operands are all uniform_dequantize results gets that op
// on the quantized operands right after it, which its uses then read; no op is deleted (the seed).
void quant_fuse_qdq(func& f, const fresh_name& fresh);

// stablehlo-legalize-quant-to-math on one op: uniform_quantize (and requantization),
// uniform_dequantize, add, dot_general and dot (quantized and hybrid) as integer and float
// arithmetic, upstream's other quantized ops through the dequantize / float op / quantize
// decomposition; ops that only move quantized values (reshape, transpose, concatenate ...) are
// kept, their types are for quant_storage_types. False with `why` empty: the op stays; with `why`
// set: the op cannot be legalized.
bool quant_op_to_math(const op& o, const fresh_name& fresh, quant_rewrite& out, std::string& why);

// Every quantized element type of a type replaced by its storage type (i8, ui8 ...).
void quant_storage_types(type& t);
bool has_quant_type(const type& t);

} // namespace xlt
