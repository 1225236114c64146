# Installs xlet from BUILD_DIR into a scratch prefix, then configures, builds and runs the tiny
# project in tests/consumer against it with find_package(xlet CONFIG REQUIRED).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, COMPILER.
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${WORK_DIR}/build" -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CXX_COMPILER=${COMPILER}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")
if(NOT last_output MATCHES "f32\\[2,3\\] {{11, 22, 33}, {14, 25, 36}}")
  message(FATAL_ERROR "consumer printed: ${last_output}")
endif()
# xlet::mpi, when this build has it: built by the consumer and run as one process (a singleton MPI
# job needs no mpirun).
if(EXISTS "${BUILD_DIR}/xlet_has_mpi")
  if(NOT EXISTS "${WORK_DIR}/build/consumer_mpi")
    message(FATAL_ERROR "the consumer found no xlet::mpi")
  endif()
  run("${WORK_DIR}/build/consumer_mpi")
  if(NOT last_output MATCHES "all_reduce on 1 rank x 2 devices: 3 3")
    message(FATAL_ERROR "consumer_mpi printed: ${last_output}")
  endif()
endif()
