// Element-wise ops: unary, binary, comparisons, select/clamp, conversions, iota, map, operators.
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "elementwise/binary.hpp"
#include "elementwise/broadcast_rules.hpp"
#include "elementwise/compare.hpp"
#include "elementwise/convert.hpp"
#include "elementwise/elementwise.hpp"
#include "elementwise/iota.hpp"
#include "elementwise/map.hpp"
#include "elementwise/operators.hpp"
#include "elementwise/select.hpp"
#include "elementwise/unary.hpp"
