// The run around the math as Report lines: checkpoints, failures, spot.
#pragma once
#include <optional>

#include "gpuplan/operations.hpp"
#include "report/report.hpp"

namespace gpuplan {

// `spot` is the same run on spot capacity, when asked for.
Section operations_section(const OperationsEstimate& on_demand, const std::optional<OperationsEstimate>& spot);

}  // namespace gpuplan
