// Compile-time rewrites of expression trees (the passes/ layer): passes::apply<P>(expr), and the
// quantization passes legalize_quant_to_math, legalize_quantized_op_to_qdq and
// legalize_qdq_to_quantized_op (issue #26). <xlet/xlet.hpp> includes it.
#pragma once
#include "passes/quant.hpp"
#include "passes/rewrite.hpp"
