// The web API's key of a declared input (input_info.hpp).
#include "inputs/input_info.hpp"

#include "gpuplan/error.hpp"

namespace gpuplan {

std::string input_key(const InputInfo& input) {
  const std::string flags(input.flags);
  return InputError::request_key(flags.substr(0, flags.find(',')));  // the first flag is the canonical one
}

}  // namespace gpuplan
