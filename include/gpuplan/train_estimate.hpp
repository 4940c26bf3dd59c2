// `gpuplan train` as numbers (issue 17): what a training run needs and costs,
// computed by estimate_train from the estimators (FLOPs, the planner's layout,
// run solver, reliability, prices) with no text. train_report renders it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibration.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/intervals.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/operations.hpp"
#include "gpuplan/ownership.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/published_mfu.hpp"
#include "gpuplan/training_run.hpp"
#include "gpuplan/typed_inputs.hpp"        // TypedInput
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
  std::vector<Phase> phases;              // extra priced phases (the CLI's --phase NAME:GPU:COUNT:DURATION[:PRICE])
  // Layout used for the memory verdict, the predicted MFU (when --mfu is not
  // given) and launch configs: the planner's fastest layout that fits, unless
  // `layout_search` is false (then only --mfu-based timing, no memory verdict).
  bool layout_search = true;
  Recompute layout_recompute_pin = Recompute::kNone;
  bool pin_recompute = false;
  // Pinned degrees, micro-batch, ZeRO stage and stage layout for that search
  // (PlanRequest's fields of the same names; 0 or unset: the planner's choice).
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0, etp = 0;
  int64_t micro_batch = 0;
  std::optional<int> zero_stage;
  std::string pipeline_layout;
  // Memory the layout search keeps free on every GPU (MemoryOptions::safety_margin).
  // When no layout keeps it, the fastest that fits the GPU is used and said so.
  double safety_margin = 0.15;
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

// The prediction-interval settings of a run (issue 15) and the error ranges
// read for it from the shipped table.
struct TrainConfidence {
  double interval = 0.8;
  double confidence = 0.8;
  PredictionContext time_ctx;    // train_total, dense or MoE: the gap whole published runs show
  PredictionContext memory_ctx;  // train_memory, dense or MoE
  std::optional<ErrorRange> time_range;
  std::optional<ErrorRange> memory_range;
};

// A predicted MFU held to the best published for the GPU class.
struct MfuCheck {
  double raw = 0;     // the step-time model's
  double used = 0;    // min(raw, best published)
  bool capped = false;
  PublishedMfu published;
};

// A predicted MFU as a calibrated distribution (issue 25): the step-time
// model's raw figure times the time-factor quantiles of published runs of
// this kind (TrainConfidence::time_ctx), each held to the published cap.
// A time scales as 1 / MFU, so `slow` is the range's long-time end.
struct MfuDistribution {
  double median = 0;   // the central number every predicted row is solved at
  double slow = 0;     // at the (1 + interval) / 2 time quantile
  double fast = 0;     // at the (1 − interval) / 2 time quantile
  double physics = 0;  // the step-time model alone, uncapped ("ideal-stack physics")
  double level = 0.8;
};

// One --phase, priced in the run's currency.
struct PhaseCost {
  std::string name;
  std::string gpu_id;
  double gpus = 0;
  double hours = 0;
  double gpu_hours = 0;
  double total = 0;       // at the phase's (low) price
  double total_high = 0;  // at its high price (== total unless a range)
};

// The run's cost in one currency: each GPU-hour line times the (low end of the) price.
struct TrainCost {
  Currency currency = Currency::kUsd;
  double per_gpu_hour = 0;
  std::optional<double> per_gpu_hour_high;  // a --price range's high end
  double compute = 0;
  double comm_margin = 0;
  double fault_budget = 0;
  std::optional<double> spot_overhead;      // --spot only
  double run = 0;                           // the main run
  std::vector<PhaseCost> phases;
  double total = 0;                         // run + phases
  std::optional<double> total_at_price_high;
};

// One GPU count the deadline search tried (issue 25), in the order tried.
struct SizingStep {
  int64_t gpus = 0;
  double wall_s = 0;       // wall-clock at the asked confidence, failures included (0: not evaluated)
  double mfu = 0;          // the MFU at that confidence on the planner's best layout there
  bool fits = false;       // a layout fits at the run's batch
};

struct TrainEstimate {
  ModelSpec model;                       // none (have_model false) with --flops-per-sample alone
  bool have_model = false;
  GpuSpec gpu;
  int gpus_per_node = 0;
  double peak_flop_per_s = 0;            // dense, at the request's precision
  Workload workload;
  bool seq_len_defaulted = false;        // no --seq-len: default_seq_len(model) was taken
  // FLOPs.
  std::optional<FlopsPerToken> flops;    // absent with --flops-per-sample
  // The recompute whose extra forward `flops` counts: the stated one, or
  // unstated, that of the layout shown (the planner's choice).
  Recompute recompute_counted = Recompute::kNone;
  double flop_per_token_used = 0;        // 6·N or the exact count, whichever times the run
  double total_model_flop = 0;
  double total_six_n_flop = 0;
  // Layout and MFU.
  bool can_plan = false;                 // an architecture, and the layout search on
  std::optional<PlanCandidate> layout;   // the planner's fastest that fits at run.gpus
  // No layout keeps the safety margin free: `layout` is the fastest that fits
  // the GPU without it (a stated layout run as its team runs it).
  bool layout_over_margin = false;
  // A layout faster than `layout` that fits the GPU but not the margin.
  std::optional<PlanCandidate> faster_over_margin;
  // The release's benchmark recipe the layout search took for this model and
  // GPU (apply_perf_recipe's note; empty: none).
  std::vector<Bilingual> recipe_notes;
  std::optional<double> layout_mfu;      // that layout's MFU on flop_per_token_used (uncapped)
  std::optional<double> mfu;             // the MFU the run was solved with (given, from TFLOP/s or predicted); unset: solved
  bool mfu_predicted = false;            // from the layout's step time, not given
  std::optional<MfuCheck> mfu_check;     // the predicted MFU against the best published
  std::optional<MfuDistribution> mfu_distribution;  // predicted: median, range ends, physics (mfu == its median)
  TrainConfidence confidence;
  std::optional<int64_t> gpus_at_median;     // a --deadline run sized at a confidence: the count at the median
  std::optional<int64_t> gpus_model_alone;   // and on the step-time model's own estimate (the physics)
  std::optional<int64_t> gpus_fast, gpus_slow;  // the counts at the range's ends (fast: fewest GPUs)
  // A predicted run with a deadline: the wall-clock at the asked confidence,
  // against which run.deadline_met and run.deadline_slack_s are judged.
  std::optional<double> wall_s_at_confidence;
  std::vector<SizingStep> sizing_trace;       // --deadline without --gpus: the counts tried, ascending
  std::optional<double> batch_rule_tokens;    // no batch given: DeepSeek LLM's B_opt for this run, tokens
  std::optional<double> batch_rule_compute_flop;  // the C it was read at: non-embedding FLOPs per token × tokens, FLOPs
  // Time, GPU-hours and reliability.
  RunEstimate run;
  double fault_budget = 0;               // fraction of compute added for failures, checkpoints, restarts
  OperationsEstimate operations;
  std::optional<OperationsEstimate> spot_operations;
  double spot_overhead_gpu_hours = 0;    // GPU-hours spot preemptions add (0 unless --spot)
  double run_gpu_hours = 0;              // run.gpu_hours_total plus spot_overhead_gpu_hours
  // Money: absent where no price is known for the GPU and none was given.
  std::optional<Price> price;
  std::optional<TrainCost> cost;
  RentOptions rent;
  bool spot_left_out = false;            // preemptions would multiply the GPU-hours by more than 11
};

// Validates the request (gpuplan::InputError naming the flag) and estimates the run.
TrainEstimate estimate_train(const TrainRequest& request);

}  // namespace gpuplan
