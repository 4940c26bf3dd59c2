// The web API's key of a declared input (input_info.hpp).
#include "inputs/input_info.hpp"

namespace gpuplan {

std::string input_key(const InputInfo& input) {
  std::string key(input.flags);
  key = key.substr(0, key.find(','));
  key = key.substr(key.find_first_not_of('-'));
  for (char& c : key) {
    if (c == '-') c = '_';
  }
  return key;
}

}  // namespace gpuplan
