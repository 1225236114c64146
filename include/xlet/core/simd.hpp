// The one place xlet includes the x86 intrinsic headers and xsimd. It must be read before anything
// else pulls them in (TBB does), because GCC 12 reports false -Wuninitialized /
// -Wmaybe-uninitialized warnings located inside <immintrin.h> (GCC bug 105593: "undefined"
// registers built as `__m256 __Y = __Y;`) wherever xsimd's AVX complex loads or AVX-512 code are
// inlined; silencing them while the headers are first read leaves user code checked. core/types.hpp,
// the root of every xlet header, includes this first.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <xsimd/xsimd.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
