// Failures, checkpoints and restarts: what a run really takes beyond its FLOPs.
#pragma once
#include <optional>

namespace gpuplan {

// Llama 3 405B pre-training (Dubey et al. 2024, "The Llama 3 Herd of Models", §3.3.4):
// 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s, so one GPU's
// all-cause interruption MTBF is 16,384 × 54 × 24 h / 419 ≈ 50,700 GPU-hours.
inline constexpr double kLlama3GpuMtbfHours = 16384.0 * 54.0 * 24.0 / 419.0;

struct ReliabilityInput {
  double gpus = 1;
  double useful_compute_s = 0;          // failure-free wall-clock of the run
  double gpu_mtbf_hours = kLlama3GpuMtbfHours;  // per GPU, all causes that stop the job
  double checkpoint_write_s = 60;       // time the job is paused to write one checkpoint
  double restart_s = 15 * 60;           // detect, reschedule, reload after an interruption
  std::optional<double> checkpoint_interval_s;  // default: Daly's optimum
  double extra_interruptions_per_hour = 0;      // e.g. spot preemptions of the whole job
};

struct ReliabilityEstimate {
  double job_mtbf_s = 0;                // gpu MTBF / GPUs: any GPU's failure stops the job
  double young_interval_s = 0;          // Young 1974: sqrt(2·δ·M)
  double daly_interval_s = 0;           // Daly 2006, higher order
  double interval_s = 0;                // the one used
  double checkpoint_overhead_s = 0;     // δ per interval over the run
  double interruptions = 0;             // expected over the whole wall-clock
  double lost_per_interruption_s = 0;   // half an interval of recomputed work + restart
  double lost_s = 0;
  double wall_s = 0;                    // useful + checkpoints + losses
  double effective_time_ratio = 0;      // useful / wall ("ETTR", ByteRobust; Llama 3 reports > 90%)
  bool progresses = true;               // false when losses per failure exceed the MTBF
};

double young_interval_s(double checkpoint_write_s, double job_mtbf_s);
double daly_interval_s(double checkpoint_write_s, double job_mtbf_s);

// Throws InputError on non-positive inputs.
ReliabilityEstimate estimate_reliability(const ReliabilityInput& in);

}  // namespace gpuplan
