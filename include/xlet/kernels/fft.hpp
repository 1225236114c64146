// FFT kernels (no op-level API; ops/fft/fft.hpp drives them).
//
// One building block: the column kernel. It applies a length-R DFT down the rows of a block of V
// columns held in split form (re[R][V], im[R][V], V = the SIMD width or 1), so every butterfly
// works on whole vectors of independent columns and no stage needs a shuffle. Everything else is
// a way of feeding it:
//   - a transform axis with contiguous elements after it (any axis but the innermost, or the
//     columns of a 2-D transform): blocks of V adjacent columns, loaded straight from the array;
//   - the innermost axis of many transforms (a batch): V transforms at a time, moved into and out
//     of the block by V x V register transposes (powers of two up to 256: a two-pass in-place
//     kernel with whole DFT16s in registers, so the block stays in L1);
//   - one long transform along the innermost axis: the four-step decomposition N = N1 x N2
//     (column DFTs of length N1 over N2 columns, twiddles W_N^(n2 k1) applied as they are stored;
//     then DFTs of length N2 along those rows, read through the register transposes and written
//     down the columns of the result), both steps on the kernel.
// A column block's first stage reads the caller's interleaved complex data and its last writes
// it (load / store policies), so no pass only deinterleaves or interleaves.
// Inside the kernel: a self-sorting mixed-radix Stockham DIT pass per factor (radix 4, 2, and odd
// radices 3, 5, 7, 11, 13 by their symmetric form), ping-ponging between two block buffers.
// Lengths with a prime factor above 13 take Bluestein's chirp-z: a length-M (power of two >= 2R-1)
// cyclic convolution with a precomputed transformed chirp, so every length is O(N log N); a single
// such transform runs its convolution on the four-step.
// Plans (factors, twiddles computed in long double, the Bluestein chirp and its transform) are
// built once per (element type, length) in a function-local static: thread-safe, immutable.
// Inverse transforms conjugate on the way in and out (conj(DFT(conj(x)))) and scale by 1/N once,
// on the way out. Determinism: each column's arithmetic depends only on the plan, never on the
// thread count or on which block it falls in.
//
// The parts, one per algorithm, under kernels/fft/ (each includes what it uses):
//   plan.hpp       plans: factors, twiddles, the Bluestein chirp and kernel
//   simd.hpp       unrolling, the vector of V columns, the twiddle multiply, lane reversal
//   transpose.hpp  W x W register transposes; transposed row loads and stores
//   stockham.hpp   the column kernel (Stockham stages, load / store policies, in-block Bluestein)
//   two_pass.hpp   powers of two 4..256 with every butterfly in registers
//   driver.hpp     what every pass shares: the TBB loop, block scratch, the forward / inverse mode
//   columns.hpp    transforms along an axis with contiguous columns after it
//   rows.hpp       batched transforms along the innermost axis
//   square.hpp     transforms of W x W points in registers, from and to interleaved memory
//   four_step.hpp  one long smooth transform: n = n1 x n2
//   bluestein.hpp  one long transform with a prime factor above 13, on the four-step
//   inner.hpp      the choice of path for the innermost axis
#pragma once
#include "fft/plan.hpp"
#include "fft/simd.hpp"
#include "fft/transpose.hpp"
#include "fft/stockham.hpp"
#include "fft/two_pass.hpp"
#include "fft/driver.hpp"
#include "fft/columns.hpp"
#include "fft/rows.hpp"
#include "fft/square.hpp"
#include "fft/four_step.hpp"
#include "fft/bluestein.hpp"
#include "fft/inner.hpp"
