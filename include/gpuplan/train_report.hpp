// `gpuplan train`: compute, time, GPU count and cost of a training run,
// assembled from the estimators into one Report. The CLI and the web server
// both call this.
#pragma once
#include "gpuplan/framework.hpp"
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/operations.hpp"
#include "gpuplan/ownership.hpp"
#include "gpuplan/report.hpp"
#include "gpuplan/typed_inputs.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

struct TrainRequest {
  std::string model;                      // catalog id, alias or config.json path
  std::optional<double> params;           // or a bare parameter count
  std::optional<ModelSpec> model_spec;    // or a model already built (the web API's pasted config.json)
  WorkloadInput workload;
  bool force_context = false;             // a seq_len beyond the model's max_position_embeddings is meant
  std::optional<double> flop_per_sample;  // non-LLM workloads: FLOPs of one training sample
  std::string gpu;
  std::optional<double> gpus;
  std::optional<double> deadline_s;
  std::optional<double> mfu;
  std::optional<double> tflops_per_gpu;   // achieved TFLOP/s per GPU, instead of --mfu
  Precision precision = Precision::kBf16;
  Recompute recompute = Recompute::kNone;
  bool causal_half = false;
  bool six_n = false;                     // time the run with 6·N instead of the exact count
  // Unset: computed from failures, checkpoints and restarts (see Operations);
  // a number fixes it (seed 004 uses 0.2).
  std::optional<double> fault_budget;
  double comm_margin = 0.0;
  OperationsSettings ops;  // failures, restarts, checkpoint storage, spot preemptions
  std::optional<int> gpus_per_node;
  PriceInput price;
  // Set: add the rent-or-own comparison (--compare-own) with these overrides of the market's defaults.
  std::optional<OwnershipOverrides> own;
  std::vector<std::string> phases;        // "NAME:GPU:COUNT:DURATION[:PRICE]"
  // Layout used for the memory verdict, the predicted MFU (when --mfu is not
  // given) and launch configs: the planner's fastest layout that fits, unless
  // `layout_search` is false (then only --mfu-based timing, no memory verdict).
  bool layout_search = true;
  Recompute layout_recompute_pin = Recompute::kNone;
  bool pin_recompute = false;
  // Factors fitted to a trial run (gpuplan calibrate); applied to the layout
  // search's step-time and memory models.
  std::optional<Calibration> calibration;
  // The software stack the layout search plans for (nullptr: generic) and the
  // settings stated over its defaults.
  const FrameworkProfile* framework = nullptr;
  RunSettings settings;
  // The inputs as typed and read ("--tokens 1万亿" → 1e12), shown first.
  std::vector<TypedInput> typed_inputs;
  // Prediction ranges (issue 15): the level of the ranges shown beside
  // predicted times, GPU-hours, costs and memory, and the confidence a
  // --deadline run is sized to (0.5: the median estimate).
  double interval = 0.8;
  double confidence = 0.8;
};

Report train_report(const TrainRequest& request);

// Echo of the model section shared by several commands.
Section model_section(const ModelSpec& model);

}  // namespace gpuplan
