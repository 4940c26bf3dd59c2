// The honest-budget numbers of `gpuplan train` (issue 15): the plausibility
// check of a predicted MFU against the best published, the sizing factor for a
// confidence and the distribution of a predicted MFU. Their rows and notes are
// in report/train_confidence_rows.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/intervals.hpp"
#include "gpuplan/published_mfu.hpp"
#include "gpuplan/train_estimate.hpp"

namespace gpuplan::train_detail {

using Confidence = TrainConfidence;  // train_estimate.hpp
Confidence train_confidence(const TrainRequest& r, const ModelSpec* model, const GpuSpec& gpu);

using MfuCheck = gpuplan::MfuCheck;  // train_estimate.hpp
MfuCheck check_mfu(double predicted, const GpuSpec& gpu, Precision precision);
// An MFU derived from the raw prediction, held to the same cap.
double capped(const MfuCheck& m, double mfu);
// The MFU at probability p of the time factor: raw / factor(p), held to the cap.
double mfu_at(const Confidence& c, const MfuCheck& m, double p);
// The median, the interval's ends and the physics of a predicted MFU.
MfuDistribution mfu_distribution(const Confidence& c, const MfuCheck& m);

}  // namespace gpuplan::train_detail
