# CTest stablehlo_mlir_opt.<module>: the module printed by xlet-translate (--emit stablehlo, after
# the passes its first line names) must parse with Debian's mlir-opt (mlir-15-tools), generic form
# and unregistered dialects allowed. Inputs: TOOL, MLIR_OPT, MODULE, OUT, FLAGS ('|'-separated).
string(REPLACE "|" ";" flags "${FLAGS}")
execute_process(COMMAND "${TOOL}" ${flags} --mlir-compat=15 --emit stablehlo -o "${OUT}" "${MODULE}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "xlet-translate failed on ${MODULE}:\n${err}")
endif()
execute_process(COMMAND "${MLIR_OPT}" --allow-unregistered-dialect "${OUT}" -o /dev/null
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mlir-opt does not read what xlet-translate printed for ${MODULE}:\n${err}")
endif()
