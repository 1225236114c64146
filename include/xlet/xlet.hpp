// Umbrella header: every op family. Include a single family, <xlet/ops/<family>.hpp>, to compile less.
#pragma once
#include "core/error.hpp"
#include "core/float16.hpp"
#include "core/shape.hpp"
#include "core/tensor.hpp"
#include "core/types.hpp"
#include "eval/assign.hpp"
#include "ops/elementwise.hpp"
#include "ops/layout.hpp"
#include "ops/reduce.hpp"
#include "ops/linalg.hpp"
#include "ops/conv/batch_norm.hpp" // until the conv family header ops/conv.hpp includes it
#include "distributed.hpp"
