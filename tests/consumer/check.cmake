# CTest cpp_consumer (tests/CMakeLists.txt): installs the build into a staging
# directory, builds tests/consumer/ against the installed package
# (find_package(gpuplan), gpuplan::core) and checks that its numbers are the
# CLI's. Arguments: BUILD_DIR, STAGE, PREFIX (CMAKE_INSTALL_PREFIX), SOURCE
# (tests/consumer), GPUPLAN (the CLI binary).
file(REMOVE_RECURSE ${STAGE})
execute_process(COMMAND ${CMAKE_COMMAND} -E env DESTDIR=${STAGE} ${CMAKE_COMMAND} --install ${BUILD_DIR}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(prefix ${STAGE}${PREFIX})
foreach(f include/gpuplan/train_estimate.hpp lib/libgpuplan.a lib/cmake/gpuplan/gpuplanConfig.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# Only the installed package: no path into the source or build tree is given.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${STAGE}/consumer-build -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${STAGE}/consumer-build RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "building the consumer failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${STAGE}/consumer-build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE numbers ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "the consumer's numbers disagree with their derivations (${rc}): ${numbers}${err}")
endif()
execute_process(COMMAND ${GPUPLAN} train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4 --format json
  RESULT_VARIABLE rc OUTPUT_VARIABLE train)
execute_process(COMMAND ${GPUPLAN} memory --model llama-3.1-8b --gpu h100 --gpus 8 --dp 8 --micro-batch 1 --global-batch 8
  --seq-len 4096 --format json RESULT_VARIABLE rc2 OUTPUT_VARIABLE memory)
if(rc OR rc2)
  message(FATAL_ERROR "the CLI failed (${rc}, ${rc2})")
endif()
# string(JSON) parses each number into a double and prints it one way, so
# equal doubles give equal text.
string(JSON ours GET "${numbers}" compute_gpu_hours)
string(JSON cli GET "${train}" gpu_hours compute_gpu_hours)
if(NOT ours STREQUAL cli)
  message(FATAL_ERROR "gpuplan::core gives ${ours} compute GPU-hours, the CLI ${cli}")
endif()
string(JSON ours_mem GET "${numbers}" memory_peak_bytes)
string(JSON cli_mem GET "${memory}" memory peak_bytes)
if(NOT ours_mem STREQUAL cli_mem)
  message(FATAL_ERROR "gpuplan::core gives a ${ours_mem}-byte peak, the CLI ${cli_mem}")
endif()
message(STATUS "consumer: ${ours} compute GPU-hours and a ${ours_mem}-byte peak, as the CLI")
