// Checkpoint size and write time.
#pragma once
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

struct CheckpointEstimate {
  double weights_bytes = 0;     // model weights at training precision (bf16: 2 bytes/param)
  double optimizer_bytes = 0;   // fp32 master weights and moments
  double total_bytes = 0;       // what a resumable checkpoint holds
  double per_rank_bytes = 0;    // the largest shard one rank writes
  double writers = 0;           // ranks writing in parallel
  double write_s = 0;           // total / aggregate bandwidth
};

// `storage_bytes_per_s` is the aggregate write bandwidth of the file system;
// the write is also limited by each node's network (per-GPU scale-out × GPUs).
CheckpointEstimate estimate_checkpoint(const ModelSpec& model, const Layout& layout, double storage_bytes_per_s,
                                       double scaleout_bytes_per_s_per_gpu);

// Bytes per parameter of optimizer state (master weights included) for a recipe.
double optimizer_state_bytes_per_param(Optimizer optimizer);

}  // namespace gpuplan
