// gpuplan validate's report of a scored case file (ValidationResult): the
// front ends render it; the scoring itself is in validate.hpp.
#pragma once
#include <string>

#include "report/report.hpp"
#include "validate/validate.hpp"

namespace gpuplan {

Report validation_report(const ValidationResult& result, const std::string& origin);

}  // namespace gpuplan
