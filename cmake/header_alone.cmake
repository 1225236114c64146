# Checks that one public header compiles on its own (it includes everything it uses).
# Inputs: COMPILER, HEADER (path below INCLUDE_DIR, e.g. xlet/ops/reduce.hpp), INCLUDE_DIR, WORK_DIR;
# EXTRA_INCLUDES: more include directories, separated by |, as system ones (MPI's for the MPI transport).
string(MAKE_C_IDENTIFIER "${HEADER}" stem)
set(src "${WORK_DIR}/${stem}.cpp")
file(WRITE "${src}" "#include <${HEADER}>\n")
set(extra_flags "")
if(EXTRA_INCLUDES)
  string(REPLACE "|" ";" dirs "${EXTRA_INCLUDES}")
  foreach(d IN LISTS dirs)
    list(APPEND extra_flags "-isystem" "${d}")
  endforeach()
endif()
execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -I${INCLUDE_DIR} ${extra_flags} "${src}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "<${HEADER}> does not compile on its own:\n${out}${err}")
endif()
