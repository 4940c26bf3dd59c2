// The run around the math as Report lines: checkpoints, failures, spot.
#pragma once
#include <optional>

#include "gpuplan/checkpoint.hpp"
#include "gpuplan/reliability.hpp"
#include "gpuplan/report.hpp"

namespace gpuplan {

struct OperationsEstimate {
  CheckpointEstimate checkpoint;
  ReliabilityEstimate reliability;
};

// `spot` is the same run on spot capacity, when asked for.
Section operations_section(const OperationsEstimate& on_demand, const std::optional<OperationsEstimate>& spot);

}  // namespace gpuplan
