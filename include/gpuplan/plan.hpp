// The planner (issue 4): every valid parallel layout of a model on a cluster,
// filtered by the memory model and ranked by the step-time model. The planner
// holds no physics of its own; it loops over estimate_memory and
// estimate_step_time.
#pragma once
#include <optional>

#include "gpuplan/market.hpp"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/framework.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/step_time.hpp"

namespace gpuplan {

enum class PlanRank { kTime, kCost };

struct PlanRequest {
  ModelSpec model;
  // Prices for cost ranking and cost columns: the default listings of this
  // market only (unset: the US listing, else the China one); shown in `currency`
  // (unset: the market's). A GPU the market does not list gets no cost.
  std::optional<Market> market;
  std::optional<Currency> currency;
  std::vector<GpuSpec> gpus;            // one or more GPU types, compared side by side
  std::vector<int64_t> gpu_counts;      // one or more cluster sizes (each evaluated)
  int64_t seq_len = 2048;
  int64_t global_batch = 0;             // sequences per step; 0: ~4M tokens, odd part of the GPU count × 2^k (plan.cpp)
  Precision precision = Precision::kBf16;
  Optimizer optimizer = Optimizer::kAdamW;
  // Pinned dimensions: 0 (or unset) lets the planner choose.
  int tp = 0, pp = 0, dp = 0, cp = 0, ep = 0, vp = 0;
  // Pinned uneven pipeline split (Layout::first_stage_layers / last_stage_layers):
  // only pipelines it is valid for are searched. Unset: the even split, or for
  // a pp (pp·vp) that does not divide the layers, a few Megatron-valid uneven ones.
  std::optional<int> first_stage_layers, last_stage_layers;
  // Pinned Megatron stage layout (Layout::pipeline_layout): only pp·vp equal to
  // its stage count is searched. Empty: the split above, or the framework
  // recipe's layout for the model (profile pipeline_layouts) where it has one.
  std::string pipeline_layout;
  int etp = 0;                          // pinned expert TP; 0: the framework's default (the run's tp unless folded)
  int64_t micro_batch = 0;
  std::optional<int> zero_stage;
  std::optional<Recompute> recompute;
  std::optional<bool> sequence_parallel;
  // The software stack: the planner searches only layouts it can run and
  // gives each its defaults (apply_framework); nullptr: the generic profile.
  const FrameworkProfile* framework = nullptr;
  RunSettings settings;                 // stated switches over the framework's defaults
  bool zero3_per_module = false;        // force DeepSpeed-style ZeRO-3 gathers, Layout::zero3_per_module
  // The recipe every candidate starts from beyond sequence, batch, precision
  // and optimizer (fine-tuning method and rank, offload, pure bf16); its
  // parallel degrees, micro-batch, ZeRO stage and recompute are the search's.
  std::optional<Layout> base_layout;
  bool cross_node_tp = false;           // allow TP beyond one node (NVLink domain)
  int max_micro_batch = 64;
  int top_k = 5;
  PlanRank rank_by = PlanRank::kTime;
  StepTimeOptions step_options;
  MemoryOptions memory_options;
  // Layouts to place in the ranking (a published layout, the one a team runs
  // now): each is checked against memory and, when it fits, ranked among the
  // searched layouts of every group whose GPU count it uses (layout.gpus()).
  // It need not be one the search enumerates (sequence parallelism off, fp16).
  std::vector<Layout> references;
};

struct PlanCandidate {
  Layout layout;
  StepTime time;
  MemoryBreakdown memory;
  double cost_per_step_usd = 0;         // step time × GPUs × default on-demand price (0: no price)
};

// Where a reference layout ranks among the searched layouts that fit.
struct PlanReference {
  Layout layout;
  MemoryBreakdown memory;
  StepTime time;                        // timed even when it does not fit
  bool fits = false;
  int64_t rank = 0;                     // 1 + searched fitting layouts strictly faster (cheaper); 0 when it does not fit
  int64_t of = 0;                       // searched layouts that fit (the rank is out of of + 1 when it is not among them)
  double vs_best = 0;                   // its score / the winner's score - 1 (0.05: 5% slower than the best)
};

// A part of a step, as the planner compares two layouts: StepTime's
// breakdown with the pipeline's, the data-parallel and the context/expert
// collectives each taken together.
enum class StepPart {
  kNone,         // no part (no runner-up, or the winner is faster in none)
  kCompute,      // compute_s: GEMM efficiency, recompute
  kTpComm,       // tp_comm_s
  kPipeline,     // bubble_s + pp_comm_s
  kDpComm,       // dp_comm_s + zero3_comm_s
  kCpEpComm,     // cp_comm_s + ep_comm_s
  kOptimizer,    // optimizer_s
};

// Why the winner (PlanGroup::top[0]) wins, as values; the report says it in
// words (plan_report.cpp) with the two layouts' own numbers.
struct PlanWhy {
  size_t runner_up = 0;                 // index in top of the layout it is compared with; 0: none (one layout ranked)
  StepPart saves_most = StepPart::kNone;  // the part where it is ahead of the runner-up by the most seconds
  double saved_s = 0;                   // those seconds per step (> 0 where saves_most is set)
};

// One GPU type at one count.
struct PlanGroup {
  std::string gpu_id;
  std::string gpu_name;
  int64_t gpus = 0;
  int64_t global_batch = 0;
  int64_t evaluated = 0;                // layouts passed to the memory model
  int64_t memory_checked = 0;           // of which the memory model was asked about (the rest were dominated by a leaner layout that failed)
  int64_t fitting = 0;                  // of which fit in memory and were timed
  double usd_per_gpu_hour = 0;          // default on-demand price (0: none in data/prices.json)
  std::vector<PlanCandidate> top;       // best first, at most top_k
  // The fastest (cheapest) layout the search met that fits the GPU but not
  // the safety margin, when it beats top[0] or nothing keeps the margin: a
  // published run of a tuned stack often runs at 93-97% of HBM (Megatron-
  // Bridge's DeepSeek-V3 H100 recipe, DeepSeek's own stated layout). Only
  // layouts the margin search met are timed (a heavier variant of one that
  // missed the margin is not), and only while the search has work to spare.
  std::optional<PlanCandidate> over_margin;
  std::vector<PlanReference> references;  // request.references that use this many GPUs, in request order
  PlanWhy why;                          // why the winner wins (when top is not empty)
};

struct PlanResult {
  std::vector<PlanGroup> groups;        // GPU type × count, in request order
  double search_s = 0;
};

// Throws InputError when a pin is invalid (a TP that does not divide the heads, ...).
PlanResult plan(const PlanRequest& request);

// A layout carrying the request's recipe (sequence, batch, precision, optimizer,
// attention kernel, eager element-wise ops, ZeRO-3 granularity) and no parallel
// degrees yet: what every searched or compared layout starts from.
Layout plan_recipe_layout(const PlanRequest& request);

// The request's framework (the generic profile when it names none).
const FrameworkProfile& plan_framework(const PlanRequest& request);

// Enumerates the valid layouts of one group without evaluating them (for tests and benchmarks).
std::vector<Layout> enumerate_layouts(const PlanRequest& request, const GpuSpec& gpu, int64_t gpus);

}  // namespace gpuplan
