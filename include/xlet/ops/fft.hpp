// FFT: fft<fft_type, fft_length...> (FFT, IFFT, RFFT, IRFFT over 1 to 3 innermost axes).
// The include for this one family; <xlet/xlet.hpp> includes every family.
#pragma once
#include "fft/fft.hpp"
