// Shape and layout: broadcast, reshape, transpose, slice, rev, pad, concatenate, dynamic slices, gather, scatter, bounded dynamic dimensions, tuples.
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "layout/concatenate.hpp"
#include "layout/dynamic_dims.hpp"
#include "layout/dynamic_slice.hpp"
#include "layout/gather.hpp"
#include "layout/layout.hpp"
#include "layout/pad.hpp"
#include "layout/piecewise.hpp"
#include "layout/scatter.hpp"
#include "layout/tuple.hpp"
