# CTest docs_snippets: compiles the code of README.md and docs/*.md, so the documentation cannot
# drift from the headers (docs/architecture.md, "Documentation snippets").
# Inputs: COMPILER, SOURCE_DIR (the project), INCLUDE_DIR, WORK_DIR (for the generated sources).
#
# What is compiled, per markdown file (one translation unit per file, `#line` directives so that
# an error names the markdown file and line):
#  - every ```cpp fenced block, as the body of a function (```cpp file: at namespace scope, for
#    blocks that define functions or templates). `#include` lines move to the top of the unit;
#    every unit starts with `#include <xlet/xlet.hpp>` and `using namespace xlet;`.
#  - a ```cpp compile-fail block must NOT compile: it is compiled alone (as a function body) and
#    the compiler output must contain every text given after "// expect: " in it.
#  - a ```cpp prelude block is compiled like a plain block and also declares the variables the API
#    cells of that file use.
#  - in a table whose header row has the columns "xlet name" and "status" (docs/ops.md), every code
#    span of the "xlet name" cell of a row whose status starts with "done" is compiled as
#    `(void)(span);` after the prelude, when it contains a "(" (spans such as `+`, `~` or
#    `std::tuple{values, indices}` name operators and result types, not calls). A done row without
#    any such span is an error.
# Other fences (```sh, ```cmake, plain ```) are not compiled.
include(${CMAKE_CURRENT_LIST_DIR}/ops_table.cmake)
cmake_policy(VERSION 3.25) # list() keeps empty items (table cells, blank lines)

