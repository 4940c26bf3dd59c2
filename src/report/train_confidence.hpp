// The honest-budget parts of `gpuplan train` (issue 15), kept apart from the
// report's assembly: the plausibility check of a predicted MFU, the
// prediction ranges of its times, GPU-hours, costs and memory, the sizing
// factor for a confidence, and the checks of a calibration file against the
// run it is applied to.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/intervals.hpp"
#include "gpuplan/published_mfu.hpp"
#include "gpuplan/report.hpp"
#include "gpuplan/train_report.hpp"

namespace gpuplan::train_detail {

using Confidence = TrainConfidence;  // train_estimate.hpp
Confidence train_confidence(const TrainRequest& r, const GpuSpec& gpu);

using MfuCheck = gpuplan::MfuCheck;  // train_estimate.hpp
MfuCheck check_mfu(double predicted, const GpuSpec& gpu, Precision precision);
// An MFU derived from the raw prediction, held to the same cap.
double capped(const MfuCheck& m, double mfu);
Note capped_mfu_note(const MfuCheck& m, const GpuSpec& gpu);

// Ranges for the rows the report shows: time and GPU-hours, costs, the
// layout's step and throughput, and the peak memory. The time range is of
// the model's raw prediction; `cap_ratio` = used / raw MFU (< 1 where the
// published best capped it) moves it onto the capped figures shown, and no
// end of it is faster than the cap allows.
void add_train_ranges(Report& rep, const Confidence& c, bool time_predicted, double cap_ratio);

// Where a calibration fitted on one model, GPU or layout is applied to
// another: the blocking notes (model, GPU) and the warnings (layout).
// `planned_layout`: the layout the report plans, in Calibration::layout's words
// (empty: none planned).
void check_calibration(const Calibration& cal, const std::string& model_name, const GpuSpec& gpu, const std::string& planned_layout, Report& rep);

}  // namespace gpuplan::train_detail
