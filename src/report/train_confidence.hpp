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
// `shown_mfu`: the MFU the report's numbers are solved at (the median of its distribution).
Note capped_mfu_note(const MfuCheck& m, const GpuSpec& gpu, double shown_mfu);

// The MFU at probability p of the time factor: raw / factor(p), held to the cap.
double mfu_at(const Confidence& c, const MfuCheck& m, double p);
// The median, the interval's ends and the physics of a predicted MFU.
MfuDistribution mfu_distribution(const Confidence& c, const MfuCheck& m);

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
