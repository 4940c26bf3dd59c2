// Time, GPU count and utilisation of a training run: given any two of
// {GPU count, deadline, MFU}, solve the third.
#pragma once
#include <cstdint>
#include <optional>

namespace gpuplan {

struct RunInput {
  double total_model_flop = 0;       // model FLOPs of the whole run (what MFU counts)
  double peak_flop_per_s = 0;        // dense peak of one GPU at the training precision
  std::optional<double> gpus;
  std::optional<double> deadline_s;
  std::optional<double> mfu;
  int gpus_per_node = 8;
  bool round_to_nodes = true;        // a solved GPU count is rounded up to whole nodes
  // Planning margins, each a fraction of the pure compute time, added on top
  // of it (seed 004: +10–30% communication, +20% fault budget).
  double comm_margin = 0.0;
  double fault_budget = 0.20;
};

struct RunEstimate {
  double gpus_exact = 0;             // before rounding (only when solved)
  int64_t gpus = 0;
  int64_t nodes = 0;                 // ceil(gpus / gpus_per_node)
  double mfu = 0;
  bool gpus_solved = false;
  bool mfu_solved = false;
  double compute_s = 0;              // wall-clock of pure compute at this MFU
  double comm_margin_s = 0;
  double fault_budget_s = 0;
  double wall_s = 0;                 // compute + margins
  double gpu_hours_compute = 0;
  double gpu_hours_comm_margin = 0;
  double gpu_hours_fault_budget = 0;
  double gpu_hours_total = 0;
  double gpu_days_total = 0;         // "card-days": GPU-hours / 24
  double effective_flop_per_s = 0;   // whole cluster, achieved
  std::optional<double> deadline_s;
  bool deadline_met = true;
  double deadline_slack_s = 0;       // deadline - wall (negative when missed)
};

// Throws InputError when fewer than two of the three are given, or when the
// solved MFU would exceed 1.
RunEstimate solve_run(const RunInput& in);

}  // namespace gpuplan
