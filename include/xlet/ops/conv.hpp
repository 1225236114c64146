// Convolution and batch normalization: conv_general_dilated and its shorter forms,
// batch_norm_training / inference / grad.
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "conv/batch_norm.hpp"
#include "conv/conv.hpp"
