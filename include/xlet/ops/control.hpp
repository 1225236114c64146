// Control flow and computations: call, conditional, while_loop, custom_call,
// optimization_barrier, copy, bitcast, tokens (after_all, add_dependency), infeed / outfeed over a
// host feed_queue. The include for this one family; <xlet/xlet.hpp> includes every family.
// composite_call is the one op left out: it uses Boost.Hana's map and string, which cost about
// 0.35 s per translation unit; include <xlet/ops/control/composite.hpp> for it.
#pragma once
#include "control/barrier.hpp"
#include "control/computation.hpp"
#include "control/conditional.hpp"
#include "control/custom_call.hpp"
#include "control/feed.hpp"
#include "control/token.hpp"
#include "control/while_loop.hpp"
