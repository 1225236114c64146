// Reductions: reduce, reduce_window, select_and_scatter, scan, sort and top_k.
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "reduce/reduce.hpp"
#include "reduce/reduce_loops.hpp"
#include "reduce/reduce_window.hpp"
#include "reduce/scan.hpp"
#include "reduce/select_and_scatter.hpp"
#include "reduce/sort.hpp"
