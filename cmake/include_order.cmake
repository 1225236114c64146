# Checks core/simd.hpp's include-order warning: on AVX-512, <xsimd/xsimd.hpp> read before xlet leaves
# xsimd without the fused multiply-adds xlet supplies, and the compiler must say so; read after
# xlet, or on AVX2 (where xsimd has FMA3), nothing is said.
# Inputs: COMPILER, INCLUDE_DIR, WORK_DIR.
set(marker "was included before xlet")
function(compile name march first second expect_warning)
  set(src "${WORK_DIR}/include_order_${name}.cpp")
  file(WRITE "${src}" "#include <${first}>\n#include <${second}>\nint main() { return 0; }\n")
  execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -march=${march} -Wall -Wextra -I${INCLUDE_DIR} "${src}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "include_order ${name}: does not compile:\n${out}${err}")
  endif()
  string(FIND "${out}${err}" "${marker}" at)
  if(expect_warning AND at EQUAL -1)
    message(FATAL_ERROR "include_order ${name}: no warning that xsimd came first:\n${out}${err}")
  elseif(NOT expect_warning AND NOT at EQUAL -1)
    message(FATAL_ERROR "include_order ${name}: unexpected include-order warning:\n${out}${err}")
  endif()
  message(STATUS "include_order ${name}: as expected")
endfunction()
file(MAKE_DIRECTORY "${WORK_DIR}")
compile(avx512_xsimd_first x86-64-v4 xsimd/xsimd.hpp xlet/core/types.hpp TRUE)
compile(avx512_xlet_first x86-64-v4 xlet/core/types.hpp xsimd/xsimd.hpp FALSE)
compile(avx2_xsimd_first x86-64-v3 xsimd/xsimd.hpp xlet/core/types.hpp FALSE)
