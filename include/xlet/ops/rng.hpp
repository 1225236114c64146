// Random numbers: rng_bit_generator (ThreeFry, Philox), rng_uniform, rng_normal, and the explicit
// generator state (rng_generator, XLA's RngGetAndUpdateState). The include for this one family;
// <xlet/xlet.hpp> includes every family.
#pragma once
#include "rng/rng_bit_generator.hpp"
#include "rng/rng_distributions.hpp"
#include "rng/rng_generator.hpp"
