// `gpuplan calibrate` as a library call: the trial run's layout, the factors
// fitted to what it measured (calibration.hpp calibrate()), and, when the full
// run is named, its training request with those factors applied.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/calibration.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/train_estimate.hpp"

namespace gpuplan {

struct CalibrationRun {
  ResolvedLayout trial;                  // the trial's model, GPU, layout and GPU count
  Calibration calibration;               // fitted to the measurement
  std::optional<TrainRequest> full_run;  // --tokens given: the full run, calibrated
  std::optional<TrainEstimate> full_run_estimate;  // and its estimate
};

// Checks the inputs (InputError naming the flag: a trial needs --step-time or
// --tokens-per-s-per-gpu) and fits the calibration; does not write any file.
CalibrationRun run_calibration(const CalibrateInputs& in);

// Writes the calibration (the JSON --calibration FILE reads) to `path`, whole
// or not at all; refuses to overwrite `model`, the --model file (InputError
// naming --save).
void save_calibration_file(const Calibration& c, const std::string& path, const std::string& model);

}  // namespace gpuplan
