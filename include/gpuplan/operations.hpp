// Checkpoints and failures of a whole run, combined: the estimator that
// `gpuplan train` and the train_total validation both use.
#pragma once
#include <optional>

#include "gpuplan/checkpoint.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/reliability.hpp"

namespace gpuplan {

// Aggregate checkpoint write bandwidth grows with the cluster: BLOOM wrote
// 2.3 TB in 40 s from 384 A100s (57 GB/s, 0.15 GB/s per GPU; Stas Bekman,
// ml-engineering, fault-tolerance chapter) and Llama 3's storage sustained
// 2 TB/s for 16,384 H100s (0.12 GB/s per GPU; Dubey et al. 2024 §3.3.1).
inline constexpr double kStorageBytesPerSPerGpu = 0.125e9;

struct OperationsSettings {
  double gpu_mtbf_hours = kLlama3GpuMtbfHours;  // per GPU, all causes
  double restart_s = 15 * 60;                   // detect, reschedule, reload
  double storage_bytes_per_s_per_gpu = kStorageBytesPerSPerGpu;
  std::optional<double> storage_bytes_per_s;    // fixes the aggregate instead
  std::optional<double> checkpoint_interval_s;  // default: Daly's optimum
  double spot_node_mtbf_hours = 72;             // mean time between preemptions of one spot node
};

struct OperationsEstimate {
  CheckpointEstimate checkpoint;
  ReliabilityEstimate reliability;
};

// `model` may be null (a FLOPs-per-sample workload: nothing to checkpoint).
// `extra_interruptions_per_hour` adds e.g. spot preemptions. Throws InputError
// when the job would fail faster than it can checkpoint and restart.
OperationsEstimate estimate_operations(const ModelSpec* model, const Layout& layout, const GpuSpec& gpu, int64_t gpus,
                                       double useful_compute_s, const OperationsSettings& settings,
                                       double extra_interruptions_per_hour = 0);

}  // namespace gpuplan
