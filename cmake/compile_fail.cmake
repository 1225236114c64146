# Runs one compile-fail test: the source must fail to compile, and the compiler's output must
# contain every line given after "// expect: " at the top of the source.
# Inputs: COMPILER, SOURCE, INCLUDE_DIR, PCH_FLAGS.
# Brackets and semicolons would split or glue CMake list items ("[0, rank)" is unbalanced):
# they are escaped while the lines are a list and restored before the search.
file(READ "${SOURCE}" src)
string(REPLACE "[" "@LB@" src "${src}")
string(REPLACE "]" "@RB@" src "${src}")
string(REPLACE ";" "@SC@" src "${src}")
string(REGEX MATCHALL "// expect: [^\n]*" expect_lines "${src}")
if(NOT expect_lines)
  message(FATAL_ERROR "${SOURCE}: no '// expect: ' line")
endif()
# PCH_FLAGS (optional, '|'-separated): the flags that use the library's precompiled header.
string(REPLACE "|" ";" pch_flags "${PCH_FLAGS}")
execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only ${pch_flags} -I${INCLUDE_DIR} "${SOURCE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# Clang 14 crashes on some class-type template arguments read back from a PCH (the string names
# of computation<"name", ...>): such a file is compiled again without it.
if(pch_flags AND "${out}${err}" MATCHES "PLEASE submit a bug report")
  execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -I${INCLUDE_DIR} "${SOURCE}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but must not")
endif()
set(all "${out}${err}")
foreach(line IN LISTS expect_lines)
  string(REGEX REPLACE "^// expect: " "" want "${line}")
  string(REPLACE "@LB@" "[" want "${want}")
  string(REPLACE "@RB@" "]" want "${want}")
  string(REPLACE "@SC@" ";" want "${want}")
  string(FIND "${all}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE}: expected '${want}' in the diagnostics, got:\n${all}")
  endif()
endforeach()
