// The honest-budget rows and notes of `gpuplan train` (issue 15): the note on
// a predicted MFU held to the best published, the prediction ranges beside its
// times, GPU-hours, costs and memory, and the checks of a calibration file
// against the run it is applied to. The numbers are commands/train_confidence.hpp's.
#pragma once
#include <optional>
#include <string>

#include "commands/train_confidence.hpp"
#include "report/report.hpp"

namespace gpuplan::train_detail {

// `shown_mfu`: the MFU the report's numbers are solved at (the median of its distribution).
Note capped_mfu_note(const MfuCheck& m, const GpuSpec& gpu, double shown_mfu);

// Ranges for the rows the report shows: time and GPU-hours, costs, the
// layout's step and throughput, and the peak memory. Every time row is
// solved at the median MFU; its range ends and its physics follow from the
// distribution's other MFUs (a time scales as 1 / MFU). Memory takes the
// train_memory group's range, centred as the interval table says.
void add_train_ranges(Report& rep, const Confidence& c, const std::optional<MfuDistribution>& mfu);

// Where a calibration fitted on one model, GPU or layout is applied to
// another: the blocking notes (model, GPU) and the warnings (layout).
// `planned_layout`: the layout the report plans, in Calibration::layout's words
// (empty: none planned).
void check_calibration(const Calibration& cal, const std::string& model_name, const GpuSpec& gpu, const std::string& planned_layout, Report& rep);

}  // namespace gpuplan::train_detail
