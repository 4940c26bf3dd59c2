// `gpuplan train` as a Report: the TrainEstimate (train_estimate.hpp) in
// bilingual rows, with its assumptions and warnings. The CLI and the web
// server both call this.
#pragma once
#include "gpuplan/model.hpp"
#include "report/report.hpp"
#include "gpuplan/train_estimate.hpp"

namespace gpuplan {

// The estimate of `request` (estimate_train, train_estimate.hpp) as the report.
Report train_report(const TrainRequest& request, const TrainEstimate& estimate);

// Echo of the model section shared by several commands.
Section model_section(const ModelSpec& model);

}  // namespace gpuplan