file(GLOB md_files RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/README.md" "${SOURCE_DIR}/docs/*.md")
list(SORT md_files)
file(MAKE_DIRECTORY "${WORK_DIR}")
file(GLOB old_units "${WORK_DIR}/*.cpp")
if(old_units)
  file(REMOVE ${old_units})
endif()

# Lines become CMake list items: characters with a meaning in lists are escaped (and restored when
# written out). Empty lines stay (foreach IN LISTS keeps empty items).
function(restore out_var text)
  string(REPLACE "@SC@" ";" text "${text}")
  string(REPLACE "@LB@" "[" text "${text}")
  string(REPLACE "@RB@" "]" text "${text}")
  string(REPLACE "@BS@" "\\" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

set(head "#include <xlet/xlet.hpp>\n")
set(failures "")
set(n_blocks 0)
set(n_cells 0)
set(n_fail_blocks 0)
set(units "")

foreach(md IN LISTS md_files)
  file(READ "${SOURCE_DIR}/${md}" src)
  string(REPLACE "\\" "@BS@" src "${src}")
  string(REPLACE "[" "@LB@" src "${src}")
  string(REPLACE "]" "@RB@" src "${src}")
  string(REPLACE ";" "@SC@" src "${src}")
  string(REPLACE "\n" ";" lines "${src}")
  string(MAKE_C_IDENTIFIER "${md}" stem)

  set(includes "")
  set(body "")             # functions and namespaces for the blocks
  set(prelude "")
  set(rows "")             # statements for the API cells
  set(in_block OFF)
  set(in_table OFF)
  set(lineno 0)
  foreach(line IN LISTS lines)
    math(EXPR lineno "${lineno} + 1")
    if(in_block)
      if(line MATCHES "^ *```[ ]*$")
        set(in_block OFF)
        if(kind STREQUAL "compile-fail")
          math(EXPR n_fail_blocks "${n_fail_blocks} + 1")
          set(unit "${WORK_DIR}/${stem}_fail_${block_line}.cpp")
          restore(text "${head}${block_includes}using namespace xlet;\nvoid docs_snippet_${block_line}() {\n#line ${first_line} \"${md}\"\n${block_text}}\n")
          file(WRITE "${unit}" "${text}")
          execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only "-I${INCLUDE_DIR}" "${unit}"
                          RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
          if(rc EQUAL 0)
            string(APPEND failures "${md}:${block_line}: a ```cpp compile-fail block compiled, but must not\n")
          else()
            string(REGEX MATCHALL "// expect: [^\n]*" expects "${block_text}")
            foreach(e IN LISTS expects)
              string(REGEX REPLACE "^// expect: " "" want "${e}")
              restore(want "${want}")
              string(FIND "${out}${err}" "${want}" at)
              if(at EQUAL -1)
                string(APPEND failures "${md}:${block_line}: expected '${want}' in the diagnostics, got:\n${out}${err}\n")
              endif()
            endforeach()
          endif()
        else()
          math(EXPR n_blocks "${n_blocks} + 1")
          string(APPEND includes "${block_includes}")
          if(kind STREQUAL "file")
            string(APPEND body "namespace docs_snippet_${block_line} {\n#line ${first_line} \"${md}\"\n${block_text}}\n")
          else()
            string(APPEND body "void docs_snippet_${block_line}() {\n#line ${first_line} \"${md}\"\n${block_text}}\n")
          endif()
          if(kind STREQUAL "prelude")
            set(prelude "#line ${first_line} \"${md}\"\n${block_text}")
          endif()
        endif()
      elseif(line MATCHES "^ *#include")
        string(APPEND block_includes "${line}\n")
        string(APPEND block_text "\n")
      else()
        string(APPEND block_text "${line}\n")
      endif()
      continue()
    endif()

    if(line MATCHES "^ *```cpp( +([a-z-]+))? *$")
      set(kind "${CMAKE_MATCH_2}")
      if(NOT kind STREQUAL "" AND NOT kind MATCHES "^(file|compile-fail|prelude)$")
        string(APPEND failures "${md}:${lineno}: unknown snippet kind '```cpp ${kind}' (file, compile-fail, prelude)\n")
      endif()
      set(in_block ON)
      set(block_line ${lineno})
      math(EXPR first_line "${lineno} + 1")
      set(block_text "")
      set(block_includes "")
      continue()
    endif()

    # API tables: the header row names the columns.
    if(NOT line MATCHES "^ *\\|")
      set(in_table OFF)
      continue()
    endif()
    xlet_table_cells(cells "${line}")
    if(NOT in_table)
      set(in_table ON)
      xlet_ops_table_columns("${cells}")
      continue()
    endif()
    if(name_col LESS 0 OR status_col LESS 0)
      continue()
    endif()
    list(LENGTH cells n_cells_row)
    if(n_cells_row LESS_EQUAL status_col OR n_cells_row LESS_EQUAL name_col)
      continue()
    endif()
    list(GET cells ${status_col} status)
    string(STRIP "${status}" status)
    if(NOT status MATCHES "^done")
      continue()
    endif()
    list(GET cells ${name_col} name_cell)
    string(REGEX MATCHALL "`[^`]+`" spans "${name_cell}")
    set(compiled 0)
    foreach(span IN LISTS spans)
      string(REGEX REPLACE "^`(.*)`$" "\\1" code "${span}")
      string(REPLACE "@PIPE@" "|" code "${code}")
      if(code MATCHES "\\(")
        string(APPEND rows "#line ${lineno} \"${md}\"\n(void)(${code});\n")
        math(EXPR compiled "${compiled} + 1")
        math(EXPR n_cells "${n_cells} + 1")
      endif()
    endforeach()
    if(compiled EQUAL 0)
      string(APPEND failures "${md}:${lineno}: a done row's \"xlet name\" cell has no call to compile\n")
    endif()
  endforeach()
  if(in_block)
    string(APPEND failures "${md}:${block_line}: unclosed ```cpp block\n")
  endif()

  if(NOT rows STREQUAL "" AND prelude STREQUAL "")
    string(APPEND failures "${md}: API table cells but no ```cpp prelude block declaring their variables\n")
  endif()
  if(body STREQUAL "" AND rows STREQUAL "")
    continue()
  endif()
  set(text "// Generated by cmake/docs_snippets.cmake from ${md}: do not edit.\n${head}${includes}using namespace xlet;\n${body}")
  if(NOT rows STREQUAL "")
    string(APPEND text "void docs_api_cells() {\n${prelude}${rows}}\n")
  endif()
  restore(text "${text}")
  set(unit "${WORK_DIR}/${stem}.cpp")
  file(WRITE "${unit}" "${text}")
  list(APPEND units "${unit}")
endforeach()

# XLET_TRACE: a page's units start with <xlet/xlet.hpp>, and a snippet that exports includes
# <xlet/stablehlo/export.hpp>, which must come first (or find XLET_TRACE defined).
foreach(unit IN LISTS units)
  execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -DXLET_TRACE "-I${INCLUDE_DIR}" "${unit}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${unit} does not compile:\n${out}${err}\n")
  endif()
endforeach()

list(LENGTH units n_units)
message(STATUS "docs_snippets: ${n_blocks} cpp blocks, ${n_cells} API cells, ${n_fail_blocks} compile-fail blocks; "
               "${n_units} translation units")
if(n_blocks EQUAL 0 OR n_cells EQUAL 0)
  string(APPEND failures "no snippets found: the extraction is broken\n")
endif()
if(NOT failures STREQUAL "")
  message(NOTICE "${failures}") # unformatted: compiler output stays readable
  message(FATAL_ERROR "docs_snippets failed (see above)")
endif()
