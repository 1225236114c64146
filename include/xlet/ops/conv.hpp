// Convolution and batch normalization: conv_general_dilated and its shorter forms.
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "conv/conv.hpp"
