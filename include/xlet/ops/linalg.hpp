// Linear algebra: dot, dot_general, scaled_dot, ragged_dot, cholesky, triangular_solve.
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "linalg/cholesky.hpp"
#include "linalg/dot.hpp"
#include "linalg/ragged_dot.hpp"
#include "linalg/scaled_dot.hpp"
