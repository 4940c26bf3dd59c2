// Every input each command declares (visit_<command>_inputs), in one list:
// the tests that each reaches the CLI, the web API and Python read it, and
// in_request_keys (gpuplan/error.hpp) tells gpuplan's own flags from another
// program's by it. The model (--model, --params) and the CLI's own options
// (--format, --calibration FILE, --save, --export) are not among them.
#pragma once
#include <string>
#include <vector>

#include "inputs/input_info.hpp"

namespace gpuplan {

struct DeclaredInputs {
  std::string command;  // "memory"
  std::vector<InputInfo> inputs;
};
std::vector<DeclaredInputs> declared_inputs();

}  // namespace gpuplan
