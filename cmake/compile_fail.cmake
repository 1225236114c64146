# Runs one compile-fail test: the source must fail to compile, and the compiler's output must
# contain every line given after "// expect: " at the top of the source.
# Inputs: COMPILER, SOURCE, INCLUDE_DIR.
file(STRINGS "${SOURCE}" expect_lines REGEX "^// expect: ")
if(NOT expect_lines)
  message(FATAL_ERROR "${SOURCE}: no '// expect: ' line")
endif()
execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -I${INCLUDE_DIR} "${SOURCE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but must not")
endif()
set(all "${out}${err}")
foreach(line IN LISTS expect_lines)
  string(REGEX REPLACE "^// expect: " "" want "${line}")
  string(FIND "${all}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE}: expected '${want}' in the diagnostics, got:\n${all}")
  endif()
endforeach()
