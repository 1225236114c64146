// Uniform quantized types and their ops (issue #26): quant::uniform, quant::uniform_per_axis,
// uniform_quantize, uniform_dequantize, the element-wise ops on quantized operands, and
// dot_general / dot / convolution on quantized operands (integer kernels), reduce, and the ops the
// spec computes in float only (batch_norm_*, cholesky, triangular_solve). The include for this
// one family; <xlet/xlet.hpp> includes it too.
#pragma once
#include "quant/conv.hpp"
#include "quant/dot.hpp"
#include "quant/elementwise.hpp"
#include "quant/float_ops.hpp"
#include "quant/reduce.hpp"
#include "quant/types.hpp"
#include "quant/uniform_quantize.hpp"
