# Shared by docs_snippets.cmake and ops_counts.cmake, which read docs/ops.md with its backslashes
# escaped as @BS@ (so an escaped pipe, `\|`, arrives as @BS@| or already as @PIPE@).

# The cells of a table row ("| a | b |" -> "a;b"); an escaped pipe stays inside its cell as @PIPE@.
function(xlet_table_cells out line)
  string(REPLACE "@BS@|" "@PIPE@" row "${line}")
  string(REGEX REPLACE "^ *\\|" "" row "${row}")
  string(REGEX REPLACE "\\| *$" "" row "${row}")
  string(REPLACE "|" ";" row "${row}")
  set(${out} "${row}" PARENT_SCOPE)
endfunction()

# The columns of an op table from its header row (a list of cells): name_col and status_col (-1
# where absent) in the caller's scope.
function(xlet_ops_table_columns header_cells)
  cmake_policy(SET CMP0054 NEW) # ("status" is a string here, whatever variables exist)
  set(name -1)
  set(status -1)
  set(col 0)
  foreach(cell IN LISTS header_cells)
    string(STRIP "${cell}" cell)
    if(cell STREQUAL "xlet name")
      set(name ${col})
    elseif(cell STREQUAL "status")
      set(status ${col})
    endif()
    math(EXPR col "${col} + 1")
  endforeach()
  set(name_col ${name} PARENT_SCOPE)
  set(status_col ${status} PARENT_SCOPE)
endfunction()
