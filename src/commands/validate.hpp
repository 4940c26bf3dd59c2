// `gpuplan validate` as a library call: a case file's predictions scored, or
// the interval table derived from every residual (data/intervals.json). The
// CLI, the Python module and the JSON request chain run this one function.
#pragma once
#include <optional>
#include <string>

#include "gpuplan/intervals.hpp"
#include "validate/validate.hpp"

namespace gpuplan {

struct ValidateRequest {
  std::string file;               // a JSON-lines case file (../shared/validation format)
  std::string kind;               // only cases of this kind ("": every kind)
  double interval = 0.8;          // level of each case's leave-one-source-out interval
  bool derive_intervals = false;  // the interval table instead of the scores
};

struct ValidateRun {
  ValidationResult result;
  std::optional<IntervalTable> intervals;  // derive_intervals only
};

// Throws InputError naming --kind when the file has no case of that kind.
ValidateRun run_validate(const ValidateRequest& request);

}  // namespace gpuplan
