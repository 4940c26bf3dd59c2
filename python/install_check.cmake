# CTest python_install (python/CMakeLists.txt): installs the build into a
# staging directory and runs issue 17's one-liner against the staged package,
# comparing its GPU-hours with the CLI's JSON. Arguments: BUILD_DIR, STAGE,
# PYTHON, PACKAGE_DIR (the absolute install directory of the package), PREFIX.
file(REMOVE_RECURSE ${STAGE})
execute_process(COMMAND ${CMAKE_COMMAND} -E env DESTDIR=${STAGE} ${CMAKE_COMMAND} --install ${BUILD_DIR}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(staged ${STAGE}${PACKAGE_DIR})
if(NOT EXISTS ${staged}/gpuplan/__init__.py)
  message(FATAL_ERROR "the package is not installed under ${staged}/gpuplan")
endif()
set(line "import gpuplan, os; assert gpuplan.__file__.startswith(os.environ['PYTHONPATH']), gpuplan.__file__; r = gpuplan.train(model='llama-3.1-70b', tokens='15T', gpu='h100', gpus=2048, mfu=0.4); print(r.gpu_hours)")
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${staged} ${PYTHON} -s -c "${line}"
  WORKING_DIRECTORY ${STAGE} RESULT_VARIABLE rc OUTPUT_VARIABLE py ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc)
  message(FATAL_ERROR "the installed module failed: ${err}")
endif()
execute_process(COMMAND ${STAGE}${PREFIX}/bin/gpuplan train --model llama-3.1-70b --tokens 15T --gpu h100 --gpus 2048 --mfu 0.4 --format json
  RESULT_VARIABLE rc OUTPUT_VARIABLE json)
if(rc)
  message(FATAL_ERROR "the installed gpuplan failed (${rc})")
endif()
# The CLI's number as Python prints it (string(JSON) would rewrite it with 17 digits).
file(WRITE ${STAGE}/train.json "${json}")
execute_process(COMMAND ${PYTHON} -c "import json; print(json.load(open('train.json'))['gpu_hours']['total_gpu_hours'])"
  WORKING_DIRECTORY ${STAGE} OUTPUT_VARIABLE cli_hours OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT py STREQUAL cli_hours)
  message(FATAL_ERROR "Python printed ${py}, the CLI's JSON says ${cli_hours}")
endif()
message(STATUS "installed module: ${py} GPU-hours = the CLI's ${cli_hours}")
