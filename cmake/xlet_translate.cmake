# CMake helpers around xlet-translate (issue #25), for this project and for users who build the
# tool with it (the target `xlet-translate` must exist).
#
#   xlet_stablehlo_header(<out_var> <module.mlir> [OUTPUT <file>] [NAMESPACE <ns>] [EMIT cpp|runner|bench]
#                         [PASSES <--pass[=options]>...])
#     Translates the module at build time; <out_var> receives the generated file's path (a header for
#     EMIT cpp, the default; a .cpp with main() for runner and bench). Add the file to a target's
#     sources: the target rebuilds when the module or the tool changes.
#
#   xlet_add_stablehlo_benchmark(<name> <module.mlir> [PASSES ...])
#     A Google Benchmark executable <name> that times every public function of the module and
#     every op of it alone (same shapes), at 1 and N threads (xlet-translate --emit bench).
function(xlet_stablehlo_header out_var module)
  cmake_parse_arguments(A "" "OUTPUT;NAMESPACE;EMIT" "PASSES" ${ARGN})
  get_filename_component(module_abs ${module} ABSOLUTE)
  get_filename_component(stem ${module} NAME_WE)
  if(NOT A_EMIT)
    set(A_EMIT cpp)
  endif()
  if(NOT A_OUTPUT)
    if(A_EMIT STREQUAL cpp)
      set(A_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/stablehlo/${stem}.hpp)
    else()
      set(A_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/stablehlo/${stem}_${A_EMIT}.cpp)
    endif()
  endif()
  set(ns_args "")
  if(A_NAMESPACE)
    set(ns_args --namespace ${A_NAMESPACE})
  endif()
  add_custom_command(OUTPUT ${A_OUTPUT}
                     COMMAND xlet-translate ${A_PASSES} ${ns_args} --emit ${A_EMIT} -o ${A_OUTPUT} ${module_abs}
                     DEPENDS xlet-translate ${module_abs}
                     COMMENT "xlet-translate --emit ${A_EMIT} ${stem}.mlir" VERBATIM)
  set(${out_var} ${A_OUTPUT} PARENT_SCOPE)
endfunction()

function(xlet_add_stablehlo_benchmark name module)
  cmake_parse_arguments(A "" "" "PASSES" ${ARGN})
  find_package(benchmark REQUIRED)
  xlet_stablehlo_header(src ${module} EMIT bench OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/stablehlo/${name}.cpp PASSES ${A_PASSES})
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE xlet::xlet benchmark::benchmark)
  if(TARGET xlet_project_flags)
    target_link_libraries(${name} PRIVATE xlet_project_flags)
  endif()
endfunction()
